import { TransactionCanceledException, GetCommand, TransactWriteCommand, type DynamoClient } from './dynamo-client.js';
import type { KeyRepository, SigningKeyRecord, SigningKeySet } from '../domain/tokens/key-store.js';
import { putIfAbsent } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { partitionQuery, queryPages } from './query.js';

/** A transaction whose condition did not hold answers false; anything else is an error. */
async function unlessCanceled(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.some((r) => r.Code === 'ConditionalCheckFailed')) {
      return false;
    }
    throw error;
  }
}

/**
 * The deployment's keys in the DEPLOYMENT_KEYS partition: one item per signing key, one pointer to the
 * current key, and the sealed deployment secrets. Making a key current and storing it is one transaction,
 * so no key is ever current without being stored, and no two are current.
 */
export class DynamoKeyRepository implements KeyRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async signingKeys(): Promise<SigningKeySet> {
    // Strongly consistent: the loser of a race to make the first key must see the winner's at once.
    const items: Record<string, unknown>[] = [];
    for await (const page of queryPages(this.db, { ...partitionQuery(this.table, keys.signing()), ConsistentRead: true })) items.push(...page);
    const pointer = items.find((item) => item.entity === ENTITY.currentSigningKey);
    return {
      currentKid: pointer?.kid as string | undefined,
      keys: items
        .filter((item) => item.entity === ENTITY.signingKey)
        .map((item) => ({ ...withoutKeys<SigningKeyRecord>(item), expiresAt: item[TTL_ATTRIBUTE] as number | undefined })),
    };
  }

  private keyPut(key: SigningKeyRecord) {
    return {
      Put: {
        TableName: this.table,
        Item: { ...keys.signingKey(key.kid), entity: ENTITY.signingKey, v: 1, ...key },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  createFirstSigningKey(key: SigningKeyRecord): Promise<boolean> {
    return unlessCanceled(() =>
      this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            this.keyPut(key),
            {
              Put: {
                TableName: this.table,
                Item: { ...keys.currentSigningKey(), entity: ENTITY.currentSigningKey, v: 1, kid: key.kid },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      ),
    );
  }

  rotateSigningKey(previousKid: string, next: SigningKeyRecord, retirement: { retiredAt: number; expiresAt: number }): Promise<boolean> {
    return unlessCanceled(() =>
      this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            this.keyPut(next),
            {
              Update: {
                TableName: this.table,
                Key: keys.currentSigningKey(),
                UpdateExpression: 'SET kid = :next',
                ConditionExpression: 'kid = :previous',
                ExpressionAttributeValues: { ':next': next.kid, ':previous': previousKid },
              },
            },
            {
              // The expiry is the table's TTL attribute: the item goes once it can verify nothing.
              Update: {
                TableName: this.table,
                Key: keys.signingKey(previousKid),
                UpdateExpression: 'SET retiredAt = :retiredAt, #ttl = :expiresAt',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(retiredAt)',
                ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
                ExpressionAttributeValues: { ':retiredAt': retirement.retiredAt, ':expiresAt': retirement.expiresAt },
              },
            },
          ],
        }),
      ),
    );
  }

  async deploymentSecret(name: string): Promise<string | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.deploymentSecret(name), ConsistentRead: true }));
    return out.Item?.sealed as string | undefined;
  }

  async createDeploymentSecret(name: string, sealed: string): Promise<string> {
    const outcome = await putIfAbsent(this.db, this.table, { ...keys.deploymentSecret(name), entity: ENTITY.deploymentSecret, v: 1, name, sealed });
    return outcome === 'created' ? sealed : ((await this.deploymentSecret(name)) as string);
  }
}
