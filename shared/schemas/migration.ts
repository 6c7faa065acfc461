/**
 * The import file's rows (JSON Lines, one object a line, docs/migration.md) and the import job's
 * operations (our extension). Rows name each other by the `external_id` the old system gave them, so a
 * membership can follow its user and tenant, and a second run of the same file finds what the first made.
 */
import * as Type from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { Attribute, Env, Role } from './definitions.js';
import { AttributeValues, Email, Uuid } from './common.js';
import { MfaMethod } from './users.js';
import { INTEGRATION_ROW_SCHEMAS } from './migration-integration.js';
import { ENTERPRISE_ROW_SCHEMAS } from './migration-enterprise.js';
import { BillingInfo, PaymentCustomer } from './tenants.js';
import { MeteringUnitProps, PricingUnitForSave, SavePricingMenuParam, SavePricingPlanParam, TaxRateProps } from './pricing.js';

const ExternalId = Type.String({ minLength: 1, maxLength: 255, description: "the old system's id: the row's identity across re-runs" });
const Binary = Type.String({ maxLength: 2048 });
const Encoding = Type.Optional(Type.Union([Type.Literal('base64'), Type.Literal('hex')]));

export const PasswordHash = Type.Union([
  Type.Object({ algorithm: Type.Literal('bcrypt'), hash: Type.String({ maxLength: 128 }) }, { additionalProperties: false }),
  Type.Object({ algorithm: Type.Literal('argon2'), hash: Type.String({ maxLength: 512 }) }, { additionalProperties: false }),
  Type.Object(
    { algorithm: Type.Literal('scrypt'), hash: Binary, salt: Binary, n: Type.Integer(), r: Type.Integer(), p: Type.Integer(), encoding: Encoding },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      algorithm: Type.Literal('firebase_scrypt'),
      hash: Binary,
      salt: Binary,
      salt_separator: Binary,
      signer_key: Binary,
      rounds: Type.Integer(),
      mem_cost: Type.Integer(),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      algorithm: Type.Literal('pbkdf2'),
      digest: Type.Union([Type.Literal('sha1'), Type.Literal('sha256'), Type.Literal('sha512')]),
      iterations: Type.Integer(),
      hash: Binary,
      salt: Binary,
      encoding: Encoding,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      algorithm: Type.Union([Type.Literal('sha256'), Type.Literal('sha512')]),
      hash: Binary,
      salt: Binary,
      salt_position: Type.Union([Type.Literal('prefix'), Type.Literal('suffix')]),
      encoding: Encoding,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      algorithm: Type.Literal('srp'),
      salt: Type.String({ maxLength: 128 }),
      verifier: Type.String({ maxLength: 1024 }),
      pool_name: Type.String({ maxLength: 128 }),
      user_id: Type.String({ maxLength: 128 }),
    },
    { additionalProperties: false, description: "an SRP salt and verifier of this service (an export's), checked once and replaced" },
  ),
]);

/**
 * A password hash as an export writes it: the hash's JSON (PasswordHash) sealed under the operator's seal key,
 * bound to the row's external_id (shared/domain/migration/password-seal.ts). The import opens it with the job's seal_key.
 */
export const SealedPasswordHash = Type.Object(
  {
    algorithm: Type.Literal('sealed'),
    value: Type.String({ minLength: 1, maxLength: 12_288, description: "the password hash's JSON, sealed under the job's seal_key (an export's)" }),
  },
  { additionalProperties: false },
);
export type SealedPasswordHash = Static<typeof SealedPasswordHash>;

/** A user's second factor. The authenticator app's seed travels sealed (shared/crypto/export-seal.ts). */
const UserMfa = Type.Object(
  {
    enabled: Type.Boolean(),
    method: Type.Optional(MfaMethod),
    totp_secret: Type.Optional(
      Type.String({ maxLength: 512, description: "the authenticator app's seed, sealed under the job's seal_key (an export's)" }),
    ),
  },
  { additionalProperties: false },
);

/** Passkeys a row may bring: each is two items of the row's one transaction (of 100). */
export const MAX_PASSKEYS_A_ROW = 20;

const Base64Url = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+$' });

