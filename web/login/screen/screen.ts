/**
 * The hosted login screen of each SaaS (docs/login-screen.md): `{BASE_PATH}/login/{saas id}/…`. The page runs
 * the SRP in the browser (web/login/srp.ts), so the password never reaches this server; its script calls the
 * JSON steps of the table below (steps.ts, federated-steps.ts), which call the same domain services as the API's sign-in operations. Signed in, the user is
 * sent to the SaaS's callback URL, and only there, with a temporary code (`POST /credentials` semantics) and
 * the `state` the SaaS passed.
 *
 *   GET  ./  ./sign-in  ./sign-up  ./forgot-password           the page, opening with that form
 *   GET  ./set-password#username=…&code=…                      the reset form, filled from a link mailed on import
 *   GET  ./invitation?invitation_id&tenant_id                  the page for an invitation
 *   GET  ./?authorization=…                                    the page for an OpenID Connect authorization request
 *                                                              (web/login/oidc/authorization-server.ts): back to its redirect URI
 *   GET  ./assets/login.js  ./assets/login.css                 its script and style
 *   GET  ./assets/theme.css?v=…                                the SaaS's theme (web/login/theme.ts)
 *   GET  ./sign-out?redirect_uri=…                             forgets the page's cookie, back to the SaaS
 *   GET  ./sessions   POST ./sessions                          where the person is signed in, and signing out there
 *                                                              (sessions-view.ts: plain forms with the CSRF token)
 *   GET  ./federated/google?state|authorization=…              off to Google (federation.ts); back at
 *                                                              {BASE_PATH}/oauth2/idpresponse (federatedReturn)
 *   GET  ./link?ticket=…                                       the page asking for the code that links a provider account
 *   GET  ./saml?tenant_id=…                                    off to the tenant's SAML identity provider (functions/saml);
 *   GET  ./saml/continue?ticket=…                              back from its assertion consumer service: signed in
 *   GET  ./oidc?tenant_id=…  ./oidc/callback                   the tenant's OpenID Connect provider (tenant-oidc-steps.ts)
 *   POST ./api/start    {username, srp_a}                      → the PASSWORD_VERIFIER challenge
 *   POST ./api/answer   {challenge_name, session, responses, state?, invitation?}
 *                                                              → the next step, or {redirect}
 *   POST ./api/device   {ticket, remember}                     → the browser's device confirmed, kept in a sealed cookie
 *                                                              (remembered-devices.ts)
 *   POST ./api/join-code {invitation}                          → a code mailed to the invited address (verify_user_attribute)
 *   POST ./api/join     {invitation, code, password}           → a new user for an invitation
 *   POST ./api/sign-up  {email, password?, accepted_terms, accepted_privacy}
 *                                                              → a temporary password mailed (sign_up), or with the
 *                                                              chosen password (sign_up.password) a code mailed
 *   POST ./api/sign-up-confirm {email, code, password}         → the account made with the chosen password
 *   GET  ./consent?ticket=…                                    the consents a provider's new account needs first
 *   POST ./api/consent  {ticket, accepted_terms, accepted_privacy}  → the account made and signed in, {redirect}
 *   POST ./api/password {username, password, state?, …}       → after SRP refused, on a SaaS with password_sign_in: an
 *                                                              imported user's first sign-in (password-step.ts)
 *   POST ./api/forgot   {username}                             → a code mailed (forgot_password)
 *   POST ./api/reset    {username, code, password}             → the new password
 *   POST ./api/link     {ticket, code}                         → the provider account linked, and {redirect}
 *   POST ./api/discover {email, state?, authorization?}        → {redirect} to the identity provider of the tenant that
 *                                                              verified the address's domain, or {} (home-realm.ts)
 *   POST ./api/passkey/…                                       passkeys, when the SaaS turned them on (passkeys.ts)
 *
 * Every POST carries the CSRF token of the page (a cookie and the same value in `x-csrf-token`), which the screen
 * pipeline (web/kit/pipeline.ts) checks with the body before any step runs.
 */
