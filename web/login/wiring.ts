/**
 * The login app composed, as shared/wiring.ts composes the API's services: the screen (screen/screen.ts), the OpenID
 * Connect authorization server (oidc/authorization-server.ts), Google federation (screen/federation.ts) and the host rule's
 * door (host-gate.ts), built from the shared repositories and services and from the settings, which are read
 * here and nowhere else in web/login. login-function.ts only routes requests to them. The SAML service
 * provider has its own (saml-wiring.ts), so the screen's bundle carries no XML library.
 */
import { config } from '../../shared/config.js';
import { ENTRY_PATHS, OAUTH2_PATH, SAML2_PATH } from '../../shared/routes.js';
import { hostKind } from '../../shared/screen-hosts.js';
import {
  accountRepository,
  configurationReader,
  credentialService,
  deviceService,
  federationService,
  invitationService,
  tenantService,
  tenantOidcCallbackUrl,
  tenantOidcService,
  tenantRepository,
  verifiedDomainService,
  metadataFetcher,
  passkeyService,
  loginThemeService,
  samlAssertions,
  saasKnown,
  screenHosts,
  screenSessionService,
  secretBox,
  passwordSignInService,
  refreshTokens,
  signInService,
  signUpService,
  tokenVerifier,
  userFlowService,
} from '../../shared/wiring.js';
import { AuthorizationServer } from './oidc/authorization-server.js';
import { GoogleFederation } from './screen/federation.js';
import type { HostGateDeps } from './host-gate.js';
import type { ScreenSessionPort } from './screen/contract.js';
import { LoginScreen } from './screen/screen.js';
import { TenantOidcSignIn } from './screen/tenant-oidc.js';
import { EN, type LoginTexts } from './texts/en.js';
import { builtAssets } from '../kit/built-assets.js';

/** Cookies only over HTTPS (the deployed service); plain HTTP on a laptop. */
export const secureCookies = () => config().publicBaseUrl.startsWith('https:');

/** The built script and style: `public/` beside this file, or beside the deployed bundle (web/page-assets.ts). */
const asset = builtAssets(new URL('./public/', import.meta.url));

let google: GoogleFederation | undefined;
/** One per warm instance: it keeps the provider's discovery document. */
const googleFederation = () =>
  (google ??= new GoogleFederation({
    issuer: config().googleIssuer,
    returnUrl: `${config().publicBaseUrl}${OAUTH2_PATH}/idpresponse`,
    settings: async (saasId) => {
      const { google: props } = await configurationReader().identityProviders(saasId);
      return props.application_id ? { clientId: String(props.application_id), scope: props.approval_scope } : undefined;
    },
    secret: (saasId) => configurationReader().providerSecret(saasId),
    box: secretBox(),
  }));

let tenantOidc: TenantOidcSignIn | undefined;
/** One per warm instance: it keeps the providers' discovery documents and JWKS. */
const tenantOidcSignIn = () =>
  (tenantOidc ??= new TenantOidcSignIn({
    settings: (saasId, tenantId) => tenantOidcService().settings(saasId, tenantId),
    secret: (saasId, tenantId, settings) => tenantOidcService().secret(saasId, tenantId, settings),
    callbackUrl: tenantOidcCallbackUrl,
    fetch: metadataFetcher().fetcher('oidc.discovery_url'),
    box: secretBox(),
  }));

export const saasExists = async (saasId: string) => (await accountRepository().getSaas(saasId)) !== undefined;
const callbackUrl = async (saasId: string) => (await configurationReader().authInfo(saasId)).callback_url;

/**
 * The tab icon of a SaaS's screen (customize-page-settings): its favicon, else its icon (the image above its
 * title), so a SaaS that set only its logo still sees its own mark; '' for none.
 */
export const screenFavicon = async (saasId: string) => {
  const { favicon, icon } = await configurationReader().customizePageSettings(saasId);
  return favicon || icon;
};

/** The SaaS a host serves alone: `<saas id>.<login domain>`, or its own domain once live; none for the API's hosts. */
export async function saasOfHost(host: string): Promise<string | undefined> {
  const kind = hostKind(screenHosts(), host);
  if (kind.kind === 'saas') return kind.saasId;
  return kind.kind === 'other' ? configurationReader().screenOwnerOf(host.trim().toLowerCase()) : undefined;
}

/** The screen's sessions (screen/screen-session.ts): the service, and the code a live one answers with. */
const screenSessions = (): ScreenSessionPort => {
  const sessions = screenSessionService();
  const credentials = credentialService();
  return {
    open: (saasId, opening) => sessions.open(saasId, opening),
    readWithSaas: (saasId, ref) => sessions.readWithSaas(saasId, ref),
    resume: (saasId, ref, demand, read) => sessions.resume(saasId, ref, demand, read),
    touch: (saasId, session, grantId) => sessions.touch(saasId, session, grantId),
    signOut: (saasId, ref, options) => sessions.signOut(saasId, ref, options),
    list: (saasId, userId) => sessions.list(saasId, userId),
    end: (saasId, userId, sessionId) => sessions.end(saasId, userId, sessionId),
    endOthers: (saasId, userId, keep) => sessions.endOthers(saasId, userId, keep),
    saveForSession: (saasId, user, session, target, withCode, grantId) =>
      credentials.saveForSession(saasId, user, session, target, withCode, grantId),
    // Not a CredentialService method: the screen's alone, kept out of the sign-in function's bundle.
    grantOf: async (saasId, refreshToken) => (await refreshTokens().open(saasId, refreshToken))?.grantId,
  };
};

