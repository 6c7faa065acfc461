import { GetCommand, type DynamoClient } from './dynamo-client.js';
import type { Catalogue, CatalogueKind, CatalogueRepository, CatalogueWrite, MeterRecord } from '../domain/pricing/catalogue-records.js';
import { batchDeleteWithMirrors } from './batch.js';
import { ENTITY, pricingKeys, withoutKeys, type ItemKey } from './keys.js';
import { queryAll } from './query.js';
import { Recent } from './recent.js';
import { DynamoCommitter, part, type Condition } from './transact.js';
import type { WritePart } from '../domain/atomic.js';

const ENTITY_OF: Record<CatalogueKind, string> = {
  unit: ENTITY.pricingUnit,
  meter: ENTITY.meteringUnit,
  menu: ENTITY.pricingMenu,
  plan: ENTITY.pricingPlan,
  taxRate: ENTITY.taxRate,
};

/** Metering units this instance read by name (recent.ts): the metering hot path's one catalogue read. */
const recentMeters = new Recent<MeterRecord | undefined>();

const AT_REV = (rev: number): Condition => ({ expression: '#rev = :rev', names: { '#rev': 'rev' }, values: { ':rev': rev } });

/** The pricing catalogue: one partition per SaaS (keys.ts), every change conditional on the revisions read. */
export class DynamoCatalogueRepository implements CatalogueRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
    private readonly options: { meterCacheSeconds?: number } = {},
  ) {}

  private key(saasId: string, kind: CatalogueKind, record: { id: string; unit_name?: string }): ItemKey {
    return pricingKeys.catalogueItem(saasId, kind, kind === 'meter' ? (record.unit_name as string) : record.id);
  }

  async read(saasId: string): Promise<Catalogue> {
    const catalogue: Catalogue = { units: [], meters: [], menus: [], plans: [], taxRates: [] };
    for (const item of await queryAll(this.db, this.table, pricingKeys.catalogue(saasId))) {
      const kind = pricingKeys.kindOfSortKey(String(item.sk));
      const record = withoutKeys<never>(item);
      if (kind === 'unit') catalogue.units.push(record);
      else if (kind === 'meter') catalogue.meters.push(record);
      else if (kind === 'menu') catalogue.menus.push(record);
      else if (kind === 'plan') catalogue.plans.push(record);
      else if (kind === 'taxRate') catalogue.taxRates.push(record);
    }
    return catalogue;
  }

  private parts(saasId: string, write: CatalogueWrite): WritePart[] {
    const key = this.key(saasId, write.kind, write.record as { id: string; unit_name?: string });
    const item = (rev: number) => ({ ...key, entity: ENTITY_OF[write.kind], v: 1, ...write.record, rev });
    const rule = `${write.kind}:${write.record.id}`;
    const atRev = (rev: number) => ({
      ConditionExpression: AT_REV(rev).expression,
      ExpressionAttributeNames: AT_REV(rev).names,
      ExpressionAttributeValues: AT_REV(rev).values,
    });
    switch (write.op) {
      case 'create':
        return [part(rule, { Put: { TableName: this.table, Item: item(0), ConditionExpression: 'attribute_not_exists(pk)' } })];
      case 'remove':
        return [part(rule, { Delete: { TableName: this.table, Key: key, ...atRev(write.fromRev) } })];
      case 'bump':
        return [
          part(rule, {
            Update: {
              TableName: this.table,
              Key: key,
              UpdateExpression: write.markUsed ? 'SET #rev = :next, #used = :true' : 'SET #rev = :next',
              ConditionExpression: '#rev = :rev',
              ExpressionAttributeNames: { '#rev': 'rev', ...(write.markUsed ? { '#used': 'used' } : {}) },
              ExpressionAttributeValues: { ':rev': write.fromRev, ':next': write.fromRev + 1, ...(write.markUsed ? { ':true': true } : {}) },
            },
          }),
        ];
      case 'replace':
        if (write.previousKey !== undefined) {
          // A metering unit renamed: its item moves to the new name's key, which must be free.
          const old = pricingKeys.catalogueItem(saasId, 'meter', write.previousKey);
          return [
            part(rule, { Delete: { TableName: this.table, Key: old, ...atRev(write.fromRev) } }),
            part(rule, { Put: { TableName: this.table, Item: item(write.fromRev + 1), ConditionExpression: 'attribute_not_exists(pk)' } }),
          ];
        }
        return [part(rule, { Put: { TableName: this.table, Item: item(write.fromRev + 1), ...atRev(write.fromRev) } })];
    }
  }

  async commit(saasId: string, writes: CatalogueWrite[]): Promise<boolean> {
    const outcome = await new DynamoCommitter(this.db).commit({ parts: writes.flatMap((w) => this.parts(saasId, w)) });
    for (const write of writes) {
      if (write.kind !== 'meter') continue;
      recentMeters.forget(`${saasId}\n${(write.record as MeterRecord).unit_name}`);
      if (write.op === 'replace' && write.previousKey) recentMeters.forget(`${saasId}\n${write.previousKey}`);
    }
    return outcome.committed;
  }

  async clear(saasId: string): Promise<number> {
    const items = await queryAll(this.db, this.table, pricingKeys.catalogue(saasId));
    await batchDeleteWithMirrors(this.db, this.table, items);
    return items.length;
  }

  meterByName(saasId: string, unitName: string): Promise<MeterRecord | undefined> {
    return recentMeters.get(`${saasId}\n${unitName}`, this.options.meterCacheSeconds ?? 0, async () => {
      const out = await this.db.send(
        new GetCommand({ TableName: this.table, Key: pricingKeys.catalogueItem(saasId, 'meter', unitName), ConsistentRead: true }),
      );
      return out.Item ? withoutKeys<MeterRecord>(out.Item) : undefined;
    });
  }
}
