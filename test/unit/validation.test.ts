import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { checkAttributeValues } from '../../shared/domain/attributes.js';
import { DomainError } from '../../shared/errors.js';
import { HttpProblem } from '../../shared/http/errors.js';
import { coerceStrings, parseJsonBody, validate } from '../../shared/http/validation.js';
import { AttributeChanges, Count } from '../../shared/schemas/common.js';
import { definitionSchemas } from '../../shared/schemas/definitions.js';
import { PricingUnitForSave } from '../../shared/schemas/pricing.js';

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.kind, 'invalid');
    return error.message;
  }
  assert.fail('expected a validation error');
}

describe('schema validation', () => {
  const attribute = definitionSchemas.createUserAttribute.body;

  it('names the field of the alternative a union value names by its type, else says what the union wants', () => {
    const unit = { name: 'u', display_name: '', description: '', currency: 'JPY', type: 'fixed', recurring_interval: 'month' };
    assert.equal(
      messageOf(() => validate(PricingUnitForSave, { ...unit, unit_amount: -1 }, 'body')),
      'unit_amount: must be at least 0',
    );
    assert.match(
      messageOf(() => validate(PricingUnitForSave, { ...unit, type: 'flat' }, 'body')),
      /^body: must be a pricing unit by its type/,
    );
    const untyped = Type.Union([Type.Object({ a: Type.String() }), Type.Null()], { description: 'an a or null' });
    assert.equal(
      messageOf(() => validate(Type.Object({ x: untyped }), { x: { a: 1 } }, 'body')),
      'x: must be an a or null',
    );
  });

  it('names the missing field', () => {
    assert.equal(
      messageOf(() => validate(attribute, { display_name: 'x', attribute_type: 'string' }, 'body')),
      'attribute_name: is required',
    );
  });

  it('lists the allowed values of an enum', () => {
    assert.equal(
      messageOf(() => validate(attribute, { attribute_name: 'a', display_name: 'x', attribute_type: 'text' }, 'body')),
      'attribute_type: must be one of string, number, bool, date',
    );
  });

  it('explains the name rule for blank and padded names', () => {
    for (const name of [' ', '  admin', 'admin ', 'a/b', 'tab\there', '']) {
      const message = messageOf(() => validate(attribute, { attribute_name: name, display_name: 'x', attribute_type: 'bool' }, 'body'));
      assert.match(message, /^attribute_name: must/, JSON.stringify(name));
    }
  });

  it('names nested fields with dots and refuses non-objects', () => {
    const schema = Type.Object({ address: Type.Object({ city: Type.String() }) });
    assert.equal(
      messageOf(() => validate(schema, { address: {} }, 'body')),
      'address.city: is required',
    );
    assert.equal(
      messageOf(() => validate(schema, [], 'body')),
      'body: must be a JSON object',
    );
  });

  it('returns the value when it is valid', () => {
    const value = { attribute_name: 'age', display_name: 'Age', attribute_type: 'number' };
    assert.deepEqual(validate(attribute, value, 'body'), value);
  });

  it('converts path and query strings strictly', () => {
    const schema = Type.Object({ id: Type.Integer(), on: Type.Boolean(), name: Type.String() });
    assert.deepEqual(coerceStrings(schema, { id: '12', on: 'true', name: '7' }), { id: 12, on: true, name: '7' });
    for (const raw of ['1e3', ' 12', '0x10', '1.5', '', '012']) {
      assert.equal(coerceStrings(schema, { id: raw }).id, raw, raw);
    }
    assert.equal(
      messageOf(() => validate(schema, { ...coerceStrings(schema, { id: '1e3' }), on: true, name: 'n' }, 'path')),
      'id: must be an integer',
    );
  });
});

describe('request bodies', () => {
  const parse = (text: string) => parseJsonBody(Buffer.from(text, 'utf8'));

  /** The message of the validation error `parse(text)` is refused with. */
  async function refusalOf(text: string): Promise<string> {
    const error = await parse(text).then(
      () => assert.fail(`expected a validation error for ${text.slice(0, 40)}`),
      (e: unknown) => e,
    );
    assert.ok(error instanceof DomainError);
    assert.equal(error.kind, 'invalid');
    return error.message;
  }

  it('refuses the member names JavaScript objects give meaning to, at any depth', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      for (const body of [`{"${name}": 1}`, `{"a": {"b": [{"${name}": {}}]}}`]) {
        assert.equal(await refusalOf(body), `body: the member name ${name} is not allowed`, body);
      }
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('refuses unpaired surrogates in names and values, and keeps real characters', async () => {
    for (const body of ['{"a": "\\ud800"}', '{"\\udfff": 1}', '["x\\ud83dy"]']) {
      assert.match(await refusalOf(body), /^body: text must be valid Unicode/, body);
    }
    assert.deepEqual(await parse('{"a": "\\ud83d\\udca5 ok"}'), { a: '💥 ok' });
  });

  it('answers malformed JSON and bytes that are not UTF-8 as invalid_json, and an empty body as none', async () => {
    const invalidJson = (error: unknown) => error instanceof HttpProblem && error.type === 'invalid_json';
    for (const text of ['{', '{"a":1} x', `${'['.repeat(100_000)}${']'.repeat(100_000)}`]) {
      await assert.rejects(parse(text), invalidJson);
    }
    await assert.rejects(parseJsonBody(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])), invalidJson);
    assert.equal(await parse('  '), undefined);
  });

  it('keeps only the members a schema names, at every depth, and every entry of a map', () => {
    const schema = Type.Object({ a: Type.String(), nested: Type.Object({ b: Type.Number() }), attributes: AttributeChanges });
    const value = { a: 'x', extra: [1], nested: { b: 1, junk: { deep: true } }, attributes: { plan: 'gold', gone: null } };
    assert.deepEqual(validate(schema, value, 'body'), { a: 'x', nested: { b: 1 }, attributes: { plan: 'gold', gone: null } });
  });

  it('refuses attribute maps with names no attribute could have', () => {
    const schema = Type.Object({ attributes: AttributeChanges });
    for (const name of ['', ' padded', 'a/b']) {
      assert.match(
        messageOf(() => validate(schema, { attributes: { [name]: null } }, 'body')),
        /^attributes(\.|:)/,
        JSON.stringify(name),
      );
    }
  });

  it('bounds counts to what the store keeps exactly', () => {
    const schema = Type.Object({ count: Count });
    assert.deepEqual(validate(schema, { count: Number.MAX_SAFE_INTEGER }, 'body'), { count: Number.MAX_SAFE_INTEGER });
    assert.equal(
      messageOf(() => validate(schema, { count: 1e300 }, 'body')),
      `count: must be at most ${Number.MAX_SAFE_INTEGER}`,
    );
  });
});

describe('number attribute values', () => {
  const definitions = [{ attribute_name: 'n', display_name: 'n', attribute_type: 'number' as const }];

  it('are numbers the store keeps exactly', () => {
    for (const n of [0, -0, 1.5, -42, 1e-130, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
      checkAttributeValues({ n }, definitions, 'tenant attribute');
    }
    for (const n of [1e300, -1e20, Number.MAX_SAFE_INTEGER + 2, 5e-323, -1e-200]) {
      assert.match(
        messageOf(() => checkAttributeValues({ n }, definitions, 'tenant attribute')),
        /^attributes\.n: must be a number within/,
        String(n),
      );
    }
  });
});
