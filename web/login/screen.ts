/**
 * The hosted login screen of each SaaS (docs/login-screen.md): `{BASE_PATH}/login/{saas id}/…`. The page runs
 * the SRP in the browser (srp.ts), so the password never reaches this server; its script calls the
 * JSON steps below, which call the same domain services as the API's sign-in operations. Signed in, the user is
 * sent to the SaaS's callback URL, and only there, with a temporary code (`POST /credentials` semantics) and
 * the `state` the SaaS passed.
 *
 *   GET  ./  ./sign-in  ./sign-up  ./forgot-password           the page, opening with that form
 *   GET  ./invitation?invitation_id&tenant_id                  the page for an invitation
 *   GET  ./?authorization=…                                    the page for an OpenID Connect authorization request
 *                                                              (authorization-server.ts): back to its redirect URI
 *   GET  ./assets/login.js  ./assets/login.css                 its script and style
 *   GET  ./assets/theme.css?v=…                                the SaaS's theme (theme.ts)
 *   GET  ./sign-out?redirect_uri=…                             forgets the page's cookie, back to the SaaS
 *   GET  ./federated/google?state|authorization=…              off to Google (federation.ts); back at
 *                                                              {BASE_PATH}/oauth2/idpresponse (federatedReturn)
 *   GET  ./link?ticket=…                                       the page asking for the code that links a provider account
 *   GET  ./saml?tenant_id=…                                    off to the tenant's SAML identity provider (functions/saml);
 *   GET  ./saml/continue?ticket=…                              back from its assertion consumer service: signed in
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
 *   POST ./api/forgot   {username}                             → a code mailed (forgot_password)
 *   POST ./api/reset    {username, code, password}             → the new password
 *   POST ./api/link     {ticket, code}                         → the provider account linked, and {redirect}
 *   POST ./api/passkey/…                                       passkeys, when the SaaS turned them on (passkeys.ts)
 *
 * Every POST carries the CSRF token of the page (a cookie and the same value in `x-csrf-token`).
 */
import { randomBytes } from 'node:crypto';
import * as Type from '@sinclair/typebox';
import { passwordChallenge } from './srp.js';
import { constantTimeEqual } from '../../shared/crypto/compare.js';
import { DomainError, invalid } from '../../shared/errors.js';
import { errorAnswer } from '../../shared/http/errors.js';
import { parseJsonBody, validate } from '../../shared/http/validation.js';
import { log } from '../../shared/log.js';
import type {
  ChallengeAnswer,
  Credentials,
  CredentialsToSave,
  DeviceConfirmation,
  DeviceStatusUpdate,
  SignInResult,
} from '../../shared/schemas/sign-in.js';
import type { Invitation, InvitationAcceptance } from '../../shared/schemas/invitations.js';
import type { AuthorizationBinding } from '../../shared/domain/sign-in/sign-in-credentials.js';
import { nowSeconds } from '../../shared/clock.js';
import { SYMBOLS } from '../../shared/domain/configuration/password-policy.js';
import type { ExternalAccount, FederatedOutcome, MetAccount } from '../../shared/domain/sign-in/federation.js';
import { authorizationResponse, openAuthorizationRequest } from './authorization-server.js';
import type { ScreenRequest, ScreenResponse } from './screen-http.js';
// Where they were declared before: importers of this module keep working.
export type { ScreenRequest, ScreenResponse } from './screen-http.js';
import { cookie, setCookie, type CookieScope } from './cookies.js';
import type { SecretBox } from '../../shared/crypto/secret-box.js';
import { openJson, sealJson } from './sealed.js';
import { FLOW_COOKIE, FLOW_SECONDS, type GoogleFederation } from './federation.js';
import { contextQuery, MAX_AUTHORIZATION_LENGTH, MAX_STATE_LENGTH, screenContext, type ScreenContext } from './screen-context.js';
import { openSamlTicket, SAML_FLOW_COOKIE } from './saml-ticket.js';
import { ownScriptOnlyAtHome } from './host-gate.js';
import { answerDeviceSteps, DeviceJar } from './remembered-devices.js';
import { PasskeySteps, type PasskeyScreenService } from './passkeys.js';
import { contentSecurityPolicy, loginPage, messagePage, messagePagePolicy, type FirstForm, type PageData, type ScreenLook } from './pages.js';
import { fill, type LoginTexts, type MessageName } from './texts/en.js';
import { refusalText } from './dead-ends.js';
import { themeAnswer, themeImageOrigin } from './theme.js';
import { webUrl } from '../../shared/schemas/web-url.js';
import { DEFAULT_LOGIN_THEME } from '../../shared/domain/configuration/login-theme.js';
import type { LoginTheme } from '../../shared/schemas/login-theme.js';

