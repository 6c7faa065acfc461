/**
 * ID and access tokens (docs/decisions.md, decision 4): RS256 JWTs signed with node:crypto under the deployment's current
 * key (its `kid` in the header), verified with `aws-jwt-verify` against the deployment's own published keys
 * (never fetched over HTTP). Refresh tokens are opaque, not JWTs: shared/crypto/user-token.ts.
 *
 * Claims, on both tokens: iss (the deployment's issuer), sub (the user id), aud and client_id (the SaaS id:
 * a token of one SaaS is refused by every other), saas_id, token_use ('id' or 'access'), auth_time, iat,
 * exp, jti, and the user's sign-in name: `email` for e-mail users, `sign_in_id` for sign-in-ID users. As
 * Cognito does, the ID token carries the user id as `cognito:username` and the access token as `username`,
 * and both carry `origin_jti`, the grant of the refresh token they came with (revoked together). Tokens of an
 * OpenID Connect client follow its scopes: the e-mail only with `email`, and the access token says `scope`.
 * The ID token also says how the person proved who they are (OpenID Connect's `amr`, RFC 8176 values) and, when
 * that was with a second factor, `acr` MULTI_FACTOR_ACR (docs/federation.md, "acr and amr"): added claims, which
 * the SaaSus SDKs, reading Cognito-shaped tokens, pass over.
 */
import { randomUUID, sign as rsaSign, type KeyObject } from 'node:crypto';
import { JwtVerifier } from 'aws-jwt-verify';
import { JwtExpiredError, JwtInvalidAudienceError, JwtInvalidIssuerError, JwtParseError, KidNotFoundInJwksError } from 'aws-jwt-verify/error';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { compactVerify, createLocalJWKSet, type JWK } from 'jose';
import { nowSeconds } from '../../clock.js';
import { unauthenticated } from '../../errors.js';
import type { ActiveSigningKey, PublicJwk } from './key-store.js';

export type TokenUse = 'id' | 'access';

/** How the person proved who they are, as OpenID Connect's `amr` names it (RFC 8176). */
export type AuthMethod = 'pwd' | 'otp' | 'mfa' | 'swk' | 'hwk' | 'fed';

/**
 * The `amr` of each way in (RFC 8176; docs/federation.md, "acr and amr"), the one table the sign-in's tokens
 * (shared/domain/sign-in/sign-in.ts) and the hosted screen's sessions (web/login/screen/screen-session.ts) take
 * theirs from: a password (SRP or not); with a code (TOTP or e-mail); with a remembered device's own SRP standing
 * in for the second factor; a passkey with user verification, two factors by itself; an identity provider.
 * Shared as they are, never copied: readonly, so no holder can change another's.
 */
export const AMR = {
  password: ['pwd'],
  code: ['pwd', 'otp', 'mfa'],
  device: ['pwd', 'swk', 'mfa'],
  passkey: ['hwk', 'mfa'],
  federated: ['fed'],
} as const satisfies Readonly<Record<string, readonly AuthMethod[]>>;

/**
 * The `acr` of a sign-in with a second factor (OpenID Provider Authentication Policy Extension's multi-factor
 * policy): what `acr_values` asks for (web/login/oidc/authorization-server.ts) and what the ID token says when given.
 */
export const MULTI_FACTOR_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';

/** The `acr` of a sign-in's methods: multi-factor when they include a second factor (`mfa`), else none. */
export const acrOf = (amr: readonly AuthMethod[]): string | undefined => (amr.includes('mfa') ? MULTI_FACTOR_ACR : undefined);

interface CommonClaims {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  saas_id: string;
  token_use: TokenUse;
  auth_time: number;
  iat: number;
  exp: number;
  jti: string;
  email?: string;
  sign_in_id?: string;
  /** The user's session version when the token was issued: a token of an older version is revoked. */
  session_version: number;
  /** The refresh-token grant the token was issued with: refused once that grant is revoked. */
  origin_jti?: string;
  /** Access tokens of an OpenID Connect client: the scopes granted. */
  scope?: string;
}

export interface IdTokenClaims extends CommonClaims {
  token_use: 'id';
  'cognito:username': string;
  /** How the person signed in (absent from tokens of grants made before it was recorded). */
  amr?: AuthMethod[];
  acr?: string;
}

export interface AccessTokenClaims extends CommonClaims {
  token_use: 'access';
  username: string;
}

