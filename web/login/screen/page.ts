/**
 * What the screen answers a browser's GET with: the sign-in page (opening with the form its address names, for
 * an invitation, a consent or a link ticket), its script and style, and the sign-out that forgets its cookie.
 */
import { randomBytes } from 'node:crypto';
import { minimumLength, SYMBOLS } from '../../../shared/domain/configuration/password-policy.js';
import { DomainError, invalid } from '../../../shared/errors.js';
import { cookie, setCookie } from '../../kit/cookies.js';
import type { WebResponse } from '../../kit/http.js';
import { openAuthorizationRequest, type AuthorizationRequest } from '../oidc/authorization-server.js';
import { refusalText } from '../dead-ends.js';
import { ownScriptOnlyAtHome } from '../host-gate.js';
import { contentSecurityPolicy, loginPage, type FirstForm, type PageData } from '../pages.js';
import { contextQuery, MAX_AUTHORIZATION_LENGTH, screenContext } from '../screen-context.js';
import { fill } from '../texts/en.js';
import { themeImageOrigin } from '../theme.js';
import { messageAnswer, notFound, redirect, screenCookie, screenPath } from './answers.js';
import { BASE_HEADERS, CSRF_COOKIE, CSRF_PATTERN, FRAMEABLE_HEADERS, SAAS_ID, type ScreenCall, type ScreenParts } from './contract.js';
import { openConsentTicket, openLinkTicket } from './federated-steps.js';
import { fromSession } from './resume.js';
import { forgetSession, sessionOf } from './screen-session.js';

/** The page addresses, and the form each opens with. */
export const PAGES: Readonly<Record<string, FirstForm>> = {
  '': 'sign-in-form',
  'sign-in': 'sign-in-form',
  invitation: 'sign-in-form',
  'sign-up': 'sign-up-form',
  'forgot-password': 'forgot-form',
  // A link mailed to a user imported without a password (user-flows.ts mailSetPasswordLink): name and code in its fragment.
  'set-password': 'reset-form',
  link: 'link-form',
  consent: 'consent-form',
};

export async function assetOf({ deps }: ScreenParts, name: string): Promise<WebResponse> {
  if (name !== 'login.js' && name !== 'login.css') return notFound(deps);
  return {
    status: 200,
    headers: {
      ...BASE_HEADERS,
      'cache-control': 'public, max-age=300',
      'content-type': name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
    },
    body: await deps.asset(name),
    cookies: [],
  };
}

export async function signInPage(call: ScreenCall): Promise<WebResponse> {
  const { parts, saasId, page, query, request } = call;
  const { deps } = parts;
  const look = ownScriptOnlyAtHome(await deps.look(saasId), request.ownOrigin === true);
  const existing = cookie(request.headers.cookie, CSRF_COOKIE);
  const csrf = existing && CSRF_PATTERN.test(existing) ? existing : randomBytes(32).toString('base64url');
  const authorization = query.get('authorization') ?? undefined;
  let opened: AuthorizationRequest | undefined;
  if (authorization !== undefined) {
    // Checked now, so a stale or foreign request is said at once rather than after the password.
    try {
      if (authorization.length > MAX_AUTHORIZATION_LENGTH) throw invalid('invalid_parameter', 'authorization: too long');
      opened = await openAuthorizationRequest(deps.box, saasId, authorization);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return messageAnswer(
        deps,
        400,
        saasId,
        deps.texts.page.badRequestTitle,
        fill(deps.texts.page.badAuthorizationRequest, { detail: error.message }),
      );
    }
  }
  const context = screenContext(query);
  // Signed in already: the session answers, or the page says who is signed in (resume.ts).
  const session = await fromSession(call, context, opened);
  if ('answer' in session) return session.answer;
  const first = PAGES[page] === 'sign-up-form' && !look.selfSignUp ? 'sign-in-form' : (PAGES[page] as FirstForm);
  const data: PageData = {
    csrf,
    first,
    messages: deps.texts.messages,
    ...context,
    ...(session.signedInAs ? { signedInAs: session.signedInAs } : {}),
    ...(look.tagManagerId ? { tagManagerId: look.tagManagerId } : {}),
    ...(look.passwordSignIn ? { passwordSignIn: true as const } : {}),
  };
  if (look.passwordPolicy) {
    const policy = look.passwordPolicy;
    // Length first: the composition flags stay stored as SaaSus has them, and are not rules.
    const composed = !policy.length_first;
    data.passwordRules = {
      minimum_length: minimumLength(policy),
      is_require_lowercase: composed && policy.is_require_lowercase,
      is_require_uppercase: composed && policy.is_require_uppercase,
      is_require_numbers: composed && policy.is_require_numbers,
      is_require_symbols: composed && policy.is_require_symbols,
      symbols: SYMBOLS,
      ...(policy.length_first ? { length_first: true } : {}),
    };
  }
  if (page === 'invitation') Object.assign(data, await invitation(parts, saasId, query));
  // The consent and link pages carry a sealed ticket; one that no longer opens ends in a message, not a form.
  if (page === 'consent' || page === 'link') {
    const sealed = query.get('ticket') ?? '';
    try {
      const ticket = await (page === 'consent' ? openConsentTicket(parts, saasId, sealed) : openLinkTicket(parts, saasId, sealed));
      data[page] = { ticket: sealed, email: ticket.email };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return messageAnswer(deps, 400, saasId, deps.texts.page.stepExpiredTitle, refusalText(deps.texts, error), {
        href: screenPath(deps, saasId),
        text: deps.texts.page.goBack,
      });
    }
  }
  return {
    status: 200,
    headers: {
      // CSP frame-ancestors names the one origin that may frame it; X-Frame-Options cannot name one.
      ...(deps.previewOrigin ? FRAMEABLE_HEADERS : BASE_HEADERS),
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(Boolean(look.tagManagerId), themeImageOrigin(look.theme), deps.previewOrigin),
    },
    body: loginPage(deps.texts, look, data, `${screenPath(deps, saasId)}assets/`),
    cookies: [setCookie(CSRF_COOKIE, csrf, screenCookie(deps, saasId, 'Strict')), ...session.cookies],
  };
}

