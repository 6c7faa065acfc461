import { GetCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { consoleSessionKey, ENTITY, TTL_ATTRIBUTE } from './keys.js';
import { Update } from './update.js';
import type { SessionRevocations } from '../domain/console/session-revocations.js';

/**
 * Signed-out console sessions: one item per session id, gone by TTL. Written by UpdateItem, the one write the
 * console function is granted (ENTRY_FUNCTIONS' `updatesOnly`, shared/routes.ts).
 */
export class DynamoSessionRevocations implements SessionRevocations {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async revoked(sessionId: string): Promise<boolean> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: consoleSessionKey(sessionId), ConsistentRead: true }));
    return out.Item !== undefined;
  }

  async revoke(sessionId: string, until: number): Promise<void> {
    const update = new Update().set('entity', ENTITY.consoleSessionRevoked).set('v', 1).set(TTL_ATTRIBUTE, until);
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: consoleSessionKey(sessionId),
        UpdateExpression: update.expression(),
        ExpressionAttributeNames: update.names,
        ExpressionAttributeValues: update.values,
      }),
    );
  }
}