export interface LoginScreenDeps {
  texts: LoginTexts;
  /** The screen's URL path up to the SaaS id: `/v1/auth/login/`. */
  basePath: string;
  /** Cookies only over HTTPS (the deployed service); plain HTTP on a laptop. */
  secureCookies: boolean;
  saasExists(saasId: string): Promise<boolean>;
  look(saasId: string): Promise<ScreenLook>;
  /** The SaaS's theme (GET/PATCH /login-theme), for its stylesheet. */
  theme?(saasId: string): Promise<LoginTheme>;
  callbackUrl(saasId: string): Promise<string>;
  /** The `iss` of the tokens, named in OpenID Connect authorization responses. */
  issuer: string;
  /** The origin that may frame the sign-in page: the operator console's theme preview (the API's own origin). */
  previewOrigin?: string;
  signIn: {
    start(saasId: string, parameters: { USERNAME: string; SRP_A: string }): Promise<SignInResult>;
    respond(saasId: string, answer: ChallengeAnswer): Promise<SignInResult>;
  };
  /** A temporary code for the credentials; with a binding, an OpenID Connect authorization code. */
  saveCredentials(saasId: string, credentials: CredentialsToSave, binding?: AuthorizationBinding): Promise<{ code: string }>;
  devices: {
    confirm(saasId: string, input: DeviceConfirmation): Promise<{ user_confirmation_necessary: boolean }>;
    updateStatus(saasId: string, input: DeviceStatusUpdate): Promise<void>;
  };
  /** Seals what the page carries between two steps and must not read (the box of shared/crypto/secret-box.ts). */
  box: SecretBox;
  /** Sign Up (refused while self sign-up is off). */
  signUp(saasId: string, email: string): Promise<unknown>;
  /** Sign-up with a chosen password, confirmed by a mailed code (the sign-in setting sign_up.password). */
  signUpWithPassword?: {
    request(saasId: string, email: string, password: string): Promise<void>;
    confirm(saasId: string, input: { email: string; code: string; password: string }): Promise<unknown>;
  };
  passwordReset: {
    request(saasId: string, username: string): Promise<void>;
    confirm(saasId: string, input: { username: string; code: string; password: string }): Promise<void>;
  };
  invitations: {
    get(saasId: string, tenantId: string, invitationId: string): Promise<Invitation>;
    accept(saasId: string, invitationId: string, input: InvitationAcceptance): Promise<void>;
    mailJoinCode(saasId: string, invitationId: string): Promise<void>;
    joinWithCode(saasId: string, invitationId: string, input: { code: string; password: string }): Promise<{ email: string }>;
  };
  federation: {
    google: Pick<GoogleFederation, 'begin' | 'complete'> & Partial<Pick<GoogleFederation, 'flowOf'>>;
    /** The URL the provider returns to (`{BASE_PATH}/oauth2/idpresponse`): its path scopes the flow's cookie. */
    returnUrl: string;
    /** `mayCreate` false: a new account is not made but answered `consent_needed` (the consents come first). */
    signIn(saasId: string, account: ExternalAccount, options?: { mayCreate?: boolean }): Promise<FederatedOutcome>;
    /** `account`: the provider account the browser met; the code links only that one. */
    confirmLink(saasId: string, userId: string, code: string, account: MetAccount): Promise<Credentials>;
    /** true the first time a SAML ticket (its assertion) is used on the screen. */
    claimSamlTicket(saasId: string, assertion: { issuer: string; id: string }, expiresAt: number): Promise<boolean>;
  };
  /** The names an invitation page shows: the inviting SaaS and the tenant. */
  invitationNames?(saasId: string, tenantId: string): Promise<{ saas: string; tenant: string }>;
  /** Where a tenant's SAML sign-in starts: the SAML function's signed AuthnRequest (functions/saml). */
  samlStartUrl(saasId: string, tenantId: string): string;
  /** Passkeys (our extension; web/login/passkeys.ts). */
  passkeys: PasskeyScreenService;
  /** The page's script and style, built by web/page-assets.ts. */
  asset(name: 'login.js' | 'login.css'): Promise<string>;
}

const MAX_BODY_BYTES = 16 * 1024;
const CSRF_COOKIE = 'login_csrf';
const CSRF_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const SAAS_ID = /^[A-Za-z0-9-]{1,64}$/;

const BASE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};
const { 'x-frame-options': _denied, ...FRAMEABLE_HEADERS } = BASE_HEADERS;
const JSON_HEADERS = {
  ...BASE_HEADERS,
  'content-type': 'application/json; charset=utf-8',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** The challenges the page answers by itself with the device it remembers, passing its answers on whole. */
const DEVICE_STEPS = ['DEVICE_SRP_AUTH', 'DEVICE_PASSWORD_VERIFIER'];

/** The challenges a person can answer on this screen, with the page field each takes and its response name. */
const FOLLOW_UPS: Readonly<Record<string, string | undefined>> = {
  NEW_PASSWORD_REQUIRED: 'NEW_PASSWORD',
  SOFTWARE_TOKEN_MFA: 'SOFTWARE_TOKEN_MFA_CODE',
  EMAIL_OTP: 'EMAIL_OTP_CODE',
};

const Name = Type.String({ minLength: 1, maxLength: 256 });
const State = Type.Optional(Type.String({ maxLength: MAX_STATE_LENGTH }));
const InvitationRef = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), tenant_id: Type.String({ minLength: 1, maxLength: 64 }) });
const BODIES = {
  start: Type.Object({ username: Name, srp_a: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[0-9a-fA-F]+$' }) }),
  answer: Type.Object({
    challenge_name: Type.Union([
      Type.Literal('PASSWORD_VERIFIER'),
      Type.Literal('DEVICE_SRP_AUTH'),
      Type.Literal('DEVICE_PASSWORD_VERIFIER'),
      Type.Literal('NEW_PASSWORD_REQUIRED'),
      Type.Literal('SOFTWARE_TOKEN_MFA'),
      Type.Literal('EMAIL_OTP'),
    ]),
    session: Type.String({ minLength: 1, maxLength: 8192 }),
    responses: Type.Record(Type.String({ pattern: '^[A-Z_]{1,64}$' }), Type.String({ maxLength: 2048 }), { maxProperties: 8 }),
    state: State,
    code_challenge: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })),
    invitation: Type.Optional(InvitationRef),
    authorization: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AUTHORIZATION_LENGTH })),
  }),
  device: Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 8192 }), remember: Type.Boolean() }),
  joinCode: Type.Object({ invitation: InvitationRef }),
  join: Type.Object({
    invitation: InvitationRef,
    code: Type.String({ minLength: 1, maxLength: 16 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  }),
  signUp: Type.Object({
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    accepted_terms: Type.Boolean(),
    accepted_privacy: Type.Boolean(),
  }),
  signUpConfirm: Type.Object({
    email: Type.String({ minLength: 3, maxLength: 254 }),
    code: Type.String({ minLength: 1, maxLength: 16 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  }),
  consent: Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 8192 }), accepted_terms: Type.Boolean(), accepted_privacy: Type.Boolean() }),
  forgot: Type.Object({ username: Name }),
  reset: Type.Object({ username: Name, code: Type.String({ minLength: 1, maxLength: 16 }), password: Type.String({ minLength: 1, maxLength: 256 }) }),
  link: Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 8192 }), code: Type.String({ minLength: 1, maxLength: 16 }) }),
};

