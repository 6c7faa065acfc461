/**
 * The screen's answers, shared by its parts: the pages that only say something (a dead end, a way in that
 * failed), redirects, the JSON of its steps and their refusals in the person's words, and the scopes of its cookies.
 */
import type { CookieScope } from '../../kit/cookies.js';
import type { WebResponse } from '../../kit/http.js';
import { refusal as errorShape } from '../../kit/pipeline.js';
import { messagePage, messagePagePolicy } from '../pages.js';
import { contextQuery, type ScreenContext } from '../screen-context.js';
import { fill, type LoginTexts, type MessageName } from '../texts/en.js';
import { BASE_HEADERS, JSON_HEADERS, type LoginScreenDeps } from './contract.js';

export const screenPath = (deps: Pick<LoginScreenDeps, 'basePath'>, saasId: string) => `${deps.basePath}${saasId}/`;

/** Cookies of this SaaS's screen: its CSRF token (Strict), and the SAML flow the SAML function sets there (Lax). */
export const screenCookie = (
  deps: Pick<LoginScreenDeps, 'basePath' | 'secureCookies'>,
  saasId: string,
  sameSite: CookieScope['sameSite'],
): CookieScope => ({
  path: screenPath(deps, saasId),
  sameSite,
  secure: deps.secureCookies,
});

/** The Google flow's cookie: only the return address reads it. */
export const googleFlowCookie = (deps: LoginScreenDeps): CookieScope => ({
  path: new URL(deps.federation.returnUrl).pathname,
  sameSite: 'Lax',
  secure: deps.secureCookies,
});

export const redirect = (location: string, cookies: string[] = [], status = 302): WebResponse => ({
  status,
  headers: { ...BASE_HEADERS, location },
  body: '',
  cookies,
});

export function messageAnswer(
  deps: LoginScreenDeps,
  status: number,
  saasId: string | undefined,
  title: string,
  message: string,
  action?: { href: string; text: string },
): WebResponse {
  const assets = saasId ? `${screenPath(deps, saasId)}assets/` : `${deps.basePath}assets/`;
  return {
    status,
    headers: { ...BASE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': messagePagePolicy(saasId !== undefined) },
    body: messagePage(deps.texts, title, message, assets, action),
    cookies: [],
  };
}

export const notFound = (deps: LoginScreenDeps, saasId?: string) =>
  messageAnswer(deps, 404, saasId, deps.texts.page.notFoundTitle, deps.texts.page.notFound);

/** A way in that failed before the person could use it: said plainly, with the way back to the others. */
export function otherWaysIn(
  deps: LoginScreenDeps,
  saasId: string,
  title: string,
  message: string,
  context: ScreenContext,
  status = 503,
): WebResponse {
  const query = new URLSearchParams(contextQuery(context)).toString();
  return messageAnswer(deps, status, saasId, title, message, {
    href: `${screenPath(deps, saasId)}${query ? `?${query}` : ''}`,
    text: deps.texts.page.otherWays,
  });
}

export const ok = (body: object): WebResponse => ({ status: 200, headers: JSON_HEADERS, body: JSON.stringify(body), cookies: [] });

/** A refusal as the person reads it: the message named for each error type the steps can meet. */
const MESSAGE_OF: Readonly<Record<string, MessageName>> = {
  not_authorized: 'wrongCredentials',
  not_authorized_moved: 'wrongCredentialsMoved',
  user_not_found: 'wrongCredentials',
  code_mismatch: 'wrongCode',
  invalid_session: 'sessionExpired',
  temporary_password_expired: 'temporaryPasswordExpired',
  password_policy_violation: 'passwordPolicy',
  email_mismatch: 'invitationMismatch',
  access_token_required: 'accountExists',
  too_many_mails: 'tooManyMails',
  self_sign_up_disabled: 'selfSignUpOff',
  must_accept: 'mustAccept',
  invalid_code: 'wrongCode',
  code_expired: 'wrongCode',
  no_callback_url: 'noCallback',
  unsupported_challenge: 'unsupportedChallenge',
  passkey_refused: 'passkeyRefused',
  passkey_already_registered: 'passkeyExists',
  passkeys_disabled: 'passkeysOff',
  passkey_required: 'passkeyRequired',
  sign_up_changed: 'signUpChanged',
};

/** The message a person reads for a refusal (the service's own, field-named one goes in as its detail). */
const say = (texts: LoginTexts) => (type: string, status: number, detail: string, data?: unknown) =>
  type === 'password_policy_violation' && (data as { rule?: unknown } | undefined)?.rule === 'breached'
    ? texts.messages.passwordBreached
    : fill(texts.messages[MESSAGE_OF[type] ?? (status >= 500 ? 'unavailable' : 'refused')], { detail: detail.replace(/^[^:]*:\s*/, '') });

/** The error shape of a step, its message in the person's words. */
export const stepRefused = (texts: LoginTexts) => (error: unknown) => errorShape(error, JSON_HEADERS, 'login screen step failed', say(texts));

/** A refusal the screen makes itself, not from an error (no such step). */
export const refusal = (status: number, type: string, detail: string, texts: LoginTexts): WebResponse => ({
  status,
  headers: JSON_HEADERS,
  body: JSON.stringify({ type, message: say(texts)(type, status, detail), data: {} }),
  cookies: [],
});
