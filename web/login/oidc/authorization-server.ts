/**
 * The OpenID Connect authorization server (docs/federation.md): any OpenID Connect library (openid-client,
 * Auth.js, Spring Security) signs a SaaS's users in through it, with no SaaSus SDK. Each SaaS is a client: its
 * `client_id` is the SaaS id (the `aud` of its tokens), its one registered redirect URI its callback URL
 * (PUT /auth-info). Clients are public and prove themselves with PKCE (S256); the flow is authorization code.
 *
 *   GET       {BASE_PATH}/oauth2/authorize   → the SaaS's hosted login screen, the request carried sealed
 *   POST      {BASE_PATH}/oauth2/token       grant_type authorization_code (with code_verifier) or refresh_token (rotated)
 *   POST      {BASE_PATH}/oauth2/revoke      a refresh token, with every token of its grant (RFC 7009)
 *   GET|POST  {BASE_PATH}/oauth2/userinfo    Authorization: Bearer <access token>
 *   GET       {BASE_PATH}/oauth2/logout      back to post_logout_redirect_uri on the callback URL's origin
 *
 * The token and userinfo endpoints answer errors as RFC 6749 and RFC 6750 say ({error, error_description}),
 * the shape every OAuth client reads; the authorization endpoint sends them back to the redirect URI once that
 * URI is known to be the client's, and shows a page before.
 */
import { decodeJwt } from 'jose';
import { nowSeconds } from '../../../shared/clock.js';
import { DomainError, invalid } from '../../../shared/errors.js';
import type { AuthorizationBinding, GrantedTokens, OpenIdUserInfo } from '../../../shared/domain/sign-in/sign-in-credentials.js';
import { log } from '../../../shared/log.js';
import { messagePage, messagePagePolicy, screenAssets } from '../pages.js';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import { openJson, sealJson } from '../../kit/sealed.js';
import type { WebRequest, WebResponse } from '../../kit/http.js';
import { fill, type LoginTexts } from '../texts/en.js';
import { webUrl } from '../../../shared/schemas/web-url.js';
import { MULTI_FACTOR_ACR } from '../../../shared/domain/tokens/tokens.js';

/** How long a person may take on the screen between the application's request and the code. */
export const AUTHORIZATION_REQUEST_SECONDS = 30 * 60;

/**
 * The `acr_values` this server understands: the multi-factor policy (OpenID Provider Authentication Policy
 * Extension, the value Auth0 and others read). Other values are voluntary claims (OpenID Connect Core 3.1.2.1)
 * and are ignored.
 */
export { MULTI_FACTOR_ACR };

/** The scopes there are: `openid` (required) and `email`; others are left out of the grant. */
export const SUPPORTED_SCOPES = ['openid', 'email'];

/** An authorization request, checked, as the screen carries it (sealed) until the person has signed in. */
export interface AuthorizationRequest extends AuthorizationBinding {
  saas_id: string;
  state?: string;
  /** `login`: sign in again whatever the screen's session; `none`: answer from the session or with login_required. */
  prompt?: 'login' | 'none';
  /** Seconds: a screen session whose sign-in is older asks again. */
  max_age?: number;
  /** `acr_values` asked for a second factor (MULTI_FACTOR_ACR): a screen session made without one asks again. */
  second_factor?: true;
  /** Unix seconds. */
  exp: number;
}

const requestContext = (saasId: string) => ({ purpose: 'openid connect authorization request', saas_id: saasId });

/** The request the screen was opened for; refused when it is not one this server sealed for this SaaS, or too old. */
export async function openAuthorizationRequest(box: SecretBox, saasId: string, sealed: string): Promise<AuthorizationRequest> {
  const request = await openJson<AuthorizationRequest>(box, sealed, requestContext(saasId));
  if (!request) throw invalid('invalid_parameter', 'authorization: is not an authorization request of this SaaS');
  if (request.exp <= nowSeconds()) throw invalid('authorization_expired', 'authorization: the request is too old; start again from the application');
  return request;
}

