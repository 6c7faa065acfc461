/**
 * Each tenant's enterprise directory set-up in the export and the import (issue 39, docs/migration.md "Tenants'
 * own sign-in, domains and SCIM"): its SAML and OpenID Connect providers, its domains, its SCIM tokens and groups,
 * and what its directory provisioned on each member (shared/schemas/migration-enterprise.ts).
 *
 * - Secrets go out only sealed under the operator's seal key, bound to their row: the OpenID Connect client
 *   secret, and the SCIM tokens' SHA-256 (the directory's token goes on working, with nothing to reconfigure but
 *   the base URL). Without a key the row goes out without them and the import refuses it, as it does a sealed
 *   value it has no key for or that its key does not open: nothing of that row is written.
 * - A domain verified there is the tenant's here at once, so no other tenant can take it, with the same proof
 *   token (the TXT record the customer published proves it here too); its first use re-reads that record in DNS.
 * - A re-run changes nothing: each row is `unchanged` when the tenant has what it sets already (that, or
 *   something set there since, which is kept as it is), as a tenant row is.
 */
import type { Committer } from '../atomic.js';
import { invalid, notFound } from '../../errors.js';
import { openFromExport, sealForExport } from '../../crypto/export-seal.js';
import type {
  EnterpriseRow,
  ScimGroupRow,
  ScimMemberRow,
  ScimTokensRow,
  TenantDomainRow,
  TenantOidcRow,
} from '../../schemas/migration-enterprise.js';
import type { ScimRepository } from '../scim/scim-tokens.js';
import { parseIdpMetadata } from '../tenants/saml-metadata.js';
import type { TenantOidcService } from '../tenants/tenant-oidc.js';
import type { MembershipRepository } from '../tenants/tenant-users.js';
import type { TenantRecord, TenantRepository } from '../tenants/tenants.js';
import { MAX_CLAIMS_PER_TENANT, normalDomain, type DomainRepository } from '../tenants/verified-domains.js';
import type { UserRepository } from '../users/users.js';

export interface EnterprisePorts {
  tenants: Pick<TenantRepository, 'get' | 'patch'>;
  oidc: Pick<TenantOidcService, 'secret' | 'restore'>;
  domains: DomainRepository;
  scim: Pick<ScimRepository, 'tokens' | 'saveTokens' | 'groups' | 'groupCreateWrite'>;
  memberships: Pick<MembershipRepository, 'ofTenant' | 'get' | 'ofUser' | 'scimWrite'>;
  users: Pick<UserRepository, 'disabledWrite'>;
  roleExists(saasId: string, roleName: string): Promise<boolean>;
  /** Whether the SaaS has passkeys on: a tenant row requiring them is refused until it has. */
  passkeysEnabled(saasId: string): Promise<boolean>;
  committer: Committer;
}

type Outcome = 'imported' | 'unchanged';

/** What a sealed value is bound to: it opens on this row of this tenant only. */
const oidcBinding = (tenant: string) => `tenant_oidc.${tenant}`;
const scimBinding = (tenant: string, tokenId: string) => `scim_tokens.${tenant}.${tokenId}`;

/** The sealed value opened with the job's key, or a refusal naming the field and what to do. */
function opened(sealKey: Buffer | undefined, sealed: string | undefined, binding: string, field: string): string {
  if (sealed === undefined) throw invalid('seal_key_missing', `${field}: is left out; export with a seal key`);
  if (!sealKey) throw invalid('seal_key_missing', `${field}: is sealed; start the job with the seal_key of the export`);
  const value = openFromExport(sealKey, sealed, binding);
  if (value === undefined) throw invalid('invalid_secret', `${field}: does not open with the seal_key`);
  return value;
}

/**
 * The tenants' set-ups as rows, after the tenants, users and memberships they name (each tenant's external id is
 * its id here). Read strongly, as a change would be.
 */
