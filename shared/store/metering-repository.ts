import { randomBytes } from 'node:crypto';
import { BatchGetCommand, TransactWriteCommand, UpdateCommand, type DynamoClient, type TransactItem } from './dynamo-client.js';
import { monthOf, type MeteringRepository, type ShardCaps, type ShardCount, type TimestampCount } from '../domain/pricing/metering.js';
import { ENTITY, pricingKeys } from './keys.js';
import { partitionQuery, queryPages } from './query.js';
import { ConditionalCheckFailedException, TransactionCanceledException } from './dynamo-client.js';

type Item = Record<string, unknown>;

const CONFLICT_ATTEMPTS = 6;

/**
 * A count change's mark: the attribute `w_<process>_<slot>` set to a number this process never uses twice. The
 * store client tries a write again when an attempt times out or fails on the way back (shared/adapters/aws/
 * json-service.ts), and an ADD applied by the first attempt would be applied again by the second: under load,
 * 100 parallel adds of 1 once gave 101. Each change therefore writes its mark, only where the item does not hold
 * it yet; an attempt refused because the item holds its own mark was the change applied before, and counts as
 * done. A slot is held by one change at a time through all its attempts, so no other change of this process
 * overwrites the mark meanwhile, and another process has slots of its own: an item gains one small attribute
 * per slot that ever changed it (a Lambda instance runs one request at a time: one slot). A `direct` and a fold
 * rewrite the item without the marks: a change applied before one and tried again after it adds again.
 */
interface Mark {
  name: string;
  value: number;
}

const PROCESS = randomBytes(6).toString('hex');
let lastMark = 0;
const freeSlots: number[] = [];
let slots = 0;

/** Runs one count change under a mark of its own. */
async function marked<T>(change: (mark: Mark) => Promise<T>): Promise<T> {
  const slot = freeSlots.pop() ?? slots++;
  try {
    return await change({ name: `w_${PROCESS}_${slot}`, value: ++lastMark });
  } finally {
    freeSlots.push(slot);
  }
}

/** The parts of an update that write the mark and hold only while the item does not have it yet. */
const markParts = (mark: Mark) => ({
  set: '#mark = :mark',
  condition: '(attribute_not_exists(#mark) OR #mark <> :mark)',
  names: { '#mark': mark.name },
  values: { ':mark': mark.value },
});

/** Whether an item a refusal handed back holds the mark: the change was applied by an earlier attempt. */
const holdsMark = (item: Item | undefined, mark: Mark) => item?.[mark.name] === mark.value;

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

  addHome(saasId: string, tenantId: string, unit: string, timestamp: number, delta: number, caps: ShardCaps) {
    const meta = this.meta(unit, timestamp, 0);
    const answer = (item: Item | undefined) => ({ count: Number(item?.c ?? 0), spread: item?.spread === true });
    return marked(async (mark) => {
      const once = markParts(mark);
      try {
        const out = await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: this.key(saasId, tenantId, unit, timestamp, 0),
            UpdateExpression: `${DynamoMeteringRepository.META}, ${once.set} ADD #c :delta`,
            // Alone, the home shard holds the whole count; spread, it holds at most its part (caps.home).
            ConditionExpression: `${once.condition} AND ((attribute_not_exists(#spread) AND (attribute_not_exists(#c) OR #c <= :alone)) OR (#spread = :true AND #c <= :spread))`,
            ExpressionAttributeNames: { ...meta.names, ...once.names, '#spread': 'spread' },
            ExpressionAttributeValues: {
              ...meta.values,
              ...once.values,
              ':delta': delta,
              ':alone': caps.whole - delta,
              ':spread': caps.home - delta,
              ':true': true,
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return answer(out.Attributes);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // Applied by an earlier attempt: the item as it is now holds the change (and maybe later ones).
        return holdsMark(error.Item, mark) ? answer(error.Item) : undefined;
      }
    });
  }

  /**
   * A plain conditional ADD while the shard holds its grant; the first write after the shard was emptied
   * is a transaction that marks the home shard spread (only while it holds no more than its part) and
   * grants the shard. A `direct`, a delete or a fold deletes the other shards, and their grants with them.
   */
  add(saasId: string, tenantId: string, unit: string, timestamp: number, shard: number, delta: number, caps: ShardCaps): Promise<boolean> {
    return marked((mark) => this.addMarked(saasId, tenantId, unit, timestamp, shard, delta, caps, mark));
  }

  private async addMarked(
    saasId: string,
    tenantId: string,
    unit: string,
    timestamp: number,
    shard: number,
    delta: number,
    caps: ShardCaps,
    mark: Mark,
  ): Promise<boolean> {
    const meta = this.meta(unit, timestamp, shard);
    const once = markParts(mark);
    const update = {
      TableName: this.table,
      Key: this.key(saasId, tenantId, unit, timestamp, shard),
      ExpressionAttributeNames: { ...meta.names, ...once.names, '#granted': 'granted' },
      ExpressionAttributeValues: { ...meta.values, ...once.values, ':delta': delta, ':room': caps.shard - delta },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
    const granted = await this.appliedOnce(
      new UpdateCommand({
        ...update,
        UpdateExpression: `${DynamoMeteringRepository.META}, ${once.set} ADD #c :delta`,
        ConditionExpression: `${once.condition} AND attribute_exists(#granted) AND #c <= :room`,
      }),
      mark,
    );
    if (granted || delta > caps.shard) return granted;
    const home = this.meta(unit, timestamp, 0);
    return this.transact(
      [
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
            UpdateExpression: `${DynamoMeteringRepository.META}, ${once.set}, #granted = :true ADD #c :delta`,
            ConditionExpression: `${once.condition} AND (attribute_not_exists(#c) OR #c <= :room)`,
            ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':true': true },
          },
        },
      ],
      mark,
    );
  }

  /** One marked update: true when applied, now or by an earlier attempt; false when its condition refused it. */
  private async appliedOnce(command: UpdateCommand, mark: Mark): Promise<boolean> {
    try {
      await this.db.send(command);
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return holdsMark(error.Item, mark);
    }
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

  take(saasId: string, tenantId: string, unit: string, timestamp: number, takes: ShardCount[]): Promise<boolean> {
    return marked((mark) => {
      const once = markParts(mark);
      const requests = takes.map(({ shard, count }) => ({
        TableName: this.table,
        Key: this.key(saasId, tenantId, unit, timestamp, shard),
        UpdateExpression: `SET ${once.set} ADD #c :minus`,
        ConditionExpression: `${once.condition} AND #c >= :take`,
        ExpressionAttributeNames: { ...once.names, '#c': 'c' },
        ExpressionAttributeValues: { ...once.values, ':minus': -count, ':take': count },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      }));
      const [only] = requests;
      if (requests.length === 1 && only) return this.appliedOnce(new UpdateCommand(only), mark);
      return this.transact(
        requests.map((Update) => ({ Update })),
        mark,
      );
    });
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

  /**
   * One transaction (a single item needs none); false when a condition failed, unless an item it handed back holds
   * the mark (an earlier attempt committed it: a transaction is all or nothing); retried while another holds an item.
   */
  private async transact(items: TransactItem[], mark?: Mark): Promise<boolean> {
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
        if (mark && reasons.some((r) => holdsMark(r.Item, mark))) return true;
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
