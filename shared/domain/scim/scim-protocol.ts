/**
 * SCIM 2.0's shapes (RFC 7643) and query rules (RFC 7644) that do not depend on storage: filters through
 * `scim2-parse-filter`, PATCH through `scim-patch`, paging, and what Okta and Microsoft Entra ID send that the RFC
 * does not (a capitalised `"Replace"`, booleans as the strings `"True"`/`"False"`, a PATCH without a path whose
 * value names the attributes).
 */
import { filter as compileFilter, parse as parseFilter, type Filter } from 'scim2-parse-filter';
import { scimPatch, type ScimPatchOperation } from 'scim-patch';
import { DomainError } from '../../errors.js';

export const SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  list: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patch: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export type ScimType = 'invalidFilter' | 'invalidValue' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'mutability' | 'uniqueness' | 'tooMany';

/** A refusal in SCIM's terms: its `scimType` rides in the domain error's data, the HTTP side puts it in the body. */
export const scimInvalid = (scimType: ScimType, message: string): DomainError => new DomainError('invalid', scimType, message, { scimType });
export const scimConflict = (message: string): DomainError => new DomainError('conflict', 'uniqueness', message, { scimType: 'uniqueness' });
export const scimNotFound = (what: string, id: string): DomainError => new DomainError('not_found', 'not_found', `${what} ${id} not found`);

/** The largest page answered, whatever `count` asks (ServiceProviderConfig's filter.maxResults). */
export const MAX_RESULTS = 1000;
const DEFAULT_COUNT = 100;

export interface Paging {
  /** 1-based, as RFC 7644 §3.4.2.4 has it; below 1 counts as 1. */
  startIndex: number;
  count: number;
}

export function paging(query: Record<string, string | undefined>): Paging {
  const number = (name: string, fallback: number) => {
    const raw = query[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^-?\d{1,9}$/.test(raw)) throw scimInvalid('invalidValue', `${name}: must be an integer`);
    return Number(raw);
  };
  return { startIndex: Math.max(1, number('startIndex', 1)), count: Math.min(MAX_RESULTS, Math.max(0, number('count', DEFAULT_COUNT))) };
}

export function listResponse(all: readonly unknown[], page: Paging) {
  const resources = all.slice(page.startIndex - 1, page.startIndex - 1 + page.count);
  return { schemas: [SCHEMA.list], totalResults: all.length, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources };
}

const MAX_FILTER_LENGTH = 1000;

/** A parsed filter; a malformed one is a 400 `invalidFilter`, never a 500. */
export function scimFilter(text: string | undefined): Filter | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (text.length > MAX_FILTER_LENGTH) throw scimInvalid('invalidFilter', `filter: longer than ${MAX_FILTER_LENGTH} characters`);
  try {
    return parseFilter(text);
  } catch (error) {
    throw scimInvalid('invalidFilter', `filter: ${error instanceof Error ? error.message : 'cannot be parsed'}`);
  }
}

/** Attribute names are case-insensitive (RFC 7643 §2.1): the filter's are compared in lower case against lower-cased keys. */
function lowerKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toLowerCase(), lowerKeys(v)]));
}

function lowerPaths(f: Filter): Filter {
  switch (f.op) {
    case 'and':
    case 'or':
      return { ...f, filters: f.filters.map(lowerPaths) };
    case 'not':
      return { ...f, filter: lowerPaths(f.filter) };
    case '[]':
      return { ...f, attrPath: f.attrPath.toLowerCase(), valFilter: lowerPaths(f.valFilter) };
    default:
      return { ...f, attrPath: f.attrPath.replace(new RegExp(`^${SCHEMA.user}:|^${SCHEMA.group}:`, 'i'), '').toLowerCase() };
  }
}

export function matcher(f: Filter | undefined): (resource: Record<string, unknown>) => boolean {
  if (!f) return () => true;
  const test = compileFilter(lowerPaths(f));
  return (resource) => test(lowerKeys(resource));
}

/** `attr eq "value"` on one of `names` (any case), the filter clients send to find one resource; else undefined. */
export function equalityOn(f: Filter | undefined, name: string): string | undefined {
  if (f?.op !== 'eq' || f.attrPath.toLowerCase() !== name.toLowerCase() || typeof f.compValue !== 'string') return undefined;
  return f.compValue;
}

/** Entra sends `"active": "False"`; a string that is not a boolean is refused. */
export function scimBoolean(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw scimInvalid('invalidValue', `${field}: must be a boolean`);
}

const OPS = new Set(['add', 'replace', 'remove']);
const MAX_OPERATIONS = 1000;

