/**
 * A request and an answer as the parts of a browser-facing app take and give them (the login screen, the
 * authorization server, the theme, the console), apart from API Gateway's event, which each app's
 * `web/<app>/<group>-function.ts` turns into one (webRequest) and its answer back (lambdaAnswer).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { headersOf } from '../../shared/http/event-headers.js';

export interface WebRequest {
  method: string;
  /** The path after the part's own prefix: `{saas id}/…` for the login screen, `api/auth/roles` for the console. */
  path: string;
  /** The raw query string, without `?`: as it came, since the console passes it on signed (the apps parse it where they read it). */
  query: string;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  body: Buffer;
  /** The address the request came from (the console counts failed sign-ins against it). */
  sourceIp: string;
  /** On the SaaS's own origin (web/login/host-gate.ts): only there does its own script (the tag manager) run. */
  ownOrigin?: boolean;
}

export interface WebResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Set-Cookie values, one each: API Gateway's payload 2.0 sets cookies from `cookies`, not from a header. */
  cookies: string[];
}

/** The request of an event, its path the part after `prefix` ('' when the path is not under it). */
export function webRequest(event: APIGatewayProxyEventV2, prefix: string): WebRequest {
  const headers = headersOf(event);
  headers.host ??= event.requestContext.domainName;
  return {
    method: event.requestContext.http.method,
    path: event.rawPath.startsWith(prefix) ? event.rawPath.slice(prefix.length) : '',
    query: event.rawQueryString ?? '',
    headers,
    body: event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0),
    sourceIp: event.requestContext.http.sourceIp,
  };
}

export function lambdaAnswer({ status, headers, body, cookies }: WebResponse): APIGatewayProxyStructuredResultV2 {
  return { statusCode: status, headers, body, ...(cookies.length ? { cookies } : {}) };
}
