/**
 * The browser's side of a screen session (shared/domain/sign-in/screen-sessions.ts; docs/login-screen.md,
 * "Signed in once"): a sealed reference to the session in an HttpOnly, SameSite=Lax cookie scoped to this SaaS's
 * screen (`…/login/<saas id>/`), Secure over HTTPS. Sealed for the SaaS, so another SaaS's cookie, or one
 * altered, opens to nothing. Lax, so a later authorization (a top-level GET from the application's site)
 * carries it.
 *
 * Every completed sign-in opens a new session (finish.ts), whatever cookie the browser came with: a cookie
 * planted before the sign-in is never adopted. The cookie set by a request goes through a per-request jar
 * (`withSessionJar`), since the ways of signing in end in finish.ts from many places (steps, the Google
 * return, the SAML continuation, passkeys).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { decodeJwt } from 'jose';
import type { SessionMethod, SessionReference } from '../../../shared/domain/sign-in/screen-sessions.js';
import type { AtomicWrite } from '../../../shared/domain/atomic.js';
import type { Credentials } from '../../../shared/schemas/sign-in.js';
import { cookie, setCookie } from '../../kit/cookies.js';
import type { WebRequest, WebResponse } from '../../kit/http.js';
import { openJson, sealJson } from '../../kit/sealed.js';
import { screenCookie } from './answers.js';
import type { LoginScreenDeps } from './contract.js';

export const SESSION_COOKIE = 'login_session';

const sessionContext = (saasId: string) => ({ purpose: 'login screen session', saas_id: saasId });

/** How a sign-in proved who the person is, as its session records it. */
export interface SignInWay {
  methods: SessionMethod[];
  /** A second factor was given, or the way in counts as two (a passkey, a remembered device, a provider). */
  secondFactor: boolean;
  /** A tenant's own identity provider vouched (SAML): the session answers for that tenant only. */
  tenantId?: string;
}

export const PASSWORD: SignInWay = { methods: ['pwd'], secondFactor: false };
export const PASSWORD_AND_CODE: SignInWay = { methods: ['pwd', 'otp', 'mfa'], secondFactor: true };
/** A remembered device's own SRP stands in for the second factor (the sign-in asked for none). */
export const PASSWORD_AND_DEVICE: SignInWay = { methods: ['pwd', 'swk', 'mfa'], secondFactor: true };
/** A passkey with user verification is two factors already (docs/login-screen.md, "Passkeys"). */
export const PASSKEY: SignInWay = { methods: ['hwk', 'mfa'], secondFactor: true };
/** An identity provider's sign-in: no MFA of ours (the provider has its own), as a fresh one would ask none. */
export const providerWay = (tenantId?: string): SignInWay => ({
  methods: ['fed'],
  secondFactor: true,
  ...(tenantId !== undefined ? { tenantId } : {}),
});

/** What one request of the screen does to the session cookie. */
interface Jar {
  request: WebRequest;
  set?: string;
}
const jars = new AsyncLocalStorage<Jar>();

/** Runs one request of the screen with a jar, and adds the session cookie a sign-in set to its answer. */
export async function withSessionJar(request: WebRequest, answer: () => Promise<WebResponse> | WebResponse): Promise<WebResponse> {
  const jar: Jar = { request };
  const answered = await jars.run(jar, answer);
  return jar.set ? { ...answered, cookies: [...answered.cookies, jar.set] } : answered;
}

/** The session the browser's cookie names, when it is one sealed for this SaaS (live or not: the store says). */
export async function sessionOf(deps: LoginScreenDeps, saasId: string, request: WebRequest): Promise<SessionReference | undefined> {
  const sealed = cookie(request.headers.cookie, SESSION_COOKIE);
  if (!sealed) return undefined;
  const ref = await openJson<{ u: string; s: string }>(deps.box, sealed, sessionContext(saasId));
  return typeof ref?.u === 'string' && typeof ref.s === 'string' ? { userId: ref.u, sessionId: ref.s } : undefined;
}

/** The Set-Cookie that forgets the session. */
export const forgetSession = (deps: LoginScreenDeps, saasId: string) => setCookie(SESSION_COOKIE, '', screenCookie(deps, saasId, 'Lax'), 0);

/**
 * The new session of a completed sign-in: its item's write (to commit with the sign-in's code) and, once that
 * committed, `commit()` puts its cookie in this request's jar. None when the screen keeps no sessions, or
 * outside a request of the screen.
 */
export async function openSession(
  deps: LoginScreenDeps,
  saasId: string,
  credentials: Credentials,
  way: SignInWay,
): Promise<{ write: AtomicWrite; commit(): Promise<void> } | undefined> {
  const jar = jars.getStore();
  if (!deps.sessions || !jar) return undefined;
  const claims = decodeJwt(credentials.id_token);
  const { sub, auth_time: authTime, session_version: sessionVersion } = claims;
  if (typeof sub !== 'string' || typeof authTime !== 'number' || typeof sessionVersion !== 'number') return undefined;
  const { record, write } = await deps.sessions.open(saasId, {
    userId: sub,
    sessionVersion,
    authTime,
    ...way,
    userAgent: jar.request.headers['user-agent'] ?? '',
    ip: jar.request.sourceIp,
  });
  return {
    write,
    commit: async () => {
      const sealed = await sealJson(deps.box, { u: record.user_id, s: record.session_id }, sessionContext(saasId));
      jar.set = setCookie(SESSION_COOKIE, sealed, screenCookie(deps, saasId, 'Lax'), record.expires_at - record.created_at);
    },
  };
}
