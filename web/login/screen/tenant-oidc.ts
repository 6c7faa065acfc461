/**
 * Signing in through a tenant's own OpenID Connect provider (docs/enterprise.md), as its relying party:
 * openid-client runs the authorization-code flow with PKCE, state and nonce against the provider's discovery
 * document; `jose` then verifies the ID token's signature against the provider's JWKS, its issuer (the one the
 * tenant's settings recorded), audience (the client id), expiry and nonce on the domain's clock. A key the JWKS
 * held last time is not required: an unknown `kid` reads the JWKS again (the provider rotated its keys), at most
 * once per JWKS_COOLDOWN_SECONDS so that tokens with made-up kids cannot make us fetch on every request.
 *
 * Every request to the provider goes through the fetch it is given (shared/http/public-fetch.ts: public
 * addresses only, pinned), as the provider's URLs are the tenant's to choose. The browser carries the flow in a
 * sealed cookie scoped to the screen's `oidc/` pages. Who the account then signs in as is the same rule as a
 * tenant's SAML (shared/domain/sign-in/federation.ts: that tenant's users only, linked by a mailed code).
 */
import * as jose from 'jose';
import * as oidc from 'openid-client';
import { nowSeconds } from '../../../shared/clock.js';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import type { ExternalAccount } from '../../../shared/domain/sign-in/federation.js';
import type { TenantOidc } from '../../../shared/domain/tenants/tenant-oidc.js';
import { invalid } from '../../../shared/errors.js';
import { isLoopbackHttp } from '../../../shared/http/public-fetch.js';
import { openJson, sealJson } from '../../kit/sealed.js';
import type { ScreenContext } from '../screen-context.js';
import { codeFlowStart } from './federation.js';

export const OIDC_FLOW_COOKIE = 'login_tenant_oidc';
/** How long a person may take at the provider. */
export const OIDC_FLOW_SECONDS = 10 * 60;
/** A JWKS is read again for an unknown key at most this often (per warm instance and JWKS URL). */
export const JWKS_COOLDOWN_SECONDS = 60;
/** How far the provider's clock may be from ours. */
const CLOCK_TOLERANCE_SECONDS = 60;

/** The provider name a tenant's OpenID Connect accounts are linked under. */
export const oidcProvider = (tenantId: string) => `OIDC:${tenantId}`;

type Fetch = (url: string, init: { method?: string; headers?: Record<string, string> | Headers; body?: unknown }) => Promise<Response>;

interface Flow {
  saas_id: string;
  tenant_id: string;
  state: string;
  nonce: string;
  verifier: string;
  context: ScreenContext;
  exp: number;
}

export interface TenantOidcSignInDeps {
  settings(saasId: string, tenantId: string): Promise<TenantOidc | undefined>;
  secret(saasId: string, tenantId: string, settings: TenantOidc): Promise<string | undefined>;
  /** The screen's `oidc/callback` of a SaaS: the redirect URI the provider's administrator registered. */
  callbackUrl(saasId: string): string;
  /** Requests to the provider (discovery, token, JWKS): checked and pinned. */
  fetch: Fetch;
  box: SecretBox;
}

const FLOW_CONTEXT = { purpose: 'tenant oidc flow' };

export class TenantOidcSignIn {
  private readonly discovered = new Map<string, Promise<oidc.ServerMetadata>>();
  private readonly keySets = new Map<string, { at: number; keys: Promise<jose.JSONWebKeySet> }>();

  constructor(private readonly deps: TenantOidcSignInDeps) {}

  /** The provider's authorization URL, and the sealed flow for the browser's cookie; undefined when the tenant has none. */
  async begin(saasId: string, tenantId: string, context: ScreenContext): Promise<{ location: string; flow: string } | undefined> {
    const settings = await this.deps.settings(saasId, tenantId);
    if (!settings) return undefined;
    const client = await this.client(settings);
    const { location, ...checks } = await codeFlowStart(client, this.deps.callbackUrl(saasId), settings.scopes);
    const flow: Flow = { saas_id: saasId, tenant_id: tenantId, ...checks, context, exp: nowSeconds() + OIDC_FLOW_SECONDS };
    return { location, flow: await sealJson(this.deps.box, flow, FLOW_CONTEXT) };
  }

  /** Whose sign-in a flow cookie was (an expired one too), for the refusal page's look; never a reason to trust anything. */
  async flowOf(sealedFlow: string): Promise<{ saasId: string; context: ScreenContext } | undefined> {
    const flow = sealedFlow ? await openJson<Flow>(this.deps.box, sealedFlow, FLOW_CONTEXT).catch(() => undefined) : undefined;
    return flow ? { saasId: flow.saas_id, context: flow.context } : undefined;
  }

