import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from './keys.js';

const BATCH_LIMIT = 25;
const MAX_ROUNDS = 8;

/** Deletes the keys in batches of 25, retrying what DynamoDB hands back unprocessed, with backoff. */
export async function batchDelete(db: DynamoDBDocumentClient, table: string, keys: ItemKey[]): Promise<void> {
  for (let i = 0; i < keys.length; i += BATCH_LIMIT) {
    let requests = keys.slice(i, i + BATCH_LIMIT).map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round === MAX_ROUNDS) throw new Error(`batch delete left ${requests.length} items unprocessed`);
      if (round > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
}
