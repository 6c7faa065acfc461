import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../../shared/errors.js';
import { coerceStrings, validate } from '../../shared/http/validation.js';
import { definitionSchemas } from '../../shared/schemas/definitions.js';

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

  it('names the missing field', () => {
    assert.equal(messageOf(() => validate(attribute, { display_name: 'x', attribute_type: 'string' }, 'body')), 'attribute_name: is required');
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
    assert.equal(messageOf(() => validate(schema, { address: {} }, 'body')), 'address.city: is required');
    assert.equal(messageOf(() => validate(schema, [], 'body')), 'body: must be a JSON object');
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
    assert.equal(messageOf(() => validate(schema, { ...coerceStrings(schema, { id: '1e3' }), on: true, name: 'n' }, 'path')), 'id: must be an integer');
  });
});
