import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

/**
 * The pages of one query, in order, following LastEvaluatedKey (from the input's ExclusiveStartKey when it
 * has one): every paged read of the store goes here.
 */
export async function* queryPages(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
): AsyncGenerator<Record<string, unknown>[]> {
  let start: Record<string, unknown> | undefined = input.ExclusiveStartKey;
  do {
    const out = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    yield out.Items ?? [];
    start = out.LastEvaluatedKey;
  } while (start);
}

async function collect(pages: AsyncGenerator<Record<string, unknown>[]>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of pages) items.push(...page);
  return items;
}

/** The key condition of one partition whose sort key starts with a prefix ('' for all of it). */
export function partitionQuery(table: string, where: { pk: string; skPrefix: string }): QueryCommandInput {
  return where.skPrefix
    ? {
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': where.pk, ':prefix': where.skPrefix },
      }
    : { TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': where.pk } };
}

/** Every item of one partition whose sort key starts with a prefix ('' for all of it). */
export function queryAll(db: DynamoDBDocumentClient, table: string, where: { pk: string; skPrefix: string }): Promise<Record<string, unknown>[]> {
  return collect(queryPages(db, partitionQuery(table, where)));
}

/** Every item of one gsi1 partition, optionally only up to a sort key (inclusive). */
export function queryIndexAll(
  db: DynamoDBDocumentClient,
  table: string,
  where: { gsi1pk: string; gsi1skUpTo?: string },
): Promise<Record<string, unknown>[]> {
  const upTo = where.gsi1skUpTo;
  return collect(
    queryPages(db, {
      TableName: table,
      IndexName: 'gsi1',
      KeyConditionExpression: upTo === undefined ? 'gsi1pk = :pk' : 'gsi1pk = :pk AND gsi1sk <= :upTo',
      ExpressionAttributeValues: { ':pk': where.gsi1pk, ...(upTo === undefined ? {} : { ':upTo': upTo }) },
    }),
  );
}
