/**
 * Signing in with Google, or any OpenID Connect provider shaped like it (docs/federation.md), as the relying
 * party: openid-client runs the authorization-code flow with PKCE, state and nonce against the provider's
 * discovery document, and checks the ID token (issuer, audience, expiry, nonce, and its signature against the
 * provider's JWKS). Who the account then signs in as is the domain's rule (shared/domain/sign-in/federation.ts).
 *
 * The browser carries the flow between the two requests in a sealed cookie scoped to the return address
 * (`{BASE_PATH}/oauth2/idpresponse`): the PKCE verifier, the nonce, the state, the SaaS, and what the screen
 * was opened for. The client secret is opened only for the token request.
 */
import * as oidc from 'openid-client';
import { nowSeconds } from '../../../shared/clock.js';
import { invalid } from '../../../shared/errors.js';
import type { ExternalAccount } from '../../../shared/domain/sign-in/federation.js';
import type { ScreenContext } from '../screen-context.js';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import { openJson, sealJson } from '../../kit/sealed.js';

/** The provider name accounts are linked under. */
export const GOOGLE = 'Google';

/** How long a person may take at the provider. */
export const FLOW_SECONDS = 10 * 60;
export const FLOW_COOKIE = 'login_federation';
const DEFAULT_SCOPE = 'openid email profile';

interface Flow {
  saas_id: string;
  state: string;
  nonce: string;
  verifier: string;
  context: ScreenContext;
  exp: number;
}

export interface GoogleSettings {
  clientId: string;
  /** approval_scope: the scope asked for (openid is added when missing). */
  scope: string;
}

export interface GoogleFederationDeps {
  /** Google's issuer (`https://accounts.google.com`), or a stand-in's. */
  issuer: string;
  /** Where the provider sends the browser back: the `redirect_url` the sign-in settings show. */
  returnUrl: string;
  settings(saasId: string): Promise<GoogleSettings | undefined>;
  /** The client secret, opened for the token request only. */
  secret(saasId: string): Promise<string | undefined>;
  box: SecretBox;
}

const FLOW_CONTEXT = { purpose: 'federated sign-in flow' };

/** A new authorization-code flow's checks (PKCE verifier, state, nonce) and the provider's URL that starts it. */
export async function codeFlowStart(
  client: oidc.Configuration,
  redirectUri: string,
  scope: string,
): Promise<{ state: string; nonce: string; verifier: string; location: string }> {
  const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
  const location = oidc.buildAuthorizationUrl(client, {
    redirect_uri: redirectUri,
    scope,
    response_type: 'code',
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  });
  return { ...checks, location: location.toString() };
}

/** One discovery per warm instance and issuer. */
const discovered = new Map<string, Promise<oidc.ServerMetadata>>();

/** A stand-in on this machine speaks plain HTTP; anything else must be HTTPS. */
const isLocal = (url: string) => /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/|$)/.test(url);

export class GoogleFederation {
  constructor(private readonly deps: GoogleFederationDeps) {}

  get returnUrl(): string {
    return this.deps.returnUrl;
  }

  /** The provider's authorization URL for this SaaS, and the cookie that carries the flow; undefined when not set up. */
  async begin(saasId: string, context: ScreenContext): Promise<{ location: string; flow: string } | undefined> {
    const settings = await this.deps.settings(saasId);
    if (!settings) return undefined;
    const client = await this.client(settings.clientId);
    const scopes = new Set((settings.scope || DEFAULT_SCOPE).split(/[\s,]+/).filter(Boolean));
    scopes.add('openid');
    const { location, ...checks } = await codeFlowStart(client, this.deps.returnUrl, [...scopes].join(' '));
    const flow: Flow = { saas_id: saasId, ...checks, context, exp: nowSeconds() + FLOW_SECONDS };
    return { location, flow: await sealJson(this.deps.box, flow, FLOW_CONTEXT) };
  }

  /**
   * Whose sign-in a flow cookie was (an expired one too), for a refusal on the way back: the SaaS's page, with
   * the other ways in to where the application asked. Undefined for a cookie this service did not seal.
   */
  async flowOf(sealedFlow: string): Promise<{ saasId: string; context: ScreenContext } | undefined> {
    const flow = sealedFlow ? await openJson<Flow>(this.deps.box, sealedFlow, FLOW_CONTEXT).catch(() => undefined) : undefined;
    return flow ? { saasId: flow.saas_id, context: flow.context } : undefined;
  }

  /** Back from the provider: the code traded and the ID token checked against the flow the cookie carries. */
  async complete(currentUrl: URL, sealedFlow: string): Promise<{ saasId: string; context: ScreenContext; account: ExternalAccount }> {
    const flow = await openJson<Flow>(this.deps.box, sealedFlow, FLOW_CONTEXT);
    if (!flow) throw invalid('invalid_flow', 'this browser did not start a sign-in with the provider here; start again from the login screen');
    if (flow.exp <= nowSeconds()) throw invalid('flow_expired', 'the sign-in with the provider took too long; start again');
    const settings = await this.deps.settings(flow.saas_id);
    if (!settings) throw invalid('provider_not_configured', 'this SaaS no longer signs in with the provider');
    const client = await this.client(settings.clientId, await this.deps.secret(flow.saas_id));
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(client, currentUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      // The provider's refusal (access_denied, a bad code) or a token that does not check out: a 400, said plainly.
      const reason = error instanceof oidc.AuthorizationResponseError ? error.error : error instanceof Error ? error.message : 'refused';
      throw invalid('provider_refused', `the provider did not sign you in (${reason}); start again`);
    }
    if (!claims) throw invalid('provider_refused', 'the provider answered no ID token');
    return {
      saasId: flow.saas_id,
      context: flow.context,
      account: {
        provider: GOOGLE,
        subject: claims.sub,
        ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
        emailVerified: claims.email_verified === true,
      },
    };
  }

  private async client(clientId: string, secret?: string): Promise<oidc.Configuration> {
    const { issuer } = this.deps;
    let metadata = discovered.get(issuer);
    if (!metadata) {
      const options = isLocal(issuer) ? { execute: [oidc.allowInsecureRequests] } : {};
      metadata = oidc.discovery(new URL(issuer), clientId, undefined, undefined, options).then((found) => found.serverMetadata());
      discovered.set(issuer, metadata);
      metadata.catch(() => discovered.delete(issuer));
    }
    const client = new oidc.Configuration(await metadata, clientId, undefined, secret === undefined ? oidc.None() : oidc.ClientSecretPost(secret));
    if (isLocal(issuer)) oidc.allowInsecureRequests(client);
    // The ID token's signature is checked against the provider's JWKS, not only trusted for arriving over TLS.
    oidc.enableNonRepudiationChecks(client);
    return client;
  }
}