/** The redirect URI with an error, the state and the issuer: only for a request this server checked and sealed. */
export function authorizationError(
  request: Pick<AuthorizationRequest, 'redirect_uri' | 'state'>,
  issuer: string,
  error: string,
  description: string,
): string {
  const url = new URL(request.redirect_uri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

/** Where the screen sends the browser once signed in: the redirect URI with the code, the state and the issuer (RFC 9207). */
export function authorizationResponse(request: AuthorizationRequest, issuer: string, code: string): string {
  const url = new URL(request.redirect_uri);
  url.searchParams.set('code', code);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

export interface AuthorizationServerDeps {
  texts: LoginTexts;
  /** The `iss` of the tokens, answered with every authorization response. */
  issuer: string;
  saasExists(saasId: string): Promise<boolean>;
  callbackUrl(saasId: string): Promise<string>;
  /** The SaaS's hosted login screen (ending in `/`). */
  screenUrl(saasId: string): Promise<string>;
  /** The SaaS and user of an ID token this service signed (expired or not); undefined for anything else. */
  idTokenHint(token: string): Promise<{ saasId: string } | undefined>;
  box: SecretBox;
  credentials: {
    redeemAuthorizationCode(saasId: string, code: string, proof: { redirect_uri: string; code_verifier: string }): Promise<GrantedTokens>;
    grantByRefreshToken(saasId: string, refreshToken: string, nonce?: string, field?: string): Promise<GrantedTokens>;
    openIdUserInfo(saasId: string, accessToken: string): Promise<OpenIdUserInfo>;
    revoke(saasId: string, refreshToken: string): Promise<void>;
  };
}

const SAAS_ID = /^[A-Za-z0-9-]{1,64}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_BODY_BYTES = 16 * 1024;

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
/** The token and userinfo endpoints are called from single-page applications too: any origin, no cookies. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-expose-headers': 'www-authenticate',
  'access-control-max-age': '600',
};
const JSON_HEADERS = { ...NO_STORE, ...CORS, 'content-type': 'application/json; charset=utf-8' };

/** An OAuth refusal (RFC 6749 section 5.2, RFC 6750 section 3.1). */
class OAuthError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export class AuthorizationServer {
  constructor(private readonly deps: AuthorizationServerDeps) {}

  /** `request.path` is the part after `{BASE_PATH}/oauth2/`. */
  async handle(request: WebRequest): Promise<WebResponse | undefined> {
    const { method, path } = request;
    if (method === 'OPTIONS' && (path === 'token' || path === 'userinfo' || path === 'revoke')) {
      return { status: 204, headers: { ...NO_STORE, ...CORS }, body: '', cookies: [] };
    }
    if (path === 'authorize' && method === 'GET') return this.authorize(new URLSearchParams(request.query));
    if (path === 'token' && method === 'POST') return this.answer(() => this.token(request));
    if (path === 'revoke' && method === 'POST') return this.answer(() => this.revoke(request));
    if (path === 'userinfo' && (method === 'GET' || method === 'POST')) return this.answer(() => this.userInfo(request));
    if (path === 'logout' && method === 'GET') return this.logout(new URLSearchParams(request.query));
    return undefined;
  }

  private async authorize(query: URLSearchParams): Promise<WebResponse> {
    const saasId = query.get('client_id') ?? '';
    const redirectUri = query.get('redirect_uri') ?? '';
    if (!SAAS_ID.test(saasId) || !(await this.deps.saasExists(saasId))) return this.badRequest('client_id: there is no such client');
    // Never redirect anywhere but the registered URI: until it is checked, refusals are a page.
    if (!webUrl(redirectUri) || redirectUri !== (await this.deps.callbackUrl(saasId))) {
      return this.badRequest('redirect_uri: is not the callback URL registered for this client (PUT /auth-info)', saasId);
    }
    const state = query.get('state') ?? undefined;
    const back = (error: string, description: string) =>
      redirect(authorizationError({ redirect_uri: redirectUri, ...(state !== undefined ? { state } : {}) }, this.deps.issuer, error, description));
    const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
    const nonce = query.get('nonce') ?? undefined;
    if (query.has('request') || query.has('request_uri')) return back('request_not_supported', 'request objects are not supported');
    // A client that asked for another mode would read the answer somewhere it is not: refused, not ignored.
    const responseMode = query.get('response_mode');
    if (responseMode !== null && responseMode !== 'query') return back('invalid_request', 'response_mode: only query is supported');
    if (query.get('response_type') !== 'code') return back('unsupported_response_type', 'response_type: only code is supported');
    if (!scopes.includes('openid')) return back('invalid_scope', 'scope: must include openid');
    if (query.get('code_challenge_method') !== 'S256' || !PKCE_CHALLENGE.test(query.get('code_challenge') ?? '')) {
      return back('invalid_request', 'code_challenge: PKCE with code_challenge_method S256 is required');
    }
    const acrValues = query.get('acr_values') ?? '';
    if ((state?.length ?? 0) > 1024 || (nonce?.length ?? 0) > 512 || acrValues.length > 1024) {
      return back('invalid_request', 'state, nonce, acr_values: too long');
    }
    const prompts = (query.get('prompt') ?? '').split(' ').filter(Boolean);
    if (prompts.includes('none') && prompts.length > 1) return back('invalid_request', 'prompt: none cannot go with another value');
    const maxAge = query.get('max_age');
    if (maxAge !== null && !/^\d{1,9}$/.test(maxAge)) return back('invalid_request', 'max_age: must be a number of seconds');
    const request: AuthorizationRequest = {
      saas_id: saasId,
      redirect_uri: redirectUri,
      code_challenge: query.get('code_challenge') as string,
      scope: SUPPORTED_SCOPES.filter((scope) => scopes.includes(scope)).join(' '),
      ...(nonce !== undefined ? { nonce } : {}),
      ...(state !== undefined ? { state } : {}),
      // The screen decides them against its session (web/login/screen/resume.ts); select_account and consent ask nothing more.
      ...(prompts.includes('none') ? { prompt: 'none' as const } : prompts.includes('login') ? { prompt: 'login' as const } : {}),
      ...(maxAge !== null ? { max_age: Number(maxAge) } : {}),
      ...(acrValues.split(' ').includes(MULTI_FACTOR_ACR) ? { second_factor: true as const } : {}),
      exp: nowSeconds() + AUTHORIZATION_REQUEST_SECONDS,
    };
    const sealed = await sealJson(this.deps.box, request, requestContext(saasId));
    const screen = new URL(await this.deps.screenUrl(saasId));
    screen.searchParams.set('authorization', sealed);
    return redirect(screen.toString());
  }

  /** The form of a public client's POST (token and revocation endpoints), with its client checked. */
  private async clientForm(request: WebRequest): Promise<{ form: URLSearchParams; saasId: string }> {
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      throw new OAuthError('invalid_request', 'content-type: must be application/x-www-form-urlencoded');
    }
    if (request.body.length > MAX_BODY_BYTES) throw new OAuthError('invalid_request', 'the body is too large');
    if (request.headers.authorization) {
      throw new OAuthError('invalid_client', 'clients are public (token_endpoint_auth_method none): send client_id in the body', 401);
    }
    const form = new URLSearchParams(request.body.toString('utf8'));
    const saasId = form.get('client_id') ?? '';
    if (!SAAS_ID.test(saasId) || !(await this.deps.saasExists(saasId)))
      throw new OAuthError('invalid_client', 'client_id: there is no such client', 401);
    return { form, saasId };
  }

  /**
   * RFC 7009 for public clients: a refresh token of this client ends with every token of its grant; one that
   * is unknown, expired, revoked or another client's changes nothing and is no error. Access tokens are not
   * revoked one by one (they end with their grant), so one presented here is refused as unsupported.
   */
  private async revoke(request: WebRequest): Promise<object> {
    const { form, saasId } = await this.clientForm(request);
    const token = form.get('token');
    if (!token) throw new OAuthError('invalid_request', 'token: is required');
    if (form.get('token_type_hint') === 'access_token' || token.split('.').length === 3) {
      throw new OAuthError('unsupported_token_type', 'token: only refresh tokens are revoked here; an access token ends with its refresh token');
    }
    await this.deps.credentials.revoke(saasId, token);
    return {};
  }

  private async token(request: WebRequest): Promise<object> {
    const { form, saasId } = await this.clientForm(request);
    const required = (name: string) => {
      const value = form.get(name);
      if (!value) throw new OAuthError('invalid_request', `${name}: is required`);
      return value;
    };
    let granted: GrantedTokens;
    switch (form.get('grant_type')) {
      case 'authorization_code': {
        const code = required('code');
        const proof = { redirect_uri: required('redirect_uri'), code_verifier: required('code_verifier') };
        granted = await asGrantError(this.deps.credentials.redeemAuthorizationCode(saasId, code, proof));
        break;
      }
      case 'refresh_token':
        granted = await asGrantError(this.deps.credentials.grantByRefreshToken(saasId, required('refresh_token'), undefined, 'refresh_token'));
        break;
      default:
        throw new OAuthError('unsupported_grant_type', 'grant_type: authorization_code or refresh_token');
    }
    const { credentials } = granted;
    return {
      access_token: credentials.access_token,
      token_type: 'Bearer',
      expires_in: granted.expiresIn,
      id_token: credentials.id_token,
      ...(credentials.refresh_token ? { refresh_token: credentials.refresh_token } : {}),
      ...(granted.scope !== undefined ? { scope: granted.scope } : {}),
    };
  }

  private async userInfo(request: WebRequest): Promise<object> {
    const [scheme, token = ''] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !token)
      throw new OAuthError('invalid_request', 'authorization: send the access token as a Bearer token', 401);
    let saasId: unknown;
    try {
      saasId = decodeJwt(token).saas_id;
    } catch {
      throw new OAuthError('invalid_token', 'the access token is not a JWT', 401);
    }
    if (typeof saasId !== 'string' || !SAAS_ID.test(saasId)) throw new OAuthError('invalid_token', 'the access token names no SaaS', 401);
    try {
      return await this.deps.credentials.openIdUserInfo(saasId, token);
    } catch (error) {
      if (error instanceof DomainError) throw new OAuthError('invalid_token', error.message, 401);
      throw error;
    }
  }

  /**
   * RP-initiated logout: through the screen's sign-out, which ends its session (web/login/screen/screen-session.ts)
   * on the screen's own host, where its cookie is; the browser then goes back to `post_logout_redirect_uri`
   * (with `state`) when it is on the callback URL's origin. `revoke_tokens=true` goes along (page.ts, signOut).
   * An `id_token_hint` must be an ID token this service signed for the client (expired ones too: OpenID
   * Connect RP-Initiated Logout 1.0, section 2); a forged or foreign one is refused with a page.
   */
  private async logout(query: URLSearchParams): Promise<WebResponse> {
    let saasId = query.get('client_id') ?? '';
    const hint = query.get('id_token_hint');
    if (hint !== null) {
      const named = await this.deps.idTokenHint(hint);
      if (!named) return this.badRequest('id_token_hint: is not an ID token this service issued');
      if (saasId && saasId !== named.saasId) return this.badRequest('id_token_hint: was issued to another client');
      saasId = named.saasId;
    }
    if (!SAAS_ID.test(saasId) || !(await this.deps.saasExists(saasId))) return this.badRequest('client_id: there is no such client');
    const target = query.get('post_logout_redirect_uri');
    let back = '';
    if (target && URL.canParse(target)) {
      const url = new URL(target);
      const state = query.get('state');
      if (state !== null) url.searchParams.set('state', state);
      back = url.toString();
    }
    const signOut = new URL('sign-out', await this.deps.screenUrl(saasId));
    if (back) signOut.searchParams.set('redirect_uri', back);
    // Our extension: the refresh tokens issued from the screen's session end with it.
    if (query.get('revoke_tokens') === 'true') signOut.searchParams.set('revoke_tokens', 'true');
    return redirect(signOut.toString());
  }

  /** A refusal that cannot go back to the client: a page, in the look of the SaaS's screen once the SaaS is known. */
  private badRequest(detail: string, saasId?: string): WebResponse {
    const { texts } = this.deps;
    const assets = screenAssets(saasId);
    return {
      status: 400,
      headers: { ...NO_STORE, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': messagePagePolicy(saasId !== undefined) },
      body: messagePage(texts, texts.page.badRequestTitle, fill(texts.page.badAuthorizationRequest, { detail }), assets),
      cookies: [],
    };
  }

  private async answer(run: () => Promise<object>): Promise<WebResponse> {
    try {
      return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(await run()), cookies: [] };
    } catch (error) {
      if (!(error instanceof OAuthError)) {
        log.error('authorization server request failed', error);
        return { status: 500, headers: JSON_HEADERS, body: JSON.stringify({ error: 'server_error', error_description: '' }), cookies: [] };
      }
      const headers: Record<string, string> = { ...JSON_HEADERS };
      if (error.status === 401) {
        const scheme = error.error === 'invalid_client' ? 'Basic' : 'Bearer';
        headers['www-authenticate'] = `${scheme} error="${error.error}", error_description="${error.message.replace(/["\\]/g, '')}"`;
      }
      return { status: error.status, headers, body: JSON.stringify({ error: error.error, error_description: error.message }), cookies: [] };
    }
  }
}

/** A code or refresh token refused by the domain is `invalid_grant`, whatever the reason. */
async function asGrantError<T>(granted: Promise<T>): Promise<T> {
  try {
    return await granted;
  } catch (error) {
    if (error instanceof DomainError) throw new OAuthError('invalid_grant', error.message);
    throw error;
  }
}

const redirect = (location: string): WebResponse => ({ status: 302, headers: { ...NO_STORE, location }, body: '', cookies: [] });
