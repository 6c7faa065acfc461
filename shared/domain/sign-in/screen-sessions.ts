/**
 * The hosted screen's session (docs/login-screen.md, "Signed in once"): every completed sign-in on a SaaS's
 * screen opens one, and a later authorization for the same SaaS completes from it without asking, while it is
 * live and nothing forbids it (prompt=login, max_age, a second factor the user now needs, another tenant's
 * identity provider).
 *
 * The browser holds a sealed reference (web/login/screen/screen-session.ts); the store holds a small item in the
 * user's partition, so a session can be listed and ended one by one, and Delete User takes them along:
 *
 * - made in the same write as the sign-in's code (CredentialService.save's extra writes): a screen sign-in makes
 *   no more store requests than before;
 * - resumed with one read (the profile beside the session item: a password change or reset raises the session
 *   version, which ends every session made before; on the screen's sign-in page, the SaaS's account item too,
 *   its check that the SaaS exists) and one write (the code, and the item's last use);
 * - ended by signing out, by the API or console (`DELETE /users/{id}/sessions/{session_id}`), by a password
 *   change or reset, and by Delete User.
 */
import { randomBytes } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { notFound } from '../../errors.js';
import type { AtomicWrite } from '../atomic.js';
import type { AuthMethod } from '../tokens/tokens.js';
import type { UserRecord } from '../users/users.js';

/** How the person proved who they are, as OpenID Connect's `amr` names it (RFC 8176): the ID tokens' `amr` too. */
export type SessionMethod = AuthMethod;

/** The item's last use is written again only when older than this: an idle lifetime counts in minutes, not seconds. */
export const TOUCH_SECONDS = 60;

/** What the SaaS's sign-in settings say of its screen sessions. */
export interface ScreenSessionRules {
  idleSeconds: number;
  absoluteSeconds: number;
  /** The SaaS requires passkeys of everyone (`passkeys.required`): a session a password made never answers. */
  passkeysRequired: boolean;
  /** The SaaS has passkeys on: only then can a tenant require them of its members (tenant `passkeys_required`). */
  passkeysEnabled: boolean;
}

/** What the store keeps of a session (no secret: the browser's reference is sealed, this names it). */
export interface ScreenSessionRecord {
  session_id: string;
  user_id: string;
  /** The user's session version it was made at: a password change or reset raises it. */
  session_version: number;
  /** When the person proved who they are (the tokens' auth_time, OpenID Connect's max_age). */
  auth_time: number;
  methods: readonly SessionMethod[];
  /** A second factor was given (or the way in counts as two: a passkey, an identity provider). */
  second_factor: boolean;
  /** Made through this tenant's own identity provider (SAML or OpenID Connect): used for that tenant only. */
  tenant_id?: string;
  /**
   * The refresh-token grants issued from it: the sign-in's, each code it answered, and the OpenID Connect
   * clients' grants from those codes. Signing out with `revoke_tokens` revokes them.
   */
  grants?: string[];
  user_agent: string;
  ip: string;
  created_at: number;
  last_used_at: number;
  /** The absolute end (also the item's TTL). */
  expires_at: number;
}

/** A session as the API and the console list it. */
export interface ScreenSessionView {
  id: string;
  user_agent: string;
  ip: string;
  created_at: number;
  last_used_at: number;
  expires_at: number;
  methods: SessionMethod[];
  tenant_id?: string;
}

export interface ScreenSessionRepository {
  /** The new session's item, written with the sign-in's code (refused when the id exists: a collision is a bug). */
  openWrite(saasId: string, record: ScreenSessionRecord): AtomicWrite;
  /**
   * The live user (undefined when gone) and the session's item, in one request; with `withSaas`, whether the
   * SaaS's account is there, read in the same request.
   */
  userAndSession(
    saasId: string,
    userId: string,
    sessionId: string,
    options?: { withSaas?: boolean },
  ): Promise<{ saasExists?: boolean; user?: UserRecord; session?: ScreenSessionRecord }>;
  /**
   * Its last use moved to `lastUsed` and/or `grant` added to its grants, on condition that it still exists
   * (ended meanwhile: the write fails).
   */
  useWrite(saasId: string, userId: string, sessionId: string, use: { lastUsed?: number; grant?: string }): AtomicWrite;
  /** `grant` added to its grants; false when the session has ended. */
  addGrant(saasId: string, userId: string, sessionId: string, grant: string): Promise<boolean>;
  /** The user's sessions and profile, in one query of the partition. */
  ofUser(saasId: string, userId: string): Promise<{ user?: UserRecord; sessions: ScreenSessionRecord[] }>;
  /** false when there was none. */
  remove(saasId: string, userId: string, sessionId: string): Promise<boolean>;
  /** Removes it and answers what it was (undefined when there was none). */
  take(saasId: string, userId: string, sessionId: string): Promise<ScreenSessionRecord | undefined>;
}

