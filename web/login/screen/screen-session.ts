/**
 * The browser's side of a screen session (shared/domain/sign-in/screen-sessions.ts; docs/login-screen.md,
 * "Signed in once"): a sealed reference to the session in an HttpOnly, SameSite=Lax cookie. Over HTTPS it is
 * `__Host-login_session-<saas id>` (sessionCookie below); on a laptop's plain HTTP, `login_session` scoped to
 * this SaaS's screen (`…/login/<saas id>/`). Sealed for the SaaS, so another SaaS's cookie, or one
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
import { AMR } from '../../../shared/domain/tokens/tokens.js';
import { nowSeconds } from '../../../shared/clock.js';
import type { SessionMethod, SessionReference } from '../../../shared/domain/sign-in/screen-sessions.js';
import type { AtomicWrite } from '../../../shared/domain/atomic.js';
import type { Credentials } from '../../../shared/schemas/sign-in.js';
import { cookie, setCookie, type CookieScope } from '../../kit/cookies.js';
import type { WebRequest, WebResponse } from '../../kit/http.js';
import { openJson, sealJson } from '../../kit/sealed.js';
import { screenCookie } from './answers.js';
import type { LoginScreenDeps } from './contract.js';

/** The cookie's name on plain HTTP, and its old name over HTTPS (read once more, then moved: resume.ts). */
export const SESSION_COOKIE = 'login_session';

/** What finding a session's cookie needs of the screen (the setup page reads it too: web/login/setup-wiring.ts). */
export type SessionCookieDeps = Pick<LoginScreenDeps, 'basePath' | 'secureCookies' | 'box'>;

/**
 * Where the session's cookie is kept. Over HTTPS, with the `__Host-` prefix: the browser takes it only Secure,
 * from this very host, with Path=/ and no Domain, so a sibling host (another SaaS's `<id>.<login domain>`, a
 * SaaS's own subdomain) can neither plant nor overwrite it. The prefix demands Path=/; the SaaS id in the name
 * keeps apart the screens that share the API's host. Plain HTTP (loopback) cannot have the prefix: the old
 * name, scoped to the screen's path.
 */
export function sessionCookie(deps: SessionCookieDeps, saasId: string): { name: string; scope: CookieScope } {
  return deps.secureCookies
    ? { name: `__Host-login_session-${saasId}`, scope: { path: '/', sameSite: 'Lax', secure: true } }
    : { name: SESSION_COOKIE, scope: screenCookie(deps, saasId, 'Lax') };
}

/** Over HTTPS, the Set-Cookie that forgets a cookie of the old name (none on plain HTTP, where it is the name). */
const forgetOldName = (deps: SessionCookieDeps, saasId: string): string[] =>
  deps.secureCookies ? [setCookie(SESSION_COOKIE, '', screenCookie(deps, saasId, 'Lax'), 0)] : [];

const sessionContext = (saasId: string) => ({ purpose: 'login screen session', saas_id: saasId });

/** How a sign-in proved who the person is, as its session records it. */
export interface SignInWay {
  methods: readonly SessionMethod[];
  /** A second factor was given, or the way in counts as two (a passkey, a remembered device, a provider). */
  secondFactor: boolean;
  /** A tenant's own identity provider vouched (SAML): the session answers for that tenant only. */
  tenantId?: string;
}

export const PASSWORD: SignInWay = { methods: AMR.password, secondFactor: false };
export const PASSWORD_AND_CODE: SignInWay = { methods: AMR.code, secondFactor: true };
/** A remembered device's own SRP stands in for the second factor (the sign-in asked for none). */
export const PASSWORD_AND_DEVICE: SignInWay = { methods: AMR.device, secondFactor: true };
/** A passkey with user verification is two factors already (docs/login-screen.md, "Passkeys"). */
export const PASSKEY: SignInWay = { methods: AMR.passkey, secondFactor: true };
/** An identity provider's sign-in: no MFA of ours (the provider has its own), as a fresh one would ask none. */
export const providerWay = (tenantId?: string): SignInWay => ({
  methods: AMR.federated,
  secondFactor: true,
  ...(tenantId !== undefined ? { tenantId } : {}),
});