export const loginScreen = (texts: LoginTexts = EN) =>
  new LoginScreen({
    texts,
    basePath: ENTRY_PATHS.login,
    secureCookies: secureCookies(),
    saasExists,
    look: async (saasId) => {
      const reader = configurationReader();
      const [settings, pages, signIn, providers, theme] = await Promise.all([
        reader.customizePageSettings(saasId),
        reader.customizePages(saasId),
        reader.signInSettings(saasId),
        reader.identityProviders(saasId),
        loginThemeService(true).theme(saasId),
      ]);
      return {
        title: settings.title,
        icon: settings.icon,
        favicon: settings.favicon,
        termsOfServiceUrl: settings.terms_of_service_url,
        privacyPolicyUrl: settings.privacy_policy_url,
        tagManagerId: settings.tag_manager_container_id,
        signInIdEnabled: Boolean(settings.is_sign_in_id_enabled),
        selfSignUp: signIn.self_regist.enable,
        deviceRemembering: signIn.device_configuration.device_remembering,
        google: Boolean(providers.google.application_id) && !providers.google.is_button_hidden,
        passkeys: signIn.passkeys.enable,
        signUpPassword: signIn.sign_up.password,
        passwordPolicy: {
          ...signIn.password_policy,
          length_first: signIn.password_length_first.enable,
          second_factor: signIn.passkeys.required === true,
        },
        passwordSignIn: signIn.password_sign_in.user_password_auth,
        pages,
        theme,
      };
    },
    theme: (saasId) => loginThemeService(true).theme(saasId),
    callbackUrl,
    issuer: config().tokenIssuer,
    previewOrigin: new URL(config().publicBaseUrl).origin,
    signIn: signInService(true),
    passwordSignIn: passwordSignInService(),
    saveCredentials: (saasId, credentials, binding, ...withCode) => credentialService().save(saasId, credentials, binding, ...withCode),
    holdCredentials: (saasId, credentials, binding, ...withCode) => credentialService().hold(saasId, credentials, binding, ...withCode),
    releaseCredentials: (saasId, hold) => credentialService().release(saasId, hold),
    sessions: screenSessions(),
    devices: deviceService(),
    box: secretBox(),
    signUp: (saasId, email) => signUpService().signUp(saasId, email),
    signUpWithPassword: {
      request: (saasId, email, password) => signUpService().requestWithPassword(saasId, email, password),
      confirm: (saasId, input) => signUpService().confirmWithPassword(saasId, input),
    },
    passwordReset: {
      request: (saasId, username) => userFlowService().requestPasswordReset(saasId, username),
      confirm: (saasId, input) => userFlowService().confirmPasswordReset(saasId, input),
    },
    invitations: invitationService(),
    federation: {
      google: googleFederation(),
      returnUrl: googleFederation().returnUrl,
      signIn: (saasId, account, options) => federationService().signIn(saasId, account, options),
      confirmLink: (saasId, userId, code, account) => federationService().confirmLink(saasId, userId, code, account),
      tenantOidc: tenantOidcSignIn(),
      tenantOidcCallback: tenantOidcCallbackUrl,
      homeRealm: async (saasId, email) => {
        const owner = await verifiedDomainService().ownerOf(saasId, email);
        const tenant = owner && (await tenantRepository().get(saasId, owner.tenant_id));
        if (!tenant) return undefined;
        if (tenant.oidc) return { tenantId: tenant.id, via: 'oidc' as const };
        return tenant.saml ? { tenantId: tenant.id, via: 'saml' as const } : undefined;
      },
      claimSamlTicket: (saasId, assertion, expiresAt) => samlAssertions().claimTicket(saasId, assertion.issuer, assertion.id, expiresAt),
    },
    invitationNames: async (saasId, tenantId) => {
      const [saas, tenant] = await Promise.all([accountRepository().getSaas(saasId), tenantService().current(saasId, tenantId)]);
      return { saas: saas?.name ?? '', tenant: tenant.name };
    },
    passkeys: passkeyService(),
    samlStartUrl: (saasId, tenantId) => `${config().publicBaseUrl}${SAML2_PATH}/login/${saasId}/${tenantId}`,
    asset,
  });

export const authorizationServer = (texts: LoginTexts = EN) =>
  new AuthorizationServer({
    texts,
    issuer: config().tokenIssuer,
    // The client check kept per instance as its redirect URI is (the settings cache): shared/wiring/accounts.ts.
    saasExists: saasKnown,
    callbackUrl,
    screenUrl: (saasId) => configurationReader().loginScreenUrl(saasId),
    idTokenHint: (token) => tokenVerifier().idTokenHint(token),
    box: secretBox(),
    credentials: credentialService(),
  });

/** The host rule's door (host-gate.ts), shared with the SAML function's (saml-wiring.ts). */
export const hostGateDeps = (texts: LoginTexts): HostGateDeps => ({
  plan: screenHosts(),
  screenUrl: (saasId) => configurationReader().loginScreenUrl(saasId),
  texts,
});
