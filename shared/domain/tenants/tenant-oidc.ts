/**
 * A tenant's own OpenID Connect identity provider (Okta, Microsoft Entra ID, Google Workspace, Keycloak…),
 * beside its SAML one (docs/enterprise.md). Kept on the tenant record as `oidc`, an extension of its identity
 * provider settings that the SaaSus operations (Get/UpdateTenantIdentityProvider) neither show nor change.
 * The client secret is sealed for this tenant alone and never answered back.
 */
import { invalid } from '../../errors.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { OidcClaims, OidcProvider, OidcProviderProps, TenantOidc } from '../../schemas/enterprise.js';
import { tenantNotFound, type TenantRepository } from './tenants.js';

export type { TenantOidc };

export const DEFAULT_OIDC_SCOPES = 'openid email profile';
export const DEFAULT_OIDC_CLAIMS: Required<OidcClaims> = { email: 'email', name: 'name', groups: 'groups' };

export interface TenantOidcDeps {
  tenants: Pick<TenantRepository, 'get' | 'patch'>;
  box: SecretBox;
  /** The issuer a discovery URL's document names; a 400 naming `field` when it is no OpenID Connect provider. */
  discover(discoveryUrl: string, field: string): Promise<{ issuer: string }>;
  /** Where the provider sends the browser back (the screen's `oidc/callback`), and where users start. */
  callbackUrl(saasId: string): string;
  signInUrl(saasId: string, tenantId: string): string;
}

const secretContext = (saasId: string, tenantId: string) => ({ saasId, tenantId, provider: 'tenant oidc' });

export class TenantOidcService {
  constructor(private readonly deps: TenantOidcDeps) {}

  /** The settings as stored, for the sign-in; undefined when the tenant has none. */
  async settings(saasId: string, tenantId: string): Promise<TenantOidc | undefined> {
    return (await this.deps.tenants.get(saasId, tenantId))?.oidc;
  }

  /** The client secret, opened for the token request only. */
  async secret(saasId: string, tenantId: string, settings: TenantOidc): Promise<string | undefined> {
    return settings.sealed_secret ? this.deps.box.open(settings.sealed_secret, secretContext(saasId, tenantId)) : undefined;
  }

  async get(saasId: string, tenantId: string): Promise<{ oidc?: OidcProvider }> {
    const tenant = await this.deps.tenants.get(saasId, tenantId);
    if (!tenant) throw tenantNotFound(tenantId);
    if (!tenant.oidc) return {};
    const { sealed_secret, ...shown } = tenant.oidc;
    return {
      oidc: {
        ...shown,
        has_client_secret: sealed_secret !== undefined,
        callback_url: this.deps.callbackUrl(saasId),
        sign_in_url: this.deps.signInUrl(saasId, tenantId),
      },
    };
  }

  /**
   * The settings an export carried (shared/domain/migration/enterprise-rows.ts), with the secret opened from it:
   * kept as they were saved there, the issuer included, without reading the discovery document again.
   */
  async restore(saasId: string, tenantId: string, settings: Omit<TenantOidc, 'sealed_secret'>, secret: string | undefined): Promise<boolean> {
    const sealed = secret === undefined ? undefined : await this.deps.box.seal(secret, secretContext(saasId, tenantId));
    return this.deps.tenants.patch(saasId, tenantId, { oidc: { ...settings, ...(sealed ? { sealed_secret: sealed } : {}) } });
  }

  /** null turns the tenant's OpenID Connect sign-in off; the discovery document is read now, so a broken one is a 400 here. */
  async set(saasId: string, tenantId: string, props: OidcProviderProps | null): Promise<void> {
    const tenant = await this.deps.tenants.get(saasId, tenantId);
    if (!tenant) throw tenantNotFound(tenantId);
    let oidc: TenantOidc | null = null;
    if (props) {
      const { issuer } = await this.deps.discover(props.discovery_url, 'oidc.discovery_url');
      let sealed = props.client_secret === undefined ? tenant.oidc?.sealed_secret : undefined;
      if (props.client_secret) sealed = await this.deps.box.seal(props.client_secret, secretContext(saasId, tenantId));
      // A kept secret belongs to the client it was given for.
      if (props.client_secret === undefined && sealed && tenant.oidc?.client_id !== props.client_id) {
        throw invalid('invalid_parameter', 'oidc.client_secret: give the secret of this client id', { field: 'oidc.client_secret' });
      }
      const scopes = new Set((props.scopes || DEFAULT_OIDC_SCOPES).split(' ').filter(Boolean));
      scopes.add('openid');
      oidc = {
        discovery_url: props.discovery_url,
        issuer,
        client_id: props.client_id,
        ...(sealed ? { sealed_secret: sealed } : {}),
        scopes: [...scopes].join(' '),
        claims: { ...DEFAULT_OIDC_CLAIMS, ...props.claims },
      };
    }
    if (!(await this.deps.tenants.patch(saasId, tenantId, { oidc }))) throw tenantNotFound(tenantId);
  }
}
