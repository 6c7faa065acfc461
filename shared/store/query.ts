import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Every item of one partition whose sort key starts with a prefix ('' for all of it), across pages. */
export async function queryAll(
  db: DynamoDBDocumentClient,
  table: string,
  where: { pk: string; skPrefix: string },
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: table,
        ...(where.skPrefix
          ? {
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
              ExpressionAttributeValues: { ':pk': where.pk, ':prefix': where.skPrefix },
            }
          : { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': where.pk } }),
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Every item of one gsi1 partition, optionally only up to a sort key (inclusive), across pages. */
export async function queryIndexAll(
  db: DynamoDBDocumentClient,
  table: string,
  where: { gsi1pk: string; gsi1skUpTo?: string },
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'gsi1',
        KeyConditionExpression: where.gsi1skUpTo === undefined ? 'gsi1pk = :pk' : 'gsi1pk = :pk AND gsi1sk <= :upTo',
        ExpressionAttributeValues: { ':pk': where.gsi1pk, ...(where.gsi1skUpTo === undefined ? {} : { ':upTo': where.gsi1skUpTo }) },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}
