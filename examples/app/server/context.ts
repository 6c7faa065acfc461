/** What every route of the example backend works with. */
import type { CookiePolicy } from './cookies.js';
import type { AppRequest, AppResponse } from './http.js';
import type { IdTokenVerifier } from './id-tokens.js';
import type { ServiceClient } from './service-client.js';

export interface AppContext {
  service: ServiceClient;
  idTokens: IdTokenVerifier;
  cookies: CookiePolicy;
}

export type RouteHandler = (request: AppRequest, context: AppContext) => Promise<AppResponse>;