export async function* enterpriseRows(
  ports: EnterprisePorts,
  saasId: string,
  tenants: readonly TenantRecord[],
  sealKey: Buffer | undefined,
): AsyncGenerator<EnterpriseRow> {
  for (const tenant of tenants) {
    if (tenant.saml) yield { type: 'tenant_saml', tenant: tenant.id, saml: tenant.saml };
    if (tenant.oidc) {
      const { sealed_secret, discovery_url, issuer, client_id, scopes, claims } = tenant.oidc;
      // Opened only to be sealed again: without a key the secret stays where it is.
      const secret = sealed_secret && sealKey ? await ports.oidc.secret(saasId, tenant.id, tenant.oidc) : undefined;
      const kept =
        sealed_secret === undefined
          ? { public_client: true as const }
          : sealKey && secret !== undefined
            ? { client_secret: sealForExport(sealKey, secret, oidcBinding(tenant.id)) }
            : {};
      yield { type: 'tenant_oidc', tenant: tenant.id, oidc: { discovery_url, issuer, client_id, ...kept, scopes, claims } };
    }
    for (const claim of await ports.domains.claims(saasId, tenant.id)) {
      const owner = await ports.domains.owner(saasId, claim.domain);
      yield {
        type: 'tenant_domain',
        tenant: tenant.id,
        domain: claim.domain,
        token: claim.token,
        created_at: claim.created_at,
        verified: owner?.tenant_id === tenant.id,
        ...(claim.verified_at !== undefined ? { verified_at: claim.verified_at } : {}),
        ...(claim.lapsed_at !== undefined ? { lapsed_at: claim.lapsed_at } : {}),
        ...(claim.jit_role ? { jit_role_name: claim.jit_role } : {}),
      };
    }
    const { tokens } = await ports.scim.tokens(saasId, tenant.id, true);
    if (tokens.length > 0) {
      yield {
        type: 'scim_tokens',
        tenant: tenant.id,
        tokens: tokens.map(({ id, hash, created_at }) => ({
          id,
          ...(sealKey ? { hash: sealForExport(sealKey, hash, scimBinding(tenant.id, id)) } : {}),
          created_at,
        })),
      };
    }
    for (const group of await ports.scim.groups(saasId, tenant.id)) yield { type: 'scim_group', tenant: tenant.id, ...group };
    for (const membership of await ports.memberships.ofTenant(saasId, tenant.id)) {
      if (membership.scim) yield { type: 'scim_member', tenant: tenant.id, user: membership.user_id, resource: membership.scim };
    }
  }
}

/**
 * Applies one row to the tenant (and member) its external ids name here; `ids` maps an external id to the id the
 * import gives it (external-id.ts).
 */
export async function applyEnterpriseRow(
  ports: EnterprisePorts,
  saasId: string,
  row: EnterpriseRow,
  sealKey: Buffer | undefined,
  ids: { tenant(external: string): string; user(external: string): string },
): Promise<Outcome> {
  const tenantId = ids.tenant(row.tenant);
  const tenant = await ports.tenants.get(saasId, tenantId);
  if (!tenant) throw notFound('tenant_not_found', `tenant: no tenant row ${row.tenant}`);
  switch (row.type) {
    case 'tenant_saml':
      if (tenant.saml) return 'unchanged';
      if (!row.saml.metadata_url && !row.saml.metadata_xml) throw invalid('invalid_parameter', 'saml: give metadata_url or metadata_xml');
      // As the API checks it: metadata this service cannot use would only fail each sign-in later.
      if (row.saml.metadata_xml) parseIdpMetadata(row.saml.metadata_xml, 'saml.metadata_xml');
      return (await ports.tenants.patch(saasId, tenantId, { saml: row.saml })) ? 'imported' : gone(row.tenant);
    case 'tenant_oidc':
      return applyOidc(ports, saasId, tenant, row, sealKey);
    case 'tenant_domain':
      return applyDomain(ports, saasId, tenantId, row);
    case 'scim_tokens':
      return applyTokens(ports, saasId, tenantId, row, sealKey);
    case 'scim_group':
      return applyGroup(ports, saasId, tenantId, row);
    case 'scim_member':
      return applyMember(ports, saasId, tenantId, ids.user(row.user), row);
  }
}

const gone = (tenant: string): never => {
  throw notFound('tenant_not_found', `tenant: no tenant row ${tenant}`);
};

async function applyOidc(ports: EnterprisePorts, saasId: string, tenant: TenantRecord, row: TenantOidcRow, sealKey: Buffer | undefined) {
  if (tenant.oidc) return 'unchanged';
  const { client_secret, public_client, ...settings } = row.oidc;
  if (public_client && client_secret !== undefined) throw invalid('invalid_parameter', 'oidc: a public_client has no client_secret');
  const secret = public_client ? undefined : opened(sealKey, client_secret, oidcBinding(row.tenant), 'oidc.client_secret');
  return (await ports.oidc.restore(saasId, tenant.id, settings, secret)) ? 'imported' : gone(row.tenant);
}