/** What the browser's sealed reference names. */
export interface SessionReference {
  userId: string;
  sessionId: string;
}

/** What a sign-in tells about itself when it opens a session. */
export interface SessionOpening {
  userId: string;
  sessionVersion: number;
  authTime: number;
  methods: readonly SessionMethod[];
  secondFactor: boolean;
  tenantId?: string;
  userAgent: string;
  ip: string;
  /** The sign-in's refresh-token grant. */
  grantId?: string;
}

/** Why a session does not answer an authorization by itself. */
export type NotUsable = 'none' | 'ended' | 'login_asked' | 'too_old' | 'second_factor' | 'second_factor_asked' | 'other_tenant';

/** What an authorization asks of a session. */
export interface SessionDemand {
  /** prompt=login: the person signs in again whatever the session. */
  login?: boolean;
  /** max_age (seconds): the session's authentication may be at most this old. */
  maxAge?: number;
  /** The tenant the request is for, when it names one. */
  tenantId?: string;
  /** The application asks for a second factor (OpenID Connect `acr_values`, multi-factor). */
  secondFactor?: boolean;
}

/** What one read found of a session a browser names: the live user, the session's item (each absent when gone). */
export interface SessionRead {
  user?: UserRecord;
  session?: ScreenSessionRecord;
}

export type Resumed = { usable: true; user: UserRecord; session: ScreenSessionRecord } | { usable: false; why: NotUsable; user?: UserRecord };

export const newSessionId = () => randomBytes(16).toString('base64url');

const MAX_USER_AGENT = 256;

export const viewOf = (s: ScreenSessionRecord): ScreenSessionView => ({
  id: s.session_id,
  user_agent: s.user_agent,
  ip: s.ip,
  created_at: s.created_at,
  last_used_at: s.last_used_at,
  expires_at: s.expires_at,
  // The answer's own copy: a record's methods may be AMR's shared table (tokens.ts), never to be changed.
  methods: [...s.methods],
  ...(s.tenant_id !== undefined ? { tenant_id: s.tenant_id } : {}),
});

export class ScreenSessionService {
  constructor(
    private readonly deps: {
      store: ScreenSessionRepository;
      rules(saasId: string): Promise<ScreenSessionRules>;
      /**
       * Whether a live tenant of the user requires passkeys (TenantUserService.requiresPasskey: one Query of the
       * memberships, one GetItem per tenant), asked only of a password session where passkeys are on.
       */
      tenantRequiresPasskey(saasId: string, user: UserRecord): Promise<boolean>;
      /** Revokes refresh-token grants of a user (CredentialService.revokeGrants). */
      revokeGrants(saasId: string, userId: string, grantIds: readonly string[]): Promise<void>;
    },
  ) {}

  /** The item of a new session and its write; its id is always new, whatever the browser sent before. */
  async open(saasId: string, opening: SessionOpening): Promise<{ record: ScreenSessionRecord; write: AtomicWrite }> {
    const now = nowSeconds();
    const { absoluteSeconds } = await this.deps.rules(saasId);
    const record: ScreenSessionRecord = {
      session_id: newSessionId(),
      user_id: opening.userId,
      session_version: opening.sessionVersion,
      auth_time: opening.authTime,
      methods: opening.methods,
      second_factor: opening.secondFactor,
      ...(opening.tenantId !== undefined ? { tenant_id: opening.tenantId } : {}),
      ...(opening.grantId !== undefined ? { grants: [opening.grantId] } : {}),
      user_agent: opening.userAgent.slice(0, MAX_USER_AGENT),
      ip: opening.ip,
      created_at: now,
      last_used_at: now,
      expires_at: now + absoluteSeconds,
    };
    return { record, write: this.deps.store.openWrite(saasId, record) };
  }

