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
