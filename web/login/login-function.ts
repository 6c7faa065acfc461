/**
 * The hosted login screen's function: every request under `{BASE_PATH}/login/` (web/login/screen.ts),
 * and the OpenID Connect authorization server under `{BASE_PATH}/oauth2/` (authorization-server.ts), both
 * composed in wiring.ts; this file only routes (the prefixes are ENTRIES', shared/routes.ts). Its page's
 * script and style are built beside the bundle (web/page-assets.ts, lib/service-stack.ts); under `npm start`
 * and in the tests, the local server builds them before the first request.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { headersOf } from '../../shared/http/event-headers.js';
import { observed } from '../../shared/observability.js';
import { BASE_PATH, ENTRY_PATHS } from '../../shared/routes.js';
import { hostGate } from './host-gate.js';
import type { WebRequest, WebResponse } from '../kit/http.js';
import { faviconAnswer, notFoundFor } from './dead-ends.js';
import { chooseTexts, rememberedLanguage, switchLanguage } from './language.js';
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
};

/** The screen for its paths, the authorization server for its own. */
async function route(request: WebRequest, rawPath: string): Promise<WebResponse> {
  // Every page in the person's language (language.ts); the switch itself only sets its cookie and goes back.
  const texts = chooseTexts(request.query, request.headers);
  const switched = LANGUAGE_SWITCH.exec(rawPath);
  if (switched && request.method === 'GET') {
    const answer = switchLanguage(`${LOGIN_BASE_PATH}${switched[1]}/`, request.query, secureCookies());
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
  const headers = headersOf(event);
  const host = headers.host ?? event.requestContext.domainName;
  const icon = event.requestContext.http.method === 'GET' ? await favicon(event.rawPath, host) : undefined;
  if (icon) {
    const { status, ...rest } = icon;
    return { statusCode: status, ...rest };
  }
  // Each SaaS's screen on its own hosts only (shared/screen-hosts.ts).
  const gate = await hostGate(hostGateDeps(chooseTexts(new URLSearchParams(event.rawQueryString ?? ''), headers)), {
    method: event.requestContext.http.method,
    rawPath: event.rawPath,
    rawQueryString: event.rawQueryString ?? '',
    host,
  });
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
  const language = rememberedLanguage(new URLSearchParams(event.rawQueryString ?? ''), secureCookies());
  const cookies = [setCookie, language].filter((value) => value !== undefined);
  return { statusCode: answer.status, headers: rest, body: answer.body, ...(cookies.length ? { cookies } : {}) };
});
