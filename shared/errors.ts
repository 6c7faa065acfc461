/**
 * Typed domain errors: a stable snake_case code and a message, no HTTP status. The one place that maps
 * them to statuses is shared/http/errors.ts.
 */

export type ErrorKind = 'invalid' | 'not_found' | 'conflict' | 'unauthenticated' | 'forbidden' | 'too_many_requests' | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** Stable, snake_case: the `type` of the error body. */
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DomainError';
  }
}

export const invalid = (code: string, message: string, data?: Record<string, unknown>): DomainError =>
  new DomainError('invalid', code, message, data);

export const notFound = (code: string, message: string): DomainError => new DomainError('not_found', code, message);

/** A uniqueness rule that a request would break: answered 400 with its own type (SaaSus answers 400). */
export const alreadyExists = (code: string, message: string): DomainError => new DomainError('conflict', code, message);

/** `data` carries what the caller needs to recover, e.g. `sign_in_page_url` for a bad user token (decision 1). */
export const unauthenticated = (code: string, message: string, data?: Record<string, unknown>): DomainError =>
  new DomainError('unauthenticated', code, message, data);

export const forbidden = (code: string, message: string, data?: Record<string, unknown>): DomainError =>
  new DomainError('forbidden', code, message, data);

/** Something the service depends on outside itself did not answer in time: nothing was done, try again later (503). */
export const unavailable = (code: string, message: string): DomainError => new DomainError('unavailable', code, message);

/** A limit on how often something may be done was reached; `retry_after_seconds` says when it may be done again. */
export const tooManyRequests = (code: string, message: string, retryAfterSeconds: number): DomainError =>
  new DomainError('too_many_requests', code, message, { retry_after_seconds: retryAfterSeconds });

/** A write refused because `what` changed between its read and its commit: the caller may simply retry. */
export const concurrentUpdate = (what: string): DomainError =>
  new DomainError('conflict', 'concurrent_update', `the ${what} changed at the same time; try again`);