/** Whom the tokens are for. */
export interface TokenSubject {
  saasId: string;
  userId: string;
  /** E-mail users. */
  email?: string;
  /** Sign-in-ID users. */
  signInId?: string;
  /** When the user proved who they are (Unix seconds): kept across refreshes. Defaults to now. */
  authTime?: number;
  /** The user's `session_version` now: a password change, reset or sign-out everywhere raises it and so revokes the tokens. */
  sessionVersion: number;
  /** The `nonce` of an OpenID Connect authorization request: carried by the ID token only. */
  nonce?: string;
  /** The refresh-token grant the tokens come with (`origin_jti`): revoking it ends them too. */
  grantId?: string;
  /** An OpenID Connect client's granted scopes: the e-mail is a claim only with `email`. */
  scope?: string;
  /** How the person proved who they are: the ID token's `amr`, and its `acr`. */
  amr?: readonly AuthMethod[];
}

export interface IssuedTokens {
  idToken: string;
  accessToken: string;
  /** Seconds until both expire. */
  expiresIn: number;
}

export interface TokenSettings {
  /** The `iss` of every token: configured, the same however the API is reached. */
  issuer: string;
  lifetimeSeconds: number;
}

/** What signs: the key store's current key. */
export interface SigningKeyPort {
  signingKey(): Promise<ActiveSigningKey>;
}

/** What verifies: the key store's published keys; `refresh` reads the store again. */
export interface VerificationKeyPort {
  publishedKeys(options?: { refresh?: boolean }): Promise<PublicJwk[]>;
}

const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A JWS in compact form, RS256, signed in this thread: jose signs through WebCrypto, which cost 0.3 ms more
 * per token in the sign-in bench (a sign-in issues two). Verification stays with aws-jwt-verify and jose.
 */