/** A PATCH body's operations, their `op` in lower case (Entra writes `"Replace"`), checked before anything is read. */
export function patchOperations(body: unknown): ScimPatchOperation[] {
  const b = body as { schemas?: unknown; Operations?: unknown } | null;
  if (!b || typeof b !== 'object' || !Array.isArray(b.schemas) || !b.schemas.includes(SCHEMA.patch)) {
    throw scimInvalid('invalidSyntax', `schemas: must hold ${SCHEMA.patch}`);
  }
  if (!Array.isArray(b.Operations) || b.Operations.length === 0) throw scimInvalid('invalidSyntax', 'Operations: must be a non-empty array');
  if (b.Operations.length > MAX_OPERATIONS) throw scimInvalid('tooMany', `Operations: at most ${MAX_OPERATIONS}`);
  return b.Operations.map((raw, i) => {
    const o = raw as { op?: unknown; path?: unknown; value?: unknown };
    const op = typeof o?.op === 'string' ? o.op.toLowerCase() : '';
    if (!OPS.has(op)) throw scimInvalid('invalidSyntax', `Operations.${i}.op: must be add, replace or remove`);
    if (o.path !== undefined && typeof o.path !== 'string') throw scimInvalid('invalidPath', `Operations.${i}.path: must be a string`);
    if (op === 'remove' && !o.path) throw scimInvalid('noTarget', `Operations.${i}.path: remove needs a path`);
    if (op !== 'remove' && o.value === undefined) throw scimInvalid('invalidValue', `Operations.${i}.value: is required`);
    return { op, ...(o.path ? { path: o.path } : {}), ...(o.value !== undefined ? { value: o.value } : {}) } as ScimPatchOperation;
  });
}

/** The resource after the operations; the library's refusals become SCIM's 400s. */
export function patched<T extends Record<string, unknown>>(resource: T, operations: ScimPatchOperation[]): T {
  try {
    return scimPatch(resource as never, operations, { mutateDocument: false, treatMissingAsAdd: true }) as T;
  } catch (error) {
    const scimType = (error as { scimType?: string }).scimType;
    const type: ScimType = scimType === 'noTarget' || scimType === 'invalidPath' ? scimType : 'invalidValue';
    throw scimInvalid(type, `Operations: ${error instanceof Error ? error.message : 'cannot be applied'}`);
  }
}

const attribute = (name: string, type: string, more: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...more,
});
const multi = (name: string, subAttributes: unknown[]) => attribute(name, 'complex', { multiValued: true, subAttributes });
const typed = [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean'), attribute('display', 'string')];

/** RFC 7643 §7: the attributes this service keeps of each resource. */
export const SCHEMAS = [
  {
    id: SCHEMA.user,
    name: 'User',
    description: 'A user of the SaaS who is a member of this tenant',
    attributes: [
      attribute('userName', 'string', { required: true, uniqueness: 'server' }),
      attribute('name', 'complex', {
        subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((n) =>
          attribute(n, 'string'),
        ),
      }),
      attribute('displayName', 'string'),
      attribute('nickName', 'string'),
      attribute('title', 'string'),
      attribute('preferredLanguage', 'string'),
      attribute('locale', 'string'),
      attribute('timezone', 'string'),
      attribute('active', 'boolean'),
      attribute('password', 'string', { mutability: 'writeOnly', returned: 'never' }),
      multi('emails', typed),
      multi('phoneNumbers', typed),
      multi(
        'groups',
        typed.map((a) => ({ ...a, mutability: 'readOnly' })),
      ),
    ],
  },
  {
    id: SCHEMA.group,
    name: 'Group',
    description: 'A role of the SaaS, held by members of this tenant',
    attributes: [attribute('displayName', 'string', { required: true }), multi('members', typed)],
  },
].map((s) => ({ schemas: [SCHEMA.schema], ...s, meta: { resourceType: 'Schema', location: `/Schemas/${s.id}` } }));

export const RESOURCE_TYPES = [
  { id: 'User', name: 'User', endpoint: '/Users', schema: SCHEMA.user },
  { id: 'Group', name: 'Group', endpoint: '/Groups', schema: SCHEMA.group },
].map((r) => ({ schemas: [SCHEMA.resourceType], ...r, meta: { resourceType: 'ResourceType', location: `/ResourceTypes/${r.id}` } }));

export const SERVICE_PROVIDER_CONFIG = {
  schemas: [SCHEMA.serviceProviderConfig],
  documentationUri: 'https://datatracker.ietf.org/doc/html/rfc7644',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    { type: 'oauthbearertoken', name: 'Bearer token', description: "The tenant's SCIM token, sent as Authorization: Bearer", primary: true },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: '/ServiceProviderConfig' },
};
