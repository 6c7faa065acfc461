/**
 * The SaaSus ApiLog API (/v1/apilog), as its published definition (apilogapi.yml, v1.13.4, with v1.13.8's
 * `start_at` and `end_at`) names members and types. Dates and date-times are strings here and read by the domain
 * (shared/domain/apilog), which answers a malformed one with a 400 that names the field.
 */
import * as Type from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { Limit, Uuid } from './common.js';

/**
 * A call whose signature verified, as the request pipeline hands it to the API log (shared/http/pipeline.ts) and
 * the log turns it into a record (shared/domain/apilog), before redaction. Here, below both, so the two share it.
 */
export interface SignedCall {
  saasId: string;
  apiKey: string;
  requestId: string;
  method: string;
  rawPath: string;
  rawQuery: string;
  status: number;
  sourceIp: string;
  referer: string | undefined;
  /** When the call arrived, in Unix milliseconds. */
  at: number;
  latencyMs: number;
  /** A call of a route by any method but GET: what its event carries (shared/domain/integration/api-events.ts). */
  change?: CallChange;
}

/** The parts of a changing call its event names, before redaction. */
export interface CallChange {
  /** The API the route belongs to (shared/routes.ts, API_BASE_PATHS). */
  api: string;
  operationId: string;
  /** The route's path as the route table writes it, `/tenants/{tenant_id}`, and its parameters' values. */
  routePath: string;
  params: Record<string, string>;
  requestBody: string;
  responseBody: string;
  /** X-SaaSus-Trace-Id as the caller sent it, else the request id. */
  traceId: string;
}

/**
 * The lines a function writes for the API log writer (docs/deployment-shape.md, "The API log"): a JSON object
 * whose `shipped` member names what it carries: a signed call's record, a counted sign-in outcome, a changing
 * call's event, or the page a GetUserInfo call came from. Here, below the domain that makes and reads them and the
 * stack whose log subscriptions pick them out by this member.
 */
export const SHIPPED_MEMBER = 'shipped';
export const SHIPPED_KINDS = { apiLog: 'api-log', signIn: 'sign-in', event: 'event', pageView: 'page-view' } as const;

export const ApiLog = Type.Object(
  {
    trace_id: Type.String({ description: 'the request id (x-request-id) of the call' }),
    api_log_id: Uuid,
    created_at: Type.Integer({ description: 'Unix seconds of the call' }),
    created_date: Type.String({ description: 'UTC date of the call, YYYY-MM-DD' }),
    ttl: Type.Integer({ description: 'Unix seconds after which the record is gone' }),
    request_method: Type.String(),
    saas_id: Type.String(),
    api_key: Type.String({ description: 'the id of the API key that signed the call (never its secret)' }),
    response_status: Type.String(),
    request_uri: Type.String({ description: 'path and query; values of credential-like or personal query parameters are [redacted]' }),
    remote_address: Type.String(),
    referer: Type.String({ description: "origin and path of the Referer header; '' without one" }),
    request_body: Type.String({ description: "always '': bodies are never recorded" }),
    response_body: Type.String({ description: "always '': bodies are never recorded" }),
    latency_ms: Type.Integer({ description: 'extension: milliseconds from arrival to answer' }),
  },
  { $id: 'ApiLog' },
);

const DateTime = (description: string) => Type.String({ maxLength: 40, description });
/** Up to 9999-12-31T23:59:59Z: any instant a Date holds and a person would mean. */
const EpochSeconds = (description: string) => Type.Integer({ minimum: 0, maximum: 253_402_300_799, description });

export const ApiLogQuery = Type.Object({
  created_date: Type.Optional(Type.String({ maxLength: 10, description: 'YYYY-MM-DD (UTC): calls of that day' })),
  created_at: Type.Optional(DateTime('ISO 8601 date-time with a zone: calls at or after it')),
  created_before: Type.Optional(DateTime('extension, ISO 8601 date-time with a zone: calls before it')),
  start_at: Type.Optional(EpochSeconds('Unix seconds: calls at or after it; not with created_at, and created_date is then ignored')),
  end_at: Type.Optional(
    EpochSeconds('Unix seconds: calls at or before it (that second included); not with created_at, and created_date is then ignored'),
  ),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
});

export const apiLogSchemas = {
  getLogs: {
    query: ApiLogQuery,
    response: Type.Object({ api_logs: Type.Array(ApiLog), cursor: Type.Optional(Type.String()) }, { $id: 'ApiLogs' }),
  },
  getLog: { params: Type.Object({ api_log_id: Uuid }), response: ApiLog },
  returnApiLogInternalServerError: {},
} satisfies Record<string, OperationSchema>;
