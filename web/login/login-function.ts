/**
 * The hosted login screen's function: every request under `{BASE_PATH}/login/` (web/login/screen/screen.ts),
 * and the OpenID Connect authorization server under `{BASE_PATH}/oauth2/` (oidc/authorization-server.ts), both
 * composed in wiring.ts; this file only routes (the prefixes are ENTRIES', shared/routes.ts). Its page's
 * script and style are built beside the bundle (web/page-assets.ts, lib/service-stack.ts); under `npm start`
 * and in the tests, the local server builds them before the first request.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { observed } from '../../shared/observability.js';
import { BASE_PATH, ENTRY_PATHS } from '../../shared/routes.js';
import { hostGate } from './host-gate.js';
import { lambdaAnswer, webRequest, type WebRequest, type WebResponse } from '../kit/http.js';
import { serve, type HostGate } from '../kit/pipeline.js';
import { faviconAnswer, notFoundFor, notFoundTexts } from './dead-ends.js';
import { chooseTexts, rememberedLanguage, switchLanguage } from './language.js';
import { setupPage } from './setup-wiring.js';
import { authorizationServer, hostGateDeps, loginScreen, saasExists, saasOfHost, screenFavicon, secureCookies } from './wiring.js';

const LOGIN_BASE_PATH = ENTRY_PATHS.login;
const OAUTH2_BASE_PATH = ENTRY_PATHS.oauth2;

const LANGUAGE_SWITCH = new RegExp(`^${LOGIN_BASE_PATH}([A-Za-z0-9-]{1,64})/language$`);
/** The icon browsers ask for by themselves: at the host's root (the host's SaaS's, or the product's), or on a SaaS's screen (its own). */
const SCREEN_FAVICON = new RegExp(`^${LOGIN_BASE_PATH}([A-Za-z0-9-]{1,64})/favicon\\.ico$`);

/** Where browsers ask for the host's icon by themselves. */
const ROOT_ICONS = [ENTRY_PATHS.favicon, `${BASE_PATH}/favicon.ico`];

/** The icon of the host's SaaS at the host's root (the product's on the API's hosts), or of the SaaS a screen path names. */
async function favicon(rawPath: string, host: string) {
  let saasId: string | undefined;
  if (ROOT_ICONS.includes(rawPath)) saasId = await saasOfHost(host);
  else if (rawPath !== `${LOGIN_BASE_PATH}favicon.ico`) {
    saasId = SCREEN_FAVICON.exec(rawPath)?.[1];
    if (!saasId) return undefined;
  }
  return faviconAnswer(saasId && (await saasExists(saasId)) ? await screenFavicon(saasId) : undefined);
}

const notFound: WebResponse = {
  status: 404,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  body: JSON.stringify({ type: 'not_found', message: 'no such endpoint', data: {} }),
  cookies: [],
};

/** Each SaaS's screen on its own hosts only (shared/screen-hosts.ts); what passes learns whether it is on the SaaS's own origin. */
const gate: HostGate = async (request) => {
  const passed = await hostGate(hostGateDeps(chooseTexts(new URLSearchParams(request.query), request.headers)), {
    method: request.method,
    rawPath: request.path,
    rawQueryString: request.query,
    host: request.headers.host ?? '',
  });
  return 'answer' in passed ? { answer: { ...passed.answer, cookies: [] } } : { request: { ...request, ownOrigin: passed.ownOrigin } };
};

/** The screen for its paths, the authorization server for its own (`request.path` is the whole raw path). */
async function route(request: WebRequest): Promise<WebResponse> {
  const rawPath = request.path;
  const query = new URLSearchParams(request.query);
  // Every page in the person's language (language.ts); the switch itself only sets its cookie and goes back.
  const texts = chooseTexts(query, request.headers);
  const switched = LANGUAGE_SWITCH.exec(rawPath);
  if (switched && request.method === 'GET') {
    const answer = switchLanguage(`${LOGIN_BASE_PATH}${switched[1]}/`, query, secureCookies());
    if (answer) {
      const { 'set-cookie': remembered, ...headers } = answer.headers;
      return { ...answer, headers, cookies: [remembered] };
    }
  }
  if (rawPath.startsWith(LOGIN_BASE_PATH)) {
    // A tenant's setup page (setup/setup-page.ts), reached from a setup link; the screen answers every other page.
    const setup = await setupPage(texts).handle({ ...request, path: rawPath.slice(LOGIN_BASE_PATH.length) });
    if (setup) return setup;
  }
  if (rawPath.startsWith(LOGIN_BASE_PATH)) return loginScreen(texts).handle({ ...request, path: rawPath.slice(LOGIN_BASE_PATH.length) });
  if (rawPath === `${OAUTH2_BASE_PATH}idpresponse` && request.method === 'GET') return loginScreen(texts).federatedReturn(request);
  if (rawPath.startsWith(OAUTH2_BASE_PATH)) {
    const answer = await authorizationServer(texts).handle({ ...request, path: rawPath.slice(OAUTH2_BASE_PATH.length) });
    const page = notFoundFor(request.headers.accept, notFoundTexts(texts), `${LOGIN_BASE_PATH}assets/`);
    return answer ?? (page ? { ...page, cookies: [] } : notFound);
  }
  return notFound;
}

export const handler = observed(async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const request = webRequest(event, '');
  const icon = request.method === 'GET' ? await favicon(event.rawPath, request.headers.host ?? '') : undefined;
  if (icon) {
    const { status, ...rest } = icon;
    return { statusCode: status, ...rest };
  }
  const answer = await serve(request, gate, route);
  const language = rememberedLanguage(new URLSearchParams(event.rawQueryString ?? ''), secureCookies());
  return lambdaAnswer({ ...answer, cookies: language === undefined ? answer.cookies : [...answer.cookies, language] });
});
