/**
 * The signed-in session, held in HttpOnly cookies: who is signed in, refreshing the tokens, signing out,
 * and the CSRF token the page sends with each of these.
 */
import { log } from '../../../shared/log.js';
import { clearedSessionCookies, COOKIE, sessionCookies } from './cookies.js';
import type { RouteHandler } from './context.js';
import { csrfToken } from './csrf.js';
import { failure, json, SERVICE_UNAVAILABLE } from './http.js';
import { ServiceError, type ServiceCredentials, type UserInfo } from './service-client.js';

const NOT_SIGNED_IN = 'Not signed in';

export const issueCsrfToken: RouteHandler = async (request, context) => {
  const { token, cookies } = csrfToken(request, context.cookies);
  return json(200, { success: true, message: 'CSRF token', csrf_token: token }, cookies);
};

/** The user of the ID token cookie, with tenants, envs and roles. */
export const me: RouteHandler = async (request, context) => {
  const idToken = request.cookies[COOKIE.idToken];
  if (!idToken || !(await context.idTokens.verify(idToken))) return failure(401, NOT_SIGNED_IN);
  let user: UserInfo;
  try {
    user = await context.service.userInfo(idToken);
  } catch (error) {
    if (error instanceof ServiceError && error.status === 401) return failure(401, NOT_SIGNED_IN);
    log.error('reading the signed-in user failed', error);
    return failure(502, SERVICE_UNAVAILABLE);
  }
  return json(200, { success: true, message: 'Signed in', user });
};

export const refresh: RouteHandler = async (request, context) => {
  const refreshToken = request.cookies[COOKIE.refreshToken];
  if (!refreshToken) return failure(401, NOT_SIGNED_IN);
  let credentials: ServiceCredentials;
  try {
    credentials = await context.service.refresh(refreshToken);
  } catch (error) {
    if (error instanceof ServiceError && error.status < 500) {
      // Revoked, expired or unknown: the session is over, and its cookies go with it.
      return failure(401, 'Your session has ended. Sign in again.', clearedSessionCookies(context.cookies));
    }
    log.error('refreshing the tokens failed', error);
    return failure(502, SERVICE_UNAVAILABLE);
  }
  return json(200, { success: true, message: 'Session refreshed' }, sessionCookies(credentials, context.cookies));
};

export const signOut: RouteHandler = async (_request, context) =>
  json(200, { success: true, message: 'Signed out' }, clearedSessionCookies(context.cookies));
