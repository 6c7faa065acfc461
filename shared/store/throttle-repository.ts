import { GetCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { consoleThrottleKey, ENTITY, TTL_ATTRIBUTE } from './keys.js';
import { Update } from './update.js';
import type { ThrottleRepository } from '../domain/console/sign-in-throttle.js';

/** The console's failed sign-in counts: one item per counter and window, changed only by atomic ADDs, gone by TTL. */
export class DynamoThrottleRepository implements ThrottleRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async counts(counters: readonly string[]): Promise<number[]> {
    const items = await Promise.all(
      counters.map((counter) => this.db.send(new GetCommand({ TableName: this.table, Key: consoleThrottleKey(counter), ConsistentRead: true }))),
    );
    return items.map((out) => Number(out.Item?.count ?? 0));
  }

  async add(counters: readonly string[], expiresAt: number): Promise<void> {
    await Promise.all(
      counters.map((counter) => {
        const update = new Update().add('count', 1).set('entity', ENTITY.consoleThrottle).set('v', 1).set(TTL_ATTRIBUTE, expiresAt);
        return this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: consoleThrottleKey(counter),
            UpdateExpression: update.expression(),
            ExpressionAttributeNames: update.names,
            ExpressionAttributeValues: update.values,
          }),
        );
      }),
    );
  }
}