  /** Back from the provider: the code traded, the ID token verified, the account it names. */
  async complete(saasId: string, currentUrl: URL, sealedFlow: string): Promise<{ context: ScreenContext; account: ExternalAccount }> {
    const flow = sealedFlow ? await openJson<Flow>(this.deps.box, sealedFlow, FLOW_CONTEXT) : undefined;
    if (!flow || flow.saas_id !== saasId) {
      throw invalid('invalid_flow', "this browser did not start a sign-in with the organization's provider here; start again from the login screen");
    }
    if (flow.exp <= nowSeconds()) throw invalid('flow_expired', 'the sign-in with the provider took too long; start again');
    const settings = await this.deps.settings(saasId, flow.tenant_id);
    if (!settings) throw invalid('provider_not_configured', 'this tenant no longer signs in with its OpenID Connect provider');
    const client = await this.client(settings, await this.deps.secret(saasId, flow.tenant_id, settings));
    let idToken: string | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(client, currentUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      idToken = tokens.id_token;
    } catch (error) {
      throw invalid('provider_refused', `the provider did not sign you in (${reasonOf(error)}); start again`);
    }
    if (!idToken) throw invalid('provider_refused', 'the provider answered no ID token');
    const claims = await this.verify(idToken, settings, client.serverMetadata(), flow.nonce);
    const email = claims[settings.claims.email];
    const name = claims[settings.claims.name];
    const groups = claims[settings.claims.groups];
    return {
      context: flow.context,
      account: {
        provider: oidcProvider(flow.tenant_id),
        subject: String(claims.sub),
        ...(typeof email === 'string' ? { email } : {}),
        // The tenant's own provider is the authority on its people's addresses, unless it says otherwise.
        emailVerified: typeof email === 'string' && claims.email_verified !== false,
        tenantId: flow.tenant_id,
        ...(typeof name === 'string' ? { name } : {}),
        ...(Array.isArray(groups) ? { groups: groups.filter((g): g is string => typeof g === 'string') } : {}),
      },
    };
  }

  /** The ID token's signature (the JWKS, read again once for a key it does not hold yet) and claims, on our clock. */
  private async verify(idToken: string, settings: TenantOidc, metadata: oidc.ServerMetadata, nonce: string): Promise<jose.JWTPayload> {
    const jwksUri = metadata.jwks_uri;
    if (!jwksUri) throw invalid('provider_refused', 'the provider publishes no JWKS');
    const options: jose.JWTVerifyOptions = {
      issuer: settings.issuer,
      audience: settings.client_id,
      currentDate: new Date(nowSeconds() * 1000),
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
    };
    const attempt = async (fresh: boolean) => jose.jwtVerify(idToken, jose.createLocalJWKSet(await this.jwks(jwksUri, fresh)), options);
    let payload: jose.JWTPayload;
    try {
      try {
        ({ payload } = await attempt(false));
      } catch (error) {
        if (!(error instanceof jose.errors.JWKSNoMatchingKey)) throw error;
        ({ payload } = await attempt(true));
      }
    } catch (error) {
      throw invalid('provider_refused', `the provider's ID token was refused (${reasonOf(error)}); start again`);
    }
    if (payload.nonce !== nonce) throw invalid('provider_refused', "the provider's ID token was refused (it answers another sign-in); start again");
    return payload;
  }

  /** The JWKS as last read; `fresh` reads it again unless it was read within the cooldown. */
  private jwks(uri: string, fresh: boolean): Promise<jose.JSONWebKeySet> {
    const cached = this.keySets.get(uri);
    if (cached && (!fresh || nowSeconds() - cached.at < JWKS_COOLDOWN_SECONDS)) return cached.keys;
    const keys = this.deps.fetch(uri, { method: 'GET', headers: { accept: 'application/json' } }).then(async (answer) => {
      if (answer.status !== 200) throw new Error(`the JWKS answered ${answer.status}`);
      const set = (await answer.json()) as jose.JSONWebKeySet;
      if (!Array.isArray(set?.keys)) throw new Error('the JWKS holds no keys');
      return set;
    });
    this.keySets.set(uri, { at: nowSeconds(), keys });
    keys.catch(() => this.keySets.delete(uri));
    return keys;
  }

  private async client(settings: TenantOidc, secret?: string): Promise<oidc.Configuration> {
    const url = settings.discovery_url;
    let metadata = this.discovered.get(url);
    if (!metadata) {
      // openid-client refuses plain http itself; the fetch lets it through to this machine in local mode alone.
      const options: oidc.DiscoveryRequestOptions = {
        [oidc.customFetch]: this.deps.fetch as oidc.CustomFetch,
        ...(isLoopbackHttp(url) ? { execute: [oidc.allowInsecureRequests] } : {}),
      };
      metadata = oidc.discovery(new URL(url), settings.client_id, undefined, undefined, options).then((found) => found.serverMetadata());
      this.discovered.set(url, metadata);
      metadata.catch(() => this.discovered.delete(url));
    }
    let found: oidc.ServerMetadata;
    try {
      found = await metadata;
    } catch (error) {
      throw invalid('provider_unavailable', `the organization's provider could not be read (${reasonOf(error)})`);
    }
    if (found.issuer !== settings.issuer) throw invalid('provider_refused', `the provider now names another issuer (${found.issuer})`);
    const methods = found.token_endpoint_auth_methods_supported;
    const auth =
      secret === undefined
        ? oidc.None()
        : !methods || methods.includes('client_secret_basic')
          ? oidc.ClientSecretBasic(secret)
          : oidc.ClientSecretPost(secret);
    const client = new oidc.Configuration(found, settings.client_id, undefined, auth);
    client[oidc.customFetch] = this.deps.fetch as oidc.CustomFetch;
    if (isLoopbackHttp(url)) oidc.allowInsecureRequests(client);
    return client;
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof oidc.AuthorizationResponseError) return error.error;
  // openid-client's words are the same for every claim; which one failed (its cause's words) is what an administrator needs.
  if (error instanceof Error && error.cause instanceof Error && error.message === 'unexpected JWT claim value encountered')
    return error.cause.message;
  if (error instanceof jose.errors.JOSEError) return error.code;
  return error instanceof Error ? error.message : 'refused';
}
