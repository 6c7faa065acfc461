/**
 * The example backend as one function from request to answer: its routes (CSRF-checked where they read or
 * set the session cookies), the login page, and the security headers every answer carries.
 */
import { log } from '../../../shared/log.js';
import type { AppContext, RouteHandler } from './context.js';
import { csrfHolds } from './csrf.js';
import { failure, type AppRequest, type AppResponse } from './http.js';
import { hostedCallback, startHostedSignIn } from './hosted-sign-in.js';
import { issueCsrfToken, me, refresh, signOut } from './session.js';
import { answerFollowUp, answerPasswordVerifier, challengeId, signIn } from './sign-in.js';
import type { StaticFiles } from './static-files.js';

interface Route {
  handle: RouteHandler;
  /**
   * The route reads or sets the session cookies, so it needs the CSRF header. /sign-in and /challenge-id
   * only hand out a challenge (nothing to forge), and /challenge-id answers exactly the spec's errors.
   */
  csrf: boolean;
}

export const ROUTES: Readonly<Record<string, Route>> = {
  'GET /csrf': { handle: issueCsrfToken, csrf: false },
  'POST /sign-in': { handle: signIn, csrf: false },
  'POST /challenge-id': { handle: challengeId, csrf: false },
  'POST /sign-in/challenge': { handle: answerPasswordVerifier, csrf: true },
  'POST /verify': { handle: answerFollowUp, csrf: true },
  'POST /refresh': { handle: refresh, csrf: true },
  'POST /sign-out': { handle: signOut, csrf: true },
  'GET /me': { handle: me, csrf: true },
  // Top-level navigations: no script to send a header; the state cookie checks the round trip instead.
  'GET /hosted-sign-in': { handle: startHostedSignIn, csrf: false },
  'GET /callback': { handle: hostedCallback, csrf: false },
};

/**
 * The page loads only its own script and style and talks only to its own origin; nothing may frame it
 * (clickjacking a login form) or learn where the user came from.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export function createApp(context: AppContext, page: StaticFiles): (request: AppRequest) => Promise<AppResponse> {
  const dispatch = async (request: AppRequest): Promise<AppResponse> => {
    const route = ROUTES[`${request.method} ${request.path}`];
    if (route) {
      if (route.csrf && !csrfHolds(request)) return failure(403, 'Missing or wrong CSRF token: reload the page');
      return route.handle(request, context);
    }
    if (Object.keys(ROUTES).some((key) => key.endsWith(` ${request.path}`))) return failure(405, 'Method not allowed');
    const file = request.method === 'GET' || request.method === 'HEAD' ? page.get(request.path, request) : undefined;
    if (file)
      return {
        status: 200,
        headers: { 'content-type': file.type, 'cache-control': 'no-cache', ...(file.vary ? { vary: file.vary } : {}) },
        cookies: [],
        body: file.body,
      };
    return failure(404, 'Not found');
  };
  return async (request) => {
    let response: AppResponse;
    try {
      response = await dispatch(request);
    } catch (error) {
      log.error('the example application failed to answer', error, { path: request.path });
      response = failure(500, 'Internal error');
    }
    return { ...response, headers: { ...SECURITY_HEADERS, ...response.headers } };
  };
}
