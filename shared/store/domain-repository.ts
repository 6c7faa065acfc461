/** Tenants' domain claims and the SaaS's verified domains (shared/domain/tenants/verified-domains.ts). */
import { DeleteCommand, GetCommand, PutCommand, type DynamoClient } from './dynamo-client.js';
import type { DomainClaim, DomainOwner, DomainRepository } from '../domain/tenants/verified-domains.js';
import { deleteIfPresent, unlessConditionFails } from './conditional.js';
import { ENTITY, keys, withoutKeys, type ItemKey } from './keys.js';
import { queryAll } from './query.js';

export class DynamoDomainRepository implements DomainRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async claims(saasId: string, tenantId: string): Promise<DomainClaim[]> {
    return (await queryAll(this.db, this.table, keys.tenantDomains(saasId, tenantId))).map((item) => withoutKeys<DomainClaim>(item));
  }

  claim(saasId: string, tenantId: string, domain: string): Promise<DomainClaim | undefined> {
    return this.get<DomainClaim>(keys.tenantDomain(saasId, tenantId, domain));
  }

  async saveClaim(saasId: string, claim: DomainClaim): Promise<void> {
    const item = { ...keys.tenantDomain(saasId, claim.tenant_id, claim.domain), entity: ENTITY.tenantDomain, v: 1, ...claim };
    await this.db.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  deleteClaim(saasId: string, tenantId: string, domain: string): Promise<boolean> {
    return deleteIfPresent(this.db, this.table, keys.tenantDomain(saasId, tenantId, domain));
  }

  owner(saasId: string, domain: string): Promise<DomainOwner | undefined> {
    return this.get<DomainOwner>(keys.verifiedDomain(saasId, domain));
  }

  takeOwnership(saasId: string, owner: DomainOwner): Promise<boolean> {
    const item = { ...keys.verifiedDomain(saasId, owner.domain), entity: ENTITY.verifiedDomain, v: 1, ...owner };
    return unlessConditionFails(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk) OR tenant_id = :tenant',
          ExpressionAttributeValues: { ':tenant': owner.tenant_id },
        }),
      ),
    );
  }

  async releaseOwnership(saasId: string, domain: string, tenantId: string): Promise<void> {
    await unlessConditionFails(() =>
      this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: keys.verifiedDomain(saasId, domain),
          ConditionExpression: 'tenant_id = :tenant',
          ExpressionAttributeValues: { ':tenant': tenantId },
        }),
      ),
    );
  }

  private async get<T>(key: ItemKey): Promise<T | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return out.Item ? withoutKeys<T>(out.Item) : undefined;
  }
}