/** A passkey as this service keeps it: what signs in with it again where its relying party (the screen's host) is the same. */
const ExportedPasskey = Type.Object(
  {
    credential_id: Base64Url(1400),
    public_key: Base64Url(2048),
    counter: Type.Integer({ minimum: 0 }),
    transports: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 }),
    device_type: Type.Union([Type.Literal('singleDevice'), Type.Literal('multiDevice')]),
    backed_up: Type.Boolean(),
    rp_id: Type.String({ minLength: 1, maxLength: 253 }),
    aaguid: Type.String({ maxLength: 64 }),
    created_at: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export const UserRow = Type.Object(
  {
    type: Type.Literal('user'),
    external_id: ExternalId,
    email: Type.Optional(Type.String({ maxLength: 254 })),
    sign_in_id: Type.Optional(Type.String({ maxLength: 50 })),
    email_verified: Type.Optional(Type.Boolean()),
    attributes: Type.Optional(AttributeValues),
    /** Unix seconds or an ISO 8601 time. */
    created_at: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 10, maxLength: 40 })])),
    password_hash: Type.Optional(Type.Union([PasswordHash, SealedPasswordHash])),
    mfa: Type.Optional(UserMfa),
    passkeys: Type.Optional(Type.Array(ExportedPasskey, { maxItems: MAX_PASSKEYS_A_ROW })),
  },
  { additionalProperties: false },
);
export type UserRow = Static<typeof UserRow>;

export const TenantRow = Type.Object(
  {
    type: Type.Literal('tenant'),
    external_id: ExternalId,
    name: Type.String({ minLength: 1, maxLength: 255 }),
    attributes: Type.Optional(AttributeValues),
    back_office_staff_email: Type.Optional(Email),
    plan_id: Type.Optional(Type.String({ maxLength: 128 })),
    /** Its members sign in only with a passkey: refused while the SaaS has passkeys off. */
    passkeys_required: Type.Optional(Type.Boolean()),
    billing_info: Type.Optional(BillingInfo),
    /** Its customer at the payment provider: meaningful with the same provider account (its key moved too). */
    payment_customer: Type.Optional(PaymentCustomer),
  },
  { additionalProperties: false },
);
export type TenantRow = Static<typeof TenantRow>;

export const MembershipRow = Type.Object(
  {
    type: Type.Literal('membership'),
    /** The external ids of a user row and a tenant row, of this file or an earlier one. */
    user: ExternalId,
    tenant: ExternalId,
    envs: Type.Optional(Type.Array(Type.Object({ id: Env.properties.id, role_names: Type.Array(Role.properties.role_name) }), { maxItems: 50 })),
    attributes: Type.Optional(AttributeValues),
  },
  { additionalProperties: false },
);
export type MembershipRow = Static<typeof MembershipRow>;

export const RoleRow = Type.Composite([Type.Object({ type: Type.Literal('role') }), Role], { additionalProperties: false });
export const EnvRow = Type.Composite([Type.Object({ type: Type.Literal('env') }), Env], { additionalProperties: false });
export const AttributeRow = Type.Composite(
  [
    Type.Object({ type: Type.Literal('attribute'), kind: Type.Union([Type.Literal('user'), Type.Literal('saas_user'), Type.Literal('tenant')]) }),
    Attribute,
  ],
  { additionalProperties: false },
);

/**
 * The settings a row may carry, each by the path of the call that sets it: its `value` is that call's body
 * (shared/domain/migration/setting-rows.ts checks it against the body's own schema and applies it as the call does).
 */
export const SETTING_NAMES = [
  'sign-in-settings',
  'identity-providers',
  'login-theme',
  'customize-page-settings',
  'customize-pages',
  'notification-messages',
  'auth-info',
  'basic-info',
] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

export const SettingRow = Type.Object(
  {
    type: Type.Literal('setting'),
    name: Type.Union(SETTING_NAMES.map((name) => Type.Literal(name))),
    value: Type.Record(Type.String(), Type.Unknown(), { description: 'the body of the PUT (or PATCH) of that path' }),
  },
  { additionalProperties: false },
);
export type SettingRow = Static<typeof SettingRow>;

/**
 * An item of the pricing catalogue under the id it had: tenants' plan ids, and menus' and plans' members, name
 * it by that id. `item` is the body of the Pricing API's create of its kind.
 */
const catalogueRow = <T extends string, S extends TSchema>(type: T, item: S) =>
  Type.Object(
    {
      type: Type.Literal(type),
      id: Uuid,
      created_at: Type.Optional(Type.Integer({ minimum: 0 })),
      /** Marked used (PATCH /plans/used): only its names and description may change. */
      used: Type.Optional(Type.Boolean()),
      item,
    },
    { additionalProperties: false },
  );
