/**
 * Every key shape of the single table lives here and nowhere else (DESIGN.md decision 5). Generic key
 * attributes, an entity tag and a version on every item, and every partition key starting with the SaaS
 * id, so no query can wander into another SaaS's items. The one exception is DEPLOYMENT_KEYS below: the
 * deployment's own keys, which no SaaS owns.
 */

export const TTL_ATTRIBUTE = 'expiresAt';

export const ENTITY = {
  saas: 'SaaS',
  apiKey: 'ApiKey',
  attributeDefinition: 'AttributeDefinition',
  role: 'Role',
  env: 'Env',
  tenant: 'Tenant',
  setting: 'Setting',
  outbox: 'OutboxMail',
  signingKey: 'SigningKey',
  currentSigningKey: 'CurrentSigningKey',
  deploymentSecret: 'DeploymentSecret',
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
/** Unix seconds, zero-padded so they sort as numbers until the year 33658. */
const padSeconds = (seconds: number) => String(seconds).padStart(12, '0');

/**
 * The one partition that does not start with a SaaS id: gsi1's registry of SaaS accounts, which holds SaaS
 * records only, so the scheduled worker and the admin command can find every SaaS without a scan.
 */
export const SAAS_REGISTRY = 'REGISTRY#SAAS';

/**
 * The one table partition that belongs to no SaaS: the deployment's own keys. Token signing keys (one
 * JWKS for the whole deployment), the pointer to the current one, and deployment secrets (the SRP sealing
 * secret). A handful of items, read in one query and cached per cold start.
 */
export const DEPLOYMENT_KEYS = 'DEPLOYMENT#KEYS';

export const keys = {
  saas: (saasId: string): ItemKey => ({ pk: saasPartition(saasId), sk: 'SAAS' }),
  saasRegistryEntry: (saasId: string) => ({ gsi1pk: SAAS_REGISTRY, gsi1sk: `SAAS#${saasId}` }),
  apiKey: (saasId: string, apiKey: string): ItemKey => ({ pk: saasPartition(saasId), sk: `APIKEY#${apiKey}` }),
  apiKeys: (saasId: string) => ({ pk: saasPartition(saasId), skPrefix: 'APIKEY#' }),
  /** One item per settings document of a SaaS (infrastructure, and the configuration documents). */
  setting: (saasId: string, name: string): ItemKey => ({ pk: saasPartition(saasId), sk: `SETTING#${name}` }),

  /** User and SaaS-user attributes share one namespace: a name means one thing on a user. */
  userAttribute: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `UATTR#${name}` }),
  userAttributes: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'UATTR#' }),
  tenantAttribute: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `TATTR#${name}` }),
  tenantAttributes: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'TATTR#' }),
  role: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `ROLE#${name}` }),
  roles: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'ROLE#' }),
  env: (saasId: string, id: number): ItemKey => ({ pk: definitionsPartition(saasId), sk: `ENV#${padEnvId(id)}` }),
  envs: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'ENV#' }),

  /** Tenants of a SaaS share one partition, so listing them is one strongly consistent query. */
  tenant: (saasId: string, tenantId: string): ItemKey => ({ pk: `SAAS#${saasId}#TENANTS`, sk: `TENANT#${tenantId}` }),
  tenants: (saasId: string) => ({ pk: `SAAS#${saasId}#TENANTS`, skPrefix: 'TENANT#' }),
  /**
   * Everything that belongs to one tenant (memberships, role assignments, invitations) lives in the
   * tenant's own partition, so deleting a tenant is one query and batch deletes. An item there may name a
   * `mirror` {pk, sk} elsewhere (a user's view of the membership) that is deleted with it.
   */
  tenantContents: (saasId: string, tenantId: string) => ({ pk: `SAAS#${saasId}#TENANT#${tenantId}`, skPrefix: '' }),
  /** gsi1: pending plan reservations of a SaaS by due time. */
  planReservation: (saasId: string, tenantId: string, due: number) => ({
    gsi1pk: `SAAS#${saasId}#PLANRES`,
    gsi1sk: `${padSeconds(due)}#${tenantId}`,
  }),
  dueReservations: (saasId: string, now: number) => ({ gsi1pk: `SAAS#${saasId}#PLANRES`, gsi1skUpTo: `${padSeconds(now)}#~` }),

  /** Token signing keys: `SIGNING#KEY#<kid>`, and `SIGNING#CURRENT` naming the one that signs. */
  signingKey: (kid: string): ItemKey => ({ pk: DEPLOYMENT_KEYS, sk: `SIGNING#KEY#${kid}` }),
  currentSigningKey: (): ItemKey => ({ pk: DEPLOYMENT_KEYS, sk: 'SIGNING#CURRENT' }),
  signing: () => ({ pk: DEPLOYMENT_KEYS, skPrefix: 'SIGNING#' }),
  deploymentSecret: (name: string): ItemKey => ({ pk: DEPLOYMENT_KEYS, sk: `SECRET#${name}` }),

  outboxMail: (saasId: string, mailId: string): ItemKey => ({ pk: `SAAS#${saasId}#OUTBOX`, sk: `MAIL#${mailId}` }),
  /** gsi1, while a mail is not final: by the time it is next due (its next attempt, or its claim lapsing). */
  outboxDue: (saasId: string, mailId: string, at: number) => ({ gsi1pk: `SAAS#${saasId}#OUTBOX`, gsi1sk: `${padSeconds(at)}#${mailId}` }),
  outboxDueBy: (saasId: string, now: number) => ({ gsi1pk: `SAAS#${saasId}#OUTBOX`, gsi1skUpTo: `${padSeconds(now)}#~` }),
};

/** Strips the storage-only attributes from an item before it reaches the domain. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, gsi1pk: _gsi1pk, gsi1sk: _gsi1sk, entity: _entity, v: _v, ...rest } = item;
  return rest as T;
}
