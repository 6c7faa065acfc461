/**
 * CSRF protection for every route that reads or sets the session cookies: the page fetches a token from
 * GET /csrf (a same-origin answer no other site can read) and sends it back in the `x-csrf-token` header,
 * which must equal the HttpOnly `csrf` cookie. A cross-site form or fetch can make the browser send the
 * cookie (where SameSite does not stop it) but cannot learn the value to put in the header.
 */
import { randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../../../shared/crypto/compare.js';
import { COOKIE, serializeCookie, type CookiePolicy } from './cookies.js';
import type { AppRequest } from './http.js';

export const CSRF_HEADER = 'x-csrf-token';

const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;

/** The browser's token, or a new one with the cookie that holds it (a session cookie: it lives as long as the tab's browser). */
export function csrfToken(request: AppRequest, policy: CookiePolicy): { token: string; cookies: string[] } {
  const existing = request.cookies[COOKIE.csrf];
  if (existing && WELL_FORMED.test(existing)) return { token: existing, cookies: [] };
  const token = randomBytes(32).toString('base64url');
  return { token, cookies: [serializeCookie(COOKIE.csrf, token, {}, policy)] };
}

export function csrfHolds(request: AppRequest): boolean {
  const cookie = request.cookies[COOKIE.csrf];
  const header = request.headers[CSRF_HEADER];
  return Boolean(cookie && header && WELL_FORMED.test(cookie) && constantTimeEqual(cookie, header));
}