/**
 * A pending link (rule 2 of shared/domain/sign-in/federation.ts), carried by the page until the code comes: the
 * user, and the provider account this browser met, which alone the code may link.
 */
interface LinkTicket {
  user_id: string;
  email: string;
  account: MetAccount;
  context: ScreenContext;
  exp: number;
}
const LINK_TICKET_SECONDS = 30 * 60;
const linkTicket = (saasId: string) => ({ purpose: 'login screen link ticket', saas_id: saasId });

/**
 * A provider's account that would make a new user, carried by the page until the person gives the consents
 * the SaaS's sign-up page asks for: nothing is stored before, so leaving the page leaves no account.
 */
export interface ConsentTicket {
  account: ExternalAccount;
  email: string;
  context: ScreenContext;
  exp: number;
}
export const consentTicket = (saasId: string) => ({ purpose: 'login screen consent ticket', saas_id: saasId });

/** The page addresses, and the form each opens with. */
const PAGES: Readonly<Record<string, FirstForm>> = {
  '': 'sign-in-form',
  'sign-in': 'sign-in-form',
  invitation: 'sign-in-form',
  'sign-up': 'sign-up-form',
  'forgot-password': 'forgot-form',
  link: 'link-form',
  consent: 'consent-form',
};

/** A refusal as the person reads it: the message named for each error type the steps can meet. */
const MESSAGE_OF: Readonly<Record<string, MessageName>> = {
  not_authorized: 'wrongCredentials',
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
  sign_up_changed: 'signUpChanged',
};

export class LoginScreen {
  private readonly passkeySteps: PasskeySteps;

  constructor(private readonly deps: LoginScreenDeps) {
    this.passkeySteps = new PasskeySteps({
      passkeys: deps.passkeys,
      box: deps.box,
      secure: deps.secureCookies,
      finish: (saasId, credentials, context) => this.finish(saasId, { challenge_parameters: {}, credentials }, context),
    });
  }

  async handle(request: ScreenRequest): Promise<ScreenResponse> {
    const [saasId = '', ...rest] = request.path.split('/');
    const page = rest.join('/');
    // The screen's style for pages of no SaaS (an unknown one): the same files, at `…/login/assets/`.
    if (request.method === 'GET' && saasId === 'assets') {
      // The product's own look (light and dark) for pages of no SaaS.
      return page === 'theme.css' ? themeAnswer(DEFAULT_LOGIN_THEME, request, BASE_HEADERS) : this.assetOf(page);
    }
    if (!SAAS_ID.test(saasId) || !(await this.deps.saasExists(saasId))) return this.notFound();
    // The page's steps are relative to it (`api/start`): `…/login/{saas}` becomes `…/login/{saas}/`.
    if (!request.path.includes('/') && request.method === 'GET') {
      const query = request.query.toString();
      return { status: 308, headers: { ...BASE_HEADERS, location: `${this.screenPath(saasId)}${query ? `?${query}` : ''}` }, body: '' };
    }
    if (request.method === 'GET' && page === 'assets/theme.css' && this.deps.theme) {
      return themeAnswer(await this.deps.theme(saasId), request, BASE_HEADERS);
    }
    if (request.method === 'GET' && page.startsWith('assets/')) return this.assetOf(page.slice('assets/'.length));
    if (request.method === 'GET' && Object.hasOwn(PAGES, page)) return this.page(saasId, page, request);
    if (request.method === 'GET' && page === 'sign-out') return this.signOut(saasId, request.query.get('redirect_uri') ?? '');
    if (request.method === 'GET' && page === 'federated/google') return this.beginGoogle(saasId, request.query);
    if (request.method === 'GET' && page === 'saml') return this.beginSaml(saasId, request.query);
    if (request.method === 'GET' && page === 'saml/continue') return this.continueSaml(saasId, request);
    if (request.method === 'POST' && page.startsWith('api/')) return this.step(saasId, page.slice('api/'.length), request);
    return this.notFound(saasId);
  }

  private screenPath(saasId: string) {
    return `${this.deps.basePath}${saasId}/`;
  }

  private notFound(saasId?: string): ScreenResponse {
    return this.messagePage(404, saasId, this.deps.texts.page.notFoundTitle, this.deps.texts.page.notFound);
  }

