/**
 * The operator console's function: `{BASE_PATH}/console` and every request under `{BASE_PATH}/console/`
 * (console.ts), composed in wiring.ts; this file only routes (the paths are ENTRIES', shared/routes.ts). Its
 * page's script and style are built beside the bundle (web/page-assets.ts, lib/service-stack.ts); under
 * `npm start` and in the tests, the local server builds them before the first request.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { observed } from '../../shared/observability.js';
import { ENTRY_PATHS } from '../../shared/routes.js';
import { lambdaAnswer, webRequest } from '../kit/http.js';
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
  return lambdaAnswer(await consoleBackend().handle(webRequest(event, ENTRY_PATHS.console)));
});
