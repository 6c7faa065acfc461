/**
 * What an application does with credentials after the sign-in: refresh them (Get Authentication/Authorization
 * Information with auth-flow refreshTokenAuth), hand them over through a temporary code (Save, then Get with
 * tempCodeAuth), and read who signed in (GET /userinfo).
 *
 * Refresh tokens of the SaaSus API do not rotate: a refresh answers new ID and access tokens and the same
 * refresh token, which stays valid until its own expiry (refresh_token_validity, 30 days unless set), a
 * password change or reset (the user's session version rises past the one it is bound to), Revoke Token, or
 * Delete User. Applications that keep the refresh token in a cookie never have to update it. They are sealed,
 * not stored (refresh-tokens.ts): a refresh is one request, the profile and the grant's record (grants.ts).
 *
 * The OpenID Connect token endpoint's refresh tokens rotate (RFC 9700 section 4.14.2): each refresh answers
 * the next token of the grant, and one presented again after it was rotated revokes the whole grant. A code
 * redeemed twice revokes what its first redemption issued (RFC 6749 section 4.1.2).
 *
 * A temporary code is a UUID valid 10 seconds and single use. The saved tokens are sealed under a key
 * derived from the code itself and stored under the code's hash, so the table never holds them readable.
 * Saved with a PKCE challenge (S256 only), the code is traded only at Exchange Authentication Credentials,
 * with the verifier; saved without one, only by Get with tempCodeAuth. Any attempt takes the code out, so a
 * wrong verifier or the wrong operation burns it: a stolen code cannot be tried twice.
 */
import { createHash, randomUUID } from 'node:crypto';
import { constantTimeEqual } from '../../crypto/compare.js';
import { nowSeconds } from '../../clock.js';
import { codeHash, openWithCode, sealWithCode } from '../../crypto/code-box.js';
import { invalid, notFound, unauthenticated } from '../../errors.js';
import type { Credentials, CredentialsExchange, CredentialsQuery, CredentialsToSave, SignedInUser } from '../../schemas/sign-in.js';
import type { UserInfo } from '../../schemas/tenant-users.js';
import type { AtomicWrite, Committer } from '../atomic.js';
import type { AuthorizationCodeRepository, GrantRecord, GrantRepository } from './grants.js';
import { newGrantId, type RefreshGrant, type RefreshTokens } from './refresh-tokens.js';
import { credentialsOf, tokenSubject } from './sign-in-state.js';
import { invalidToken, sessionOf, type AuthMethod, type TokenService, type TokenVerifier, type UserSession } from '../tokens/tokens.js';
import type { UserRecord, UserRepository } from '../users/users.js';

/** The spec (docs/decisions.md): a temporary code carries saved credentials for 10 seconds; at second 11 it is refused. */
export const TEMP_CODE_SECONDS = 10;

/** An OpenID Connect authorization code lives a minute (RFC 6749 asks for at most ten), and is used once. */
export const AUTHORIZATION_CODE_SECONDS = 60;
/**
 * How long the hosted screen may hold a sign-in's code back while the person is on a page between the sign-in
 * and the redirect (the passkey offer): the code's own 10 seconds start only when they leave it (`release`).
 */
export const HELD_CODE_SECONDS = 15 * 60;

/**
 * What an OpenID Connect authorization request binds its code to (web/login/oidc/authorization-server.ts):
 * the code is redeemed only at the token endpoint, with the same redirect URI and the PKCE verifier.
 */
export interface AuthorizationBinding {
  redirect_uri: string;
  /** BASE64URL(SHA-256(code_verifier)): only S256 is accepted. */
  code_challenge: string;
  nonce?: string;
  scope: string;
  /** The hosted screen's session the code came from (screen-sessions.ts): the client's grant is recorded on it. */
  screen_session?: string;
}

/** What the token endpoint answers for a code or a refresh token. */
export interface GrantedTokens {
  credentials: Credentials;
  expiresIn: number;
  scope?: string;
}

