/**
 * The export (issue 39, docs/migration.md): the SaaS's definitions, tenants, users and memberships as the import
 * file's rows (shared/schemas/migration.ts), so that an import into another stack, or another SaaS of this one,
 * rebuilds them. Every row's `external_id` is its id here. A user's password goes out as the import reads it:
 * the SRP salt and verifier with the pool name and user id that went into it (algorithm `srp`), or the imported
 * hash of a user who has not signed in since. The new stack checks it at the user's first sign-in and makes its
 * own verifier, so users keep their passwords. It goes out only sealed under the operator's seal key
 * (password-seal.ts); without one it stays behind and the user goes out with no password (counted, so the
 * operator knows how many will set one through a mailed link): a file without a key holds no verifier.
 *
 * A user's MFA state and passkeys go with the user. An authenticator app's seed goes out only sealed under the
 * operator's seal key (shared/crypto/export-seal.ts); without one, a user with the app turned on goes out
 * without the seed, and the import refuses that row rather than turn the second factor off.
 *
 * The SaaS's saved settings (setting-rows.ts), its pricing catalogue under the ids it has here (so tenants'
 * plan ids name the same plans there) and its invitations still open go with them, then each tenant's own
 * identity providers, domains and SCIM set-up (enterprise-rows.ts).
 */
import type { ImportedPasswordHash } from '../../crypto/imported-hash.js';
import { invalid } from '../../errors.js';
import { MAX_EXPORT_BYTES, type ImportRow, type UserRow } from '../../schemas/migration.js';
import type { AttributeKind, DefinitionRepository } from '../configuration/definitions.js';
import type { TenantRepository } from '../tenants/tenants.js';
import type { MembershipRepository } from '../tenants/tenant-users.js';
import { totpSecretContext, type UserRecord, type UserRepository } from '../users/users.js';
import { sealForExport } from '../../crypto/export-seal.js';
import { sealPasswordHash } from './password-seal.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { PasskeyRepository } from '../sign-in/passkeys.js';
import type { Catalogue } from '../pricing/catalogue-records.js';
import type { InvitationRepository } from '../tenants/invitations.js';
import { nowSeconds } from '../../clock.js';
import { settingRows, type SettingPorts } from './setting-rows.js';
import { integrationRows, type IntegrationPorts } from './integration-rows.js';
import { enterpriseRows, type EnterprisePorts } from './enterprise-rows.js';

export interface ExportDeps {
  users: Pick<UserRepository, 'list' | 'getMany'>;
  tenants: Pick<TenantRepository, 'list'>;
  memberships: Pick<MembershipRepository, 'everyMember'>;
  definitions: Pick<DefinitionRepository, 'listAttributes' | 'listRoles' | 'listEnvs'>;
  poolName(saasId: string): Promise<string>;
  passkeys: Pick<PasskeyRepository, 'list'>;
  /** Opens the users' TOTP seeds, to seal them again under the operator's key. */
  box: SecretBox;
  settings: SettingPorts;
  catalogue: { records(saasId: string): Promise<Catalogue> };
  invitations: Pick<InvitationRepository, 'list'>;
  integration: IntegrationPorts;
  enterprise: EnterprisePorts;
}

export interface ExportOptions {
  /** The operator's seal key (export-seal.ts sealKeyOf): TOTP seeds and the provider's secret go out sealed under it, else not at all. */
  sealKey?: Buffer | undefined;
  /** The SaaS's API keys too, their secrets sealed (the operator's choice; integration-rows.ts): only with a sealKey. */
  apiKeys?: boolean;
  /** Told of each user whose password stays behind for want of a sealKey. */
  onPasswordWithheld?(): void;
}

/** Profiles read per batch: a full profile carries its verifier, which the lists leave out. */
const USER_BATCH = 100;
const KINDS: readonly AttributeKind[] = ['user', 'saas_user', 'tenant'];

/** The password as the import takes it back; none for a user who never had one. */
export function exportedPassword(user: UserRecord, poolName: string): ImportedPasswordHash | undefined {
  if (user.imported_password) return user.imported_password;
  const { salt, verifier } = user.password;
  return verifier ? { algorithm: 'srp', salt, verifier, pool_name: poolName, user_id: user.id } : undefined;
}

function userRow(user: UserRecord, poolName: string, extra: Pick<UserRow, 'mfa' | 'passkeys'>, options: ExportOptions): UserRow {
  const password = exportedPassword(user, poolName);
  if (password && !options.sealKey) options.onPasswordWithheld?.();
  const password_hash = password && options.sealKey ? sealPasswordHash(options.sealKey, password, user.id) : undefined;
  return {
    type: 'user',
    external_id: user.id,
    ...(user.email ? { email: user.email } : { sign_in_id: user.sign_in_id }),
    ...(user.email_verified === false ? { email_verified: false } : {}),
    attributes: user.attributes,
    created_at: user.created_at,
    ...(password_hash ? { password_hash } : {}),
    ...extra,
  } as UserRow;
}

