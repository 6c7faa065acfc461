/**
 * The hosted login screen's function: every request under `{BASE_PATH}/login/` (web/login/screen.ts),
 * and the OpenID Connect authorization server under `{BASE_PATH}/oauth2/` (authorization-server.ts).
 * Its page's script and style are built beside the bundle (web/login/build.ts, lib/service-stack.ts);
 * under `npm start` and in the tests, the local server builds them before the first request.
 */
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../shared/config.js';
import { observed } from '../../shared/observability.js';
import { BASE_PATH, LOGIN_PATH, OAUTH2_PATH, SAML2_PATH } from '../../shared/routes.js';
import {
  accountRepository,
  configurationReader,
  credentialService,
  deviceService,
  federationService,
  invitationService,
  tenantService,
  passkeyService,
  loginThemeService,
  samlAssertions,
  screenHosts,
  secretBox,
  signInService,
  signUpService,
  tokenVerifier,
  userFlowService,
} from '../../shared/wiring.js';
import { AuthorizationServer } from './authorization-server.js';
import { hostGate } from './host-gate.js';
import { GoogleFederation } from './federation.js';
import { LoginScreen, type ScreenRequest, type ScreenResponse } from './screen.js';
import { faviconAnswer, notFoundFor } from './dead-ends.js';
import { chooseTexts, rememberedLanguage, switchLanguage } from './language.js';
import { EN, type LoginTexts } from './texts/en.js';

export const LOGIN_BASE_PATH = `${BASE_PATH}${LOGIN_PATH}/`;
export const OAUTH2_BASE_PATH = `${BASE_PATH}${OAUTH2_PATH}/`;

/** Where the built script and style are: `public/` beside this file, or beside the deployed bundle. */
const LOGIN_ASSETS_DIR = new URL('./public/', import.meta.url);

const assets = new Map<string, Promise<string>>();
const asset = (name: string) => {
  let text = assets.get(name);
  if (!text) {
    text = readFile(new URL(name, LOGIN_ASSETS_DIR), 'utf8');
    assets.set(name, text);
  }
  return text;
};

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