  private messagePage(
    status: number,
    saasId: string | undefined,
    title: string,
    message: string,
    action?: { href: string; text: string },
  ): ScreenResponse {
    const assets = saasId ? `${this.screenPath(saasId)}assets/` : `${this.deps.basePath}assets/`;
    return {
      status,
      headers: { ...BASE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': messagePagePolicy(saasId !== undefined) },
      body: messagePage(this.deps.texts, title, message, assets, action),
    };
  }

  /** A way in that failed before the person could use it: said plainly, with the way back to the others. */
  private otherWaysIn(saasId: string, title: string, message: string, context: ScreenContext, status = 503): ScreenResponse {
    const query = new URLSearchParams(contextQuery(context)).toString();
    return this.messagePage(status, saasId, title, message, {
      href: `${this.screenPath(saasId)}${query ? `?${query}` : ''}`,
      text: this.deps.texts.page.otherWays,
    });
  }

  private async assetOf(name: string): Promise<ScreenResponse> {
    if (name !== 'login.js' && name !== 'login.css') return this.notFound();
    return {
      status: 200,
      headers: {
        ...BASE_HEADERS,
        'cache-control': 'public, max-age=300',
        'content-type': name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      },
      body: await this.deps.asset(name),
    };
  }

  private async page(saasId: string, page: string, request: ScreenRequest): Promise<ScreenResponse> {
    const look = ownScriptOnlyAtHome(await this.deps.look(saasId), request.ownOrigin === true);
    const existing = cookie(request.headers.cookie, CSRF_COOKIE);
    const csrf = existing && CSRF_PATTERN.test(existing) ? existing : randomBytes(32).toString('base64url');
    const authorization = request.query.get('authorization') ?? undefined;
    if (authorization !== undefined) {
      // Checked now, so a stale or foreign request is said at once rather than after the password.
      try {
        if (authorization.length > MAX_AUTHORIZATION_LENGTH) throw invalid('invalid_parameter', 'authorization: too long');
        await openAuthorizationRequest(this.deps.box, saasId, authorization);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return this.messagePage(
          400,
          saasId,
          this.deps.texts.page.badRequestTitle,
          fill(this.deps.texts.page.badAuthorizationRequest, { detail: error.message }),
        );
      }
    }
    const first = PAGES[page] === 'sign-up-form' && !look.selfSignUp ? 'sign-in-form' : (PAGES[page] as FirstForm);
    const data: PageData = {
      csrf,
      first,
      messages: this.deps.texts.messages,
      ...screenContext(request.query),
      ...(look.tagManagerId ? { tagManagerId: look.tagManagerId } : {}),
    };
    if (look.passwordPolicy) {
      const { minimum_length, is_require_lowercase, is_require_uppercase, is_require_numbers, is_require_symbols } = look.passwordPolicy;
      data.passwordRules = { minimum_length, is_require_lowercase, is_require_uppercase, is_require_numbers, is_require_symbols, symbols: SYMBOLS };
    }
    if (page === 'invitation') Object.assign(data, await this.invitation(saasId, request.query));
    // The consent and link pages carry a sealed ticket; one that no longer opens ends in a message, not a form.
    if (page === 'consent' || page === 'link') {
      const sealed = request.query.get('ticket') ?? '';
      try {
        const ticket = await (page === 'consent' ? this.openConsentTicket(saasId, sealed) : this.openLinkTicket(saasId, sealed));
        data[page] = { ticket: sealed, email: ticket.email };
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return this.messagePage(400, saasId, this.deps.texts.page.stepExpiredTitle, refusalText(this.deps.texts, error), {
          href: this.screenPath(saasId),
          text: this.deps.texts.page.goBack,
        });
      }
    }
    return {
      status: 200,
      headers: {
        // CSP frame-ancestors names the one origin that may frame it; X-Frame-Options cannot name one.
        ...(this.deps.previewOrigin ? FRAMEABLE_HEADERS : BASE_HEADERS),
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': contentSecurityPolicy(Boolean(look.tagManagerId), themeImageOrigin(look.theme), this.deps.previewOrigin),
        'set-cookie': setCookie(CSRF_COOKIE, csrf, this.screenCookie(saasId, 'Strict')),
      },
      body: loginPage(this.deps.texts, look, data, `${this.screenPath(saasId)}assets/`),
    };
  }

  /**
   * The screen keeps no session of its own (each visit signs in afresh), so signing out forgets its cookie and
   * returns to `redirect_uri` when it is on the callback URL's origin, else to the sign-in page: never elsewhere.
   */
  private async signOut(saasId: string, redirectUri: string): Promise<ScreenResponse> {
    // The URL parser would drop CR, LF and tabs and take the rest: refused instead, as no URL we hand out has them.
    if ([...redirectUri].some((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f))) {
      return this.messagePage(400, saasId, this.deps.texts.page.badRequestTitle, 'redirect_uri: holds control characters');
    }
    const callback = await this.deps.callbackUrl(saasId);
    const sameOrigin = (a: string, b: string) => URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin;
    // In its parsed form: a header holds ASCII only, so anything else is percent-encoded as the browser would.
    const location = redirectUri && sameOrigin(redirectUri, callback) ? new URL(redirectUri).href : `${this.screenPath(saasId)}sign-in`;
    return {
      status: 302,
      headers: { ...BASE_HEADERS, location, 'set-cookie': setCookie(CSRF_COOKIE, '', this.screenCookie(saasId, 'Strict'), 0) },
      body: '',
    };
  }

  /** Off to Google with the flow in a cookie only the return address reads. */
  private async beginGoogle(saasId: string, query: URLSearchParams): Promise<ScreenResponse> {
    const context = screenContext(query);
    const { texts } = this.deps;
    let started: Awaited<ReturnType<LoginScreenDeps['federation']['google']['begin']>>;
    try {
      started = await this.deps.federation.google.begin(saasId, context);
    } catch (error) {
      // Its settings broken or the provider unreachable (a 503: nothing the person sent is wrong): the person
      // reads why and takes another way in.
      log.warn('the Google sign-in could not start', { error: error instanceof Error ? error.message : String(error) });
      return this.otherWaysIn(saasId, texts.page.providerUnavailableTitle, texts.page.providerUnavailable, context);
    }
    // No Google for this SaaS: there is no such way in (a 404), and the page shows the others.
    if (!started) return this.otherWaysIn(saasId, texts.page.providerUnavailableTitle, texts.page.providerUnavailable, context, 404);
    return {
      status: 302,
      headers: {
        ...BASE_HEADERS,
        location: started.location,
        // Lax: the provider sends the browser back with a top-level GET from its own site.
        'set-cookie': setCookie(FLOW_COOKIE, started.flow, this.googleFlowCookie(), FLOW_SECONDS),
      },
      body: '',
    };
  }

  /**
   * `{BASE_PATH}/oauth2/idpresponse`: back from the provider. Signed in, the browser goes where the screen would
   * have sent it; an account to link goes to the code page; a refusal is a page saying why.
   */
  async federatedReturn(request: ScreenRequest): Promise<ScreenResponse> {
    const forget = setCookie(FLOW_COOKIE, '', this.googleFlowCookie(), 0);
    let saasId: string | undefined;
    let context: ScreenContext = {};
    try {
      const current = new URL(this.deps.federation.returnUrl);
      current.search = request.query.toString();
      const back = await this.deps.federation.google.complete(current, cookie(request.headers.cookie, FLOW_COOKIE) ?? '');
      saasId = back.saasId;
      context = back.context;
      const location = await this.federatedSignIn(back.saasId, back.account, back.context);
      return { status: 302, headers: { ...BASE_HEADERS, location, 'set-cookie': forget }, body: '' };
    } catch (error) {
      // Refused before the flow was read back (the provider's refusal, or it failing): still the SaaS's page.
      const flow = saasId ? undefined : await this.deps.federation.google.flowOf?.(cookie(request.headers.cookie, FLOW_COOKIE) ?? '');
      if (flow) ({ saasId, context } = flow);
      return this.federationRefused(error, saasId, this.deps.texts.page.federationFailedTitle, forget, context);
    }
  }

  /** Signed in where the screen would have sent the browser, or to the page that takes the link code. */
  private async federatedSignIn(saasId: string, account: ExternalAccount, context: ScreenContext, consented = false): Promise<string> {
    // A new account waits for the consents the sign-up page asks for; an existing one is never asked again.
    const { sign_up_page } = (await this.deps.look(saasId)).pages;
    const mayCreate = consented || (!sign_up_page.is_terms_of_service && !sign_up_page.is_privacy_policy);
    const outcome = await this.deps.federation.signIn(saasId, account, { mayCreate });
    if (outcome.kind === 'signed_in')
      return (await this.finish(saasId, { challenge_parameters: {}, credentials: outcome.credentials }, context)).redirect;
    if (outcome.kind === 'consent_needed') {
      const ticket: ConsentTicket = { account, email: outcome.email, context, exp: nowSeconds() + LINK_TICKET_SECONDS };
      const sealed = await sealJson(this.deps.box, ticket, consentTicket(saasId));
      return `${this.screenPath(saasId)}consent?${new URLSearchParams({ ticket: sealed }).toString()}`;
    }
    const { provider, subject, tenantId } = account;
    const met = { provider, subject, ...(tenantId !== undefined ? { tenantId } : {}) };
    const ticket: LinkTicket = { user_id: outcome.userId, email: outcome.email, account: met, context, exp: nowSeconds() + LINK_TICKET_SECONDS };
    const sealed = await sealJson(this.deps.box, ticket, linkTicket(saasId));
    return `${this.screenPath(saasId)}link?${new URLSearchParams({ ticket: sealed }).toString()}`;
  }

  /** A refusal on the way back from an identity provider: a page saying why, and the flow's cookie forgotten. */
  private federationRefused(error: unknown, saasId: string | undefined, title: string, forget: string, context: ScreenContext = {}): ScreenResponse {
    const { texts } = this.deps;
    if (!(error instanceof DomainError)) log.error('a federated sign-in failed', error);
    const [status, message] = error instanceof DomainError ? [400, refusalText(texts, error)] : [503, texts.page.providerUnavailable];
    const page = saasId ? this.otherWaysIn(saasId, title, message, context, status) : this.messagePage(status, undefined, title, message);
    return { ...page, headers: { ...page.headers, 'set-cookie': forget } };
  }

  /** Off to the SAML function, which signs the AuthnRequest for the tenant's identity provider (functions/saml). */
  private beginSaml(saasId: string, query: URLSearchParams): ScreenResponse {
    const tenantId = query.get('tenant_id') ?? '';
    if (!/^[A-Za-z0-9-]{1,64}$/.test(tenantId)) return this.notFound(saasId);
    const start = new URL(this.deps.samlStartUrl(saasId, tenantId));
    for (const [name, value] of Object.entries(contextQuery(screenContext(query)))) start.searchParams.set(name, value);
    return { status: 302, headers: { ...BASE_HEADERS, location: start.toString() }, body: '' };
  }

  /** `./saml/continue?ticket=…`: the assertion the SAML function checked, signed in when this browser asked for it. */
  private async continueSaml(saasId: string, request: ScreenRequest): Promise<ScreenResponse> {
    const forget = setCookie(SAML_FLOW_COOKIE, '', this.screenCookie(saasId, 'Lax'), 0);
    try {
      const { ticket, flow } = await openSamlTicket(
        this.deps.box,
        request.query.get('ticket') ?? '',
        cookie(request.headers.cookie, SAML_FLOW_COOKIE),
      );
      if (ticket.saas_id !== saasId) throw invalid('saml_refused', 'ticket: is for another SaaS');
      if (!(await this.deps.federation.claimSamlTicket(saasId, ticket.assertion, ticket.exp))) {
        throw invalid('saml_replayed', 'ticket: was used already; sign in again');
      }
      const location = await this.federatedSignIn(saasId, ticket.account, flow.context);
      return { status: 302, headers: { ...BASE_HEADERS, location, 'set-cookie': forget }, body: '' };
    } catch (error) {
      return this.federationRefused(error, saasId, this.deps.texts.page.samlFailedTitle, forget);
    }
  }

  private async openConsentTicket(saasId: string, sealed: string): Promise<ConsentTicket> {
    const ticket = await openJson<ConsentTicket>(this.deps.box, sealed, consentTicket(saasId));
    if (!ticket?.account) throw invalid('invalid_parameter', 'ticket: is not a consent ticket of this screen');
    if (ticket.exp <= nowSeconds()) throw invalid('ticket_expired', 'ticket: too old; sign in with the provider again');
    return ticket;
  }

  /** The consents given for a provider's new account: the account made (or met meanwhile) and signed in. */
  private async consent(saasId: string, body: typeof BODIES.consent.static) {
    await this.checkConsents(saasId, body);
    const ticket = await this.openConsentTicket(saasId, body.ticket);
    return { redirect: await this.federatedSignIn(saasId, ticket.account, ticket.context, true) };
  }

  private async checkConsents(saasId: string, body: { accepted_terms: boolean; accepted_privacy: boolean }) {
    const { sign_up_page } = (await this.deps.look(saasId)).pages;
    if ((sign_up_page.is_terms_of_service && !body.accepted_terms) || (sign_up_page.is_privacy_policy && !body.accepted_privacy)) {
      throw invalid('must_accept', 'accepted_terms, accepted_privacy: the sign-up page asks for both');
    }
  }

  private async openLinkTicket(saasId: string, sealed: string): Promise<LinkTicket> {
    const ticket = await openJson<LinkTicket>(this.deps.box, sealed, linkTicket(saasId));
    if (!ticket?.account) throw invalid('invalid_parameter', 'ticket: is not a link ticket of this screen');
    if (ticket.exp <= nowSeconds()) throw invalid('ticket_expired', 'ticket: too old; sign in with the provider again');
    return ticket;
  }

  /** Cookies of this SaaS's screen: its CSRF token (Strict), and the SAML flow the SAML function sets there (Lax). */
  private screenCookie(saasId: string, sameSite: CookieScope['sameSite']): CookieScope {
    return { path: this.screenPath(saasId), sameSite, secure: this.deps.secureCookies };
  }

  /** The Google flow's cookie: only the return address reads it. */
  private googleFlowCookie(): CookieScope {
    return { path: new URL(this.deps.federation.returnUrl).pathname, sameSite: 'Lax', secure: this.deps.secureCookies };
  }

  /** The invitation of the link, when it can still be accepted; else why not (the page then signs in only). */
  private async invitation(saasId: string, query: URLSearchParams): Promise<Pick<PageData, 'invitation' | 'invitationProblem'>> {
    const id = query.get('invitation_id') ?? '';
    const tenantId = query.get('tenant_id') ?? '';
    try {
      if (!id || !tenantId) throw invalid('invalid_parameter', 'invitation_id and tenant_id are required');
      // Ids as the service makes them: a longer one is no key the store could even look up (a 500 before).
      if (!SAAS_ID.test(id) || !SAAS_ID.test(tenantId)) return { invitationProblem: 'there is no such invitation' };
      const invitation = await this.deps.invitations.get(saasId, tenantId, id);
      const { page: t } = this.deps.texts;
      if (invitation.status !== 'pending') return { invitationProblem: fill(t.invitationNotPending, { status: invitation.status }) };
      const names = await this.deps.invitationNames?.(saasId, tenantId);
      return { invitation: { id, tenantId, email: invitation.email, ...(names ? { saasName: names.saas, tenantName: names.tenant } : {}) } };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { invitationProblem: error.kind === 'not_found' ? this.deps.texts.page.invitationMissing : refusalText(this.deps.texts, error) };
    }
  }

  private async step(saasId: string, name: string, request: ScreenRequest): Promise<ScreenResponse> {
    const devices = new DeviceJar(this.deps.box, saasId, request.headers.cookie, {
      path: `${this.screenPath(saasId)}api/`,
      sameSite: 'Strict',
      secure: this.deps.secureCookies,
    });
    const answer = await this.runStep(saasId, name, request, devices);
    return devices.setCookie ? { ...answer, headers: { ...answer.headers, 'set-cookie': devices.setCookie } } : answer;
  }

  private async runStep(saasId: string, name: string, request: ScreenRequest, devices: DeviceJar): Promise<ScreenResponse> {
    try {
      this.checkRequest(request);
      const body = await parseJsonBody(request.body);
      switch (name) {
        case 'start':
          return ok(await this.start(saasId, validate(BODIES.start, body, 'body')));
        case 'answer':
          return ok(await this.answer(saasId, validate(BODIES.answer, body, 'body'), devices));
        case 'device':
          return ok(await this.confirmDevice(saasId, validate(BODIES.device, body, 'body'), devices));
        case 'join-code': {
          const { invitation } = validate(BODIES.joinCode, body, 'body');
          await this.deps.invitations.mailJoinCode(saasId, invitation.id);
          return ok({});
        }
        case 'join': {
          const { invitation, code, password } = validate(BODIES.join, body, 'body');
          return ok(await this.deps.invitations.joinWithCode(saasId, invitation.id, { code, password }));
        }
        case 'sign-up':
          return ok(await this.signUp(saasId, validate(BODIES.signUp, body, 'body')));
        case 'sign-up-confirm': {
          const input = validate(BODIES.signUpConfirm, body, 'body');
          if (!this.deps.signUpWithPassword || (await this.deps.look(saasId)).signUpPassword !== 'chosen') throw choiceOff();
          await this.deps.signUpWithPassword.confirm(saasId, input);
          return ok({ email: input.email });
        }
        case 'consent':
          return ok(await this.consent(saasId, validate(BODIES.consent, body, 'body')));
        case 'forgot': {
          const { username } = validate(BODIES.forgot, body, 'body');
          await this.deps.passwordReset.request(saasId, username);
          return ok({});
        }
        case 'reset':
          await this.deps.passwordReset.confirm(saasId, validate(BODIES.reset, body, 'body'));
          return ok({});
        case 'link': {
          const { ticket, code } = validate(BODIES.link, body, 'body');
          const pending = await this.openLinkTicket(saasId, ticket);
          const credentials = await this.deps.federation.confirmLink(saasId, pending.user_id, code, pending.account);
          return ok(await this.finish(saasId, { challenge_parameters: {}, credentials }, pending.context));
        }
        default: {
          const passkeyStep = name.startsWith('passkey/')
            ? await this.passkeySteps.step(saasId, name.slice('passkey/'.length), body, request.headers, (await this.deps.look(saasId)).title)
            : undefined;
          return passkeyStep ? ok(passkeyStep) : refusal(404, 'not_found', 'no such step', this.deps.texts);
        }
      }
    } catch (error) {
      return this.refused(error);
    }
  }

  /** JSON, small, and from our own page: the CSRF cookie and header agree. */
  private checkRequest(request: ScreenRequest): void {
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      throw invalid('unsupported_media_type', 'content-type: must be application/json');
    }
    if (request.body.length > MAX_BODY_BYTES) throw invalid('request_too_large', `body: larger than ${MAX_BODY_BYTES} bytes`);
    const fromCookie = cookie(request.headers.cookie, CSRF_COOKIE) ?? '';
    const fromHeader = request.headers['x-csrf-token'] ?? '';
    if (!fromCookie || !constantTimeEqual(fromCookie, fromHeader))
      throw new DomainError('forbidden', 'csrf_mismatch', 'x-csrf-token: does not match the page; reload it');
  }

