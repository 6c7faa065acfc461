import { Type } from '@sinclair/typebox';

/**
 * A name that identifies a definition and may appear in a URL path: not blank, no surrounding
 * whitespace, no slash or control characters, at most 100 characters.
 */
export const DefinitionName = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[^\\s/\\u0000-\\u001f\\u007f](?:[^/\\u0000-\\u001f\\u007f]*[^\\s/\\u0000-\\u001f\\u007f])?$',
    description: `${description}: not blank, without surrounding spaces, slashes or control characters`,
  });

export const DisplayName = Type.String({ maxLength: 200 });

export const EnvId = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'an integer of at least 1' });

export const Uuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'a UUID',
});

export const Email = Type.String({
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
  description: 'an e-mail address',
});

/** Attribute values by name; each value is checked against its definition by the domain. */
export const AttributeValues = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
  description: 'attribute name to value (string, number, bool, or a YYYY-MM-DD date string)',
});

export const HttpsUrl = Type.String({
  maxLength: 2048,
  pattern: '^https://[^\\s/?#]+[^\\s]*$',
  description: 'an absolute https URL',
});