/** The claims of the OpenID Connect userinfo endpoint. */
export interface OpenIdUserInfo {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
}

const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** BASE64URL(SHA-256(verifier)), RFC 7636's S256 transform. */
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** What a code was saved as: how it may be traded. */
type SavedContent = Credentials & { authorization?: AuthorizationBinding; code_challenge?: string };

const codeNotFound = () => notFound('code_not_found', 'code: no saved credentials under this code (unknown, used, or older than 10 seconds)');

export interface SavedCredentials {
  /** The credentials as JSON, sealed under the code (code-box.ts). */
  sealed: string;
  user_id: string;
  expiresAt: number;
}

export interface TempCodeRepository {
  /** Stores saved credentials under a code's hash (a fresh UUID's: a collision is a bug). */
  save(saasId: string, codeHash: string, saved: SavedCredentials): Promise<void>;
  /** The same save as a write, to commit with others (a screen session opened or used with the code). */
  saveWrite(saasId: string, codeHash: string, saved: SavedCredentials): AtomicWrite;
  /** Takes them out, once: undefined when unknown, taken before, or expired at `now`. */
  take(saasId: string, codeHash: string, now: number): Promise<SavedCredentials | undefined>;
}

export interface CredentialDeps {
  users: Pick<UserRepository, 'get'>;
  refreshTokens: Pick<RefreshTokens, 'open' | 'issue' | 'grantsEndBy'>;
  /**
   * Records a grant on the screen session its code came from, so that signing out there can revoke it
   * (false when the session has ended meanwhile).
   */
  recordSessionGrant?(saasId: string, userId: string, sessionId: string, grantId: string): Promise<boolean>;
  grants: GrantRepository;
  authorizationCodes: AuthorizationCodeRepository<SavedCredentials>;
  tempCodes: TempCodeRepository;
  /** Commits a code with the writes that go with it (a screen session's). */
  committer: Committer;
  tokens: Pick<TokenService, 'issue'>;
  /** How long ID and access tokens live: a revoked grant stays listed on the profile that long. */
  tokenLifetimeSeconds: number;
  verifier: Pick<TokenVerifier, 'verifyAccessToken' | 'verifyIdToken'>;
  /** The user with their tenants, and their current session version; both undefined when the user is gone. */
  userInfo(saasId: string, userId: string): Promise<{ info?: UserInfo; session?: UserSession }>;
  /** Where a refused user is sent to sign in again (docs/decisions.md, decision 1). */
  signInPageUrl(saasId: string): Promise<string>;
}

/** A user's profile read with one grant's record (`GrantRepository.userAndGrant`), or the profile alone. */
type GrantRead = { user?: UserRecord; grant?: GrantRecord };

const sealContext = (saasId: string) => `temporary code credentials\n${saasId}`;
/** Another context than a code's: a hold's id opens nothing as a code, and a code nothing as a hold. */
const heldContext = (saasId: string) => `held temporary code\n${saasId}`;

export class CredentialService {
  constructor(private readonly deps: CredentialDeps) {}

  private async tokenRefused(saasId: string, message: string) {
    return invalidToken(message, await this.deps.signInPageUrl(saasId));
  }

  private notLive(saasId: string, field: string) {
    return this.tokenRefused(saasId, `${field}: is not a live refresh token (unknown, expired, revoked, or ended by a password change)`);
  }

  /**
   * The user a refresh token belongs to and its grant, while the token is live (for a rotating grant: the
   * latest of its chain); else a 401 naming `field`. One store request: the profile and the grant's record, or
   * none when `read` is that read already (of the grant's user: `userAndGrant`).
   */
  private async liveRefreshToken(saasId: string, token: string, field: string, read?: GrantRead): Promise<{ user: UserRecord; grant: RefreshGrant }> {
    const grant = await this.deps.refreshTokens.open(saasId, token);
    const found = grant && (read?.user?.id === grant.userId ? read : await this.deps.grants.userAndGrant(saasId, grant.userId, grant.grantId));
    const user = found?.user;
    const record = found?.grant;
    const current = grant?.generation === undefined ? !record?.revoked : record?.revoked === false && record.generation === grant.generation;
    if (!grant || !user || grant.sessionVersion !== user.session_version || !current) throw await this.notLive(saasId, field);
    return { user, grant };
  }

