/**
 * The operator console's session: the API key id and secret an operator signed in with, sealed by the secret
 * box (shared/crypto/secret-box.ts) into one HttpOnly, SameSite=Strict cookie that page script never reads.
 * It ends 30 minutes after its last use (idle) and 12 hours after sign-in (absolute), whichever comes first;
 * it carries a CSRF token that every console request must repeat in a header (web/console/console.ts, through
 * web/kit/pipeline.ts's tokenRepeated).
 * Sign-out records the session's id as revoked (shared/domain/console/session-revocations.ts), and every read
 * asks for it: a copy of the cookie taken before sign-out opens but is refused. One GetItem per console request,
 * which is little beside the signed API call each one makes.
 */
import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../shared/crypto/secret-box.js';
import type { SessionRevocations } from '../../shared/domain/console/session-revocations.js';
import { nowSeconds } from '../../shared/clock.js';
import { openJson, sealJson } from '../kit/sealed.js';
import { cookie, setCookie, type CookieScope } from '../kit/cookies.js';

export const SESSION_COOKIE = 'console_session';
export const IDLE_SECONDS = 30 * 60;
export const ABSOLUTE_SECONDS = 12 * 60 * 60;
/** A session used again within this many seconds keeps its cookie: not every request pays for a new seal. */
const REFRESH_AFTER_SECONDS = 60;
/** The seal's context: a console session opens as nothing else, and nothing else opens as one. */
const CONTEXT = { purpose: 'console-session' };

export interface Session {
  /** Random: what sign-out revokes. */
  id: string;
  saasId: string;
  apiKey: string;
  secret: string;
  /** The CSRF token the page repeats in X-Console-CSRF. */
  csrf: string;
  /** Unix seconds: signed in. */
  issuedAt: number;
  /** Unix seconds: last used. */
  usedAt: number;
}

export const newSession = (credentials: { saasId: string; apiKey: string; secret: string }): Session => {
  const now = nowSeconds();
  return { ...credentials, id: randomBytes(16).toString('base64url'), csrf: randomBytes(24).toString('base64url'), issuedAt: now, usedAt: now };
};

/** Seconds the cookie may live from now: the nearer of the idle and absolute ends. */
const remaining = (session: Session, now: number) => Math.max(0, Math.min(session.usedAt + IDLE_SECONDS, session.issuedAt + ABSOLUTE_SECONDS) - now);

export class SessionCookies {
  constructor(
    private readonly box: SecretBox,
    private readonly scope: CookieScope,
    private readonly revocations: SessionRevocations,
  ) {}

  async issue(session: Session): Promise<string> {
    return setCookie(SESSION_COOKIE, await sealJson(this.box, session, CONTEXT), this.scope, remaining(session, nowSeconds()));
  }

  cleared(): string {
    return setCookie(SESSION_COOKIE, '', this.scope, 0);
  }

  /** Sign-out: this session, and every copy of its cookie, ends now. */
  async revoke(session: Session): Promise<void> {
    await this.revocations.revoke(session.id, session.issuedAt + ABSOLUTE_SECONDS);
  }

  /**
   * The live session of a request's Cookie header, and a new cookie when it should be renewed; undefined when
   * there is none, it does not open, it is past its idle or absolute end, or it was signed out.
   */
  async read(cookieHeader: string | undefined): Promise<{ session: Session; renewed?: string } | undefined> {
    const sealed = cookie(cookieHeader, SESSION_COOKIE);
    if (!sealed) return undefined;
    const session = await openJson<Session>(this.box, sealed, CONTEXT);
    const now = nowSeconds();
    if (!session || typeof session.id !== 'string' || typeof session.usedAt !== 'number' || typeof session.issuedAt !== 'number') return undefined;
    if (remaining(session, now) <= 0 || (await this.revocations.revoked(session.id))) return undefined;
    if (now - session.usedAt < REFRESH_AFTER_SECONDS) return { session };
    const used = { ...session, usedAt: now };
    return { session: used, renewed: await this.issue(used) };
  }
}