function compactRs256(header: object, payload: object, key: KeyObject): string {
  const input = `${segment(header)}.${segment(payload)}`;
  return `${input}.${rsaSign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

export class TokenService {
  constructor(
    private readonly keys: SigningKeyPort,
    private readonly settings: TokenSettings,
  ) {}

  async issue(subject: TokenSubject): Promise<IssuedTokens> {
    const key = await this.keys.signingKey();
    const iat = nowSeconds();
    const withEmail = subject.scope === undefined || subject.scope.split(' ').includes('email');
    const common = {
      saas_id: subject.saasId,
      client_id: subject.saasId,
      auth_time: subject.authTime ?? iat,
      ...(subject.email !== undefined && withEmail ? { email: subject.email } : {}),
      ...(subject.signInId !== undefined ? { sign_in_id: subject.signInId } : {}),
      session_version: subject.sessionVersion,
      ...(subject.grantId !== undefined ? { origin_jti: subject.grantId } : {}),
    };
    const header = { alg: 'RS256', kid: key.kid, typ: 'JWT' };
    const registered = { iss: this.settings.issuer, sub: subject.userId, aud: subject.saasId, iat, exp: iat + this.settings.lifetimeSeconds };
    const sign = (claims: Record<string, unknown>) => compactRs256(header, { ...claims, ...registered, jti: randomUUID() }, key.privateKey);
    return {
      idToken: sign({
        ...common,
        token_use: 'id',
        'cognito:username': subject.userId,
        ...(subject.nonce !== undefined ? { nonce: subject.nonce } : {}),
        ...amrClaims(subject.amr),
      }),
      accessToken: sign({
        ...common,
        token_use: 'access',
        username: subject.userId,
        ...(subject.scope !== undefined ? { scope: subject.scope } : {}),
      }),
      expiresIn: this.settings.lifetimeSeconds,
    };
  }
}

function amrClaims(amr: readonly AuthMethod[] | undefined): { amr?: AuthMethod[]; acr?: string } {
  if (amr === undefined || amr.length === 0) return {};
  const acr = acrOf(amr);
  return { amr: [...amr], ...(acr !== undefined ? { acr } : {}) };
}

export interface VerifyOptions {
  /** The request field the token came in, named by the error message. */
  field?: string;
  /** The user the operation concerns: a token of anyone else is refused. */
  userId?: string;
  /**
   * The user's current session as the caller reads it (strongly consistent; undefined for a user who is gone),
   * in place of the check's own read, once the signature holds: a request that reads the profile anyway (GET
   * /userinfo, a save of credentials) spares a store request.
   */
  session?: (userId: string) => Promise<UserSession | undefined>;
}

/** The 401 for a missing or bad user token: it names the sign-in page to send the user to (docs/decisions.md, decision 1). */
export const invalidToken = (message: string, signInPageUrl: string) =>
  unauthenticated('invalid_token', message, { sign_in_page_url: signInPageUrl });

/** Why a token is refused, for the message; the type is always `invalid_token`. */
class Refusal extends Error {}

/** What of the user a token must agree with: their session version and the grants revoked lately. */
export interface UserSession {
  version: number;
  /** Grant id → until when its tokens could live (shared/domain/sign-in/grants.ts). */
  revokedGrants?: Readonly<Record<string, number>>;
}

/** The session of a user record. */
export const sessionOf = (user: { session_version: number; revoked_grants?: Record<string, number> }): UserSession => ({
  version: user.session_version,
  ...(user.revoked_grants ? { revokedGrants: user.revoked_grants } : {}),
});

/**
 * The user's current session, or undefined when the user is gone (deleted or being deleted). Read strongly
 * consistent on every verification: a token revoked a moment ago must be refused now, so no cache.
 */
export interface SessionRepository {
  session(saasId: string, userId: string): Promise<UserSession | undefined>;
}

/** Verifier-level settings: an issuer, no audience (given per SaaS at each call), JWKS never fetched. */
const newJwtVerifier = (issuer: string) => JwtVerifier.create({ issuer, audience: null, jwksUri: 'https://jwks.invalid/never-fetched.json' });

export class TokenVerifier {
  private readonly verifier: ReturnType<typeof newJwtVerifier>;
  private cachedKids = '';

  constructor(
    private readonly keys: VerificationKeyPort,
    private readonly issuer: string,
    /** Where a refused user is sent to sign in again (docs/decisions.md, decision 1). */
    private readonly signInPageUrl: (saasId: string) => Promise<string>,
    private readonly sessions: SessionRepository,
  ) {
    this.verifier = newJwtVerifier(issuer);
  }

  verifyAccessToken(saasId: string, token: string, options: VerifyOptions = {}): Promise<AccessTokenClaims> {
    return this.verify(saasId, token, 'access', options) as Promise<AccessTokenClaims>;
  }

  verifyIdToken(saasId: string, token: string, options: VerifyOptions = {}): Promise<IdTokenClaims> {
    return this.verify(saasId, token, 'id', options) as Promise<IdTokenClaims>;
  }

  private async verify(
    saasId: string,
    token: string,
    use: TokenUse,
    // The field's name by default: `access_token`, `id_token`.
    { field = `${use}_token`, userId, session: sessionOf = (sub) => this.sessions.session(saasId, sub) }: VerifyOptions,
  ): Promise<CommonClaims> {
    const refused = async (error: unknown) => invalidToken(`${field}: ${reasonOf(error)}`, await this.signInPageUrl(saasId));
    let payload: JwtPayload;
    try {
      payload = await this.signedPayload(saasId, token, use);
      if (userId !== undefined && payload.sub !== userId) throw new Refusal('belongs to another user');
    } catch (error) {
      throw await refused(error);
    }
    // A valid signature is not enough: the user must still exist and hold the session the token was issued in.
    // The read is outside the refusals: a store that fails is our failure (5xx), never a reason to sign out.
    const current = await sessionOf(payload.sub as string);
    if (current === undefined) throw await refused(new Refusal('belongs to a user who no longer exists'));
    if (payload.session_version !== current.version)
      throw await refused(new Refusal('was revoked: the password was changed or reset since it was issued'));
    // A revoked grant stays listed as long as its tokens could live, so the listing alone decides.
    const grant = payload.origin_jti;
    if (typeof grant === 'string' && current.revokedGrants && Object.hasOwn(current.revokedGrants, grant)) {
      throw await refused(new Refusal('was revoked: the refresh token it was issued with was revoked'));
    }
    return payload as unknown as CommonClaims;
  }

  /**
   * The SaaS and user of an ID token this deployment signed, whatever its age (an RP-initiated logout's
   * `id_token_hint` may have expired: OpenID Connect RP-Initiated Logout 1.0, section 2); undefined when its
   * signature, issuer or use does not hold, or its audience is not the SaaS it names.
   */
  async idTokenHint(token: string): Promise<{ saasId: string; userId: string } | undefined> {
    // The key reads are outside the refusals: a store that fails is our failure (5xx), not a bad hint.
    const withKeys = async (jwks: PublicJwk[]) => {
      try {
        const verified = await compactVerify(token, createLocalJWKSet({ keys: jwks.map((jwk) => ({ ...jwk }) as JWK) }), { algorithms: ['RS256'] });
        const parsed = JSON.parse(Buffer.from(verified.payload).toString('utf8')) as unknown;
        return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
      } catch (error) {
        return (error as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY' ? 'unknown key' : undefined;
      }
    };
    let payload = await withKeys(await this.keys.publishedKeys());
    // A key made since this cold start last read the store: read it again, once.
    if (payload === 'unknown key') payload = await withKeys(await this.keys.publishedKeys({ refresh: true }));
    if (payload === undefined || typeof payload === 'string') return undefined;
    const { iss, aud, saas_id: saasId, token_use: use, sub } = payload;
    if (iss !== this.issuer || use !== 'id' || typeof saasId !== 'string' || aud !== saasId || typeof sub !== 'string') return undefined;
    return { saasId, userId: sub };
  }

  /** The payload of a token whose signature, issuer, audience, use, SaaS and lifetime hold. */
  private async signedPayload(saasId: string, token: string, use: TokenUse): Promise<JwtPayload> {
    try {
      return await this.verifyWith(saasId, token, use, false);
    } catch (error) {
      // A key made since this cold start last read the store: read it again, once.
      if (!(error instanceof KidNotFoundInJwksError)) throw error;
      return this.verifyWith(saasId, token, use, true);
    }
  }

  private async verifyWith(saasId: string, token: string, use: TokenUse, refresh: boolean): Promise<JwtPayload> {
    const jwks = await this.keys.publishedKeys({ refresh });
    const kids = jwks.map((k) => k.kid).join(' ');
    if (kids !== this.cachedKids || refresh) {
      this.verifier.cacheJwks({ keys: jwks.map((jwk) => ({ ...jwk })) });
      this.cachedKids = kids;
    }
    // verifySync uses the cached keys only: an unknown kid is an error here, never a fetch.
    return this.verifier.verifySync(token, {
      audience: saasId,
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== use) throw new Refusal(`is not ${use === 'id' ? 'an ID' : 'an access'} token`);
        if (payload.saas_id !== saasId || payload.client_id !== saasId) throw new Refusal('was not issued for this SaaS');
        // The domain clock as well as the library's: the same in production, movable in tests.
        if (typeof payload.exp !== 'number' || payload.exp <= nowSeconds()) throw new Refusal('has expired');
      },
    });
  }
}

/** The port of the flows that take a user's access token in a body (user flows, devices, invitations, marketplace). */
export type AccessTokenVerifier = Pick<TokenVerifier, 'verifyAccessToken'>;

function reasonOf(error: unknown): string {
  if (error instanceof Refusal) return error.message;
  if (error instanceof JwtExpiredError) return 'has expired';
  if (error instanceof JwtInvalidAudienceError) return 'was not issued for this SaaS';
  if (error instanceof JwtInvalidIssuerError) return 'was issued by someone else';
  if (error instanceof KidNotFoundInJwksError) return 'is signed with a key this service does not know';
  if (error instanceof JwtParseError) return 'is not a JWT';
  return 'is not a valid token';
}

/**
 * The OpenID Provider metadata (GET /.well-known/openid-configuration); `baseUrl` is the configured public base
 * URL, never a request's Host header. The endpoints are web/login/oidc/authorization-server.ts's.
 */
export function openIdConfiguration(issuer: string, baseUrl: string) {
  return {
    issuer,
    authorization_endpoint: `${baseUrl}/oauth2/authorize`,
    token_endpoint: `${baseUrl}/oauth2/token`,
    userinfo_endpoint: `${baseUrl}/oauth2/userinfo`,
    end_session_endpoint: `${baseUrl}/oauth2/logout`,
    revocation_endpoint: `${baseUrl}/oauth2/revoke`,
    revocation_endpoint_auth_methods_supported: ['none'],
    jwks_uri: `${baseUrl}/.well-known/jwks.json`,
    scopes_supported: ['openid', 'email'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    acr_values_supported: [MULTI_FACTOR_ACR],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'client_id',
      'saas_id',
      'token_use',
      'auth_time',
      'acr',
      'amr',
      'iat',
      'exp',
      'jti',
      'nonce',
      'email',
      'email_verified',
      'sign_in_id',
      'preferred_username',
    ],
  };
}