  /**
   * Ends a grant: its refresh tokens at once, its ID and access tokens at the token check (grants.ts), which
   * lists it a minute beyond their lifetime: a refresh that read the grant just before it was revoked may sign
   * a moment after.
   */
  private revokeGrant(saasId: string, userId: string, grantId: string, expiresAt: number): Promise<void> {
    const now = nowSeconds();
    return this.deps.grants.revoke(saasId, userId, grantId, expiresAt, now + this.deps.tokenLifetimeSeconds + 60, now);
  }

  /**
   * Ends grants of one user (a screen session's, signed out with its tokens): their refresh tokens at once, their
   * ID and access tokens at the token check. Each stays revoked until any grant issued until now would have ended.
   */
  async revokeGrants(saasId: string, userId: string, grantIds: readonly string[]): Promise<void> {
    if (grantIds.length === 0) return;
    const endBy = await this.deps.refreshTokens.grantsEndBy(saasId);
    await Promise.all(grantIds.map((grantId) => this.revokeGrant(saasId, userId, grantId, endBy)));
  }

  /**
   * Revoke Token (RFC 7009 semantics): the refresh token's grant ends, with every token issued from it. A
   * token that is unknown, of another SaaS, expired or revoked already changes nothing and is no error.
   */
  async revoke(saasId: string, refreshToken: string): Promise<void> {
    const grant = await this.deps.refreshTokens.open(saasId, refreshToken);
    if (grant) await this.revokeGrant(saasId, grant.userId, grant.grantId, grant.expiresAt);
  }

  /** New ID and access tokens for a live refresh token, which is answered back unchanged (no rotation). */
  async refresh(saasId: string, refreshToken: string, field = 'refresh-token'): Promise<GrantedTokens> {
    const { user, grant } = await this.liveRefreshToken(saasId, refreshToken, field);
    // A rotating token refreshed here would leave its chain behind: it is refreshed at the token endpoint only.
    if (grant.generation !== undefined)
      throw await this.tokenRefused(saasId, `${field}: belongs to an OpenID Connect client; use its token endpoint`);
    const tokens = await this.deps.tokens.issue({
      ...tokenSubject(saasId, user, grant.authTime, grant.sessionVersion, grant.amr),
      grantId: grant.grantId,
    });
    return { credentials: credentialsOf(tokens, refreshToken), expiresIn: tokens.expiresIn };
  }

  /**
   * The token endpoint's refresh_token grant. A rotating token is spent: the answer carries the grant's next
   * token, and a token spent before revokes the grant (someone else holds a copy). A SaaSus API token
   * (not rotating) is refreshed as `refresh` does. `nonce` goes into the new ID token.
   */
  async grantByRefreshToken(saasId: string, refreshToken: string, nonce?: string, field = 'refresh-token'): Promise<GrantedTokens> {
    const grant = await this.deps.refreshTokens.open(saasId, refreshToken);
    if (grant?.generation === undefined) return this.refresh(saasId, refreshToken, field);
    const [user, advance] = await Promise.all([
      this.deps.users.get(saasId, grant.userId),
      this.deps.grants.advance(saasId, grant.userId, grant.grantId, grant.generation),
    ]);
    if (advance === 'reused') {
      await this.revokeGrant(saasId, grant.userId, grant.grantId, grant.expiresAt);
      throw await this.tokenRefused(saasId, `${field}: was used before; every token of its grant is revoked`);
    }
    if (advance !== 'advanced' || !user || user.session_version !== grant.sessionVersion) throw await this.notLive(saasId, field);
    return this.grantTokens(saasId, user, { ...grant, generation: grant.generation + 1 }, nonce);
  }

