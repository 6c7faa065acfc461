/**
 * Every key shape of the single table lives here and nowhere else (DESIGN.md decision 5). Generic key
 * attributes, an entity tag and a version on every item, and every partition key starting with the SaaS
 * id, so no query can wander into another SaaS's items.
 */

export const TTL_ATTRIBUTE = 'expiresAt';

export const ENTITY = {
  saas: 'SaaS',
  apiKey: 'ApiKey',
  attributeDefinition: 'AttributeDefinition',
  role: 'Role',
  env: 'Env',
} as const;
export type EntityName = (typeof ENTITY)[keyof typeof ENTITY];

export interface ItemKey {
  pk: string;
  sk: string;
}

const saasPartition = (saasId: string) => `SAAS#${saasId}`;
const definitionsPartition = (saasId: string) => `SAAS#${saasId}#DEF`;

/** Env ids sort numerically when zero-padded; 10 digits hold every 31-bit id. */
const padEnvId = (id: number) => String(id).padStart(10, '0');

export const keys = {
  saas: (saasId: string): ItemKey => ({ pk: saasPartition(saasId), sk: 'SAAS' }),
  apiKey: (saasId: string, apiKey: string): ItemKey => ({ pk: saasPartition(saasId), sk: `APIKEY#${apiKey}` }),
  apiKeys: (saasId: string) => ({ pk: saasPartition(saasId), skPrefix: 'APIKEY#' }),

  /** User and SaaS-user attributes share one namespace: a name means one thing on a user. */
  userAttribute: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `UATTR#${name}` }),
  userAttributes: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'UATTR#' }),
  tenantAttribute: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `TATTR#${name}` }),
  tenantAttributes: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'TATTR#' }),
  role: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `ROLE#${name}` }),
  roles: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'ROLE#' }),
  env: (saasId: string, id: number): ItemKey => ({ pk: definitionsPartition(saasId), sk: `ENV#${padEnvId(id)}` }),
  envs: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'ENV#' }),
};

/** Strips the storage-only attributes from an item before it reaches the domain. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, entity: _entity, v: _v, ...rest } = item;
  return rest as T;
}
