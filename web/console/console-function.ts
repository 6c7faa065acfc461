/**
 * The operator console's function: every request under `{BASE_PATH}/console/` (console.ts). Its page's script
 * and style are built beside the bundle (build.ts, lib/service-stack.ts); under `npm start` and in the tests,
 * the local server builds them before the first request.
 */
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../shared/config.js';
import { observed } from '../../shared/observability.js';
import { BASE_PATH, CONSOLE_PATH, loginScreenUrl } from '../../shared/routes.js';
import { screenOrigin } from '../../shared/screen-hosts.js';
import { consoleSignInThrottle, screenHosts, secretBox } from '../../shared/wiring.js';
import { ConsoleBackend } from './console.js';

export const CONSOLE_BASE_PATH = `${BASE_PATH}${CONSOLE_PATH}/`;
/** The console's address as printed and linked: its overview. */
export const CONSOLE_ENTRY = `${CONSOLE_BASE_PATH}overview`;

const ASSETS_DIR = new URL('./public/', import.meta.url);
const assets = new Map<string, Promise<string>>();
const asset = (name: string) => {
  let text = assets.get(name);
  if (!text) {
    text = readFile(new URL(name, ASSETS_DIR), 'utf8');
    assets.set(name, text);
  }
  return text;
};

let demo: { saasId: string; apiKey: string; secret: string } | undefined;
/** npm start only (bin/local.ts): the demo operator, offered by one click to requests from this computer. */
export function offerDemoOperator(credentials: { saasId: string; apiKey: string; secret: string }): void {
  demo = credentials;
}

export const consoleBackend = () =>
  new ConsoleBackend({
    basePath: CONSOLE_BASE_PATH,
    apiOrigin: new URL(config().publicBaseUrl).origin,
    box: secretBox(),
    throttle: consoleSignInThrottle(),
    asset,
    loginScreenUrl: (saasId) => loginScreenUrl(`${screenOrigin(screenHosts(), saasId)}${BASE_PATH}`, saasId),
    ...(demo ? { demo } : {}),
  });

export const handler = observed(async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  headers.host ??= event.requestContext.domainName;
  const path = event.rawPath.startsWith(CONSOLE_BASE_PATH) ? event.rawPath.slice(CONSOLE_BASE_PATH.length) : '';
  // `…/console` itself (API Gateway's `{proxy+}` never matches an empty rest, so the entry has a name).
  if (event.rawPath === CONSOLE_BASE_PATH.slice(0, -1)) return { statusCode: 308, headers: { location: CONSOLE_ENTRY }, body: '' };
  const answer = await consoleBackend().handle({
    method: event.requestContext.http.method,
    path,
    query: event.rawQueryString ?? '',
    headers,
    body: event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0),
    sourceIp: event.requestContext.http.sourceIp,
  });
  // API Gateway's payload 2.0 sets cookies from `cookies`, not from a set-cookie header.
  return { statusCode: answer.status, headers: answer.headers, body: answer.body, ...(answer.cookies.length ? { cookies: answer.cookies } : {}) };
});
