/**
 * The one place where errors become HTTP answers: typed domain errors map to statuses by kind, pipeline
 * problems carry their own status, and anything else is a 500 whose body says nothing internal.
 */
import { DomainError, type ErrorKind } from '../errors.js';

export interface ErrorBody {
  type: string;
  message: string;
  data: Record<string, unknown>;
}

/** A problem of the HTTP layer itself (no such route, wrong method, body too large, not built yet). */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpProblem';
  }
}

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  // SaaSus answers a duplicate name with 400, and so do the SDKs' users expect.
  conflict: 400,
  not_found: 404,
  unauthenticated: 401,
  forbidden: 403,
  too_many_requests: 429,
  unavailable: 503,
};

export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** Unexpected: log it with its stack. */
  unexpected: boolean;
}

export function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof DomainError) {
    return {
      status: STATUS_BY_KIND[error.kind],
      body: { type: error.code, message: error.message, data: { ...error.data } },
      headers: typeof error.data.retry_after_seconds === 'number' ? { 'retry-after': String(error.data.retry_after_seconds) } : {},
      unexpected: false,
    };
  }
  if (error instanceof HttpProblem) {
    return { status: error.status, body: { type: error.type, message: error.message, data: {} }, headers: error.headers, unexpected: false };
  }
  return {
    status: 500,
    body: { type: 'internal_server_error', message: 'Internal server error', data: {} },
    headers: {},
    unexpected: true,
  };
}