  private async start(saasId: string, body: { username: string; srp_a: string }) {
    const step = await this.deps.signIn.start(saasId, { USERNAME: body.username, SRP_A: body.srp_a });
    const challenge = passwordChallenge(step);
    if (!challenge) throw new Error(`Sign In answered ${String(step.challenge_name)} where PASSWORD_VERIFIER was expected`);
    return { challenge };
  }

  private async answer(saasId: string, body: typeof BODIES.answer.static, devices: DeviceJar) {
    const allowed = FOLLOW_UPS[body.challenge_name];
    const responses = allowed ? { USERNAME: body.responses.USERNAME ?? '', [allowed]: body.responses[allowed] ?? '' } : body.responses;
    // The device this browser keeps for the user goes with the password's proof, and answers its own steps.
    const device = body.challenge_name === 'PASSWORD_VERIFIER' && !responses.DEVICE_KEY ? await devices.device(responses.USERNAME ?? '') : undefined;
    const respond = (answer: ChallengeAnswer) => this.deps.signIn.respond(saasId, answer);
    let step: SignInResult;
    try {
      step = await respond({
        challenge_name: body.challenge_name,
        challenge_responses: device ? { ...responses, DEVICE_KEY: device.key } : responses,
        session: body.session,
      });
      if (device && step.challenge_name === 'DEVICE_SRP_AUTH') {
        step = await answerDeviceSteps(respond, step, device, step.challenge_parameters.USERNAME ?? responses.USERNAME ?? '');
      }
    } catch (error) {
      if (device && error instanceof DomainError && error.code === 'device_not_found') devices.forget(responses.USERNAME ?? '');
      throw error;
    }
    if (step.credentials) return this.finish(saasId, { ...step, credentials: step.credentials }, body);
    const next = step.challenge_name ?? '';
    if (!Object.hasOwn(FOLLOW_UPS, next) && !DEVICE_STEPS.includes(next)) {
      throw invalid('unsupported_challenge', `the sign-in asks for ${next}, which this screen does not offer`);
    }
    return {
      challenge_name: next,
      session: step.session ?? '',
      username: step.challenge_parameters.USERNAME ?? step.challenge_parameters.USER_ID_FOR_SRP ?? responses.USERNAME,
      // The device steps' SRP values; the person's steps need none.
      ...(DEVICE_STEPS.includes(next) ? { parameters: step.challenge_parameters } : {}),
    };
  }

