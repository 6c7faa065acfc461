/**
 * One schema per operation drives validation (here), the TypeScript types (Static<>) and the OpenAPI
 * document. Errors name the field that failed, in words a caller can act on.
 */
import { type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Clean } from '@sinclair/typebox/value';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { invalid, type DomainError } from '../errors.js';
import { HttpProblem } from './errors.js';
import { checker } from '../schemas/check.js';

function fieldName(where: string, path: string): string {
  const field = path.split('/').filter(Boolean).join('.');
  return field || where;
}

interface SchemaLimits {
  const?: unknown;
  anyOf?: { const?: unknown }[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

function describe(error: ValueError): string {
  const schema = error.schema as SchemaLimits;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.Union:
      if (schema.anyOf?.every((s) => s.const !== undefined)) {
        return `must be one of ${schema.anyOf.map((s) => String(s.const)).join(', ')}`;
      }
      return schema.description ? `must be ${schema.description}` : 'has the wrong type';
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${schema.maxLength} characters`;
    case ValueErrorType.StringPattern:
      return schema.description ? `must be ${schema.description}` : `must match ${schema.pattern}`;
    case ValueErrorType.StringFormat:
      // The one format is a URL the WHATWG parser must take (shared/schemas/web-url.ts).
      return `is not a URL a browser can parse${schema.description ? ` (it must be ${schema.description})` : ''}`;
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.Literal:
      return `must be ${JSON.stringify(schema.const)}`;
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.Boolean:
      return 'must be a boolean';
    case ValueErrorType.Object:
      return 'must be a JSON object';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'has a member whose name is not allowed';
    case ValueErrorType.Array:
      return 'must be an array';
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `must be at least ${schema.minimum}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `must be at most ${schema.maximum}`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${schema.maxItems} items`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${schema.minItems} items`;
    default:
      return error.message.replace(/^Expected/, 'expected');
  }
}

/**
 * Member names that mean something to JavaScript objects themselves. No request needs them, and code that
 * copies or stores objects can be fooled by them (the DynamoDB marshaller takes an object with its own
 * `constructor` for a class instance and fails), so a body holding one anywhere is refused.
 */
const RESERVED_MEMBER_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/** Half of a UTF-16 surrogate pair alone: JSON's \u escapes can make one; no store or mail takes it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function refuseUnsafeMembers(name: string, value: unknown): unknown {
  if (RESERVED_MEMBER_NAMES.has(name)) throw invalid('invalid_parameter', `body: the member name ${name} is not allowed`, { field: 'body' });
  if (LONE_SURROGATE.test(name) || (typeof value === 'string' && LONE_SURROGATE.test(value))) {
    throw invalid('invalid_parameter', 'body: text must be valid Unicode (an unpaired surrogate was found)', { field: 'body' });
  }
  return value;
}

/** Refuses bytes that are not UTF-8, where Buffer#toString would store U+FFFD in their place. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body as JSON; undefined when there is none. Bytes that are not UTF-8, malformed JSON and unsafe members
 * are a 400. The parsing is @middy/http-json-body-parser's, whatever the Content-Type (the API has always taken
 * JSON without one), with refuseUnsafeMembers as its reviver; the raw bytes stay with the caller, for the
 * request signature.
 */
export async function parseJsonBody(raw: Buffer): Promise<unknown> {
  let text: string;
  try {
    text = STRICT_UTF8.decode(raw);
  } catch {
    throw new HttpProblem(400, 'invalid_json', 'body: is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  // The parser keeps only the message of what its reviver throws: the refusal is kept here, whole.
  let refusal: DomainError | undefined;
  // disableContentTypeCheck is in the package's code (6.x) but not yet in its type declarations.
  const parser = httpJsonBodyParser({
    ...({ disableContentTypeCheck: true } as object),
    reviver: (name: string, value: unknown) => {
      try {
        return refuseUnsafeMembers(name, value);
      } catch (error) {
        refusal = error as DomainError;
        throw error;
      }
    },
  });
  const request = { event: { body: text, isBase64Encoded: false } as { body: unknown; isBase64Encoded: boolean } };
  try {
    await (parser.before as NonNullable<typeof parser.before>)(request as never);
  } catch (error) {
    if (refusal) throw refusal;
    const reason = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new HttpProblem(400, 'invalid_json', `body: malformed JSON (${reason})`);
  }
  return request.event.body;
}

/**
 * A union told apart by a `type` member (the Pricing API's units): the error of the alternative the value
 * names, so the message says which member is wrong rather than that no alternative fits.
 */
function variantError(error: ValueError | undefined): ValueError | undefined {
  const value = error?.value as { type?: unknown } | undefined;
  if (!error || error.type !== ValueErrorType.Union || value === null || typeof value !== 'object' || typeof value.type !== 'string') return error;
  const variants = (error.schema as { anyOf?: TSchema[] }).anyOf ?? [];
  const named = variants.find((v) => (v as TObject).properties?.type?.const === value.type);
  const inner = named ? checker(named).Errors(value).First() : undefined;
  return inner ? { ...inner, path: `${error.path}${inner.path}` } : error;
}

/**
 * Checks a value against a schema and drops the members the schema does not name, so that only what an
 * operation declares reaches the domain and the store. Throws a 400-kind domain error naming the first field
 * that failed.
 */
export function validate<T extends TSchema>(schema: T, value: unknown, where: 'body' | 'query' | 'path'): Static<T> {
  const check = checker(schema);
  if (check.Check(value)) return Clean(schema, value) as Static<T>;
  const first = variantError(check.Errors(value).First());
  const field = first ? fieldName(where, first.path) : where;
  throw invalid('invalid_parameter', `${field}: ${first ? describe(first) : 'is invalid'}`, { field });
}

const INTEGER = /^-?(0|[1-9][0-9]{0,15})$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * Path and query values arrive as strings. Converts the ones whose schema wants a number or a boolean,
 * strictly ('1e3', ' 12' and '0x10' stay strings and fail validation), and leaves the rest as they are.
 */
export function coerceStrings(schema: TObject, values: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(values)) {
    if (raw === undefined) continue;
    const type = (schema.properties[name] as { type?: string } | undefined)?.type;
    if (type === 'integer' && INTEGER.test(raw)) out[name] = Number(raw);
    else if (type === 'number' && NUMBER.test(raw)) out[name] = Number(raw);
    else if (type === 'boolean' && (raw === 'true' || raw === 'false')) out[name] = raw === 'true';
    else out[name] = raw;
  }
  return out;
}
