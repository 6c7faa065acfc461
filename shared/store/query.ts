import { QueryCommand, type DynamoClient, type QueryInput, type QueryOutput } from './dynamo-client.js';
import { INDEX_NAME } from './keys.js';

/** The raw answers of one query, following LastEvaluatedKey (from the input's ExclusiveStartKey when it has one). */
async function* queryOutputs(db: DynamoClient, input: QueryInput): AsyncGenerator<QueryOutput> {
  let start: Record<string, unknown> | undefined = input.ExclusiveStartKey;
  do {
    const out = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    yield out;
    start = out.LastEvaluatedKey;
  } while (start);
}

/** The pages of one query, in order: every paged read of the store goes here. */
export async function* queryPages(db: DynamoClient, input: QueryInput): AsyncGenerator<Record<string, unknown>[]> {
  for await (const out of queryOutputs(db, input)) yield out.Items ?? [];
}

/** The first `max` items of one query, in order, reading no page past them. */
export async function queryFirst(db: DynamoClient, input: QueryInput, max: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined = input.ExclusiveStartKey;
  while (items.length < max) {
    const out = await db.send(new QueryCommand({ ...input, Limit: max - items.length, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
    if (!start) break;
  }
  return items;
}

export async function collect(pages: AsyncGenerator<Record<string, unknown>[]>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of pages) items.push(...page);
  return items;
}

/** The key condition of one partition whose sort key starts with a prefix ('' for all of it). */
export function partitionQuery(table: string, where: { pk: string; skPrefix: string }): QueryInput {
  return where.skPrefix
    ? {
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': where.pk, ':prefix': where.skPrefix },
      }
    : { TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': where.pk } };
}

/** Every item of one partition whose sort key starts with a prefix ('' for all of it). */
export function queryAll(db: DynamoClient, table: string, where: { pk: string; skPrefix: string }): Promise<Record<string, unknown>[]> {
  return collect(queryPages(db, partitionQuery(table, where)));
}

/** The key condition of one gsi1 partition, optionally only up to a sort key (inclusive) or with a sort key prefix. */
export function indexQuery(table: string, where: { gsi1pk: string; gsi1skUpTo?: string; gsi1skPrefix?: string }): QueryInput {
  const { gsi1pk, gsi1skUpTo: upTo, gsi1skPrefix: prefix } = where;
  const index = { TableName: table, IndexName: INDEX_NAME };
  if (upTo !== undefined) {
    return { ...index, KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :upTo', ExpressionAttributeValues: { ':pk': gsi1pk, ':upTo': upTo } };
  }
  if (prefix) {
    return {
      ...index,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':prefix': prefix },
    };
  }
  return { ...index, KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': gsi1pk } };
}

/** Every item of one gsi1 partition, optionally only up to a sort key (inclusive). */
export function queryIndexAll(db: DynamoClient, table: string, where: { gsi1pk: string; gsi1skUpTo?: string }): Promise<Record<string, unknown>[]> {
  return collect(queryPages(db, indexQuery(table, where)));
}

/** How many items one gsi1 partition holds, counted by DynamoDB without returning them. */
export async function countIndex(db: DynamoClient, table: string, where: { gsi1pk: string }): Promise<number> {
  let count = 0;
  for await (const out of queryOutputs(db, { ...indexQuery(table, where), Select: 'COUNT' })) count += out.Count ?? 0;
  return count;
}
