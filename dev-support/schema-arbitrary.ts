/**
 * fast-check arbitraries from the operations' TypeBox schemas: values that pass (or nearly pass) validation,
 * drawn partly from pools of real values (the fixtures' ids and names), so that generated requests reach the
 * domain and the store, not only the validator.
 */
import fc from 'fast-check';
import { Kind, type TSchema } from '@sinclair/typebox';

/** Real values by field name: `tenant_id` → the fixtures' tenant ids, and so on. */
export type Pools = Record<string, readonly unknown[]>;

interface SchemaNode {
  [Kind]?: string;
  type?: string;
  const?: unknown;
  anyOf?: TSchema[];
  properties?: Record<string, TSchema>;
  required?: string[];
  patternProperties?: Record<string, TSchema>;
  items?: TSchema;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

/** Lists stay short: a 10 000-item body is a hostile case of its own, not the common one. */
const MAX_ITEMS = 4;
const MAX_KEYS = 4;
const INT32 = 2 ** 31 - 1;

function stringOf(node: SchemaNode): fc.Arbitrary<string> {
  const minLength = node.minLength ?? 0;
  const maxLength = Math.min(node.maxLength ?? 40, 200);
  const any = fc.string({ minLength, maxLength: Math.max(minLength, maxLength), unit: 'grapheme' });
  if (!node.pattern) return any;
  try {
    return fc
      .stringMatching(new RegExp(node.pattern), { size: 'xsmall' })
      .filter((s) => s.length >= minLength && s.length <= (node.maxLength ?? Infinity));
  } catch {
    // fast-check cannot build strings for every pattern (lookaheads): any string, refused or not, will do.
    return any;
  }
}

/** A value for `schema`; `field` names the pool to draw real values from. */
export function arbitraryOf(schema: TSchema, pools: Pools, field = ''): fc.Arbitrary<unknown> {
  const node = schema as SchemaNode;
  const pool = pools[field];
  const generated = generatedOf(node, pools, field);
  // Mostly real values where there are some: a random id would only ever meet a 404.
  return pool?.length ? fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: 3 }, { arbitrary: generated, weight: 1 }) : generated;
}

function generatedOf(node: SchemaNode, pools: Pools, field: string): fc.Arbitrary<unknown> {
  switch (node[Kind]) {
    case 'String':
      return stringOf(node);
    case 'Integer':
      return fc.integer({ min: node.minimum ?? -INT32, max: node.maximum ?? INT32 });
    case 'Number':
      return fc.double({ min: node.minimum ?? -1e9, max: node.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'Boolean':
      return fc.boolean();
    case 'Null':
      return fc.constant(null);
    case 'Literal':
      return fc.constant(node.const);
    case 'Union':
      return fc.oneof(...(node.anyOf ?? []).map((member) => arbitraryOf(member, pools, field)));
    case 'Array':
      return fc.array(arbitraryOf(node.items as TSchema, pools, field), {
        minLength: node.minItems ?? 0,
        maxLength: Math.max(node.minItems ?? 0, Math.min(node.maxItems ?? MAX_ITEMS, MAX_ITEMS)),
      });
    case 'Object':
      return objectOf(node, pools);
    case 'Record': {
      const [, value] = Object.entries(node.patternProperties ?? {})[0] ?? [];
      const names = pools[`${field}.keys`] ?? [];
      const key = names.length ? fc.oneof(fc.constantFrom(...(names as string[])), fc.string({ maxLength: 12 })) : fc.string({ maxLength: 12 });
      return fc.dictionary(key, value ? arbitraryOf(value, pools, `${field}.values`) : fc.jsonValue({ maxDepth: 2 }), { maxKeys: MAX_KEYS });
    }
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

function objectOf(node: SchemaNode, pools: Pools): fc.Arbitrary<Record<string, unknown>> {
  const properties = node.properties ?? {};
  const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, arbitraryOf(property, pools, name)]));
  const required = node.required ?? [];
  return fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
}
