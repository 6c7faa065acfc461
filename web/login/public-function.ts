/**
 * The login screen's part of the public function (functions/public/handler.ts), which API Gateway's `$default`
 * route reaches with every address that no operation and no entry answers (`/`, `/v1/auth/nope`, `/robots.txt`):
 * a person who opens one reads the screen's "page not found" (dead-ends.ts), in their language, instead of the
 * API's JSON. The request pipeline asks for it only for a browser's navigation (shared/http/pipeline.ts,
 * isBrowserNavigation), so programs keep the error shape. The page's style is the screen's shared files, which
 * the login function serves at `…/login/assets/` on every host.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { headersOf } from '../../shared/http/event-headers.js';
import { ENTRY_PATHS } from '../../shared/routes.js';
import { notFoundFor } from './dead-ends.js';
import { chooseTexts } from './language.js';

export function unmatchedPage(event: APIGatewayProxyEventV2) {
  // The screen's language choice may be a cookie.
  const headers = headersOf(event);
  const texts = chooseTexts(new URLSearchParams(event.rawQueryString ?? ''), headers);
  return notFoundFor(headers.accept, texts, `${ENTRY_PATHS.login}assets/`);
}