  /** ID and access tokens of a rotating grant, and the grant's refresh token of `grant.generation`. */
  private async grantTokens(saasId: string, user: UserRecord, grant: RefreshGrant, nonce?: string): Promise<GrantedTokens> {
    const [tokens, next] = await Promise.all([
      this.deps.tokens.issue({
        ...tokenSubject(saasId, user, grant.authTime, grant.sessionVersion, grant.amr),
        grantId: grant.grantId,
        ...(grant.scope !== undefined ? { scope: grant.scope } : {}),
        ...(nonce ? { nonce } : {}),
      }),
      this.deps.refreshTokens.issue(saasId, grant),
    ]);
    return {
      credentials: credentialsOf(tokens, next.token),
      expiresIn: tokens.expiresIn,
      ...(grant.scope !== undefined ? { scope: grant.scope } : {}),
    };
  }

  /** Get Authentication/Authorization Information: by temporary code (the default flow) or by refresh token. */
  async get(saasId: string, query: CredentialsQuery): Promise<Credentials> {
    if (query['auth-flow'] === 'refreshTokenAuth') {
      const token = query['refresh-token'];
      if (!token) throw invalid('invalid_parameter', 'refresh-token: is required with auth-flow refreshTokenAuth', { field: 'refresh-token' });
      return (await this.refresh(saasId, token)).credentials;
    }
    if (!query.code) throw invalid('invalid_parameter', 'code: is required with auth-flow tempCodeAuth', { field: 'code' });
    return this.redeem(saasId, query.code);
  }

  /**
   * Save Authentication/Authorization Information: only tokens this service issued, all of one user. With a
   * binding, the code is an OpenID Connect authorization code: redeemable only by `redeemAuthorizationCode`.
   * `with`: writes that happen with the code or not at all (the hosted screen's session it opens).
   */
  save(saasId: string, input: CredentialsToSave, binding?: AuthorizationBinding, ...withCode: AtomicWrite[]): Promise<{ code: string }> {
    return this.checkAndSave(saasId, input, binding, withCode, false);
  }

  /**
   * As `save`, but the code is not yet saved: what is saved (with `withCode`) is a hold, for HELD_CODE_SECONDS,
   * that `release` turns into the code, once. The hosted screen's page between a sign-in and the redirect.
   */
  hold(
    saasId: string,
    input: CredentialsToSave,
    binding?: AuthorizationBinding,
    ...withCode: AtomicWrite[]
  ): Promise<{ code: string; hold: string }> {
    return this.checkAndSave(saasId, input, binding, withCode, true) as Promise<{ code: string; hold: string }>;
  }

  /**
   * Saves the code a hold was made for, its lifetime counted from now. The hold is taken out in doing so: false
   * when unknown, released before, or expired (a replay issues no second code).
   */
  async release(saasId: string, hold: string): Promise<boolean> {
    const saved = await this.deps.tempCodes.take(saasId, codeHash(hold.toLowerCase()), nowSeconds());
    const opened = saved && openWithCode(hold.toLowerCase(), heldContext(saasId), saved.sealed);
    if (!opened) return false;
    const { code, content } = JSON.parse(opened) as { code: string; content: string };
    const bound = (JSON.parse(content) as SavedContent).authorization !== undefined;
    await this.deps.tempCodes.save(saasId, codeHash(code), {
      sealed: sealWithCode(code, sealContext(saasId), content),
      user_id: saved.user_id,
      expiresAt: nowSeconds() + (bound ? AUTHORIZATION_CODE_SECONDS : TEMP_CODE_SECONDS),
    });
    return true;
  }

