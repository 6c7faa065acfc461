/**
 * Signing in with the service's hosted login screen instead of this app's own page, as the SaaSus sample
 * applications do: send the person to the screen with a `state` kept in a cookie, and at the callback (the
 * SaaS's callback URL, PUT /auth-info) check the state, trade the temporary code for the credentials
 * (GET /credentials?code=…) and keep them in the session cookies.
 */
import { randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../../../shared/crypto/compare.js';
import { log } from '../../../shared/log.js';
import type { RouteHandler } from './context.js';
import { COOKIE, serializeCookie, sessionCookies } from './cookies.js';
import { failure, SERVICE_UNAVAILABLE, type AppResponse } from './http.js';
import { ServiceError } from './service-client.js';

/** The state cookie goes only to the callback, and must survive the navigation back from the screen's site. */
const STATE_COOKIE = { path: '/callback', sameSite: 'Lax', maxAgeSeconds: 600 } as const;

const redirect = (location: string, cookies: string[]): AppResponse => ({
  status: 302,
  headers: { location, 'cache-control': 'no-store' },
  cookies,
  body: '',
});

export const startHostedSignIn: RouteHandler = async (_request, context) => {
  const state = randomBytes(24).toString('base64url');
  const url = `${context.service.hostedLoginUrl}?${new URLSearchParams({ state })}`;
  return redirect(url, [serializeCookie(COOKIE.hostedState, state, STATE_COOKIE, context.cookies)]);
};

export const hostedCallback: RouteHandler = async (request, context) => {
  const state = request.query.get('state') ?? '';
  const expected = request.cookies[COOKIE.hostedState] ?? '';
  const cleared = serializeCookie(COOKIE.hostedState, '', { ...STATE_COOKIE, maxAgeSeconds: 0 }, context.cookies);
  if (!expected || !constantTimeEqual(state, expected)) {
    return failure(400, 'This sign-in did not start here, or took too long: sign in again', [cleared]);
  }
  try {
    const credentials = await context.service.tradeCode(request.query.get('code') ?? '');
    return redirect('/', [cleared, ...sessionCookies(credentials, context.cookies)]);
  } catch (error) {
    if (!(error instanceof ServiceError) || error.status >= 500) log.error('trading the temporary code failed', error);
    return failure(
      error instanceof ServiceError && error.status < 500 ? 400 : 502,
      error instanceof ServiceError && error.status < 500 ? 'The sign-in code was refused: sign in again' : SERVICE_UNAVAILABLE,
      [cleared],
    );
  }
};
