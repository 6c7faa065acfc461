/**
 * An operation is its schema plus one function. The schema types the function's input and output, so a
 * handler cannot drift from what validation checks and what the OpenAPI document promises.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';

export interface OperationSchema {
  params?: TObject;
  query?: TObject;
  body?: TSchema;
  response?: TSchema;
  /** A larger body limit than the service-wide MAX_BODY_BYTES, for an operation whose input is a long list. */
  maxBodyBytes?: number;
}

export interface RequestContext {
  requestId: string;
  /** The SaaS the signed request belongs to; '' on public routes. */
  saasId: string;
  apiKey: string;
  operationId: string;
}

type Part<S, K extends keyof OperationSchema> = S extends { [P in K]: infer T extends TSchema } ? Static<T> : undefined;

export interface OperationInput<S extends OperationSchema> {
  params: Part<S, 'params'>;
  query: Part<S, 'query'>;
  body: Part<S, 'body'>;
}

export type OperationOutput<S extends OperationSchema> = S extends { response: infer R extends TSchema } ? Static<R> : void;

export interface BoundOperation {
  schema: OperationSchema;
  run(input: { params: unknown; query: unknown; body: unknown }, ctx: RequestContext): Promise<unknown>;
  /** Headers of a successful answer, over the pipeline's defaults (which forbid caching). */
  headers?: Record<string, string>;
}

export function operation<S extends OperationSchema>(
  schema: S,
  run: (input: OperationInput<S>, ctx: RequestContext) => Promise<OperationOutput<S>>,
  options: { headers?: Record<string, string> } = {},
): BoundOperation {
  return { schema, run: run as BoundOperation['run'], ...options };
}

/** Public documents anyone may cache a while and read from any origin (the JWKS, OpenID discovery). */
export const PUBLIC_DOCUMENT_HEADERS = { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' };

/**
 * An answer that is a document as it is rather than JSON (a template a SaaS stored): sent with its own
 * content type, as an attachment, so that no browser renders it as a page of this origin.
 */
export class RawDocument {
  constructor(
    readonly contentType: string,
    readonly text: string,
  ) {}
}