async function applyDomain(ports: EnterprisePorts, saasId: string, tenantId: string, row: TenantDomainRow): Promise<Outcome> {
  const domain = normalDomain(row.domain);
  if (domain !== row.domain) throw invalid('invalid_parameter', `domain: write it as ${domain}`, { field: 'domain' });
  const { domains } = ports;
  if (await domains.claim(saasId, tenantId, domain)) return 'unchanged';
  if ((await domains.claims(saasId, tenantId)).length >= MAX_CLAIMS_PER_TENANT)
    throw invalid('too_many_domains', `a tenant may claim at most ${MAX_CLAIMS_PER_TENANT} domains`);
  const role = row.jit_role_name;
  if (role !== undefined && !(await ports.roleExists(saasId, role)))
    throw invalid('invalid_parameter', `jit_role_name: no role named ${role}`, { field: 'jit_role_name' });
  const owner = await domains.owner(saasId, domain);
  // A deleted tenant's domain is nobody's (verified-domains.ts liveOwner).
  if (owner && owner.tenant_id !== tenantId && !(await ports.tenants.get(saasId, owner.tenant_id)))
    await domains.releaseOwnership(saasId, domain, owner.tenant_id);
  const refused = () => {
    throw invalid('domain_claimed', `domain: ${domain} is verified by another tenant of this SaaS; nothing of this row was written`);
  };
  if (row.verified) {
    // checked_at 0: the first address routed through it reads the proof in DNS again (RECHECK_SECONDS).
    const taken = await domains.takeOwnership(saasId, { domain, tenant_id: tenantId, checked_at: 0, ...(role ? { jit_role: role } : {}) });
    if (!taken) refused();
  } else if (owner && owner.tenant_id !== tenantId && (await ports.tenants.get(saasId, owner.tenant_id))) {
    refused();
  }
  await domains.saveClaim(saasId, {
    domain,
    tenant_id: tenantId,
    token: row.token,
    created_at: row.created_at,
    ...(row.verified ? { verified_at: row.verified_at ?? row.created_at } : row.lapsed_at !== undefined ? { lapsed_at: row.lapsed_at } : {}),
    ...(role ? { jit_role: role } : {}),
  });
  return 'imported';
}

async function applyTokens(ports: EnterprisePorts, saasId: string, tenantId: string, row: ScimTokensRow, sealKey: Buffer | undefined) {
  const tokens = row.tokens.map(({ id, hash, created_at }, i) => {
    const opened_ = opened(sealKey, hash, scimBinding(row.tenant, id), `tokens.${i}.hash`);
    if (!/^[0-9a-f]{64}$/.test(opened_)) throw invalid('invalid_secret', `tokens.${i}.hash: is not a SHA-256 in hex`);
    return { id, hash: opened_, created_at };
  });
  if (new Set(tokens.map((t) => t.id)).size !== tokens.length) throw invalid('invalid_parameter', 'tokens: each id once');
  // Written only where the tenant never had tokens: one made (or revoked) here since stays as it is.
  return (await ports.scim.saveTokens(saasId, tenantId, tokens, 0)) ? 'imported' : 'unchanged';
}

async function applyGroup(ports: EnterprisePorts, saasId: string, tenantId: string, row: ScimGroupRow): Promise<Outcome> {
  const { type: _type, tenant, ...group } = row;
  const outcome = await ports.committer.commit(ports.scim.groupCreateWrite(saasId, tenantId, group));
  if (outcome.committed) return 'imported';
  if (outcome.refusedBy === 'group_free') return 'unchanged';
  if (outcome.refusedBy === 'tenant_live') gone(tenant);
  if (outcome.refusedBy.startsWith('role_exists:')) throw invalid('invalid_parameter', `role_name: no role named ${row.role_name}`);
  throw new Error(`importing a SCIM group was refused by ${outcome.refusedBy}`);
}

/**
 * The member's SCIM resource, suspended when the directory said `active: false`; the user is disabled when no
 * membership of theirs is live (scim-directory.ts), so a person deprovisioned there signs in nowhere here.
 */
async function applyMember(ports: EnterprisePorts, saasId: string, tenantId: string, userId: string, row: ScimMemberRow): Promise<Outcome> {
  if (typeof row.resource.userName !== 'string' || row.resource.userName.trim() === '')
    throw invalid('invalid_parameter', 'resource.userName: is required');
  if (row.resource.active !== undefined && typeof row.resource.active !== 'boolean')
    throw invalid('invalid_parameter', 'resource.active: must be a boolean');
  const member = await ports.memberships.get(saasId, tenantId, userId);
  if (!member) throw notFound('member_not_found', `user: no membership of user row ${row.user} in tenant row ${row.tenant}`);
  if (member.membership.scim) return 'unchanged';
  const active = row.resource.active !== false;
  const others = active ? [] : (await ports.memberships.ofUser(saasId, member.user)).filter((m) => m.membership.tenant_id !== tenantId);
  const disable = !active && !member.user.disabled && others.every((m) => m.membership.suspended);
  const outcome = await ports.committer.commit(
    ports.memberships.scimWrite(saasId, tenantId, userId, row.resource),
    ...(disable ? [ports.users.disabledWrite(saasId, userId, true)] : []),
  );
  if (outcome.committed) return 'imported';
  throw notFound('member_not_found', `user: the membership of user row ${row.user} went while it was written (${outcome.refusedBy})`);
}
