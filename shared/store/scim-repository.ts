import { GetCommand, PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { atomicWrite, type AtomicWrite } from '../domain/atomic.js';
import type { ScimGroupRecord, ScimRepository, ScimTokens } from '../domain/scim/scim-tokens.js';
import { unlessConditionFails } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { queryAll } from './query.js';
import { Recent } from './recent.js';
import { check, putNew, remove, update, EXISTS, LIVE } from './transact.js';
import { Update } from './update.js';

/** Every SCIM call reads its tenant's token hashes: a warm instance keeps them as it keeps API keys. */
const recentTokens = new Recent<ScimTokens>();

/**
 * A tenant's SCIM state: the token hashes and the groups live in the tenant's partition (so they go with the
 * tenant); the call counts of the rate limit in a partition of their own, one item per minute, gone by TTL.
 */
export class DynamoScimRepository implements ScimRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
    /** How long a warm instance keeps a tenant's token hashes (API_KEY_CACHE_SECONDS): a token revoked elsewhere stops within it. */
    private readonly cacheSeconds = 0,
  ) {}

  async tokens(saasId: string, tenantId: string, fresh = false): Promise<ScimTokens> {
    const key = `${saasId}\n${tenantId}`;
    if (fresh) recentTokens.forget(key);
    return recentTokens.get(key, this.cacheSeconds, async () => {
      const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.scimTokens(saasId, tenantId), ConsistentRead: fresh }));
      return out.Item ? { version: out.Item.version as number, tokens: out.Item.tokens as ScimTokens['tokens'] } : { version: 0, tokens: [] };
    });
  }

  /** Refused (false) when another change came first: the version is not the one read, or the tenant is gone. */
  async saveTokens(saasId: string, tenantId: string, tokens: ScimTokens['tokens'], readVersion: number): Promise<boolean> {
    const key = keys.scimTokens(saasId, tenantId);
    const item = { ...key, entity: ENTITY.scimTokens, v: 1, version: readVersion + 1, tokens };
    // This instance's own change counts at once, whatever it kept.
    recentTokens.forget(`${saasId}\n${tenantId}`);
    return unlessConditionFails(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: readVersion === 0 ? 'attribute_not_exists(pk)' : '#version = :version',
          ...(readVersion === 0
            ? {}
            : { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': readVersion } }),
        }),
      ),
    );
  }

  async countCall(saasId: string, tenantId: string, window: number, expiresAt: number, calls: number): Promise<number> {
    const change = new Update().add('count', calls).set('entity', ENTITY.scimCalls).set('v', 1).set(TTL_ATTRIBUTE, expiresAt);
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.scimCalls(saasId, tenantId, window),
        UpdateExpression: change.expression(),
        ExpressionAttributeNames: change.names,
        ExpressionAttributeValues: change.values,
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.count ?? calls);
  }

  async groups(saasId: string, tenantId: string): Promise<ScimGroupRecord[]> {
    return (await queryAll(this.db, this.table, keys.scimGroups(saasId, tenantId))).map((item) => withoutKeys<ScimGroupRecord>(item));
  }

  async group(saasId: string, tenantId: string, roleName: string): Promise<ScimGroupRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.scimGroup(saasId, tenantId, roleName), ConsistentRead: true }));
    return out.Item ? withoutKeys<ScimGroupRecord>(out.Item) : undefined;
  }

  groupCreateWrite(saasId: string, tenantId: string, group: ScimGroupRecord): AtomicWrite {
    return atomicWrite(
      check(this.table, keys.tenant(saasId, tenantId), LIVE, 'tenant_live'),
      check(this.table, keys.role(saasId, group.role_name), EXISTS, `role_exists:${group.role_name}`),
      putNew(this.table, { ...keys.scimGroup(saasId, tenantId, group.role_name), entity: ENTITY.scimGroup, v: 1, ...group }, 'group_free'),
    );
  }

  groupUpdateWrite(saasId: string, tenantId: string, group: ScimGroupRecord): AtomicWrite {
    const change = new Update().set('display_name', group.display_name);
    if (group.external_id === undefined) change.remove('external_id');
    else change.set('external_id', group.external_id);
    return atomicWrite(update(this.table, keys.scimGroup(saasId, tenantId, group.role_name), change, EXISTS, 'group_exists'));
  }

  groupRemoveWrite(saasId: string, tenantId: string, roleName: string): AtomicWrite {
    return atomicWrite(remove(this.table, keys.scimGroup(saasId, tenantId, roleName), EXISTS, 'group_exists'));
  }
}
