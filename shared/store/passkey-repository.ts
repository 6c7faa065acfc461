/**
 * Passkeys (shared/domain/sign-in/passkeys.ts) in the table: each in its user's partition (Delete User takes
 * it, and its owner item as `mirror`), an owner item per credential (one credential, one user of one SaaS),
 * and the ceremonies' challenges, each taken by a conditional delete so it serves once.
 */
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import { PASSKEY_RULE, type PasskeyChallenge, type PasskeyRecord, type PasskeyRepository, type PasskeyUse } from '../domain/sign-in/passkeys.js';
import { unlessConditionFails } from './conditional.js';
import { DeleteCommand, GetCommand, PutCommand, type DynamoClient } from './dynamo-client.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { queryAll } from './query.js';
import { both, check, EXISTS, LIVE, part, putNew, remove, update } from './transact.js';
import { Update } from './update.js';
import { onDirectoryShard } from './user-repository.js';
import type { ActivityChange } from '../domain/users/activity.js';
import { withActivity } from './activity-attributes.js';

const record = (item: Record<string, unknown>): PasskeyRecord => {
  const { mirror: _mirror, ...rest } = withoutKeys<PasskeyRecord & { mirror: unknown }>(item);
  return rest;
};

export class DynamoPasskeyRepository implements PasskeyRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async saveChallenge(saasId: string, challenge: PasskeyChallenge): Promise<void> {
    const item = {
      ...keys.passkeyChallenge(saasId, challenge.id),
      entity: ENTITY.passkeyChallenge,
      v: 1,
      ...challenge,
      [TTL_ATTRIBUTE]: challenge.expires_at,
    };
    await this.db.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async takeChallenge(saasId: string, challengeId: string): Promise<PasskeyChallenge | undefined> {
    let taken: Record<string, unknown> | undefined;
    // The delete and the read are one request: of two answers racing with one challenge, only one gets it.
    const found = await unlessConditionFails(async () => {
      const out = await this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: keys.passkeyChallenge(saasId, challengeId),
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_OLD',
        }),
      );
      taken = out.Attributes;
    });
    if (!found || !taken) return undefined;
    const { [TTL_ATTRIBUTE]: _ttl, ...challenge } = withoutKeys<PasskeyChallenge & { [TTL_ATTRIBUTE]: number }>(taken);
    return challenge;
  }

  addWrite(saasId: string, userId: string, passkey: PasskeyRecord, activity?: ActivityChange): AtomicWrite {
    const profile = keys.userProfile(saasId, userId);
    return atomicWrite(
      // The profile's check becomes its update when the addition is recorded: the same transaction, one part more or less.
      activity
        ? update(this.table, profile, withActivity(onDirectoryShard(saasId, userId, new Update()), activity), LIVE, RULE.userLive)
        : check(this.table, profile, LIVE, RULE.userLive),
      ...this.importWrite(saasId, userId, passkey).parts,
    );
  }

  importWrite(saasId: string, userId: string, passkey: PasskeyRecord): AtomicWrite {
    const owner = keys.passkeyOwner(saasId, passkey.id);
    return atomicWrite(
      putNew(this.table, { ...owner, entity: ENTITY.passkeyOwner, v: 1, user_id: userId }, PASSKEY_RULE.credentialFree),
      part(PASSKEY_RULE.credentialFree, {
        Put: {
          TableName: this.table,
          Item: { ...keys.passkey(saasId, userId, passkey.id), entity: ENTITY.passkey, v: 1, ...passkey, mirror: owner },
        },
      }),
    );
  }

  async ownerOf(saasId: string, passkeyId: string): Promise<string | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.passkeyOwner(saasId, passkeyId), ConsistentRead: true }));
    return typeof out.Item?.user_id === 'string' ? out.Item.user_id : undefined;
  }

  async get(saasId: string, userId: string, passkeyId: string): Promise<PasskeyRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.passkey(saasId, userId, passkeyId), ConsistentRead: true }));
    return out.Item ? record(out.Item) : undefined;
  }

  async list(saasId: string, userId: string): Promise<PasskeyRecord[]> {
    return (await queryAll(this.db, this.table, keys.passkeys(saasId, userId))).map(record);
  }

  usedWrite(saasId: string, userId: string, passkeyId: string, use: PasskeyUse, counterRead: number): AtomicWrite {
    const change = new Update().set(['counter'], use.counter).set(['backed_up'], use.backed_up).set(['last_used_at'], use.last_used_at);
    // The counter read is still the stored one: two sign-ins racing with one clone of a credential cannot both pass.
    const unchanged = { expression: '#counter = :counterRead', names: { '#counter': 'counter' }, values: { ':counterRead': counterRead } };
    return atomicWrite(update(this.table, keys.passkey(saasId, userId, passkeyId), change, both(EXISTS, unchanged), PASSKEY_RULE.passkeyCurrent));
  }

  removeWrite(saasId: string, userId: string, passkeyId: string, activity?: ActivityChange): AtomicWrite {
    return atomicWrite(
      remove(this.table, keys.passkey(saasId, userId, passkeyId), EXISTS, PASSKEY_RULE.passkeyExists),
      remove(this.table, keys.passkeyOwner(saasId, passkeyId), EXISTS, PASSKEY_RULE.passkeyExists),
      ...(activity
        ? [
            update(
              this.table,
              keys.userProfile(saasId, userId),
              withActivity(onDirectoryShard(saasId, userId, new Update()), activity),
              LIVE,
              RULE.userLive,
            ),
          ]
        : []),
    );
  }
}
