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