  /**
   * The session a browser names, when it is live and meets what the authorization asks: one store request, none
   * when given what `readWithSaas` read of it.
   * Live: the user exists with the session version it was made at, the item is there (not ended), and neither
   * lifetime has passed. It meets the demand unless prompt=login, an authentication older than max_age, a
   * second factor the user has turned on since (or the application asks for), another tenant's identity provider,
   * or passkeys now required of a password session (by the SaaS of everyone, or by a tenant of the person's).
   */
  async resume(saasId: string, ref: SessionReference, demand: SessionDemand = {}, read?: SessionRead): Promise<Resumed> {
    const [{ user, session }, { idleSeconds, passkeysRequired, passkeysEnabled }] = await Promise.all([
      read ?? this.deps.store.userAndSession(saasId, ref.userId, ref.sessionId),
      this.deps.rules(saasId),
    ]);
    const now = nowSeconds();
    if (!user || !session || session.session_version !== user.session_version) return { usable: false, why: 'ended' };
    if (session.expires_at <= now || session.last_used_at + idleSeconds <= now) return { usable: false, why: 'ended' };
    if (demand.login) return { usable: false, why: 'login_asked', user };
    if (demand.maxAge !== undefined && now - session.auth_time > demand.maxAge) return { usable: false, why: 'too_old', user };
    if (user.mfa.enabled && !session.second_factor) return { usable: false, why: 'second_factor', user };
    if (demand.secondFactor && !session.second_factor) return { usable: false, why: 'second_factor_asked', user };
    if (session.tenant_id !== undefined && session.tenant_id !== demand.tenantId) return { usable: false, why: 'other_tenant', user };
    // Passkeys required, of everyone or by a tenant of the person's: a password (with a code or a device or not) no
    // longer signs them in (the sign-in's passkey gate), so a session a password made no longer answers either.
    // Asked last: the tenant's rule costs a read, paid only by a password session where passkeys are on.
    if (session.methods.includes('pwd') && passkeysEnabled) {
      if (passkeysRequired || (await this.deps.tenantRequiresPasskey(saasId, user))) return { usable: false, why: 'second_factor', user };
    }
    return { usable: true, user, session };
  }

  /**
   * The session a browser names, read with the SaaS's own account item in one store request, for a request that
   * must check the SaaS exists before anything else (the screen's sign-in page: web/login/screen/resume.ts).
   * Nothing of the session is judged here: `resume` does, given this read, once the SaaS is known to exist.
   */
  async readWithSaas(saasId: string, ref: SessionReference): Promise<{ saasExists: boolean; read: SessionRead }> {
    const { saasExists = false, ...read } = await this.deps.store.userAndSession(saasId, ref.userId, ref.sessionId, { withSaas: true });
    return { saasExists, read };
  }

  /**
   * The write that goes with a use of the session: the grant of the code it answers recorded on it, if any, and its
   * last use moved to now (at most once a minute; none at all when there is neither).
   */
  touch(saasId: string, session: ScreenSessionRecord, grantId?: string): AtomicWrite[] {
    const now = nowSeconds();
    const lastUsed = now - session.last_used_at < TOUCH_SECONDS ? undefined : now;
    if (lastUsed === undefined && grantId === undefined) return [];
    return [this.deps.store.useWrite(saasId, session.user_id, session.session_id, { lastUsed, grant: grantId })];
  }

  /** An OpenID Connect client's grant from a code the session answered (CredentialDeps.recordSessionGrant). */
  recordGrant(saasId: string, userId: string, sessionId: string, grantId: string): Promise<boolean> {
    return this.deps.store.addGrant(saasId, userId, sessionId, grantId);
  }

  /** The user's live sessions, newest first (an ended one, by a password change or its lifetimes, is not listed). */
  async list(saasId: string, userId: string): Promise<ScreenSessionView[]> {
    const [{ user, sessions }, { idleSeconds }] = await Promise.all([this.deps.store.ofUser(saasId, userId), this.deps.rules(saasId)]);
    if (!user) throw notFound('user_not_found', 'user_id: there is no such user');
    const now = nowSeconds();
    return sessions
      .filter((s) => s.session_version === user.session_version && s.expires_at > now && s.last_used_at + idleSeconds > now)
      .sort((a, b) => b.created_at - a.created_at)
      .map(viewOf);
  }

  /** Ends one session; 404 when the user has no such session. */
  async end(saasId: string, userId: string, sessionId: string): Promise<void> {
    if (!(await this.deps.store.remove(saasId, userId, sessionId))) {
      throw notFound('session_not_found', 'session_id: the user has no such session');
    }
  }

  /** "Sign out everywhere else": ends every session of the user but `keep` (the browser asking); how many ended. */
  async endOthers(saasId: string, userId: string, keep: string): Promise<number> {
    const { sessions } = await this.deps.store.ofUser(saasId, userId);
    const ended = await Promise.all(sessions.filter((s) => s.session_id !== keep).map((s) => this.deps.store.remove(saasId, userId, s.session_id)));
    return ended.filter(Boolean).length;
  }

  /**
   * Signing out: ends the session the browser names, if it is still there (no error otherwise); with
   * `revokeTokens`, also the refresh tokens issued from it (and the ID and access tokens issued with them).
   */
  async signOut(saasId: string, ref: SessionReference, { revokeTokens = false } = {}): Promise<void> {
    if (!revokeTokens) {
      await this.deps.store.remove(saasId, ref.userId, ref.sessionId);
      return;
    }
    const ended = await this.deps.store.take(saasId, ref.userId, ref.sessionId);
    if (ended) await this.deps.revokeGrants(saasId, ended.user_id, ended.grants ?? []);
  }
}
