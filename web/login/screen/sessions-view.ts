/**
 * "Where you are signed in" (docs/login-screen.md, "Signed in once"): the person this browser's screen session
 * names sees their own live sessions on this SaaS (browser and system, from where, when signed in and last
 * used, how), and ends one ("sign out of this one") or all the others ("sign out everywhere else").
 *
 *   GET  ./sessions                         the view; without a live session, a page saying so
 *   POST ./sessions  csrf, session_id       ends that session (this browser's own: signed out here)
 *   POST ./sessions  csrf, others=1         ends every other session of the person
 *
 * Plain forms, no script: they work by keyboard and without JavaScript. Each POST carries the page's CSRF token
 * (the screen's `login_csrf` cookie, SameSite=Strict, repeated in the form), checked by the screen pipeline
 * (web/kit/pipeline.ts) before anything else; only the sessions of the person the cookie names can be ended.
 */
import { randomBytes } from 'node:crypto';
import type { ScreenSessionView, SessionMethod } from '../../../shared/domain/sign-in/screen-sessions.js';
import { loginOf, type UserRecord } from '../../../shared/domain/users/users.js';
import { DomainError, invalid } from '../../../shared/errors.js';
import { errorAnswer } from '../../../shared/http/errors.js';
import { cookie, setCookie } from '../../kit/cookies.js';
import { escapeHtml } from '../../kit/html.js';
import type { WebRequest, WebResponse } from '../../kit/http.js';
import { rawStep, tokenRepeated } from '../../kit/pipeline.js';
import { refusalText } from '../dead-ends.js';
import { languageSwitch } from '../language.js';
import { contentSecurityPolicy, screenHead, type ScreenLook } from '../pages.js';
import { fill, type LoginTexts } from '../texts/en.js';
import { themeImageOrigin } from '../theme.js';
import { messageAnswer, redirect, screenCookie, screenPath } from './answers.js';
import { BASE_HEADERS, CSRF_COOKIE, CSRF_PATTERN, MAX_BODY_BYTES, type LoginScreenDeps, type ScreenCall } from './contract.js';
import { forgetSession, sessionOf } from './screen-session.js';

/** A session id as screen-sessions.ts makes them (16 random bytes, base64url). */
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

/** The person this browser is signed in as here, and its session; none when no live session answers. */
async function signedInHere(deps: LoginScreenDeps, saasId: string, request: WebRequest) {
  const ref = deps.sessions ? await sessionOf(deps, saasId, request) : undefined;
  if (!deps.sessions || !ref) return undefined;
  const resumed = await deps.sessions.resume(saasId, ref);
  // A tenant's identity provider's session is the person's all the same; one a second factor now outranks
  // does not manage the others: the person signs in again, with it.
  if (resumed.usable || resumed.why === 'other_tenant') return { sessionId: ref.sessionId, user: resumed.user as UserRecord };
  return undefined;
}

const notSignedIn = (deps: LoginScreenDeps, saasId: string) =>
  messageAnswer(deps, 200, saasId, deps.texts.page.sessionsTitle, deps.texts.page.sessionsNotSignedIn, {
    href: screenPath(deps, saasId),
    text: deps.texts.page.sessionsBackToSignIn,
  });

export async function sessionsView({ parts: { deps }, saasId, query, request }: ScreenCall): Promise<WebResponse> {
  const here = await signedInHere(deps, saasId, request);
  if (!here || !deps.sessions) return notSignedIn(deps, saasId);
  const [look, sessions] = await Promise.all([deps.look(saasId), deps.sessions.list(saasId, here.user.id)]);
  const existing = cookie(request.headers.cookie, CSRF_COOKIE);
  const csrf = existing && CSRF_PATTERN.test(existing) ? existing : randomBytes(32).toString('base64url');
  const done = query.get('done');
  return {
    status: 200,
    headers: {
      ...BASE_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(false, themeImageOrigin(look.theme)),
    },
    body: sessionsPage(deps.texts, look, `${screenPath(deps, saasId)}assets/`, {
      csrf,
      name: loginOf(here.user).value,
      sessions,
      current: here.sessionId,
      ...(done === 'one' || done === 'others' ? { done } : {}),
    }),
    cookies: [setCookie(CSRF_COOKIE, csrf, screenCookie(deps, saasId, 'Strict'))],
  };
}

/** The form's fields, once its CSRF token is the page's. */
async function fromSessionsPage(request: WebRequest): Promise<{ proof: URLSearchParams }> {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
    throw invalid('unsupported_media_type', 'content-type: must be application/x-www-form-urlencoded');
  }
  if (request.body.length > MAX_BODY_BYTES) throw invalid('request_too_large', `body: larger than ${MAX_BODY_BYTES} bytes`);
  const form = new URLSearchParams(request.body.toString('utf8'));
  const expected = cookie(request.headers.cookie, CSRF_COOKIE) ?? '';
  if (!CSRF_PATTERN.test(expected) || !tokenRepeated(expected, form.get('csrf') ?? undefined)) {
    throw new DomainError('forbidden', 'csrf_mismatch', 'csrf: does not match the page; reload it');
  }
  return { proof: form };
}

