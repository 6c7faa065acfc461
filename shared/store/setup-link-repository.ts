/** Tenants' one-time setup links (shared/domain/tenants/setup-links.ts): hashes only, in the tenant's partition. */
import { GetCommand, PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import type { SetupLinkRepository, StoredSetupLink } from '../domain/tenants/setup-links.js';
import { unlessConditionFails, updateIfPresent } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { queryAll } from './query.js';

/** An ended link stays listed this long (what the console shows as expired, used or revoked), then goes by TTL. */
const KEPT_AFTER_END_SECONDS = 30 * 86400;

export class DynamoSetupLinkRepository implements SetupLinkRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async save(saasId: string, link: StoredSetupLink): Promise<void> {
    const item = {
      ...keys.setupLink(saasId, link.tenant_id, link.id),
      entity: ENTITY.setupLink,
      v: 1,
      ...link,
      [TTL_ATTRIBUTE]: link.expires_at + KEPT_AFTER_END_SECONDS,
    };
    await this.db.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  async get(saasId: string, tenantId: string, linkId: string): Promise<StoredSetupLink | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.setupLink(saasId, tenantId, linkId), ConsistentRead: true }));
    return out.Item ? withoutKeys<StoredSetupLink>(out.Item) : undefined;
  }

  async list(saasId: string, tenantId: string): Promise<StoredSetupLink[]> {
    return (await queryAll(this.db, this.table, keys.setupLinks(saasId, tenantId))).map((item) => withoutKeys<StoredSetupLink>(item));
  }

  /** One conditional write: of two browsers opening the same link at once, one wins. */
  consume(saasId: string, tenantId: string, linkId: string, now: number): Promise<boolean> {
    return unlessConditionFails(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.setupLink(saasId, tenantId, linkId),
          UpdateExpression: 'SET used_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at) AND attribute_not_exists(revoked_at) AND expires_at > :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      ),
    );
  }

  revoke(saasId: string, tenantId: string, linkId: string, now: number): Promise<boolean> {
    return updateIfPresent(this.db, this.table, keys.setupLink(saasId, tenantId, linkId), { revoked_at: now });
  }
}
