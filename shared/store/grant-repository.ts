/** Refresh-token grants and spent authorization codes (shared/domain/sign-in/grants.ts). */
import { ConditionalCheckFailedException, GetCommand, PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { atomicWrite } from '../domain/atomic.js';
import type { Advance, AuthorizationCodeRepository, GrantRecord, GrantRepository, SpentCode } from '../domain/sign-in/grants.js';
import type { UserRecord } from '../domain/users/users.js';
import { batchGet } from './batch.js';
import { unlessConditionFails } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { both, DynamoCommitter, LIVE, part, update, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';
import { onDirectoryShard, toUser } from './user-repository.js';

/** The profile attribute listing revoked grants: grant id → until when their ID and access tokens could live. */
export const REVOKED_GRANTS = 'revoked_grants';

/**
 * More revocations than this within one token lifetime end every session of the user instead (the session
 * version rises): the profile's list stays small whatever a client does, and a revocation never fails open.
 */
export const MAX_LISTED_REVOCATIONS = 50;

const REVOKE_ATTEMPTS = 4;

const REVOKE_RULE = 'grant_listed';

/** No condition: marking a grant revoked is the same whether or not it was before. */
const ALWAYS: Condition = { expression: 'attribute_exists(#pk) OR attribute_not_exists(#pk)', names: { '#pk': 'pk' } };

const listExists = (exists: boolean): Condition => ({
  expression: exists ? 'attribute_exists(#listed)' : 'attribute_not_exists(#listed)',
  names: { '#listed': REVOKED_GRANTS },
});

export class DynamoGrantRepository implements GrantRepository {
  private readonly committer: DynamoCommitter;

  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {
    this.committer = new DynamoCommitter(db);
  }

  async userAndGrant(saasId: string, userId: string, grantId: string): Promise<{ user?: UserRecord; grant?: GrantRecord }> {
    const profileKey = keys.userProfile(saasId, userId);
    const grantKey = keys.refreshGrant(saasId, userId, grantId);
    const items = await batchGet(this.db, this.table, [profileKey, grantKey]);
    const profile = items.find((item) => item.sk === profileKey.sk);
    const grant = items.find((item) => item.sk === grantKey.sk);
    return {
      ...(profile && !profile.deleting ? { user: toUser(profile) } : {}),
      ...(grant ? { grant: grantOf(grant) } : {}),
    };
  }

  start(saasId: string, userId: string, grantId: string, expiresAt: number): Promise<boolean> {
    return unlessConditionFails(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...keys.refreshGrant(saasId, userId, grantId),
            entity: ENTITY.refreshGrant,
            v: 1,
            revoked: false,
            generation: 0,
            [TTL_ATTRIBUTE]: expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async advance(saasId: string, userId: string, grantId: string, generation: number): Promise<Advance> {
    const key = keys.refreshGrant(saasId, userId, grantId);
    const at: Condition = {
      expression: 'attribute_exists(#pk) AND #generation = :generation AND #revoked = :false',
      names: { '#pk': 'pk', '#generation': 'generation', '#revoked': 'revoked' },
      values: { ':generation': generation, ':false': false },
    };
    const advanced = await unlessConditionFails(() =>
      this.db.send(new UpdateCommand(updateRequest(this.table, key, new Update().set('generation', generation + 1), at))),
    );
    if (advanced) return 'advanced';
    const found = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    if (!found.Item) return 'unknown';
    return grantOf(found.Item).revoked ? 'revoked' : 'reused';
  }

  async revoke(saasId: string, userId: string, grantId: string, expiresAt: number, tokensUntil: number, now: number): Promise<void> {
    const profileKey = keys.userProfile(saasId, userId);
    const grantKey = keys.refreshGrant(saasId, userId, grantId);
    // A record there already (a rotating grant) keeps its own end: it knows how long the grant's tokens live.
    const marked = new Update()
      .set('entity', ENTITY.refreshGrant)
      .set('v', 1)
      .set('revoked', true)
      .set(TTL_ATTRIBUTE, expiresAt, 'if_not_exists(#self, :v)');
    const record = part(REVOKE_RULE, { Update: { ...updateRequest(this.table, grantKey, marked, ALWAYS) } });
    for (let attempt = 0; attempt < REVOKE_ATTEMPTS; attempt++) {
      const read = await this.db.send(
        new GetCommand({
          TableName: this.table,
          Key: profileKey,
          ConsistentRead: true,
          ProjectionExpression: '#pk, #listed, #deleting',
          ExpressionAttributeNames: { '#pk': 'pk', '#listed': REVOKED_GRANTS, '#deleting': 'deleting' },
        }),
      );
      // A user who is gone has no token left to end.
      if (!read.Item || read.Item.deleting) return;
      const listed = read.Item[REVOKED_GRANTS] as Record<string, number> | undefined;
      const lapsed = Object.entries(listed ?? {}).filter(([, until]) => until <= now);
      let change: Update;
      let condition: Condition;
      if (Object.keys(listed ?? {}).length - lapsed.length >= MAX_LISTED_REVOCATIONS) {
        // Too many at once: end every session of the user, which the token check already reads.
        change = new Update().add('session_version', 1).remove(REVOKED_GRANTS);
        condition = LIVE;
      } else if (listed) {
        change = new Update().set([REVOKED_GRANTS, grantId], tokensUntil);
        for (const [old] of lapsed) if (old !== grantId) change.remove([REVOKED_GRANTS, old]);
        condition = both(LIVE, listExists(true));
      } else {
        change = new Update().set(REVOKED_GRANTS, { [grantId]: tokensUntil });
        condition = both(LIVE, listExists(false));
      }
      const outcome = await this.committer.commit(
        atomicWrite(update(this.table, profileKey, onDirectoryShard(saasId, userId, change), condition, REVOKE_RULE), record),
      );
      if (outcome.committed) return;
    }
    throw new Error('revoking a grant: the user profile kept changing');
  }
}

function grantOf(item: Record<string, unknown>): GrantRecord {
  return { revoked: item.revoked === true, ...(typeof item.generation === 'number' ? { generation: item.generation } : {}) };
}

/** Authorization codes are temporary-code items (keys.tempCode) spent in place instead of deleted. */
export class DynamoAuthorizationCodeRepository<T> implements AuthorizationCodeRepository<T> {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async spend(saasId: string, codeHash: string, now: number, grantId: string): Promise<SpentCode<T>> {
    const key = keys.tempCode(saasId, codeHash);
    const unspent: Condition = {
      expression: 'attribute_exists(#pk) AND #expires >= :now AND attribute_not_exists(#spent)',
      names: { '#pk': 'pk', '#expires': TTL_ATTRIBUTE, '#spent': 'spent_grant' },
      values: { ':now': now },
    };
    // The sealed credentials go (an empty seal opens to nothing); the item stays, naming the grant it issued.
    const change = new Update().set('spent_grant', grantId).set('sealed', '');
    try {
      const out = await this.db.send(new UpdateCommand({ ...updateRequest(this.table, key, change, unspent), ReturnValues: 'ALL_OLD' }));
      return { saved: withoutKeys<T>(out.Attributes as Record<string, unknown>) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const found = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    const spent = found.Item?.spent_grant;
    return typeof spent === 'string' ? { replayed: { userId: found.Item?.user_id as string, grantId: spent } } : undefined;
  }
}