export const TaxRateRow = catalogueRow('tax_rate', TaxRateProps);
export const MeteringUnitRow = catalogueRow('metering_unit', MeteringUnitProps);
export const PricingUnitRow = catalogueRow('pricing_unit', PricingUnitForSave);
export const PricingMenuRow = catalogueRow('pricing_menu', SavePricingMenuParam);
export const PricingPlanRow = catalogueRow('pricing_plan', SavePricingPlanParam);

/** An invitation still open, under the id its mailed link names. */
export const InvitationRow = Type.Object(
  {
    type: Type.Literal('invitation'),
    id: Uuid,
    /** The external ids of a tenant row, and of the user row of the member who invited. */
    tenant: ExternalId,
    inviter: Type.Optional(ExternalId),
    email: Email,
    envs: Type.Array(Type.Object({ id: Env.properties.id, role_names: Type.Array(Role.properties.role_name, { maxItems: 80 }) }), { maxItems: 80 }),
    created_at: Type.Integer({ minimum: 0 }),
    /** Unix seconds from which it can no longer be accepted: a row past it is refused. */
    expired_at: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type InvitationRow = Static<typeof InvitationRow>;

/** Every row type, by its `type`. */
export const ROW_SCHEMAS = {
  user: UserRow,
  tenant: TenantRow,
  membership: MembershipRow,
  role: RoleRow,
  env: EnvRow,
  attribute: AttributeRow,
  setting: SettingRow,
  tax_rate: TaxRateRow,
  metering_unit: MeteringUnitRow,
  pricing_unit: PricingUnitRow,
  pricing_menu: PricingMenuRow,
  pricing_plan: PricingPlanRow,
  invitation: InvitationRow,
  ...INTEGRATION_ROW_SCHEMAS,
  ...ENTERPRISE_ROW_SCHEMAS,
};
export type CatalogueRowType = 'tax_rate' | 'metering_unit' | 'pricing_unit' | 'pricing_menu' | 'pricing_plan';
export type RowType = keyof typeof ROW_SCHEMAS;
export type ImportRow = { [K in RowType]: Static<(typeof ROW_SCHEMAS)[K]> }[RowType];

export const ImportState = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('done')]);

export const ImportJob = Type.Object(
  {
    job_id: Type.String(),
    state: ImportState,
    created_at: Type.Integer(),
    finished_at: Type.Optional(Type.Integer()),
    /** Lines of the file, blank ones included (they are skipped, not counted as rows). */
    lines: Type.Integer(),
    /** The job mails each user it makes with an e-mail address and no password a link to set one. */
    mail_set_password: Type.Optional(Type.Boolean()),
    /** Rows made by this job. */
    imported: Type.Integer(),
    /** Rows that were already there from an earlier run: left as they are. */
    unchanged: Type.Integer(),
    failed: Type.Integer(),
    by_type: Type.Record(Type.String(), Type.Object({ imported: Type.Integer(), unchanged: Type.Integer(), failed: Type.Integer() }), {
      description:
        'the same counts by type of row (user, tenant, membership, setting, webhook, …), over the parts done; a line that is no row of any type counts only in failed',
    }),
    /** The failed rows, by line number (the first 1,000). */
    errors: Type.Optional(Type.Array(Type.Object({ line: Type.Integer(), reason: Type.String() }))),
  },
  { $id: 'ImportJob' },
);
export type ImportJob = Static<typeof ImportJob>;

/** An export job (POST /migration/exports): its state and counts, and with `?part=N` once done a page of its file. */
export const ExportJob = Type.Object(
  {
    job_id: Type.String(),
    state: ImportState,
    created_at: Type.Integer(),
    finished_at: Type.Optional(Type.Integer()),
    expires_at: Type.Integer({ description: 'Unix seconds: the job and its file are deleted then (7 days after it is done)' }),
    seal_key: Type.Boolean({ description: "whether the job was given a seal key: the file's secrets sealed under it, else left behind" }),
    rows: Type.Integer({ description: 'rows written so far (all of them once done)' }),
    parts: Type.Integer({ description: 'parts of the file written so far: read them with ?part=0, then each next_part' }),
    by_type: Type.Record(Type.String(), Type.Integer(), { description: 'the rows written by type, in the order of the file' }),
    passwords_withheld: Type.Integer({ description: 'users whose password stayed behind, the job having no seal key' }),
    part: Type.Optional(Type.Integer({ description: 'with ?part: the first part of this page' })),
    jsonl: Type.Optional(Type.String({ description: 'with ?part: the file from that part on, up to about 4 MB, whole lines (JSON Lines)' })),
    next_part: Type.Optional(Type.Integer({ description: "with ?part: the next page's first part; absent on the file's last page" })),
  },
  { $id: 'ExportJob' },
);
export type ExportJob = Static<typeof ExportJob>;

