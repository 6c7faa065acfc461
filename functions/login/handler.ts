/**
 * The hosted login screen's function: every request under `{BASE_PATH}/login/` (functions/login/screen.ts).
 * Its page's script and style are built beside the bundle (functions/login/build.ts, lib/service-stack.ts);
 * under `npm start` and in the tests, the local server builds them before the first request.
 */
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../shared/config.js';
import { observed } from '../../shared/observability.js';
import { BASE_PATH, LOGIN_PATH } from '../../shared/routes.js';
import {
  accountRepository,
  configurationReader,
  credentialService,
  deviceService,
  invitationService,
  secretBox,
  signInService,
  signUpService,
  userFlowService,
} from '../../shared/wiring.js';
import { LoginScreen } from './screen.js';
import { EN } from './texts/en.js';

export const LOGIN_BASE_PATH = `${BASE_PATH}${LOGIN_PATH}/`;

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

export const loginScreen = () =>
  new LoginScreen({
    texts: EN,
    basePath: LOGIN_BASE_PATH,
    secureCookies: config().publicBaseUrl.startsWith('https:'),
    saasExists: async (saasId) => (await accountRepository().getSaas(saasId)) !== undefined,
    look: async (saasId) => {
      const reader = configurationReader();
      const [settings, pages, signIn] = await Promise.all([
        reader.customizePageSettings(saasId),
        reader.customizePages(saasId),
        reader.signInSettings(saasId),
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
        pages,
      };
    },
    callbackUrl: async (saasId) => (await configurationReader().authInfo(saasId)).callback_url,
    signIn: signInService(),
    saveCredentials: (saasId, credentials) => credentialService().save(saasId, credentials),
    devices: deviceService(),
    box: secretBox(),
    signUp: (saasId, email) => signUpService().signUp(saasId, email),
    passwordReset: {
      request: (saasId, username) => userFlowService().requestPasswordReset(saasId, username),
      confirm: (saasId, input) => userFlowService().confirmPasswordReset(saasId, input),
    },
    invitations: invitationService(),
    asset,
  });

export const handler = observed(async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  const path = event.rawPath.startsWith(LOGIN_BASE_PATH) ? event.rawPath.slice(LOGIN_BASE_PATH.length) : '';
  const answer = await loginScreen().handle({
    method: event.requestContext.http.method,
    path,
    query: new URLSearchParams(event.rawQueryString ?? ''),
    headers,
    body: event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0),
  });
  // API Gateway's payload 2.0 sets cookies from `cookies`, not from a set-cookie header.
  const { 'set-cookie': setCookie, ...rest } = answer.headers;
  return { statusCode: answer.status, headers: rest, body: answer.body, ...(setCookie ? { cookies: [setCookie] } : {}) };
});