const byCreation = <T extends { created_at: number; id: string }>(items: readonly T[]) =>
  [...items].sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));

/** The catalogue as rows, each kind after what it names: tax rates, metering units, pricing units, menus, plans. */
function* catalogueRows(catalogue: Catalogue): Generator<ImportRow> {
  const described = (item: { name: string; display_name: string; description: string }) => ({
    name: item.name,
    display_name: item.display_name,
    description: item.description,
  });
  for (const { id, created_at, rev: _rev, ...item } of byCreation(catalogue.taxRates)) yield { type: 'tax_rate', id, created_at, item };
  for (const meter of byCreation(catalogue.meters)) {
    const { id, created_at, used, unit_name, aggregate_usage, display_name, description } = meter;
    yield { type: 'metering_unit', id, created_at, used, item: { unit_name, aggregate_usage, display_name, description } };
  }
  const meterNames = new Map(catalogue.meters.map((meter) => [meter.id, meter.unit_name]));
  for (const unit of byCreation(catalogue.units)) {
    const base = { ...described(unit), currency: unit.currency };
    const item =
      unit.type === 'fixed'
        ? { ...base, type: unit.type, unit_amount: unit.unit_amount ?? 0, recurring_interval: unit.recurring_interval }
        : {
            ...base,
            type: unit.type,
            upper_count: unit.upper_count ?? 0,
            metering_unit_name: meterNames.get(unit.metering_unit_id ?? '') ?? '',
            ...(unit.aggregate_usage ? { aggregate_usage: unit.aggregate_usage } : {}),
            recurring_interval: unit.recurring_interval,
            ...(unit.type === 'usage' ? { unit_amount: unit.unit_amount ?? 0 } : { tiers: unit.tiers ?? [] }),
          };
    yield { type: 'pricing_unit', id: unit.id, created_at: unit.created_at, used: unit.used, item } as ImportRow;
  }
  for (const menu of byCreation(catalogue.menus)) {
    yield { type: 'pricing_menu', id: menu.id, created_at: menu.created_at, used: menu.used, item: { ...described(menu), unit_ids: menu.unit_ids } };
  }
  for (const plan of byCreation(catalogue.plans)) {
    yield { type: 'pricing_plan', id: plan.id, created_at: plan.created_at, used: plan.used, item: { ...described(plan), menu_ids: plan.menu_ids } };
  }
}

/**
 * Rows counted by type, in the order first met, and the users whose password stayed behind: the export's report,
 * in the API's answer and the admin command's alike.
 */
export function rowTally() {
  const counts = new Map<string, number>();
  let rows = 0;
  let withheld = 0;
  const byType = () => (counts.size ? ` (${[...counts].map(([type, count]) => `${count} ${type}`).join(', ')})` : '');
  return {
    add(type: string) {
      rows++;
      counts.set(type, (counts.get(type) ?? 0) + 1);
    },
    /** ExportOptions.onPasswordWithheld. */
    passwordWithheld() {
      withheld++;
    },
    get rows() {
      return rows;
    },
    get passwordsWithheld() {
      return withheld;
    },
    byType: (): Record<string, number> => Object.fromEntries(counts),
    /** `84 rows exported (3 attribute, 1 role, …)`, and how many users go out without their password. */
    text: () =>
      `${rows} rows exported${byType()}` +
      (withheld ? `; ${withheld} users without their password (no seal key): they set one through a mailed link at the import` : ''),
  };
}

export class ExportService {
  constructor(private readonly deps: ExportDeps) {}

