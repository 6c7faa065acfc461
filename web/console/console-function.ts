/**
 * The operator console's function: `{BASE_PATH}/console` and every request under `{BASE_PATH}/console/`
 * (console.ts), composed in wiring.ts; this file only routes (the paths are ENTRIES', shared/routes.ts). Its
 * page's script and style are built beside the bundle (web/page-assets.ts, lib/service-stack.ts); under
 * `npm start` and in the tests, the local server builds them before the first request.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { headersOf } from '../../shared/http/event-headers.js';
import { observed } from '../../shared/observability.js';
import { ENTRY_PATHS } from '../../shared/routes.js';
import { consoleBackend, offerDemoOperator } from './wiring.js';

/** The console's address as printed and linked: its overview. */
export const CONSOLE_ENTRY = `${ENTRY_PATHS.console}overview`;
export { offerDemoOperator };

export const handler = observed(async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  // `…/console` itself (API Gateway's `{proxy+}` never matches an empty rest, so the entry has a name), and
  // `…/console/`, typed with the slash: the same place to a person (shared/routes.ts, matchEntry).
  if (event.rawPath === ENTRY_PATHS.consoleEntry || event.rawPath === ENTRY_PATHS.console) {
    return { statusCode: 308, headers: { location: CONSOLE_ENTRY }, body: '' };
  }
  const headers = headersOf(event);
  headers.host ??= event.requestContext.domainName;
  const path = event.rawPath.startsWith(ENTRY_PATHS.console) ? event.rawPath.slice(ENTRY_PATHS.console.length) : '';
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
