/**
 * Where the request being served came from (its source IP and user agent), for the records that name it (a
 * user's security activity, shared/domain/users/activity.ts). Scoped per invocation like the log's fields, so
 * concurrent requests of the local server never borrow each other's origin; set once at the entry
 * (shared/observability.ts), read where a record is made, so no flow has to carry it through every call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestOrigin {
  sourceIp?: string;
  userAgent?: string;
  /**
   * The page the SaaS's user is on, as the SaaSus SDKs send it: `X-SaaSus-Referer`, else `Referer`. GetUserInfo
   * keeps it in the user's page histories (shared/domain/analysis/page-views.ts).
   */
  referer?: string;
}

const scope = new AsyncLocalStorage<RequestOrigin>();

export function inRequestOrigin<T>(origin: RequestOrigin, run: () => T): T {
  return scope.run(origin, run);
}

/** The origin of the request being served; empty outside one (scheduled work, tests calling the domain). */
export function requestOrigin(): RequestOrigin {
  return scope.getStore() ?? {};
}

/** The origin an HTTP API event names (API Gateway's payload 2.0); empty for other events. */
export function originOfEvent(event: unknown): RequestOrigin {
  if (typeof event !== 'object' || event === null) return {};
  const { requestContext, headers } = event as {
    requestContext?: { http?: { sourceIp?: unknown; userAgent?: unknown } };
    headers?: Record<string, unknown>;
  };
  const http = requestContext?.http;
  const sourceIp = typeof http?.sourceIp === 'string' ? http.sourceIp : undefined;
  const header = headers?.['user-agent'] ?? headers?.['User-Agent'];
  const userAgent = typeof http?.userAgent === 'string' ? http.userAgent : typeof header === 'string' ? header : undefined;
  const page = [headers?.['x-saasus-referer'], headers?.['referer']].find((value) => typeof value === 'string' && value !== '') as string | undefined;
  return { ...(sourceIp ? { sourceIp } : {}), ...(userAgent ? { userAgent } : {}), ...(page ? { referer: page } : {}) };
}
