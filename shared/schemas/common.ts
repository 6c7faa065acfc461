import * as Type from '@sinclair/typebox';
import type { TString } from '@sinclair/typebox';
import { WEB_URL_FORMAT } from './web-url.js';

const NAME_PATTERN = '^[^\\s/\\u0000-\\u001f\\u007f](?:[^/\\u0000-\\u001f\\u007f]*[^\\s/\\u0000-\\u001f\\u007f])?$';

/** The keys of an attribute map: names an attribute could have (an empty name would make no attribute path). */
const AttributeNameKey = Type.String({ pattern: NAME_PATTERN });

/**
 * A name that identifies a definition and may appear in a URL path: not blank, no surrounding
 * whitespace, no slash or control characters, at most 100 characters.
 */
export const DefinitionName = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: NAME_PATTERN,
    description: `${description}: not blank, without surrounding spaces, slashes or control characters`,
  });

export const DisplayName = Type.String({ maxLength: 200 });

/**
 * An id or a name in a path. Every id the service makes and every name it accepts fits; a longer one could
 * only outgrow the store's key limits (2 KB partition keys), so it is refused before it gets there.
 */
export const PathParam = Type.String({ maxLength: 128 });

export const EnvId = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'an integer of at least 1' });

export const Uuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'a UUID',
});

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const TOP_LABEL = '(?:[A-Za-z]{2,63}|[Xx][Nn]--[A-Za-z0-9-]{1,59})';
/** The e-mail address rule as one pattern (shared/domain/users/email-address.ts says why it is this strict). */
export const EMAIL_ADDRESS_PATTERN = `^(?=.{6,254}$)(?=[^@]{1,64}@)${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+${TOP_LABEL}$`;

export const Email = Type.String({
  maxLength: 254,
  pattern: EMAIL_ADDRESS_PATTERN,
  description: 'an e-mail address: ASCII, no display name or quoted part, the domain in its ASCII form (README: e-mail addresses)',
});

/** Attribute values by name; each value is checked against its definition by the domain. */
export const AttributeValues = Type.Record(AttributeNameKey, Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
  additionalProperties: false,
  description: 'attribute name to value (string, number, bool, or a YYYY-MM-DD date string)',
});

export const HttpsUrl = Type.String({
  maxLength: 2048,
  pattern: '^https://[^\\s/?#]+[^\\s]*$',
  format: WEB_URL_FORMAT,
  description: 'an absolute https URL',
});

/** Changes to attribute values: a value sets the attribute, null removes it, names not given keep theirs. */
export const AttributeChanges = Type.Record(AttributeNameKey, Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]), {
  additionalProperties: false,
  description: 'attribute name to its new value (string, number, bool, a YYYY-MM-DD date string), or null to remove it',
});

/** Empty strings count as "not given": SDKs in languages without optional fields send them so. */
export const OptionalOrEmpty = (schema: TString) => Type.Optional(Type.Union([schema, Type.Literal('')], { description: schema.description }));

/**
 * A whole number the store keeps exactly: JavaScript, and so the DynamoDB client, holds integers exactly up
 * to 2^53 − 1 and refuses larger ones.
 */
export const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** Unix seconds up to the end of the year 9999. */
export const UnixSeconds = Type.Integer({ minimum: 0, maximum: 253_402_300_799 });

export const Limit = Type.Integer({ minimum: 1, maximum: 100, description: 'an integer from 1 to 100' });
export const SearchPrefix = Type.String({ maxLength: 254, pattern: '^\\S*$', description: 'the start of a name, without spaces' });

/** A token this service issued, in a request: not empty; its signature and claims are checked by the domain. */
export const IssuedToken = (description: string) => Type.String({ minLength: 1, maxLength: 8192, description });

/** A user's access token in a request body; checked by the token verifier, which answers 401 for a bad one. */
export const AccessToken = Type.String({ maxLength: 8192, description: "the user's access token (a JWT)" });

/** A code a person types: the verifying operation answers a wrong one with its own 400. */
export const TypedCode = Type.String({ maxLength: 32, description: 'the code as the user typed it' });
