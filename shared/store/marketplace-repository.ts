import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import { MARKETPLACE_RULE, type MarketplaceRepository } from '../domain/tenants/marketplace.js';
import type { MarketplaceLink } from '../domain/tenants/tenants.js';
import { ENTITY, keys } from './keys.js';
import { both, check, conditionInput, EXISTS, LIVE, part, update, type Condition } from './transact.js';
import { Update } from './update.js';

export class DynamoMarketplaceRepository implements MarketplaceRepository {
  constructor(private readonly table: string) {}

  claimWrite(saasId: string, tenantId: string, link: MarketplaceLink): AtomicWrite {
    const customer = keys.marketplaceCustomer(saasId, link.customer_identifier);
    const freeOrOurs: Condition = {
      expression: 'attribute_not_exists(#pk) OR #tenant = :tenant',
      names: { '#pk': 'pk', '#tenant': 'tenant_id' },
      values: { ':tenant': tenantId },
    };
    const tenantSide = { ...keys.tenantMarketplaceLink(saasId, tenantId), entity: ENTITY.tenantMarketplaceLink, v: 1, ...link, mirror: customer };
    return atomicWrite(
      part(MARKETPLACE_RULE.customerFree, {
        Put: {
          TableName: this.table,
          Item: { ...customer, entity: ENTITY.marketplaceCustomer, v: 1, tenant_id: tenantId, ...link },
          ...conditionInput(freeOrOurs),
        },
      }),
      // Unconditional, so it never refuses: the same customer linking the same tenant again rewrites it as it was.
      part(MARKETPLACE_RULE.customerFree, { Put: { TableName: this.table, Item: tenantSide } }),
    );
  }

  linkExistingWrite(saasId: string, tenantId: string, userId: string, link: MarketplaceLink): AtomicWrite {
    const unlinkedOrOurs: Condition = {
      expression: '(attribute_not_exists(#marketplace) OR #marketplace.#customer = :customer)',
      names: { '#marketplace': 'marketplace', '#customer': 'customer_identifier' },
      values: { ':customer': link.customer_identifier },
    };
    const change = new Update().set('marketplace', link);
    return atomicWrite(
      update(this.table, keys.tenant(saasId, tenantId), change, both(LIVE, unlinkedOrOurs), MARKETPLACE_RULE.tenantUnlinked),
      check(this.table, keys.membership(saasId, tenantId, userId), EXISTS, RULE.member),
      ...this.claimWrite(saasId, tenantId, link).parts,
    );
  }
}
