/**
 * The login screen's "page not found", given to every API function's pipeline (each functions/<group>/handler.ts): API
 * Gateway's `$default` route brings the public function the addresses outside every folder (`/`, `/robots.txt`),
 * and each function's greedy routes bring it those under its folders that no operation answers
 * (`/v1/auth/roles/nope/x`; docs/decisions.md, decision 17). A person who opens one reads the screen's "page not found" (dead-ends.ts), in their language, instead of the
 * API's JSON. The request pipeline asks for it only for a browser's navigation (shared/http/pipeline.ts,
 * isBrowserNavigation), so programs keep the error shape. The page's style is the screen's shared files, which
 * the login function serves at `…/login/assets/` on every host.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { headersOf } from '../../shared/http/event-headers.js';
import { ENTRY_PATHS } from '../../shared/routes.js';
import { notFoundFor } from './dead-ends.js';
import { chooseIn } from './language-choice.js';
import { EN_NOT_FOUND, type NotFoundTexts } from './texts/en.js';
import { JA_NOT_FOUND } from './texts/ja.js';

/**
 * The page's words in every language of the screen (language.ts, CATALOGUES): only these, so an API function's
 * bundle carries a few sentences, not the screen's catalogues (test/unit/login-texts.test.ts holds both to one list).
 */
export const NOT_FOUND: Readonly<Record<string, NotFoundTexts>> = { en: EN_NOT_FOUND, ja: JA_NOT_FOUND };

export function unmatchedPage(event: APIGatewayProxyEventV2) {
  // The screen's language choice may be a cookie.
  const headers = headersOf(event);
  const texts = chooseIn(NOT_FOUND, EN_NOT_FOUND, new URLSearchParams(event.rawQueryString ?? ''), headers);
  return notFoundFor(headers.accept, texts, `${ENTRY_PATHS.login}assets/`);
}