/** The largest export one call answers (a Lambda answer holds 6 MB); a larger one through `npm run admin -- export`. */
export const MAX_EXPORT_BYTES = 5_000_000;

/** The largest file one call takes; a larger one goes through `npm run admin -- import FILE`, or in several calls. */
export const MAX_IMPORT_BODY_BYTES = 5_000_000;

export const migrationSchemas = {
  startImport: {
    body: Type.Object({
      jsonl: Type.String({
        minLength: 1,
        description:
          'the file: JSON Lines, one row a line, each of type attribute, role, env, setting, payment_provider, webhook, api_key, tax_rate, metering_unit, pricing_unit, pricing_menu, pricing_plan, tenant, user, membership, invitation, tenant_saml, tenant_oidc, tenant_domain, scim_tokens, scim_group or scim_member (docs/migration.md); api_key rows only through npm run admin -- import',
      }),
      mail_set_password: Type.Optional(
        Type.Boolean({ description: 'mail each new user with an e-mail address and no password_hash a link to set a password (default false)' }),
      ),
      seal_key: Type.Optional(
        Type.String({
          maxLength: 64,
          description:
            "the export's seal key (base64 of 32 bytes): opens the file's sealed TOTP seeds, external provider secret, webhook signing secrets, payment provider key, tenants' OpenID Connect client secrets and SCIM token hashes",
        }),
      ),
    }),
    response: ImportJob,
    maxBodyBytes: MAX_IMPORT_BODY_BYTES,
  },
  getImports: { response: Type.Object({ imports: Type.Array(ImportJob) }) },
  getImport: { params: Type.Object({ job_id: Type.String({ maxLength: 64 }) }), response: ImportJob },
  startExport: {
    body: Type.Object({
      seal_key: Type.Optional(
        Type.String({
          maxLength: 64,
          description:
            "the seal key (base64 of 32 bytes, e.g. openssl rand -base64 32) the file's secrets are sealed under: users' passwords, TOTP seeds, the external provider's secret, webhook signing secrets, the payment provider's key, tenants' OpenID Connect client secrets and SCIM token hashes. Kept sealed by the service until the job is done, then deleted; without it those stay behind. API keys are exported only by npm run admin -- export --api-keys",
        }),
      ),
    }),
    response: ExportJob,
  },
  getExportJob: {
    params: Type.Object({ job_id: Type.String({ maxLength: 64 }) }),
    query: Type.Object({
      part: Type.Optional(
        Type.Integer({ minimum: 0, description: "once the job is done: answer the file's page from this part on (jsonl, next_part)" }),
      ),
    }),
    response: ExportJob,
  },
  getExport: {
    response: Type.Object({
      jsonl: Type.String({
        description:
          "the import file (JSON Lines) that rebuilds the SaaS: definitions, saved settings, the payment provider, webhooks, the pricing catalogue, tenants, users, memberships, open invitations and each tenant's identity providers, domains and SCIM set-up; rows of type attribute, role, env, setting, payment_provider, webhook, tax_rate, metering_unit, pricing_unit, pricing_menu, pricing_plan, tenant, user, membership, invitation, tenant_saml, tenant_oidc, tenant_domain, scim_tokens, scim_group, scim_member (docs/migration.md). This call takes no seal key (POST /migration/exports does), so none of the secrets a seal key would seal: no password (passwords_withheld counts the users who go out without theirs), TOTP seeds, provider secret, webhook secrets, payment key, tenant client secret or SCIM token hash; API keys (api_key rows) only through npm run admin -- export --api-keys",
      }),
      rows: Type.Integer(),
      by_type: Type.Record(Type.String(), Type.Integer(), { description: 'the rows by type, in the order of the file' }),
      passwords_withheld: Type.Integer({
        description:
          'users whose password stayed behind, for want of a seal key: they go out without one, and set one through a mailed link at the import (mail_set_password) or with "Forgot your password?"',
      }),
    }),
  },
};