  private async checkAndSave(
    saasId: string,
    input: CredentialsToSave,
    binding: AuthorizationBinding | undefined,
    withCode: AtomicWrite[],
    held: boolean,
  ): Promise<{ code: string; hold?: string }> {
    const challenge = pkceChallenge(input);
    const refreshToken = input.refresh_token || undefined;
    const grant = refreshToken && (await this.deps.refreshTokens.open(saasId, refreshToken));
    // The three tokens are checked against one read of the ID token's user (strongly consistent): their profile,
    // with the refresh token's grant record beside it when the grant is theirs (the hosted screen saves every
    // sign-in's tokens here: each read spared is one of every sign-in there). Refused in the same order as ever.
    let read: GrantRead = {};
    const session = async () => read.user && sessionOf(read.user);
    const idClaims = await this.deps.verifier.verifyIdToken(saasId, input.id_token, {
      session: async (userId) => {
        read =
          grant && grant.userId === userId
            ? await this.deps.grants.userAndGrant(saasId, userId, grant.grantId)
            : { user: await this.deps.users.get(saasId, userId) };
        return session();
      },
    });
    await this.deps.verifier.verifyAccessToken(saasId, input.access_token, { userId: idClaims.sub, session });
    if (refreshToken) {
      const { user } = await this.liveRefreshToken(saasId, refreshToken, 'refresh_token', read);
      if (user.id !== idClaims.sub) throw await this.tokenRefused(saasId, 'refresh_token: belongs to another user than id_token');
    }
    const credentials: Credentials = {
      id_token: input.id_token,
      access_token: input.access_token,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    };
    return this.saveCode(saasId, idClaims.sub, credentials, binding ? { binding } : challenge ? { challenge } : {}, withCode, held);
  }

  /**
   * A code for a session of the hosted screen (screen-sessions.ts) that answers an authorization without a
   * sign-in: fresh tokens of a new grant, as the sign-in that made the session would have had them (its
   * auth_time, its session version), saved under a code in one write with `withCode` (the session's last use).
   * No store read: the caller read the user with the session. `undefined` when that write is refused.
   */
  async saveForSession(
    saasId: string,
    user: UserRecord,
    session: { authTime: number; sessionVersion: number; methods: readonly AuthMethod[] },
    target: { binding?: AuthorizationBinding; challenge?: string },
    withCode: AtomicWrite[],
    /** The new grant's id: the caller records it on the session in `withCode`. */
    grantId = newGrantId(),
  ): Promise<{ code: string } | undefined> {
    const [tokens, refreshToken] = await Promise.all([
      this.deps.tokens.issue({ ...tokenSubject(saasId, user, session.authTime, session.sessionVersion, session.methods), grantId }),
      this.deps.refreshTokens.issue(saasId, {
        userId: user.id,
        sessionVersion: session.sessionVersion,
        authTime: session.authTime,
        amr: session.methods,
        grantId,
      }),
    ]);
    try {
      return await this.saveCode(saasId, user.id, credentialsOf(tokens, refreshToken.token), target, withCode);
    } catch (error) {
      if (error instanceof WriteRefused) return undefined;
      throw error;
    }
  }

  private async saveCode(
    saasId: string,
    userId: string,
    credentials: Credentials,
    { binding, challenge }: { binding?: AuthorizationBinding; challenge?: string },
    withCode: AtomicWrite[],
    held = false,
  ): Promise<{ code: string; hold?: string }> {
    const code = randomUUID();
    const content = JSON.stringify(
      binding ? { ...credentials, authorization: binding } : challenge ? { ...credentials, code_challenge: challenge } : credentials,
    );
    // Held: saved under the hold's id instead, the code inside, until `release` saves it as below.
    const hold = held ? randomUUID() : undefined;
    const key = hold ?? code;
    const saved: SavedCredentials = {
      sealed: hold ? sealWithCode(hold, heldContext(saasId), JSON.stringify({ code, content })) : sealWithCode(code, sealContext(saasId), content),
      user_id: userId,
      expiresAt: nowSeconds() + (hold ? HELD_CODE_SECONDS : binding ? AUTHORIZATION_CODE_SECONDS : TEMP_CODE_SECONDS),
    };
    const answer = hold ? { code, hold } : { code };
    if (withCode.length === 0) {
      await this.deps.tempCodes.save(saasId, codeHash(key), saved);
      return answer;
    }
    const outcome = await this.deps.committer.commit(this.deps.tempCodes.saveWrite(saasId, codeHash(key), saved), ...withCode);
    if (!outcome.committed) throw new WriteRefused(outcome.refusedBy);
    return answer;
  }

