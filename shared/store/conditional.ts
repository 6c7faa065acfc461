/** Single-item writes guarded by a condition, answering what happened instead of throwing. */
import { ConditionalCheckFailedException, DeleteCommand, PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import type { ItemKey } from './keys.js';

/** Runs a conditional write; false when its condition failed. */
export async function unlessConditionFails(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Writes the item unless one with its key exists: the uniqueness rule and the write are one request. */
export async function putIfAbsent(db: DynamoClient, table: string, item: ItemKey & Record<string, unknown>): Promise<'created' | 'exists'> {
  const created = await unlessConditionFails(() =>
    db.send(new PutCommand({ TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' })),
  );
  return created ? 'created' : 'exists';
}

/** Sets the given attributes on an existing item; false when there is none. `undefined` values are left alone. */
export async function updateIfPresent(db: DynamoClient, table: string, key: ItemKey, values: Record<string, unknown>): Promise<boolean> {
  const names: Record<string, string> = {};
  const placeholders: Record<string, unknown> = {};
  const sets: string[] = [];
  Object.entries(values).forEach(([name, value], i) => {
    if (value === undefined) return;
    names[`#a${i}`] = name;
    placeholders[`:v${i}`] = value;
    sets.push(`#a${i} = :v${i}`);
  });
  if (sets.length === 0) throw new Error('updateIfPresent needs at least one value');
  return unlessConditionFails(() =>
    db.send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: placeholders,
      }),
    ),
  );
}

/** Deletes an existing item, optionally only when `attribute = value` holds; false when nothing matched. */
export async function deleteIfPresent(db: DynamoClient, table: string, key: ItemKey, only?: { attribute: string; value: unknown }): Promise<boolean> {
  return unlessConditionFails(() =>
    db.send(
      new DeleteCommand({
        TableName: table,
        Key: key,
        ConditionExpression: only ? 'attribute_exists(pk) AND #only = :only' : 'attribute_exists(pk)',
        ...(only ? { ExpressionAttributeNames: { '#only': only.attribute }, ExpressionAttributeValues: { ':only': only.value } } : {}),
      }),
    ),
  );
}