  /** The rows in the order the import needs them: what a row names comes before it. */
  async *rows(saasId: string, options: ExportOptions = {}): AsyncGenerator<ImportRow> {
    const { definitions } = this.deps;
    for (const kind of KINDS) {
      for (const attribute of await definitions.listAttributes(saasId, kind)) yield { type: 'attribute', kind, ...attribute };
    }
    for (const role of await definitions.listRoles(saasId)) yield { type: 'role', ...role };
    for (const env of await definitions.listEnvs(saasId)) yield { type: 'env', ...env };
    yield* settingRows(this.deps.settings, saasId, options.sealKey);
    yield* integrationRows(this.deps.integration, saasId, options.sealKey, options.apiKeys);
    const catalogue = await this.deps.catalogue.records(saasId);
    yield* catalogueRows(catalogue);
    const plans = new Set(catalogue.plans.map((plan) => plan.id));
    const tenants = await this.deps.tenants.list(saasId);
    for (const tenant of tenants) {
      yield {
        type: 'tenant',
        external_id: tenant.id,
        name: tenant.name,
        attributes: tenant.attributes,
        ...(tenant.back_office_staff_email ? { back_office_staff_email: tenant.back_office_staff_email } : {}),
        ...(tenant.passkeys_required ? { passkeys_required: true } : {}),
        ...(tenant.billing_info ? { billing_info: tenant.billing_info } : {}),
        ...(tenant.payment_customer ? { payment_customer: tenant.payment_customer } : {}),
        // A plan id from before the catalogue (or of a plan removed with it) names nothing the new stack could check.
        ...(tenant.plan_id && plans.has(tenant.plan_id) ? { plan_id: tenant.plan_id } : {}),
      };
    }
    const poolName = await this.deps.poolName(saasId);
    const ids = (await this.deps.users.list(saasId)).map((user) => user.id);
    for (let at = 0; at < ids.length; at += USER_BATCH) {
      const batch = ids.slice(at, at + USER_BATCH);
      const users = await this.deps.users.getMany(saasId, batch);
      for (const id of batch) {
        const user = users.get(id);
        if (user) yield userRow(user, poolName, await this.secondFactors(saasId, user, options.sealKey), options);
      }
    }
    for (const { membership } of await this.deps.memberships.everyMember(saasId)) {
      const envs = new Map<number, string[]>();
      for (const role of membership.roles) envs.set(role.env_id, [...(envs.get(role.env_id) ?? []), role.role_name]);
      yield {
        type: 'membership',
        user: membership.user_id,
        tenant: membership.tenant_id,
        envs: [...envs].map(([id, role_names]) => ({ id, role_names })),
        attributes: membership.attributes,
      };
    }
    const now = nowSeconds();
    for (const tenant of tenants) {
      for (const invitation of await this.deps.invitations.list(saasId, tenant.id)) {
        if (invitation.status !== 'pending' || invitation.expired_at <= now) continue;
        yield {
          type: 'invitation',
          id: invitation.id,
          tenant: tenant.id,
          inviter: invitation.inviter_id,
          email: invitation.email,
          envs: invitation.envs,
          created_at: invitation.created_at,
          expired_at: invitation.expired_at,
        };
      }
    }
    yield* enterpriseRows(this.deps.enterprise, saasId, tenants, options.sealKey);
  }

  /** The user's MFA state (the app's seed sealed under `sealKey`, when given) and passkeys, as the row carries them. */
  private async secondFactors(saasId: string, user: UserRecord, sealKey: Buffer | undefined): Promise<Pick<UserRow, 'mfa' | 'passkeys'>> {
    const { enabled, method, sealed_totp_secret } = user.mfa;
    const seed = sealKey && sealed_totp_secret ? await this.deps.box.open(sealed_totp_secret, totpSecretContext(saasId, user.id)) : undefined;
    const mfa = {
      enabled,
      ...(method ? { method } : {}),
      ...(seed !== undefined && sealKey ? { totp_secret: sealForExport(sealKey, seed, user.id) } : {}),
    };
    const passkeys = (await this.deps.passkeys.list(saasId, user.id)).map(({ id: _id, last_used_at: _used, ...passkey }) => passkey);
    return {
      ...(enabled || mfa.totp_secret ? { mfa } : {}),
      ...(passkeys.length > 0 ? { passkeys } : {}),
    };
  }

  /** The API's answer: the whole file, refused when larger than one answer may be (the admin command has no limit). */
  async answer(saasId: string): Promise<{ jsonl: string; rows: number; by_type: Record<string, number>; passwords_withheld: number }> {
    const lines: string[] = [];
    const tally = rowTally();
    let bytes = 0;
    for await (const row of this.rows(saasId, { onPasswordWithheld: () => tally.passwordWithheld() })) {
      tally.add(row.type);
      const line = JSON.stringify(row);
      bytes += Buffer.byteLength(line) + 1;
      if (bytes > MAX_EXPORT_BYTES) {
        throw invalid('export_too_large', `the export is over ${MAX_EXPORT_BYTES} bytes: run npm run admin -- export --saas ${saasId} instead`);
      }
      lines.push(line);
    }
    return {
      jsonl: lines.map((line) => `${line}\n`).join(''),
      rows: lines.length,
      by_type: tally.byType(),
      passwords_withheld: tally.passwordsWithheld,
    };
  }
}