export function endSessions({ parts: { deps }, saasId, request }: ScreenCall): Promise<WebResponse> {
  const refuse = (error: unknown): WebResponse => {
    const { status } = errorAnswer(error);
    const text = error instanceof DomainError ? refusalText(deps.texts, error) : deps.texts.messages.unavailable;
    return messageAnswer(deps, status, saasId, deps.texts.page.sessionsTitle, text, {
      href: `${screenPath(deps, saasId)}sessions`,
      text: deps.texts.page.sessionsTitle,
    });
  };
  return rawStep(request, { fromPage: fromSessionsPage, refuse }, async (form) => {
    const here = await signedInHere(deps, saasId, request);
    if (!here || !deps.sessions) return notSignedIn(deps, saasId);
    const back = `${screenPath(deps, saasId)}sessions`;
    if (form.get('others') === '1') {
      await deps.sessions.endOthers(saasId, here.user.id, here.sessionId);
      return redirect(`${back}?done=others`, [], 303);
    }
    const sessionId = form.get('session_id') ?? '';
    if (!SESSION_ID.test(sessionId)) throw invalid('invalid_parameter', 'session_id: is not a session id');
    await deps.sessions.end(saasId, here.user.id, sessionId);
    // This browser's own: signed out here, back to the sign-in page.
    if (sessionId === here.sessionId) return redirect(`${screenPath(deps, saasId)}sign-in`, forgetSession(deps, saasId), 303);
    return redirect(`${back}?done=one`, [], 303);
  });
}

/** "Chrome on Windows" from a User-Agent, or undefined: the browsers and systems people would recognise. */
export function deviceOf(userAgent: string): { browser: string; os: string } | undefined {
  const browser = [
    [/Edg(e|A|iOS)?\//, 'Edge'],
    [/OPR\//, 'Opera'],
    [/Firefox\/|FxiOS\//, 'Firefox'],
    [/Chrome\/|CriOS\//, 'Chrome'],
    [/Safari\//, 'Safari'],
  ].find(([pattern]) => (pattern as RegExp).test(userAgent))?.[1] as string | undefined;
  const os = [
    [/Windows/, 'Windows'],
    [/iPhone|iPad|iPod/, 'iOS'],
    [/Android/, 'Android'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ].find(([pattern]) => (pattern as RegExp).test(userAgent))?.[1] as string | undefined;
  return browser && os ? { browser, os } : undefined;
}

const METHOD_TEXT: Partial<Record<SessionMethod, keyof LoginTexts['page']>> = {
  pwd: 'sessionPassword',
  otp: 'sessionCode',
  swk: 'sessionRememberedDevice',
  hwk: 'sessionPasskey',
  fed: 'sessionProvider',
};

interface SessionsData {
  csrf: string;
  name: string;
  sessions: ScreenSessionView[];
  current: string;
  done?: 'one' | 'others';
}

function sessionsPage(texts: LoginTexts, look: ScreenLook, assets: string, data: SessionsData): string {
  const t = texts.page;
  const when = new Intl.DateTimeFormat(texts.lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  const time = (seconds: number) =>
    `<time datetime="${new Date(seconds * 1000).toISOString()}">${escapeHtml(when.format(seconds * 1000))} UTC</time>`;
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(data.csrf)}">`;
  const items = data.sessions.map((s, i) => {
    const device = deviceOf(s.user_agent);
    const label = device ? fill(t.sessionDevice, device) : t.sessionUnknownDevice;
    const how = s.methods.flatMap((m) => (METHOD_TEXT[m] ? [t[METHOD_TEXT[m]]] : [])).join(' + ');
    const mine = s.id === data.current;
    return `<li${mine ? ' class="current"' : ''}>
<h2 id="session-${i}">${escapeHtml(label)}${mine ? ` <strong>(${escapeHtml(t.sessionThisBrowser)})</strong>` : ''}</h2>
<dl>
<dt>${escapeHtml(t.sessionSignedIn)}</dt><dd>${time(s.created_at)}</dd>
<dt>${escapeHtml(t.sessionLastUsed)}</dt><dd>${time(s.last_used_at)}</dd>
<dt>${escapeHtml(t.sessionMethod)}</dt><dd>${escapeHtml(how)}</dd>
<dt>${escapeHtml(t.sessionFrom)}</dt><dd>${escapeHtml(s.ip)}</dd>
</dl>
<form method="post" action="sessions">${csrf}<input type="hidden" name="session_id" value="${escapeHtml(s.id)}">
<button type="submit" class="secondary" aria-describedby="session-${i}">${escapeHtml(t.signOutThis)}</button></form>
</li>`;
  });
  const others = data.sessions.some((s) => s.id !== data.current);
  const done = data.done === 'one' ? t.sessionsEnded : data.done === 'others' ? t.sessionsOthersEnded : '';
  return `${screenHead(texts, look, assets, t.sessionsTitle)}
</head>
<body>
<main>
${languageSwitch(texts, { page: 'sessions' })}
<h1>${escapeHtml(t.sessionsTitle)}</h1>
<p id="status" class="status" role="status">${escapeHtml(done)}</p>
<p id="sessions-intro">${escapeHtml(fill(t.sessionsIntro, { name: data.name }))}</p>
<ul id="sessions" class="sessions">
${items.join('\n')}
</ul>
${
  others
    ? `<form method="post" action="sessions" id="sign-out-others">${csrf}<input type="hidden" name="others" value="1">
<button type="submit">${escapeHtml(t.signOutOthers)}</button></form>`
    : `<p id="no-others">${escapeHtml(t.noOtherSessions)}</p>`
}
</main>
</body>
</html>
`;
}