import { DEFAULT_LOGIN_THEME } from '../../../shared/domain/configuration/login-theme.js';
import { DomainError } from '../../../shared/errors.js';
import { parseJsonBody } from '../../../shared/http/validation.js';
import type { WebRequest, WebResponse } from '../../kit/http.js';
import { cookieTokenRepeated, rawStep, step, type StepRules } from '../../kit/pipeline.js';
import { themeAnswer } from '../theme.js';
import { notFound, ok, redirect, refusal, screenPath, stepRefused } from './answers.js';
import { BASE_HEADERS, CSRF_COOKIE, MAX_BODY_BYTES, SAAS_ID, type LoginScreenDeps, type ScreenCall, type ScreenParts } from './contract.js';
import { beginGoogle, beginSaml, continueSaml, FEDERATED_STEPS, federatedReturn } from './federated-steps.js';
import { finishWith } from './finish.js';
import { HOME_REALM_STEPS } from './home-realm.js';
import { beginTenantOidc, continueTenantOidc } from './tenant-oidc-steps.js';
import { assetOf, PAGES, signInPage, signOut } from './page.js';
import { PasskeySteps } from './passkeys.js';
import { DeviceJar } from './remembered-devices.js';
import { PASSWORD_STEPS } from './password-step.js';
import { sessionRead } from './resume.js';
import { PASSKEY, withSessionJar } from './screen-session.js';
import { endSessions, sessionsView } from './sessions-view.js';
import { ACCOUNT_STEPS, type ScreenStep } from './steps.js';

export type { LoginScreenDeps } from './contract.js';

/** A route of a SaaS's screen: a method and the page after `{saas id}/`, exactly (page) or as a prefix. */
type Route = {
  method: 'GET' | 'POST';
  answer(call: ScreenCall): Promise<WebResponse> | WebResponse;
} & ({ page: string; prefix?: undefined } | { page?: undefined; prefix: string });

/** The JSON steps by the name after `api/`; passkeys' are passkeys.ts's own. */
const STEPS: Readonly<Record<string, ScreenStep>> = { ...ACCOUNT_STEPS, ...FEDERATED_STEPS, ...PASSWORD_STEPS, ...HOME_REALM_STEPS };

/** The routes of a SaaS's screen, in the order they are tried. */
const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    page: 'assets/theme.css',
    answer: async ({ parts, saasId, request }) =>
      parts.deps.theme ? themeAnswer(await parts.deps.theme(saasId), request, BASE_HEADERS) : assetOf(parts, 'theme.css'),
  },
  { method: 'GET', prefix: 'assets/', answer: ({ parts, page }) => assetOf(parts, page.slice('assets/'.length)) },
  ...Object.keys(PAGES).map((page): Route => ({ method: 'GET', page, answer: signInPage })),
  { method: 'GET', page: 'sign-out', answer: signOut },
  { method: 'GET', page: 'sessions', answer: sessionsView },
  { method: 'POST', page: 'sessions', answer: endSessions },
  { method: 'GET', page: 'federated/google', answer: beginGoogle },
  { method: 'GET', page: 'saml', answer: beginSaml },
  { method: 'GET', page: 'saml/continue', answer: continueSaml },
  { method: 'GET', page: 'oidc', answer: beginTenantOidc },
  { method: 'GET', page: 'oidc/callback', answer: continueTenantOidc },
  { method: 'POST', prefix: 'api/', answer: (call) => jsonStep(call, call.page.slice('api/'.length)) },
];

/** The screen pipeline's rules for its steps: small JSON from the screen's own page (its CSRF cookie, repeated). */
const stepRules = ({ deps }: ScreenParts): StepRules<undefined> => ({
  json: { maxBytes: MAX_BODY_BYTES },
  fromPage: async (request) => {
    if (!cookieTokenRepeated(request, CSRF_COOKIE, 'x-csrf-token')) {
      throw new DomainError('forbidden', 'csrf_mismatch', 'x-csrf-token: does not match the page; reload it');
    }
    return { proof: undefined };
  },
  refuse: stepRefused(deps.texts),
});

