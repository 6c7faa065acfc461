/**
 * Extensions for enterprise customers (issue 41): a tenant's own OpenID Connect identity provider, beside the
 * SAML one of the SaaSus operations (tenants.ts), which answer exactly as before and never show it.
 */
import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { PathParam } from './common.js';

const ClaimName = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_:./-]+$', description: 'a claim name' });

/** Which ID token claims carry the e-mail address, the name and the groups (defaults: email, name, groups). */
export const OidcClaims = Type.Object(
  { email: Type.Optional(ClaimName), name: Type.Optional(ClaimName), groups: Type.Optional(ClaimName) },
  { additionalProperties: false },
);
export type OidcClaims = Static<typeof OidcClaims>;

/** What the tenant record holds (shared/domain/tenants/tenant-oidc.ts). */
export interface TenantOidc {
  discovery_url: string;
  /** The issuer the discovery document named when saved: the ID tokens' `iss` must be it. */
  issuer: string;
  client_id: string;
  sealed_secret?: string;
  scopes: string;
  claims: Required<OidcClaims>;
}

export const OidcProviderProps = Type.Object(
  {
    /** The issuer, or its `/.well-known/openid-configuration`: read now, and the issuer it names is kept. */
    discovery_url: Type.String({ minLength: 1, maxLength: 2048, description: 'the issuer URL or its discovery document (https)' }),
    client_id: Type.String({ minLength: 1, maxLength: 255, pattern: '^\\S+$', description: 'without spaces' }),
    /** Sealed and never shown again. Left out: the stored one is kept; null: none (a public client with PKCE). */
    client_secret: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()])),
    scopes: Type.Optional(Type.String({ maxLength: 500, pattern: '^[\\x21-\\x7e ]*$', description: 'space-separated scopes' })),
    claims: Type.Optional(OidcClaims),
  },
  { additionalProperties: false },
);
export type OidcProviderProps = Static<typeof OidcProviderProps>;

export const OidcProvider = Type.Object({
  discovery_url: Type.String(),
  issuer: Type.String(),
  client_id: Type.String(),
  has_client_secret: Type.Boolean(),
  scopes: Type.String(),
  claims: Type.Object({ email: Type.String(), name: Type.String(), groups: Type.String() }),
  /** What the identity provider's administrator registers as the redirect URI. */
  callback_url: Type.String(),
  /** Where a tenant's users start (the hosted screen's `oidc` page). */
  sign_in_url: Type.String(),
});
export type OidcProvider = Static<typeof OidcProvider>;

const TenantIdParam = Type.Object({ tenant_id: PathParam });
const DomainParams = Type.Object({ tenant_id: PathParam, domain: PathParam });

export const TenantDomain = Type.Object({
  domain: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('lapsed')]),
  /** The TXT record that proves the domain: published in its DNS, then verify. */
  record: Type.Object({ type: Type.Literal('TXT'), name: Type.String(), value: Type.String() }),
  verified_at: Type.Optional(Type.Integer()),
  jit_role_name: Type.Optional(Type.String()),
});

const SetupLinkParams = Type.Object({ tenant_id: PathParam, link_id: PathParam });

export const SetupLink = Type.Object({
  id: Type.String(),
  state: Type.Union([Type.Literal('unused'), Type.Literal('used'), Type.Literal('expired'), Type.Literal('revoked')]),
  created_at: Type.Integer(),
  expires_at: Type.Integer(),
  used_at: Type.Optional(Type.Integer()),
  revoked_at: Type.Optional(Type.Integer()),
});

export const enterpriseSchemas = {
  getTenantOidcProvider: { params: TenantIdParam, response: Type.Object({ oidc: Type.Optional(OidcProvider) }) },
  updateTenantOidcProvider: {
    params: TenantIdParam,
    body: Type.Object({ oidc: Type.Union([OidcProviderProps, Type.Null()], { description: 'null turns it off' }) }, { additionalProperties: false }),
  },
  getTenantDomains: { params: TenantIdParam, response: Type.Object({ domains: Type.Array(TenantDomain) }) },
  createTenantDomain: {
    params: TenantIdParam,
    body: Type.Object(
      {
        domain: Type.String({ minLength: 1, maxLength: 253, description: 'a domain name such as acme.com' }),
        /** Users of the domain whom the tenant's provider signs in join the tenant with this role; null: none do. */
        jit_role_name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
      },
      { additionalProperties: false },
    ),
    response: TenantDomain,
  },
  verifyTenantDomain: { params: DomainParams, response: TenantDomain },
  deleteTenantDomain: { params: DomainParams },
  getTenantSetupLinks: { params: TenantIdParam, response: Type.Object({ setup_links: Type.Array(SetupLink) }) },
  createTenantSetupLink: {
    params: TenantIdParam,
    body: Type.Object(
      { valid_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, description: 'days the link stays valid (default 7)' })) },
      { additionalProperties: false },
    ),
    /** The URL holds the link's secret: answered this once, never stored. */
    response: Type.Intersect([SetupLink, Type.Object({ url: Type.String() })]),
  },
  deleteTenantSetupLink: { params: SetupLinkParams },
} satisfies Record<string, OperationSchema>;
