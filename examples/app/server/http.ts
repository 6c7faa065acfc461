/**
 * The example application's own request and answer, independent of how they arrive: the local node:http
 * server (server/node-server.ts) and the Lambda behind API Gateway (server/lambda.ts) both translate to
 * and from these, so every route runs the same code in both places.
 */

export interface AppRequest {
  method: string;
  /** The path without the query, e.g. `/sign-in`. */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  cookies: Readonly<Record<string, string>>;
  /** The raw body text ('' when there is none). */
  body: string;
}

export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  /** Set-Cookie values, one per cookie. */
  cookies: string[];
  body: string | Uint8Array;
}

/**
 * Every JSON answer of the application carries `success` and a human-readable `message` (the shape
 * the spec's ID-login endpoint calls for), whatever else it holds.
 */
export interface JsonAnswer {
  success: boolean;
  message: string;
  [field: string]: unknown;
}

export function json(status: number, body: JsonAnswer, cookies: string[] = []): AppResponse {
  return {
    status,
    // Answers about a user's sign-in are never stored by a cache on the way.
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    cookies,
    body: JSON.stringify(body),
  };
}

export const failure = (status: number, message: string, cookies: string[] = []) => json(status, { success: false, message }, cookies);

/** What the person at the page reads when the identity service fails or cannot be reached (a 502). */
export const SERVICE_UNAVAILABLE = 'The sign-in service is unavailable. Try again later.';

/** `a=1; b=2` → {a: '1', b: '2'}; the first of a repeated name wins, values are URI-decoded when they can be. */
export function parseCookieHeader(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? '' : part.slice(0, eq).trim();
    if (!name || name in cookies) continue;
    cookies[name] = decodeOrKeep(part.slice(eq + 1).trim());
  }
  return cookies;
}

function decodeOrKeep(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The body as an object of string fields, or undefined when it is not JSON, not an object, or lacks one of
 * `required` as a non-empty string. Optional fields, when present, must be strings too.
 */
export function readStringFields<R extends string, O extends string = never>(
  body: string,
  required: readonly R[],
  optional: readonly O[] = [],
): (Record<R, string> & Partial<Record<O, string>>) | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const fields = parsed as Record<string, unknown>;
  if (!required.every((name) => typeof fields[name] === 'string' && fields[name] !== '')) return undefined;
  if (!optional.every((name) => fields[name] === undefined || typeof fields[name] === 'string')) return undefined;
  return fields as Record<R, string> & Partial<Record<O, string>>;
}
