/**
 * What the login screen's parts agree on, below all of them so that none imports another for a type: the
 * services the screen is built from (LoginScreenDeps, filled by web/login/wiring.ts), the bodies its JSON
 * steps take, the sealed tickets the page carries between two steps, and the headers of its answers.
 */
import * as Type from '@sinclair/typebox';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import type { AtomicWrite } from '../../../shared/domain/atomic.js';
import type { ScreenSessionService, SessionRead, SessionReference } from '../../../shared/domain/sign-in/screen-sessions.js';
import type { AuthorizationBinding, CredentialService } from '../../../shared/domain/sign-in/sign-in-credentials.js';
import type { ExternalAccount, FederatedOutcome, MetAccount } from '../../../shared/domain/sign-in/federation.js';
import type { Invitation, InvitationAcceptance } from '../../../shared/schemas/invitations.js';
import type { LoginTheme } from '../../../shared/schemas/login-theme.js';
import type {
  ChallengeAnswer,
  Credentials,
  CredentialsToSave,
  DeviceConfirmation,
  DeviceStatusUpdate,
  SignInResult,
} from '../../../shared/schemas/sign-in.js';
import type { GoogleFederation } from './federation.js';
import type { TenantOidcSignIn } from './tenant-oidc.js';
import type { PasskeyScreenService, PasskeySteps } from './passkeys.js';
import type { WebRequest } from '../../kit/http.js';
import type { ScreenLook } from '../pages.js';
import { MAX_AUTHORIZATION_LENGTH, MAX_STATE_LENGTH, type ScreenContext } from '../screen-context.js';
import type { LoginTexts } from '../texts/en.js';

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
  /** The password checked on the server, for a user SRP cannot prove (shared/domain/sign-in/password-sign-in.ts). */
  passwordSignIn?: {
    signIn(saasId: string, parameters: { USERNAME: string; PASSWORD: string }, options: { withVerifier: boolean }): Promise<SignInResult>;
  };
  /**
   * A temporary code for the credentials; with a binding, an OpenID Connect authorization code. `withCode`:
   * writes committed with it or not at all (the screen session the sign-in opens).
   */
  saveCredentials(
    saasId: string,
    credentials: CredentialsToSave,
    binding?: AuthorizationBinding,
    ...withCode: AtomicWrite[]
  ): Promise<{ code: string }>;
  /**
   * As saveCredentials, the code held back until `releaseCredentials` (once): a page between the sign-in and
   * the redirect (the passkey offer) would otherwise spend the code's few seconds.
   */
  holdCredentials(
    saasId: string,
    credentials: CredentialsToSave,
    binding?: AuthorizationBinding,
    ...withCode: AtomicWrite[]
  ): Promise<{ code: string; hold: string }>;
  releaseCredentials(saasId: string, hold: string): Promise<boolean>;
  /** The screen's sessions (screen-session.ts); without them, every visit signs in afresh. */
  sessions?: ScreenSessionPort;
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
    /** A tenant's own OpenID Connect provider (tenant-oidc.ts); the screen has no `oidc` pages without it. */
    tenantOidc?: Pick<TenantOidcSignIn, 'begin' | 'complete' | 'flowOf'>;
    /** The tenant that verified an address's domain, and which of its providers signs its people in (home-realm.ts). */
    homeRealm?(saasId: string, email: string): Promise<{ tenantId: string; via: 'oidc' | 'saml' } | undefined>;
    /** The screen's `oidc/callback` as the provider was told it: the URL its answer is checked against. */
    tenantOidcCallback?(saasId: string): string;
    /** true the first time a SAML ticket (its assertion) is used on the screen. */
    claimSamlTicket(saasId: string, assertion: { issuer: string; id: string }, expiresAt: number): Promise<boolean>;
  };
  /** The names an invitation page shows: the inviting SaaS and the tenant. */
  invitationNames?(saasId: string, tenantId: string): Promise<{ saas: string; tenant: string }>;
  /** Where a tenant's SAML sign-in starts: the SAML function's signed AuthnRequest (functions/saml). */
  samlStartUrl(saasId: string, tenantId: string): string;
  /** Passkeys (our extension; web/login/screen/passkeys.ts). */
  passkeys: PasskeyScreenService;
  /** The page's script and style, built by web/page-assets.ts. */
  asset(name: 'login.js' | 'login.css'): Promise<string>;
}

/** The sessions' service, and the code a live session answers an authorization with (CredentialService.saveForSession). */
export type ScreenSessionPort = Pick<ScreenSessionService, 'open' | 'readWithSaas' | 'resume' | 'touch' | 'signOut' | 'list' | 'end' | 'endOthers'> &
  Pick<CredentialService, 'saveForSession'> & {
    /** The grant a refresh token of this SaaS belongs to, if it is one this deployment issued and still live. */
    grantOf(saasId: string, refreshToken: string): Promise<string | undefined>;
  };

export const MAX_BODY_BYTES = 16 * 1024;
export const CSRF_COOKIE = 'login_csrf';
export const CSRF_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const SAAS_ID = /^[A-Za-z0-9-]{1,64}$/;

export const BASE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};
const { 'x-frame-options': _denied, ...frameable } = BASE_HEADERS;
/** For the sign-in page, which the console's theme preview may frame (its CSP names that one origin). */
export const FRAMEABLE_HEADERS = frameable;
export const JSON_HEADERS = {
  ...BASE_HEADERS,
  'content-type': 'application/json; charset=utf-8',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

const Name = Type.String({ minLength: 1, maxLength: 256 });
const State = Type.Optional(Type.String({ maxLength: MAX_STATE_LENGTH }));
const InvitationRef = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), tenant_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const BODIES = {
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
  passwordCheck: Type.Object({ password: Type.String({ minLength: 1, maxLength: 256 }) }),
};

/**
 * A pending link (rule 2 of shared/domain/sign-in/federation.ts), carried by the page until the code comes: the
 * user, and the provider account this browser met, which alone the code may link.
 */
export interface LinkTicket {
  user_id: string;
  email: string;
  account: MetAccount;
  context: ScreenContext;
  exp: number;
}
export const LINK_TICKET_SECONDS = 30 * 60;
export const linkTicket = (saasId: string) => ({ purpose: 'login screen link ticket', saas_id: saasId });

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
export const deviceTicket = (saasId: string) => ({ purpose: 'login screen device ticket', saas_id: saasId });

/** What every part of the screen works with: its services, and the passkey steps (which end through finish.ts). */
export interface ScreenParts {
  deps: LoginScreenDeps;
  passkeys: PasskeySteps;
}

/** A request the route table (screen.ts) gave a part: the SaaS it names, the page after it, the query read once. */
export interface ScreenCall {
  parts: ScreenParts;
  saasId: string;
  page: string;
  query: URLSearchParams;
  request: WebRequest;
  /** The session the browser's cookie names, read with the SaaS's check (screen.ts, resume.ts `sessionRead`). */
  session?: ReadSession;
}

/** A session's cookie opened, and what one store request read of it. */
export interface ReadSession {
  ref: SessionReference & { oldName?: true };
  read: SessionRead;
}
