/**
 * One schema per operation drives validation (here), the TypeScript types (Static<>) and the OpenAPI
 * document. Errors name the field that failed, in words a caller can act on.
 */
import { type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { invalid } from '../errors.js';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker<T extends TSchema>(schema: T): TypeCheck<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<T>;
}

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

/** Checks a value against a schema; throws a 400-kind domain error naming the first field that failed. */
export function validate<T extends TSchema>(schema: T, value: unknown, where: 'body' | 'query' | 'path'): Static<T> {
  const check = checker(schema);
  if (check.Check(value)) return value;
  const first = check.Errors(value).First();
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