/** The invitation of the link, when it can still be accepted; else why not (the page then signs in only). */
async function invitation(
  { deps }: ScreenParts,
  saasId: string,
  query: URLSearchParams,
): Promise<Pick<PageData, 'invitation' | 'invitationProblem'>> {
  const id = query.get('invitation_id') ?? '';
  const tenantId = query.get('tenant_id') ?? '';
  try {
    if (!id || !tenantId) throw invalid('invalid_parameter', 'invitation_id and tenant_id are required');
    // Ids as the service makes them: a longer one is no key the store could even look up (a 500 before).
    if (!SAAS_ID.test(id) || !SAAS_ID.test(tenantId)) return { invitationProblem: 'there is no such invitation' };
    const found = await deps.invitations.get(saasId, tenantId, id);
    const { page: t } = deps.texts;
    if (found.status !== 'pending') return { invitationProblem: fill(t.invitationNotPending, { status: found.status }) };
    const names = await deps.invitationNames?.(saasId, tenantId);
    return { invitation: { id, tenantId, email: found.email, ...(names ? { saasName: names.saas, tenantName: names.tenant } : {}) } };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { invitationProblem: error.kind === 'not_found' ? deps.texts.page.invitationMissing : refusalText(deps.texts, error) };
  }
}

/**
 * Signing out ends the screen's session (screen-session.ts) and forgets its cookies, and returns to
 * `redirect_uri` when it is on the callback URL's origin, else to the sign-in page: never elsewhere. With
 * `again` ("not you? use another account"), back to the sign-in page for what it was opened for. With
 * `revoke_tokens=true` (off by default), the refresh tokens issued from the session end too.
 */
export async function signOut({ parts: { deps }, saasId, query, request }: ScreenCall): Promise<WebResponse> {
  const ref = deps.sessions ? await sessionOf(deps, saasId, request) : undefined;
  if (ref) await deps.sessions?.signOut(saasId, ref, { revokeTokens: query.get('revoke_tokens') === 'true' });
  const forget = [setCookie(CSRF_COOKIE, '', screenCookie(deps, saasId, 'Strict'), 0), ...forgetSession(deps, saasId)];
  if (query.has('again')) {
    const context = new URLSearchParams(contextQuery(screenContext(query))).toString();
    return redirect(`${screenPath(deps, saasId)}${context ? `?${context}` : ''}`, forget);
  }
  const redirectUri = query.get('redirect_uri') ?? '';
  // The URL parser would drop CR, LF and tabs and take the rest: refused instead, as no URL we hand out has them.
  if ([...redirectUri].some((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f))) {
    return messageAnswer(deps, 400, saasId, deps.texts.page.badRequestTitle, 'redirect_uri: holds control characters');
  }
  const callback = await deps.callbackUrl(saasId);
  const sameOrigin = (a: string, b: string) => URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin;
  // In its parsed form: a header holds ASCII only, so anything else is percent-encoded as the browser would.
  const location = redirectUri && sameOrigin(redirectUri, callback) ? new URL(redirectUri).href : `${screenPath(deps, saasId)}sign-in`;
  return redirect(location, forget);
}
