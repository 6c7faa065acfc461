import { BatchGetCommand, TransactWriteCommand, UpdateCommand, type DynamoClient, type TransactItem } from './dynamo-client.js';
import { monthOf, type MeteringRepository, type ShardCaps, type ShardCount, type TimestampCount } from '../domain/pricing/metering.js';
import { unlessConditionFails } from './conditional.js';
import { ENTITY, pricingKeys } from './keys.js';
import { partitionQuery, queryPages } from './query.js';
import { ConditionalCheckFailedException, TransactionCanceledException } from './dynamo-client.js';

const CONFLICT_ATTEMPTS = 6;

/**
 * Metering counts (keys.ts, pricingKeys.meteringCount): `c` holds a shard's count, changed only by atomic
 * ADDs and conditional writes. Every request names one month's partition of one tenant.
 */
export class DynamoMeteringRepository implements MeteringRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  private key(saasId: string, tenantId: string, unit: string, timestamp: number, shard: number) {
    return pricingKeys.meteringCount(saasId, tenantId, monthOf(timestamp), unit, timestamp, shard);
  }

  /** The attributes a count item carries beside `c`, set on its first write. */
  private static readonly META = 'SET #entity = :entity, #unit = :unit, #ts = :ts, #shard = :shard';
  private meta(unit: string, timestamp: number, shard: number) {
    return {
      names: { '#entity': 'entity', '#unit': 'unit', '#ts': 'ts', '#shard': 'shard', '#c': 'c' },
      values: { ':entity': ENTITY.meteringCount, ':unit': unit, ':ts': timestamp, ':shard': shard },
    };
  }

  async addHome(saasId: string, tenantId: string, unit: string, timestamp: number, delta: number, caps: ShardCaps) {
    const meta = this.meta(unit, timestamp, 0);
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(saasId, tenantId, unit, timestamp, 0),
          UpdateExpression: `${DynamoMeteringRepository.META} ADD #c :delta`,
          // Alone, the home shard holds the whole count; spread, it holds at most its part (caps.home).
          ConditionExpression:
            '(attribute_not_exists(#spread) AND (attribute_not_exists(#c) OR #c <= :alone)) OR (#spread = :true AND #c <= :spread)',
          ExpressionAttributeNames: { ...meta.names, '#spread': 'spread' },
          ExpressionAttributeValues: { ...meta.values, ':delta': delta, ':alone': caps.whole - delta, ':spread': caps.home - delta, ':true': true },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { count: Number(out.Attributes?.c ?? 0), spread: out.Attributes?.spread === true };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /**
   * A plain conditional ADD while the shard holds its grant; the first write after the shard was emptied
   * is a transaction that marks the home shard spread (only while it holds no more than its part) and
   * grants the shard. A `direct`, a delete or a fold deletes the other shards, and their grants with them.
   */
  async add(saasId: string, tenantId: string, unit: string, timestamp: number, shard: number, delta: number, caps: ShardCaps): Promise<boolean> {
    const meta = this.meta(unit, timestamp, shard);
    const update = {
      TableName: this.table,
      Key: this.key(saasId, tenantId, unit, timestamp, shard),
      ExpressionAttributeNames: { ...meta.names, '#granted': 'granted' },
      ExpressionAttributeValues: { ...meta.values, ':delta': delta, ':room': caps.shard - delta },
    };
    const granted = await unlessConditionFails(() =>
      this.db.send(
        new UpdateCommand({
          ...update,
          UpdateExpression: `${DynamoMeteringRepository.META} ADD #c :delta`,
          ConditionExpression: 'attribute_exists(#granted) AND #c <= :room',
        }),
      ),
    );
    if (granted || delta > caps.shard) return granted;
    const home = this.meta(unit, timestamp, 0);
    return this.transact([
      {
        Update: {
          TableName: this.table,
          Key: this.key(saasId, tenantId, unit, timestamp, 0),
          UpdateExpression: `${DynamoMeteringRepository.META}, #spread = :true ADD #c :zero`,
          ConditionExpression: 'attribute_not_exists(#c) OR #c <= :home',
          ExpressionAttributeNames: { ...home.names, '#spread': 'spread' },
          ExpressionAttributeValues: { ...home.values, ':true': true, ':zero': 0, ':home': caps.home },
        },
      },
      {
        Update: {
          ...update,
          UpdateExpression: `${DynamoMeteringRepository.META}, #granted = :true ADD #c :delta`,
          ConditionExpression: 'attribute_not_exists(#c) OR #c <= :room',
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':true': true },
        },
      },
    ]);
  }

  async shards(saasId: string, tenantId: string, unit: string, timestamp: number, shards: number): Promise<ShardCount[]> {
    const keys = Array.from({ length: shards }, (_, shard) => this.key(saasId, tenantId, unit, timestamp, shard));
    const out = await this.db.send(
      new BatchGetCommand({
        RequestItems: {
          [this.table]: {
            Keys: keys,
            ConsistentRead: true,
            ProjectionExpression: '#shard, #c',
            ExpressionAttributeNames: { '#shard': 'shard', '#c': 'c' },
          },
        },
      }),
    );
    if (Object.keys(out.UnprocessedKeys ?? {}).length > 0) throw new Error('metering: the store left shard reads unprocessed');
    return (out.Responses?.[this.table] ?? []).map((item) => ({ shard: Number(item.shard), count: Number(item.c ?? 0) }));
  }

  async take(saasId: string, tenantId: string, unit: string, timestamp: number, takes: ShardCount[]): Promise<boolean> {
    const requests = takes.map(({ shard, count }) => ({
      TableName: this.table,
      Key: this.key(saasId, tenantId, unit, timestamp, shard),
      UpdateExpression: 'ADD #c :minus',
      ConditionExpression: '#c >= :take',
      ExpressionAttributeNames: { '#c': 'c' },
      ExpressionAttributeValues: { ':minus': -count, ':take': count },
    }));
    const [only] = requests;
    if (requests.length === 1 && only) return unlessConditionFails(() => this.db.send(new UpdateCommand(only)));
    return this.transact(requests.map((Update) => ({ Update })));
  }

  async set(saasId: string, tenantId: string, unit: string, timestamp: number, count: number, shards: number): Promise<void> {
    const items: TransactItem[] = [
      {
        Put: {
          TableName: this.table,
          Item: {
            ...this.key(saasId, tenantId, unit, timestamp, 0),
            entity: ENTITY.meteringCount,
            unit,
            ts: timestamp,
            shard: 0,
            c: count,
          },
        },
      },
      ...Array.from({ length: shards - 1 }, (_, i) => ({
        Delete: { TableName: this.table, Key: this.key(saasId, tenantId, unit, timestamp, i + 1) },
      })),
    ];
    if (!(await this.transact(items))) throw new Error('metering: an unconditional write was refused');
  }

  async fold(saasId: string, tenantId: string, unit: string, timestamp: number, held: ShardCount[], count: number, shards: number): Promise<boolean> {
    const at = (shard: number) => held.find((h) => h.shard === shard);
    // Each shard as it was read, or still absent: a change in between cancels the fold.
    const unchanged = (shard: number) => {
      const read = at(shard);
      return read
        ? { ConditionExpression: '#c = :read', ExpressionAttributeNames: { '#c': 'c' }, ExpressionAttributeValues: { ':read': read.count } }
        : { ConditionExpression: 'attribute_not_exists(pk)' };
    };
    const items: TransactItem[] = [
      {
        Put: {
          TableName: this.table,
          Item: { ...this.key(saasId, tenantId, unit, timestamp, 0), entity: ENTITY.meteringCount, unit, ts: timestamp, shard: 0, c: count },
          ...unchanged(0),
        },
      },
      ...Array.from({ length: shards - 1 }, (_, i) => ({
        Delete: { TableName: this.table, Key: this.key(saasId, tenantId, unit, timestamp, i + 1), ...unchanged(i + 1) },
      })),
    ];
    return this.transact(items);
  }

  async remove(saasId: string, tenantId: string, unit: string, timestamp: number, shards: number): Promise<void> {
    const items = Array.from({ length: shards }, (_, shard) => ({
      Delete: { TableName: this.table, Key: this.key(saasId, tenantId, unit, timestamp, shard) },
    }));
    if (!(await this.transact(items))) throw new Error('metering: an unconditional delete was refused');
  }

  /** One transaction (a single item needs none); false when a condition failed; retried while another holds an item. */
  private async transact(items: TransactItem[]): Promise<boolean> {
    const [only] = items;
    if (items.length === 1 && only && !only.Update) {
      await this.db.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: items }));
        return true;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) return false;
        if (!reasons.some((r) => r.Code === 'TransactionConflict') || attempt === CONFLICT_ATTEMPTS) throw error;
        await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
      }
    }
  }

  async month(saasId: string, tenantId: string, month: string, only?: { unit: string; from: number; to: number }): Promise<TimestampCount[]> {
    const base = partitionQuery(
      this.table,
      only ? pricingKeys.meteringUnitMonth(saasId, tenantId, month, only.unit) : pricingKeys.meteringMonth(saasId, tenantId, month),
    );
    const input = {
      ...base,
      ConsistentRead: true,
      ProjectionExpression: '#unit, #ts, #c',
      ExpressionAttributeNames: { '#unit': 'unit', '#ts': 'ts', '#c': 'c' },
      ...(only
        ? {
            FilterExpression: '#ts BETWEEN :from AND :to',
            ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':from': only.from, ':to': only.to },
          }
        : {}),
    };
    // Shards of one timestamp summed; a count emptied by sub (0) still is a count at that timestamp.
    const totals = new Map<string, TimestampCount>();
    for await (const page of queryPages(this.db, input)) {
      for (const item of page) {
        const unit = String(item.unit);
        const timestamp = Number(item.ts);
        const key = `${unit}\n${timestamp}`;
        const entry = totals.get(key) ?? { unit, timestamp, count: 0 };
        entry.count += Number(item.c ?? 0);
        totals.set(key, entry);
      }
    }
    return [...totals.values()];
  }
}
