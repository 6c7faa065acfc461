import { BatchGetCommand, BatchWriteCommand, type DynamoClient } from './dynamo-client.js';
import type { ItemKey } from './keys.js';

const WRITE_LIMIT = 25;
const GET_LIMIT = 100;
const MAX_ROUNDS = 8;

type WriteRequest = { DeleteRequest: { Key: ItemKey } } | { PutRequest: { Item: Record<string, unknown> } };

/** Repeats `send` with what DynamoDB hands back unprocessed, with backoff, until nothing is left. */
async function untilProcessed<T>(first: T[], send: (batch: T[]) => Promise<T[]>, what: string): Promise<void> {
  let pending = first;
  for (let round = 0; pending.length > 0; round++) {
    if (round === MAX_ROUNDS) throw new Error(`batch ${what} left ${pending.length} items unprocessed`);
    if (round > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
    pending = await send(pending);
  }
}

/** Batches sent at once: a long list (10 000 counts) is written in a second or two, not in one long row. */
const WRITES_AT_ONCE = 4;

async function batchWrite(db: DynamoClient, table: string, requests: WriteRequest[]): Promise<void> {
  const batches: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += WRITE_LIMIT) batches.push(requests.slice(i, i + WRITE_LIMIT));
  const send = async (batch: WriteRequest[]) => {
    const out = await db.send(new BatchWriteCommand({ RequestItems: { [table]: batch } }));
    return (out.UnprocessedItems?.[table] ?? []) as WriteRequest[];
  };
  for (let i = 0; i < batches.length; i += WRITES_AT_ONCE) {
    await Promise.all(batches.slice(i, i + WRITES_AT_ONCE).map((batch) => untilProcessed(batch, send, 'write')));
  }
}

/** Deletes the keys in batches of 25, retrying what DynamoDB hands back unprocessed, with backoff. */
function batchDelete(db: DynamoClient, table: string, keys: ItemKey[]): Promise<void> {
  return batchWrite(
    db,
    table,
    keys.map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } })),
  );
}

/**
 * Deletes the items and the item each names as its `mirror` (the other side of a pair kept in two
 * partitions, such as a membership's tenant and user sides): how a tenant or a user empties its partition.
 */
export function batchDeleteWithMirrors(db: DynamoClient, table: string, items: Record<string, unknown>[]): Promise<void> {
  return batchDelete(
    db,
    table,
    items.flatMap((item) => [{ pk: item.pk as string, sk: item.sk as string }, ...(item.mirror ? [item.mirror as ItemKey] : [])]),
  );
}

/** Puts the items in batches of 25 (no conditions: for items whose last writer may win). */
export function batchPut(db: DynamoClient, table: string, items: Record<string, unknown>[]): Promise<void> {
  return batchWrite(
    db,
    table,
    items.map((item) => ({ PutRequest: { Item: item } })),
  );
}

/** The items that exist among the keys, strongly consistent, in no particular order. */
export async function batchGet(db: DynamoClient, table: string, keys: ItemKey[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i += GET_LIMIT) {
    await untilProcessed(
      keys.slice(i, i + GET_LIMIT).map((key) => ({ pk: key.pk, sk: key.sk })),
      async (batch) => {
        const out = await db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: batch, ConsistentRead: true } } }));
        found.push(...(out.Responses?.[table] ?? []));
        return (out.UnprocessedKeys?.[table]?.Keys ?? []) as ItemKey[];
      },
      'get',
    );
  }
  return found;
}
