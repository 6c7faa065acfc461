/**
 * The session lives in three HttpOnly cookies (docs/decisions.md, decision 9): page scripts can never read a token,
 * and SameSite=Strict keeps other sites' requests from carrying them. Secure everywhere but on the
 * developer's own machine, where the local runner serves plain http on 127.0.0.1.
 */
import type { ServiceCredentials } from './service-client.js';

export const COOKIE = {
  idToken: 'id_token',
  accessToken: 'access_token',
  refreshToken: 'refresh_token',
  csrf: 'csrf',
  hostedState: 'hosted_state',
} as const;

/** The refresh token goes only to the one route that spends it. */
export const REFRESH_PATH = '/refresh';

export interface CookiePolicy {
  /** Adds `Secure`: false only when the application is served over plain http on localhost. */
  secure: boolean;
  /** How long the browser keeps the refresh token (the service's refresh-token lifetime, 30 days by default). */
  refreshMaxAgeSeconds: number;
}

interface CookieOptions {
  /** Absent: a session cookie, gone when the browser closes. */
  maxAgeSeconds?: number;
  path?: string;
  /** Strict unless said: Lax for a cookie that must come back on the navigation from another site. */
  sameSite?: 'Strict' | 'Lax';
}

export function serializeCookie(name: string, value: string, options: CookieOptions, policy: CookiePolicy): string {
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path ?? '/'}`,
    ...(options.maxAgeSeconds === undefined ? [] : [`Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`]),
    'HttpOnly',
    `SameSite=${options.sameSite ?? 'Strict'}`,
    ...(policy.secure ? ['Secure'] : []),
  ].join('; ');
}

/** Fallback lifetime of an ID or access token whose `exp` cannot be read (the service's default). */
const DEFAULT_TOKEN_SECONDS = 3600;

/** Seconds until the JWT's `exp`, read without verifying: it only sets how long the browser keeps the cookie. */
export function secondsUntilExpiry(jwt: string, nowSeconds = Math.floor(Date.now() / 1000)): number {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? Math.max(0, payload.exp - nowSeconds) : DEFAULT_TOKEN_SECONDS;
  } catch {
    return DEFAULT_TOKEN_SECONDS;
  }
}

/** Set-Cookie values for fresh credentials; a refresh that returns no new refresh token keeps the old cookie. */
export function sessionCookies(credentials: ServiceCredentials, policy: CookiePolicy): string[] {
  const cookies = [
    serializeCookie(COOKIE.idToken, credentials.id_token, { maxAgeSeconds: secondsUntilExpiry(credentials.id_token) }, policy),
    serializeCookie(COOKIE.accessToken, credentials.access_token, { maxAgeSeconds: secondsUntilExpiry(credentials.access_token) }, policy),
  ];
  if (credentials.refresh_token) {
    cookies.push(
      serializeCookie(COOKIE.refreshToken, credentials.refresh_token, { maxAgeSeconds: policy.refreshMaxAgeSeconds, path: REFRESH_PATH }, policy),
    );
  }
  return cookies;
}

/** Set-Cookie values that make the browser drop every session cookie at once. */
export function clearedSessionCookies(policy: CookiePolicy): string[] {
  return [
    serializeCookie(COOKIE.idToken, '', { maxAgeSeconds: 0 }, policy),
    serializeCookie(COOKIE.accessToken, '', { maxAgeSeconds: 0 }, policy),
    serializeCookie(COOKIE.refreshToken, '', { maxAgeSeconds: 0, path: REFRESH_PATH }, policy),
  ];
}
