/**
 * Signing in with the service's hosted login screen instead of this app's own page, as the SaaSus sample
 * applications do, with PKCE as SaaSus now asks: send the person to the screen with a `state` and the
 * S256 challenge of a verifier, both kept in a cookie; at the callback (the SaaS's callback URL,
 * PUT /auth-info) check the state, trade the temporary code with the verifier for the credentials
 * (POST /credentials/exchange) and keep them in the session cookies. A code that leaks from the address
 * bar is worth nothing without the verifier, which never left this server and the person's cookie.
 */
import { createHash, randomBytes } from 'node:crypto';
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

/** The cookie holds `<state>.<verifier>` (both base64url, so the dot splits them). */
const STATE_AND_VERIFIER = /^([A-Za-z0-9_-]{32})\.([A-Za-z0-9_-]{43})$/;

export const startHostedSignIn: RouteHandler = async (_request, context) => {
  const state = randomBytes(24).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const url = `${context.service.hostedLoginUrl}?${new URLSearchParams({ state, code_challenge: challenge, code_challenge_method: 'S256' })}`;
  return redirect(url, [serializeCookie(COOKIE.hostedState, `${state}.${verifier}`, STATE_COOKIE, context.cookies)]);
};

export const hostedCallback: RouteHandler = async (request, context) => {
  const state = request.query.get('state') ?? '';
  const kept = STATE_AND_VERIFIER.exec(request.cookies[COOKIE.hostedState] ?? '');
  const cleared = serializeCookie(COOKIE.hostedState, '', { ...STATE_COOKIE, maxAgeSeconds: 0 }, context.cookies);
  if (!kept || !constantTimeEqual(state, kept[1] as string)) {
    // Not this browser's round trip (the screen opened directly, as from `npm start`'s banner, or an old
    // link): its code is not traded (it could be someone else's), and a sign-in of our own starts instead.
    return startHostedSignIn(request, context);
  }
  try {
    const credentials = await context.service.tradeCode(request.query.get('code') ?? '', kept[2] as string);
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