export const loginScreen = (texts: LoginTexts = EN) =>
  new LoginScreen({
    texts,
    basePath: LOGIN_BASE_PATH,
    secureCookies: config().publicBaseUrl.startsWith('https:'),
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
        pages,
        theme,
      };
    },
    theme: (saasId) => loginThemeService(true).theme(saasId),
    callbackUrl,
    issuer: config().tokenIssuer,
    previewOrigin: new URL(config().publicBaseUrl).origin,
    signIn: signInService(),
    saveCredentials: (saasId, credentials, binding) => credentialService().save(saasId, credentials, binding),
    devices: deviceService(),
    box: secretBox(),
    signUp: (saasId, email) => signUpService().signUp(saasId, email),
    passwordReset: {
      request: (saasId, username) => userFlowService().requestPasswordReset(saasId, username),
      confirm: (saasId, input) => userFlowService().confirmPasswordReset(saasId, input),
    },
    invitations: invitationService(),
    federation: {
      google: googleFederation(),
      returnUrl: googleFederation().returnUrl,
      signIn: (saasId, account) => federationService().signIn(saasId, account),
      confirmLink: (saasId, userId, code, account) => federationService().confirmLink(saasId, userId, code, account),
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

const callbackUrl = async (saasId: string) => (await configurationReader().authInfo(saasId)).callback_url;
const saasExists = async (saasId: string) => (await accountRepository().getSaas(saasId)) !== undefined;

export const authorizationServer = (texts: LoginTexts = EN) =>
  new AuthorizationServer({
    texts,
    issuer: config().tokenIssuer,
    saasExists,
    callbackUrl,
    screenUrl: (saasId) => configurationReader().loginScreenUrl(saasId),
    idTokenHint: (token) => tokenVerifier().idTokenHint(token),
    box: secretBox(),
    credentials: credentialService(),
  });

const LANGUAGE_SWITCH = new RegExp(`^${LOGIN_BASE_PATH}([A-Za-z0-9-]{1,64})/language$`);
/** The icon browsers ask for by themselves: at the host's root (the default), or on a SaaS's screen (its own). */
const SCREEN_FAVICON = new RegExp(`^${LOGIN_BASE_PATH}([A-Za-z0-9-]{1,64})/favicon\\.ico$`);

async function favicon(rawPath: string) {
  if (['/favicon.ico', `${BASE_PATH}/favicon.ico`, `${LOGIN_BASE_PATH}favicon.ico`].includes(rawPath)) return faviconAnswer(undefined);
  const saasId = SCREEN_FAVICON.exec(rawPath)?.[1];
  if (!saasId) return undefined;
  return faviconAnswer((await saasExists(saasId)) ? (await configurationReader().customizePageSettings(saasId)).favicon : undefined);
}

const notFound: ScreenResponse = {
  status: 404,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  body: JSON.stringify({ type: 'not_found', message: 'no such endpoint', data: {} }),
};

/** The screen for its paths, the authorization server for its own. */
async function route(request: ScreenRequest, rawPath: string): Promise<ScreenResponse> {
  // Every page in the person's language (language.ts); the switch itself only sets its cookie and goes back.
  const texts = chooseTexts(request.query, request.headers);
  const switched = LANGUAGE_SWITCH.exec(rawPath);
  if (switched && request.method === 'GET') {
    const answer = switchLanguage(`${LOGIN_BASE_PATH}${switched[1]}/`, request.query, config().publicBaseUrl.startsWith('https:'));
    if (answer) return answer;
  }
  if (rawPath.startsWith(LOGIN_BASE_PATH)) return loginScreen(texts).handle({ ...request, path: rawPath.slice(LOGIN_BASE_PATH.length) });
  if (rawPath === `${OAUTH2_BASE_PATH}idpresponse` && request.method === 'GET') return loginScreen(texts).federatedReturn(request);
  if (rawPath.startsWith(OAUTH2_BASE_PATH)) {
    const answer = await authorizationServer(texts).handle({ ...request, path: rawPath.slice(OAUTH2_BASE_PATH.length) });
    return answer ?? notFoundFor(request.headers.accept, texts, `${LOGIN_BASE_PATH}assets/`) ?? notFound;
  }
  return notFound;
}

export const handler = observed(async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const headers: Record<string, string | undefined> = {};
  const icon = event.requestContext.http.method === 'GET' ? await favicon(event.rawPath) : undefined;
  if (icon) {
    const { status, ...rest } = icon;
    return { statusCode: status, ...rest };
  }
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  // Each SaaS's screen on its own hosts only (shared/screen-hosts.ts).
  const gate = await hostGate(
    {
      plan: screenHosts(),
      screenUrl: (saasId) => configurationReader().loginScreenUrl(saasId),
      texts: chooseTexts(new URLSearchParams(event.rawQueryString ?? ''), headers),
    },
    {
      method: event.requestContext.http.method,
      rawPath: event.rawPath,
      rawQueryString: event.rawQueryString ?? '',
      host: headers.host ?? event.requestContext.domainName,
    },
  );
  const answer =
    'answer' in gate
      ? gate.answer
      : await route(
          {
            method: event.requestContext.http.method,
            path: '',
            query: new URLSearchParams(event.rawQueryString ?? ''),
            headers,
            body: event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0),
            ownOrigin: gate.ownOrigin,
          },
          event.rawPath,
        );
  // API Gateway's payload 2.0 sets cookies from `cookies`, not from a set-cookie header.
  const { 'set-cookie': setCookie, ...rest } = answer.headers;
  const language = rememberedLanguage(new URLSearchParams(event.rawQueryString ?? ''), config().publicBaseUrl.startsWith('https:'));
  const cookies = [setCookie, language].filter((value) => value !== undefined);
  return { statusCode: answer.status, headers: rest, body: answer.body, ...(cookies.length ? { cookies } : {}) };
});