  /** Takes the code's saved credentials out, once; undefined when unknown, used or expired. */
  private async take(saasId: string, code: string): Promise<SavedContent | undefined> {
    const saved = await this.deps.tempCodes.take(saasId, codeHash(code.toLowerCase()), nowSeconds());
    const opened = saved && openWithCode(code.toLowerCase(), sealContext(saasId), saved.sealed);
    return opened ? (JSON.parse(opened) as SavedContent) : undefined;
  }

  private async redeem(saasId: string, code: string): Promise<Credentials> {
    const saved = await this.take(saasId, code);
    // A code bound to a PKCE challenge is not redeemed here, without its verifier.
    if (!saved || saved.authorization || saved.code_challenge) throw codeNotFound();
    return plainCredentials(saved);
  }

  /**
   * Exchange Authentication Credentials: a code saved with a PKCE challenge, traded with its verifier. A code
   * saved without a challenge is unknown here (404 as any unknown code); a verifier that does not match is 401,
   * and the code is gone either way.
   */
  async exchange(saasId: string, input: CredentialsExchange): Promise<Credentials> {
    const saved = await this.take(saasId, input.code);
    if (!saved || saved.authorization || !saved.code_challenge) throw codeNotFound();
    if (!constantTimeEqual(s256(input.code_verifier), saved.code_challenge)) {
      throw unauthenticated('invalid_code_verifier', 'code_verifier: does not match the code_challenge the code was saved with; the code is used up');
    }
    return plainCredentials(saved);
  }

  /**
   * The token endpoint's authorization_code grant: the code spent (so a second try fails even when this one
   * does, and revokes what this one issued), its redirect URI and PKCE verifier checked, and a new rotating
   * grant started: fresh tokens, the ID token with the request's nonce. Refusals are `invalid_grant`.
   */
  async redeemAuthorizationCode(saasId: string, code: string, proof: { redirect_uri: string; code_verifier: string }): Promise<GrantedTokens> {
    const grantId = newGrantId();
    const spent = await this.deps.authorizationCodes.spend(saasId, codeHash(code.toLowerCase()), nowSeconds(), grantId);
    if (spent && 'replayed' in spent) {
      const { userId, grantId: issued } = spent.replayed;
      await this.revokeGrant(saasId, userId, issued, nowSeconds() + this.deps.tokenLifetimeSeconds);
      throw invalid('invalid_grant', 'code: was used before; the tokens issued for it are revoked');
    }
    const opened = spent && openWithCode(code.toLowerCase(), sealContext(saasId), spent.saved.sealed);
    const saved = opened ? (JSON.parse(opened) as Credentials & { authorization?: AuthorizationBinding }) : undefined;
    const binding = saved?.authorization;
    if (!saved || !binding) throw invalid('invalid_grant', 'code: unknown, used, or expired');
    if (binding.redirect_uri !== proof.redirect_uri) throw invalid('invalid_grant', 'redirect_uri: is not the one the code was issued for');
    if (!PKCE_VERIFIER.test(proof.code_verifier) || !constantTimeEqual(s256(proof.code_verifier), binding.code_challenge)) {
      throw invalid('invalid_grant', 'code_verifier: does not match the code_challenge');
    }
    if (!saved.refresh_token) throw invalid('invalid_grant', 'code: carries no session to issue tokens from');
    const { user, grant: signIn } = await this.liveRefreshToken(saasId, saved.refresh_token, 'code');
    // A replay that came first has revoked this grant already: nothing is issued from it.
    if (!(await this.deps.grants.start(saasId, user.id, grantId, signIn.expiresAt))) {
      throw invalid('invalid_grant', 'code: was used twice; the tokens issued for it are revoked');
    }
    const grant: RefreshGrant = { ...signIn, grantId, generation: 0, scope: binding.scope };
    // From a screen session: the client's grant is that session's too, revoked with it when it signs out so.
    if (binding.screen_session !== undefined) await this.deps.recordSessionGrant?.(saasId, user.id, binding.screen_session, grantId);
    return this.grantTokens(saasId, user, grant, binding.nonce);
  }