/** A step through the screen pipeline, with the devices this browser remembers (their cookie set when they change). */
async function jsonStep({ parts, saasId, request }: ScreenCall, name: string): Promise<WebResponse> {
  const { deps } = parts;
  const devices = new DeviceJar(deps.box, saasId, request.headers.cookie, {
    path: `${screenPath(deps, saasId)}api/`,
    sameSite: 'Strict',
    secure: deps.secureCookies,
  });
  const rules = stepRules(parts);
  const known = Object.hasOwn(STEPS, name) ? STEPS[name] : undefined;
  const answer = known
    ? await step(request, rules, known.body, async (body) => ok(await known.run({ parts, saasId, devices }, body)))
    : await rawStep(request, rules, async () => {
        const body = await parseJsonBody(request.body);
        const passkeyStep = name.startsWith('passkey/')
          ? await parts.passkeys.step(saasId, name.slice('passkey/'.length), body, request.headers, (await deps.look(saasId)).title)
          : undefined;
        return passkeyStep ? ok(passkeyStep) : refusal(404, 'not_found', 'no such step', deps.texts);
      });
  return devices.setCookie ? { ...answer, cookies: [...answer.cookies, devices.setCookie] } : answer;
}

export class LoginScreen {
  private readonly parts: ScreenParts;

  constructor(deps: LoginScreenDeps) {
    const parts: ScreenParts = {
      deps,
      passkeys: new PasskeySteps({
        passkeys: deps.passkeys,
        box: deps.box,
        secure: deps.secureCookies,
        finish: (saasId, credentials, context) => finishWith(parts, saasId, credentials, context, PASSKEY),
        release: (saasId, hold) => deps.releaseCredentials(saasId, hold),
      }),
    };
    this.parts = parts;
  }

  async handle(request: WebRequest): Promise<WebResponse> {
    const { deps } = this.parts;
    const [saasId = '', ...rest] = request.path.split('/');
    const page = rest.join('/');
    // The screen's style for pages of no SaaS (an unknown one): the same files, at `…/login/assets/`.
    if (request.method === 'GET' && saasId === 'assets') {
      // The product's own look (light and dark) for pages of no SaaS.
      return page === 'theme.css' ? themeAnswer(DEFAULT_LOGIN_THEME, request, BASE_HEADERS) : assetOf(this.parts, page);
    }
    if (!SAAS_ID.test(saasId)) return notFound(deps);
    const call: ScreenCall = { parts: this.parts, saasId, page, query: new URLSearchParams(request.query), request };
    // The sign-in page with a session cookie: the SaaS's account item is read with the session, one store request.
    const found = request.path.includes('/') ? await sessionRead(call) : undefined;
    if (!(found ? found.saasExists : await deps.saasExists(saasId))) return notFound(deps);
    // The page's steps are relative to it (`api/start`): `…/login/{saas}` becomes `…/login/{saas}/`.
    if (!request.path.includes('/') && request.method === 'GET') {
      const query = new URLSearchParams(request.query).toString();
      return redirect(`${screenPath(deps, saasId)}${query ? `?${query}` : ''}`, [], 308);
    }
    const route = ROUTES.find((r) => r.method === request.method && (r.page !== undefined ? r.page === page : page.startsWith(r.prefix)));
    if (!route) return notFound(deps, saasId);
    return withSessionJar(request, () => route.answer(found?.session ? { ...call, session: found.session } : call));
  }

  /** `{BASE_PATH}/oauth2/idpresponse`: back from Google (federated-steps.ts). */
  federatedReturn(request: WebRequest): Promise<WebResponse> {
    return withSessionJar(request, () => federatedReturn(this.parts, request));
  }
}
