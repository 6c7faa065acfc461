import type { ApiLogRecord, ApiLogRepository } from '../domain/apilog/api-log.js';
import type { OrderedSource, Positioned } from '../domain/paging.js';
import type { StoredEvent } from '../domain/integration/kept-events.js';
import { batchPut } from './batch.js';
import { eventItem } from './event-repository.js';
import { BatchGetCommand, PutCommand, type DynamoClient } from './dynamo-client.js';
import { apiLogKeys, ENTITY, TTL_ATTRIBUTE } from './keys.js';
import { queryPages } from './query.js';

/** Items per query page of one shard: a page of the list merges several shards and reads only what it needs. */
const SHARD_PAGE_ITEMS = 25;

function toRecord(item: Record<string, unknown>): ApiLogRecord {
  return {
    id: String(item.id),
    saasId: String(item.saas_id),
    at: Number(item.at),
    method: String(item.method),
    uri: String(item.uri),
    status: Number(item.status),
    apiKey: String(item.api_key),
    requestId: String(item.request_id),
    sourceIp: String(item.source_ip),
    referer: String(item.referer ?? ''),
    latencyMs: Number(item.latency_ms),
    expiresAt: Number(item[TTL_ATTRIBUTE]),
  };
}

/** The API log (keys.ts, apiLogKeys): `shards` write shards per SaaS; raise it, never lower it. */
export class DynamoApiLogRepository implements ApiLogRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
    private readonly shards: number,
  ) {}

  async put(record: ApiLogRecord): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: this.itemOf(record) }));
  }

  async putMany(records: readonly ApiLogRecord[], events: readonly StoredEvent[] = []): Promise<void> {
    await batchPut(this.db, this.table, [...records.map((record) => this.itemOf(record)), ...events.map(eventItem)]);
  }

  /**
   * The record's shard follows from its id (the UUIDv7's last, random, 32 bits), so a record written twice (a log
   * batch delivered again) lands on the same item, while a SaaS's records still spread evenly over the shards.
   */
  private itemOf(record: ApiLogRecord): Record<string, unknown> {
    const shard = parseInt(record.id.slice(-8), 16) % this.shards;
    return {
      ...apiLogKeys.record(record.saasId, shard, record.at, record.id),
      entity: ENTITY.apiLog,
      v: 1,
      id: record.id,
      saas_id: record.saasId,
      at: record.at,
      method: record.method,
      uri: record.uri,
      status: record.status,
      api_key: record.apiKey,
      request_id: record.requestId,
      source_ip: record.sourceIp,
      referer: record.referer,
      latency_ms: record.latencyMs,
      [TTL_ATTRIBUTE]: record.expiresAt,
    };
  }

  async get(saasId: string, id: string, at: number): Promise<ApiLogRecord | undefined> {
    const keys = Array.from({ length: this.shards }, (_, shard) => apiLogKeys.record(saasId, shard, at, id));
    const out = await this.db.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }));
    if (Object.keys(out.UnprocessedKeys ?? {}).length > 0) throw new Error('api log: the store left reads unprocessed');
    const [item] = out.Responses?.[this.table] ?? [];
    return item ? toRecord(item) : undefined;
  }

  between(saasId: string, from: number, to: number): OrderedSource<ApiLogRecord> {
    const { low, high } = apiLogKeys.range(from, to);
    const shardReads = (after: string | undefined) =>
      Array.from({ length: this.shards }, (_, shard) =>
        this.shardRead(apiLogKeys.shard(saasId, shard), low, after !== undefined && after < high ? after : high)[Symbol.asyncIterator](),
      );
    return {
      accepts: (position) => apiLogKeys.isPosition(position) && position >= low && position <= high,
      read: (after) => mergeNewestFirst(shardReads(after), after),
    };
  }

  private async *shardRead(pk: string, low: string, high: string): AsyncGenerator<Positioned<ApiLogRecord>> {
    const pages = queryPages(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
      ExpressionAttributeValues: { ':pk': pk, ':low': low, ':high': high },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: SHARD_PAGE_ITEMS,
    });
    for await (const page of pages) for (const item of page) yield { position: String(item.sk), item: toRecord(item) };
  }
}

/** The shards' items as one list, by sort key descending; `after` itself (the cursor's item) is skipped. */
async function* mergeNewestFirst(
  shards: AsyncIterator<Positioned<ApiLogRecord>>[],
  after: string | undefined,
): AsyncGenerator<Positioned<ApiLogRecord>> {
  const heads = await Promise.all(shards.map((shard) => shard.next()));
  for (;;) {
    let best = -1;
    heads.forEach((head, i) => {
      if (head.done) return;
      const current = heads[best];
      if (best < 0 || (current && !current.done && head.value.position > current.value.position)) best = i;
    });
    if (best < 0) return;
    const chosen = heads[best] as IteratorYieldResult<Positioned<ApiLogRecord>>;
    heads[best] = await (shards[best] as AsyncIterator<Positioned<ApiLogRecord>>).next();
    if (after !== undefined && chosen.value.position >= after) continue;
    yield chosen.value;
  }
}