  /**
   * Signed in: the invitation accepted (when there is one), the credentials saved under a code, and back to the
   * callback URL, or to the redirect URI of the OpenID Connect request the page was opened for.
   */
  private async finish(
    saasId: string,
    step: SignInResult & { credentials: Credentials },
    { state, invitation, authorization, code_challenge }: ScreenContext & { invitation?: { id: string } },
  ) {
    const { credentials } = step;
    const request = authorization !== undefined ? await openAuthorizationRequest(this.deps.box, saasId, authorization) : undefined;
    // Parsed with the rule it was saved under (shared/schemas/web-url.ts): a stored value no browser could follow is none.
    const callback = webUrl(await this.deps.callbackUrl(saasId));
    if (!callback) throw invalid('no_callback_url', 'the SaaS has no callback URL (PUT /auth-info)');
    if (invitation) await this.deps.invitations.accept(saasId, invitation.id, { access_token: credentials.access_token });
    let redirect: string;
    if (request) {
      const { redirect_uri, code_challenge, nonce, scope } = request;
      const binding = { redirect_uri, code_challenge, scope, ...(nonce !== undefined ? { nonce } : {}) };
      redirect = authorizationResponse(request, this.deps.issuer, (await this.deps.saveCredentials(saasId, credentials, binding)).code);
    } else {
      const url = callback;
      // With the application's PKCE challenge, the code is traded only with its verifier (POST /credentials/exchange).
      const toSave = code_challenge ? { ...credentials, code_challenge, code_challenge_method: 'S256' as const } : credentials;
      url.searchParams.set('code', (await this.deps.saveCredentials(saasId, toSave)).code);
      if (state !== undefined) url.searchParams.set('state', state);
      redirect = url.toString();
    }
    // Passkeys on: the page may offer one, or show the person theirs, before it leaves (passkeys.ts).
    const passkeys = await this.passkeySteps.offer(saasId, credentials);
    const offered = step.new_device_metadata;
    if (!offered) return { redirect, ...passkeys };
    // A device offered: the page confirms it (api/device) before it leaves, with a ticket that carries the access
    // token sealed, so the token never reaches the page; the server makes the device's secret (remembered-devices.ts).
    const held = { access_token: credentials.access_token, device_key: offered.device_key, device_group_key: offered.device_group_key };
    const ticket = await sealJson(this.deps.box, held, deviceTicket(saasId));
    return { redirect, new_device: { ...offered, ticket }, ...passkeys };
  }

