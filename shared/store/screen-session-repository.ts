/** Sessions of the hosted screen (shared/domain/sign-in/screen-sessions.ts), in the user's partition. */
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import type { ScreenSessionRecord, ScreenSessionRepository } from '../domain/sign-in/screen-sessions.js';
import type { UserRecord } from '../domain/users/users.js';
import { batchGet } from './batch.js';
import { deleteIfPresent, unlessConditionFails } from './conditional.js';
import { DeleteCommand, GetCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { queryAll } from './query.js';
import { EXISTS, putNew, update, updateRequest } from './transact.js';
import { Update } from './update.js';
import { toUser } from './user-repository.js';

/** The session's item goes when its absolute lifetime ends (the TTL tidies; the code checks the time). */
const toRecord = (item: Record<string, unknown>) => {
  const { entity: _entity, v: _v, [TTL_ATTRIBUTE]: _ttl, grants, ...record } = withoutKeys<Record<string, unknown>>(item);
  // A string set in the item (grants are added to it, never twice), a list in the record.
  return { ...record, ...(grants instanceof Set ? { grants: [...(grants as Set<string>)] } : {}) } as unknown as ScreenSessionRecord;
};

export class DynamoScreenSessionRepository implements ScreenSessionRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  openWrite(saasId: string, record: ScreenSessionRecord): AtomicWrite {
    const { grants, ...rest } = record;
    const item = {
      ...keys.screenSession(saasId, record.user_id, record.session_id),
      entity: ENTITY.screenSession,
      v: 1,
      ...rest,
      ...(grants?.length ? { grants: new Set(grants) } : {}),
      [TTL_ATTRIBUTE]: record.expires_at,
    };
    return atomicWrite(putNew(this.table, item, RULE.newItem));
  }

  async userAndSession(
    saasId: string,
    userId: string,
    sessionId: string,
    { withSaas = false } = {},
  ): Promise<{ saasExists?: boolean; user?: UserRecord; session?: ScreenSessionRecord }> {
    const saasKey = keys.saas(saasId);
    const profileKey = keys.userProfile(saasId, userId);
    const sessionKey = keys.screenSession(saasId, userId, sessionId);
    // The SaaS's account item is in this table too (DynamoAccountRepository.getSaas): one request for the three.
    const items = await batchGet(this.db, this.table, withSaas ? [saasKey, profileKey, sessionKey] : [profileKey, sessionKey]);
    const find = (key: { pk: string; sk: string }) => items.find((item) => item.pk === key.pk && item.sk === key.sk);
    const profile = find(profileKey);
    const session = find(sessionKey);
    return {
      ...(withSaas ? { saasExists: find(saasKey) !== undefined } : {}),
      ...(profile && !profile.deleting ? { user: toUser(profile) } : {}),
      ...(session ? { session: toRecord(session) } : {}),
    };
  }

  useWrite(saasId: string, userId: string, sessionId: string, use: { lastUsed?: number; grant?: string }): AtomicWrite {
    return atomicWrite(update(this.table, keys.screenSession(saasId, userId, sessionId), useOf(use), EXISTS, SESSION_LIVE));
  }

  addGrant(saasId: string, userId: string, sessionId: string, grant: string): Promise<boolean> {
    return unlessConditionFails(() =>
      this.db.send(new UpdateCommand(updateRequest(this.table, keys.screenSession(saasId, userId, sessionId), useOf({ grant }), EXISTS))),
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

  async take(saasId: string, userId: string, sessionId: string): Promise<ScreenSessionRecord | undefined> {
    const out = await this.db.send(
      new DeleteCommand({ TableName: this.table, Key: keys.screenSession(saasId, userId, sessionId), ReturnValues: 'ALL_OLD' }),
    );
    return out.Attributes ? toRecord(out.Attributes) : undefined;
  }
}

/** A session's use: its last use moved, a grant added to its set. */
function useOf({ lastUsed, grant }: { lastUsed?: number; grant?: string }): Update {
  const change = new Update();
  if (lastUsed !== undefined) change.set('last_used_at', lastUsed);
  if (grant !== undefined) change.add('grants', new Set([grant]));
  return change;
}

/** The rule a resumed session's write holds: the session was not ended meanwhile. */
export const SESSION_LIVE = 'screen_session_live';
