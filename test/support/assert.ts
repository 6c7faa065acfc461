/**
 * `node:assert/strict` for tests under Jest (jest.config.js maps the import here). Jest runs each test file in
 * its own VM context, while objects that Node builds itself (fetch's `response.json()`, say) come from the
 * outer one: the same `["a"]` then has another `Array.prototype`, and deepStrictEqual, which compares
 * prototypes, calls equal values different. The deep comparisons here first rebuild plain objects and arrays
 * in this context, then compare exactly as strictly as before; every other assertion is Node's own.
 */
import nodeAssert from 'node:assert';

const strict = nodeAssert.strict;

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || (Object.getPrototypeOf(proto) === null && (proto as { constructor?: { name?: string } }).constructor?.name === 'Object');
}

/** Arrays and plain objects made again in this context, recursively; anything else as it is. */
function here(value: unknown): unknown {
  if (Array.isArray(value)) return Array.from(value as unknown[], here);
  if (typeof value !== 'object' || value === null || !isPlainObject(value)) return value;
  const copy: Record<PropertyKey, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  for (const key of Reflect.ownKeys(value)) copy[key] = here((value as Record<PropertyKey, unknown>)[key]);
  return copy;
}

type Message = string | Error | undefined;

const assert = Object.assign((value: unknown, message?: Message) => strict(value, message), strict, {
  deepEqual: (actual: unknown, expected: unknown, message?: Message) => strict.deepEqual(here(actual), here(expected), message),
  deepStrictEqual: (actual: unknown, expected: unknown, message?: Message) => strict.deepStrictEqual(here(actual), here(expected), message),
  notDeepEqual: (actual: unknown, expected: unknown, message?: Message) => strict.notDeepEqual(here(actual), here(expected), message),
  notDeepStrictEqual: (actual: unknown, expected: unknown, message?: Message) => strict.notDeepStrictEqual(here(actual), here(expected), message),
}) as typeof strict;

export default assert;