  /** The OpenID Connect userinfo endpoint: the standard claims of the user a bearer access token names. */
  async openIdUserInfo(saasId: string, accessToken: string): Promise<OpenIdUserInfo> {
    const claims = await this.deps.verifier.verifyAccessToken(saasId, accessToken);
    const user = await this.deps.users.get(saasId, claims.sub);
    if (!user) throw await this.tokenRefused(saasId, 'access_token: its user no longer exists');
    // The claims follow the scopes granted (OpenID Connect Core 1.0, section 5.4); SaaSus tokens have none and see all.
    const withEmail = claims.scope === undefined || claims.scope.split(' ').includes('email');
    return {
      sub: user.id,
      ...(user.email && withEmail ? { email: user.email, email_verified: true } : {}),
      ...(user.sign_in_id ? { preferred_username: user.sign_in_id } : {}),
    };
  }

  /** GET /userinfo: the user an ID token names, with their tenants, envs and roles. */
  async userInfo(saasId: string, idToken: string): Promise<SignedInUser> {
    // The user's reads stand in for the token check's own: the profile they read holds the session version.
    let info: UserInfo | undefined;
    await this.deps.verifier.verifyIdToken(saasId, idToken, {
      field: 'token',
      session: async (userId) => {
        const found = await this.deps.userInfo(saasId, userId);
        info = found.info;
        return found.session;
      },
    });
    // A user who is gone has no session version: the token check refused them, so `info` is there.
    const user = info as UserInfo;
    return { ...user, attributes: user.user_attribute };
  }
}

/** A write that goes with a code was refused (a screen session ended meanwhile): no code was saved. */
export class WriteRefused extends Error {
  constructor(readonly rule: string) {
    super(`the write that goes with the code was refused (${rule})`);
  }
}

/** The saved credentials alone, without what bound the code. */
function plainCredentials(saved: SavedContent): Credentials {
  return {
    id_token: saved.id_token,
    access_token: saved.access_token,
    ...(saved.refresh_token ? { refresh_token: saved.refresh_token } : {}),
  };
}

/**
 * The S256 challenge a code is saved with, if any. `plain` is refused (400): it would put the verifier itself
 * on the wire twice, and nothing that can hash needs it (RFC 7636, 4.2).
 */
function pkceChallenge(input: CredentialsToSave): string | undefined {
  // Empty strings count as not given (SDKs without optional fields send them so).
  const challenge = input.code_challenge || undefined;
  const method = input.code_challenge_method || undefined;
  if (challenge === undefined && method === undefined) return undefined;
  if (method === 'plain') {
    throw invalid('unsupported_code_challenge_method', 'code_challenge_method: only S256 is accepted; plain is refused', {
      field: 'code_challenge_method',
    });
  }
  if (challenge === undefined)
    throw invalid('invalid_parameter', 'code_challenge: is required with code_challenge_method', { field: 'code_challenge' });
  if (method === undefined) {
    throw invalid('invalid_parameter', 'code_challenge_method: is required with code_challenge (S256)', { field: 'code_challenge_method' });
  }
  return challenge;
}
