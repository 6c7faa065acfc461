/** A schema's compiled check, compiled once: the request pipeline's validation and the reads of stored settings use it. */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

export function checker<T extends TSchema>(schema: T): TypeCheck<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<T>;
}
