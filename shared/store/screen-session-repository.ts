/** Sessions of the hosted screen (shared/domain/sign-in/screen-sessions.ts), in the user's partition. */
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import type { ScreenSessionRecord, ScreenSessionRepository } from '../domain/sign-in/screen-sessions.js';
import type { UserRecord } from '../domain/users/users.js';
import { batchGet } from './batch.js';
import { deleteIfPresent } from './conditional.js';
import { GetCommand, type DynamoClient } from './dynamo-client.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { queryAll } from './query.js';
import { EXISTS, putNew, update } from './transact.js';
import { Update } from './update.js';
import { toUser } from './user-repository.js';

/** The session's item goes when its absolute lifetime ends (the TTL tidies; the code checks the time). */
const toRecord = (item: Record<string, unknown>) => {
  const { entity: _entity, v: _v, [TTL_ATTRIBUTE]: _ttl, ...record } = withoutKeys<Record<string, unknown>>(item);
  return record as unknown as ScreenSessionRecord;
};

export class DynamoScreenSessionRepository implements ScreenSessionRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  openWrite(saasId: string, record: ScreenSessionRecord): AtomicWrite {
    const item = {
      ...keys.screenSession(saasId, record.user_id, record.session_id),
      entity: ENTITY.screenSession,
      v: 1,
      ...record,
      [TTL_ATTRIBUTE]: record.expires_at,
    };
    return atomicWrite(putNew(this.table, item, RULE.newItem));
  }

  async userAndSession(saasId: string, userId: string, sessionId: string): Promise<{ user?: UserRecord; session?: ScreenSessionRecord }> {
    const profileKey = keys.userProfile(saasId, userId);
    const sessionKey = keys.screenSession(saasId, userId, sessionId);
    const items = await batchGet(this.db, this.table, [profileKey, sessionKey]);
    const profile = items.find((item) => item.sk === profileKey.sk);
    const session = items.find((item) => item.sk === sessionKey.sk);
    return {
      ...(profile && !profile.deleting ? { user: toUser(profile) } : {}),
      ...(session ? { session: toRecord(session) } : {}),
    };
  }

  touchWrite(saasId: string, userId: string, sessionId: string, now: number): AtomicWrite {
    return atomicWrite(
      update(this.table, keys.screenSession(saasId, userId, sessionId), new Update().set('last_used_at', now), EXISTS, SESSION_LIVE),
    );
  }

  async ofUser(saasId: string, userId: string): Promise<{ user?: UserRecord; sessions: ScreenSessionRecord[] }> {
    const [profile, items] = await Promise.all([
      this.db.send(new GetCommand({ TableName: this.table, Key: keys.userProfile(saasId, userId), ConsistentRead: true })),
      queryAll(this.db, this.table, keys.screenSessions(saasId, userId)),
    ]);
    const user = profile.Item && !profile.Item.deleting ? toUser(profile.Item) : undefined;
    return { ...(user ? { user } : {}), sessions: items.map(toRecord) };
  }

  remove(saasId: string, userId: string, sessionId: string): Promise<boolean> {
    return deleteIfPresent(this.db, this.table, keys.screenSession(saasId, userId, sessionId));
  }
}

/** The rule a resumed session's write holds: the session was not ended meanwhile. */
export const SESSION_LIVE = 'screen_session_live';
