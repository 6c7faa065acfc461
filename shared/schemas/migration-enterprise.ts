/**
 * The import file's rows for a tenant's enterprise directory set-up (issue 39, docs/migration.md "Tenants' own
 * sign-in, domains and SCIM"): its SAML and OpenID Connect providers, its domains, its SCIM tokens and groups, and
 * what its directory provisioned on each member. Each names its tenant (and member) by the external id of a
 * tenant (and user) row, so it follows them in the file. Secrets travel sealed under the job's seal key.
 * shared/domain/migration/enterprise-rows.ts writes and applies them.
 */
import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { OidcClaims } from './enterprise.js';
import { SamlProps } from './tenants.js';

const Ref = (what: string) => Type.String({ minLength: 1, maxLength: 255, description: `the external id of a ${what} row` });
const Sealed = (what: string) =>
  Type.String({ minLength: 1, maxLength: 2048, description: `${what}, sealed under the job's seal_key (an export's)` });
const Seconds = Type.Integer({ minimum: 0 });

/** The tenant's SAML identity provider: the body of Update Tenant Identity Provider's props. */
export const TenantSamlRow = Type.Object(
  { type: Type.Literal('tenant_saml'), tenant: Ref('tenant'), saml: SamlProps },
  { additionalProperties: false },
);

/**
 * The tenant's OpenID Connect provider as kept: the issuer its discovery document named when saved (the import
 * does not read the document again), and the client secret sealed.
 */
export const TenantOidcRow = Type.Object(
  {
    type: Type.Literal('tenant_oidc'),
    tenant: Ref('tenant'),
    oidc: Type.Object(
      {
        discovery_url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' }),
        issuer: Type.String({ minLength: 1, maxLength: 2048 }),
        client_id: Type.String({ minLength: 1, maxLength: 255, pattern: '^\\S+$' }),
        client_secret: Type.Optional(Sealed('the client secret')),
        /** A public client (PKCE, no secret): a row without client_secret that does not say so is refused. */
        public_client: Type.Optional(Type.Literal(true)),
        scopes: Type.String({ maxLength: 500, pattern: '^[\\x21-\\x7e ]*$' }),
        claims: Type.Required(OidcClaims),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** A domain the tenant claimed, with its proof's token (the TXT record its DNS holds), verified or not. */
export const TenantDomainRow = Type.Object(
  {
    type: Type.Literal('tenant_domain'),
    tenant: Ref('tenant'),
    domain: Type.String({ minLength: 4, maxLength: 253 }),
    token: Type.String({ minLength: 16, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    created_at: Seconds,
    /** The domain was the tenant's there: it is the tenant's here, re-read in DNS at its first use. */
    verified: Type.Boolean(),
    verified_at: Type.Optional(Seconds),
    lapsed_at: Type.Optional(Seconds),
    jit_role_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

/** The tenant's live SCIM tokens: each its id and SHA-256 (hex), sealed, so the directory's token goes on working. */
export const ScimTokensRow = Type.Object(
  {
    type: Type.Literal('scim_tokens'),
    tenant: Ref('tenant'),
    tokens: Type.Array(
      Type.Object({
        id: Type.String({ minLength: 1, maxLength: 32 }),
        /** Left out by an export without a seal key: the row is refused then. */
        hash: Type.Optional(Sealed("the token's SHA-256")),
        created_at: Seconds,
      }),
      { minItems: 1, maxItems: 2 },
    ),
  },
  { additionalProperties: false },
);

/** A SCIM group: a role of the SaaS pushed to the tenant, under the role's name (its SCIM id). */
export const ScimGroupRow = Type.Object(
  {
    type: Type.Literal('scim_group'),
    tenant: Ref('tenant'),
    role_name: Type.String({ minLength: 1, maxLength: 100 }),
    display_name: Type.String({ maxLength: 255 }),
    external_id: Type.Optional(Type.String({ maxLength: 255 })),
    env_id: Type.Integer(),
    created_at: Seconds,
  },
  { additionalProperties: false },
);

/** What the tenant's directory last sent for a member (its SCIM User), `active: false` for one it suspended. */
export const ScimMemberRow = Type.Object(
  {
    type: Type.Literal('scim_member'),
    tenant: Ref('tenant'),
    user: Ref('user'),
    resource: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);

export type TenantSamlRow = Static<typeof TenantSamlRow>;
export type TenantOidcRow = Static<typeof TenantOidcRow>;
export type TenantDomainRow = Static<typeof TenantDomainRow>;
export type ScimTokensRow = Static<typeof ScimTokensRow>;
export type ScimGroupRow = Static<typeof ScimGroupRow>;
export type ScimMemberRow = Static<typeof ScimMemberRow>;

/** The kinds, in the order an import writes them: after the tenants, users and memberships they name. */
export const ENTERPRISE_ROW_SCHEMAS = {
  tenant_saml: TenantSamlRow,
  tenant_oidc: TenantOidcRow,
  tenant_domain: TenantDomainRow,
  scim_tokens: ScimTokensRow,
  scim_group: ScimGroupRow,
  scim_member: ScimMemberRow,
};
export type EnterpriseRowType = keyof typeof ENTERPRISE_ROW_SCHEMAS;
export const ENTERPRISE_ROW_TYPES = Object.keys(ENTERPRISE_ROW_SCHEMAS) as EnterpriseRowType[];
export type EnterpriseRow = { [K in EnterpriseRowType]: Static<(typeof ENTERPRISE_ROW_SCHEMAS)[K]> }[EnterpriseRowType];