/** What one request of the screen does to the session cookie. */
interface Jar {
  request: WebRequest;
  set?: string[];
}
const jars = new AsyncLocalStorage<Jar>();

/** Runs one request of the screen with a jar, and adds the session cookie a sign-in set to its answer. */
export async function withSessionJar(request: WebRequest, answer: () => Promise<WebResponse> | WebResponse): Promise<WebResponse> {
  const jar: Jar = { request };
  const answered = await jars.run(jar, answer);
  return jar.set ? { ...answered, cookies: [...answered.cookies, ...jar.set] } : answered;
}

/**
 * The session the browser's cookie names, when it is one sealed for this SaaS (live or not: the store says).
 * `oldName`: found under the cookie's old name only (before the `__Host-` prefix); resume.ts moves it.
 */
export async function sessionOf(
  deps: SessionCookieDeps,
  saasId: string,
  request: WebRequest,
): Promise<(SessionReference & { oldName?: true }) | undefined> {
  const { name } = sessionCookie(deps, saasId);
  const current = cookie(request.headers.cookie, name);
  const old = current === undefined && name !== SESSION_COOKIE ? cookie(request.headers.cookie, SESSION_COOKIE) : undefined;
  const sealed = current ?? old;
  if (!sealed) return undefined;
  const ref = await openJson<{ u: string; s: string }>(deps.box, sealed, sessionContext(saasId));
  if (typeof ref?.u !== 'string' || typeof ref.s !== 'string') return undefined;
  return { userId: ref.u, sessionId: ref.s, ...(old !== undefined ? { oldName: true as const } : {}) };
}

/** The Set-Cookie lines that forget the session (under the old name too, over HTTPS). */
export function forgetSession(deps: LoginScreenDeps, saasId: string): string[] {
  const { name, scope } = sessionCookie(deps, saasId);
  return [setCookie(name, '', scope, 0), ...forgetOldName(deps, saasId)];
}

/** The cookie of a session, sealed for the SaaS, living until the session's absolute end. */
async function sessionSetCookie(deps: LoginScreenDeps, saasId: string, ref: SessionReference, seconds: number): Promise<string> {
  const { name, scope } = sessionCookie(deps, saasId);
  return setCookie(name, await sealJson(deps.box, { u: ref.userId, s: ref.sessionId }, sessionContext(saasId)), scope, seconds);
}

/**
 * A session found under the cookie's old name, moved to its name now: the old cookie answers this once, and is
 * forgotten in the same answer that sets the new one (docs/login-screen.md, "The cookie").
 */
export async function movedSession(deps: LoginScreenDeps, saasId: string, ref: SessionReference, expiresAt: number): Promise<string[]> {
  return [await sessionSetCookie(deps, saasId, ref, Math.max(0, expiresAt - nowSeconds())), ...forgetOldName(deps, saasId)];
}

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
): Promise<{ sessionId: string; write: AtomicWrite; commit(): Promise<void> } | undefined> {
  const jar = jars.getStore();
  if (!deps.sessions || !jar) return undefined;
  const claims = decodeJwt(credentials.id_token);
  const { sub, auth_time: authTime, session_version: sessionVersion } = claims;
  if (typeof sub !== 'string' || typeof authTime !== 'number' || typeof sessionVersion !== 'number') return undefined;
  const grantId = credentials.refresh_token ? await deps.sessions.grantOf(saasId, credentials.refresh_token) : undefined;
  const { record, write } = await deps.sessions.open(saasId, {
    ...(grantId !== undefined ? { grantId } : {}),
    userId: sub,
    sessionVersion,
    authTime,
    ...way,
    userAgent: jar.request.headers['user-agent'] ?? '',
    ip: jar.request.sourceIp,
  });
  return {
    sessionId: record.session_id,
    write,
    commit: async () => {
      const ref = { userId: record.user_id, sessionId: record.session_id };
      jar.set = [await sessionSetCookie(deps, saasId, ref, record.expires_at - record.created_at), ...forgetOldName(deps, saasId)];
    },
  };
}