  /** Confirms the page's device (remembered at once, or when the person asked and the SaaS lets them choose). */
  private async confirmDevice(saasId: string, body: typeof BODIES.device.static, devices: DeviceJar) {
    const held = await openJson<{ access_token: string; device_key: string; device_group_key: string }>(
      this.deps.box,
      body.ticket,
      deviceTicket(saasId),
    );
    if (!held?.device_group_key) throw invalid('invalid_parameter', 'ticket: is not a device ticket of this screen');
    const { access_token, device_key } = held;
    const remembered = await devices.keep(access_token, held, async (salt, password_verifier) => {
      const confirmed = await this.deps.devices.confirm(saasId, {
        access_token,
        device_key,
        device_name: 'Browser (login screen)',
        device_secret_verifier_config: { salt, password_verifier },
      });
      if (confirmed.user_confirmation_necessary && body.remember) {
        await this.deps.devices.updateStatus(saasId, { access_token, device_key, device_remembered_status: 'remembered' });
      }
      return !confirmed.user_confirmation_necessary || body.remember;
    });
    return { remembered };
  }

  /**
   * Sign-up with the consents the sign-up page asks for. An address that has an account already gets the
   * same answer as a new one (and no mail): the screen does not tell who has an account.
   */
  private async signUp(saasId: string, body: typeof BODIES.signUp.static) {
    await this.checkConsents(saasId, body);
    const chosen = (await this.deps.look(saasId)).signUpPassword === 'chosen' && this.deps.signUpWithPassword;
    // The page was made for the other way (the setting changed since): said, rather than mailing what it does not expect.
    if (chosen ? body.password === undefined : body.password !== undefined) throw choiceOff();
    try {
      if (chosen) await chosen.request(saasId, body.email, body.password as string);
      else await this.deps.signUp(saasId, body.email);
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'email_already_exists')) throw error;
    }
    return { email: body.email, ...(chosen ? { code_sent: true } : {}) };
  }

  private refused(error: unknown): ScreenResponse {
    const answer = errorAnswer(error);
    if (answer.unexpected) log.error('login screen step failed', error);
    return refusal(answer.status, answer.body.type, answer.unexpected ? '' : answer.body.message, this.deps.texts);
  }
}

const choiceOff = () =>
  invalid('sign_up_changed', 'password: this sign-up page is out of date (the SaaS changed how passwords are set at sign-up); reload it');

const deviceTicket = (saasId: string) => ({ purpose: 'login screen device ticket', saas_id: saasId });

const ok = (body: object): ScreenResponse => ({ status: 200, headers: JSON_HEADERS, body: JSON.stringify(body) });

/** The error shape, its message the one a person reads (the service's own, field-named one in `data.detail`). */
function refusal(status: number, type: string, detail: string, texts: LoginTexts): ScreenResponse {
  const name = MESSAGE_OF[type] ?? (status >= 500 ? 'unavailable' : 'refused');
  const message = fill(texts.messages[name], { detail: detail.replace(/^[^:]*:\s*/, '') });
  return { status, headers: JSON_HEADERS, body: JSON.stringify({ type, message, data: {} }) };
}
