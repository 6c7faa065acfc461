import type { ActivityChange } from '../domain/users/activity.js';
import { splitActivity, withActivity } from './activity-attributes.js';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoClient, type QueryInput } from './dynamo-client.js';
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import type { CountedMail } from '../domain/mail/mail.js';
import type { Positioned } from '../domain/paging.js';
import {
  loginOf,
  type AttributeChanges,
  type Login,
  type PasswordCredential,
  type SignInCredential,
  type UserFilter,
  type UserRecord,
  type UserRepository,
  type UserSummary,
} from '../domain/users/users.js';
import type { MfaPreference } from '../schemas/users.js';
import { sessionOf, type UserSession } from '../domain/tokens/tokens.js';
import { batchDeleteWithMirrors, batchGet } from './batch.js';
import { deleteIfPresent, unlessConditionFails } from './conditional.js';
import { entryChange, profileAsRead, upsert } from './directory-migration.js';
import {
  directorySources,
  DirectoryShards,
  entriesKept,
  keptLayout,
  knownDirectoryShard,
  knownEntryShard,
  profilesInIndex,
  type DirectoryLayout,
} from './directory-shards.js';
import { ENTITY, keys, loginFromKey, loginKey, withoutKeys, type ItemKey } from './keys.js';
import { mailWrites } from './outbox-repository.js';
import { compareKeys, mergeAscending } from './ordered-merge.js';
import { collect, indexQuery, queryAll, queryPages } from './query.js';
import { both, check, DynamoCommitter, EXISTS, LIVE, part, putNew, remove, update, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';

/** Reads of an ordered source go a page of this many items at a time. */
export const READ_PAGE = 100;

/** Ids the service makes (users, tenants): lower-case UUIDs, the pattern positions are checked against. */
export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
export const UUID_POSITION = new RegExp(`^${UUID}$`);
/** No user has this id (ids are random v4 UUIDs): the profile read of a name nobody has. */
const NOBODY = '00000000-0000-0000-0000-000000000000';
/** A user directory position: the index sort key, `E#<name> <id>` or `S#<name> <id>`. */
const DIRECTORY_POSITION = new RegExp(`^[ES]#\\S+ (${UUID})$`);

const SUMMARY_ATTRIBUTES = ['id', 'email', 'sign_in_id', 'attributes', 'last_login_at', 'deleting'];
/** The list's, with the entry's sort key (its name order) and its kind (sk: a profile, or an entry). */
const LISTED_ATTRIBUTES = [...SUMMARY_ATTRIBUTES, 'gsi1sk', 'sk'];
/**
 * A page of the directory takes a few entries from each of its sources (32 or 33 a page of 20, about one each):
 * each source's first query reads this many, about one 4 KB read unit of profiles.
 */
const FIRST_SHARD_PAGE = 3;

/** A ProjectionExpression of these attributes, each by a name placeholder. */
export function projection(attributes: readonly string[]) {
  return {
    ProjectionExpression: attributes.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#p${i}`, name])),
  };
}

/** What the profile item holds beside the record: the name's key, the delete mark, and sign-in's state (sign-in-repository.ts). */
type StoredUser = UserRecord & { loginKey: string; deleting?: boolean; signin_lockout?: unknown; srp_answered?: unknown; device_offers?: unknown };

export function toUser(item: Record<string, unknown>): UserRecord {
  const { activity, rest } = splitActivity(item);
  const {
    loginKey: _loginKey,
    deleting: _deleting,
    signin_lockout: _lockout,
    srp_answered: _answered,
    device_offers: _offers,
    ...user
  } = withoutKeys<StoredUser>(rest);
  return { ...user, activity };
}

/**
 * The owner item of a sign-in name carries a copy of its user's SRP salt and verifier, so
 * the first step of a sign-in is one read. Every write of a password or a name writes the copy in the same
 * transaction; the proof is always checked against the profile's own verifier, so a stale copy could only
 * make a sign-in fail, never pass.
 */
const ownerItem = (saasId: string, login: Login, userId: string, password: PasswordCredential) => ({
  ...keys.loginOwner(saasId, login),
  entity: ENTITY.loginOwner,
  v: 1,
  user_id: userId,
  credential: { salt: password.salt, verifier: password.verifier },
});

const ownedBy = (userId: string): Condition => ({ expression: '#user = :user', names: { '#user': 'user_id' }, values: { ':user': userId } });

/**
 * Where the profiles are the directory, every write of a profile also puts its directory entry on the shard the
 * SaaS's writes use now (directory-shards.ts): an entry on shard 0 of a grown directory, or on the key from before
 * the shards, moves with its user's next change, so no migration step is needed. An instance that has not read
 * the SaaS's layout, or whose writes still use shard 0 alone, leaves the entry where it is; so does every write
 * of a profile where the directory is made of entries (directory-shards.ts, knownDirectoryShard), whose entries
 * move with their own writes (entryWrite).
 */
export function onDirectoryShard(saasId: string, userId: string, change: Update): Update {
  const shard = knownDirectoryShard(saasId, userId);
  return shard ? change.set('gsi1pk', shard) : change;
}

/** The fields of a user that a directory entry item holds: what the lists answer (UserSummary), and no more. */
const entryFields = (user: UserRecord) => ({
  id: user.id,
  email: user.email,
  sign_in_id: user.sign_in_id,
  attributes: user.attributes,
  last_login_at: user.last_login_at,
});

/** A change of the user's entry item, moved to its shard as the layout the write read says (knownEntryShard). */
function entryWrite(table: string, saasId: string, userId: string, layout: DirectoryLayout, change: Update) {
  const shard = knownEntryShard(saasId, userId, layout);
  return update(table, keys.userDirectoryItem(saasId, userId), shard ? change.set('gsi1pk', shard) : change, EXISTS, RULE.userLive);
}

/**
 * The kind of directory item the layout's reads take: entries, or profiles. While a SaaS moves onto entries its keys
 * hold both (directory-migration.ts), each kind a whole directory, so a read keeps one kind before it merges.
 */
const readKind = (layout: DirectoryLayout) => (item: Record<string, unknown>) => keys.isUserProfile(item) !== layout.entries;

/** The user has never signed in and still holds a temporary password (users.ts awaitsFirstSignIn). */
const AWAITING_FIRST_SIGN_IN: Condition = {
  expression: '#lastLogin = :never AND #password.#temporary = :true',
  names: { '#lastLogin': 'last_login_at', '#password': 'password', '#temporary': 'temporary' },
  values: { ':never': 0, ':true': true },
};

/** The profile still holds this password. */
const holdsPassword = (password: PasswordCredential): Condition => ({
  expression: '#password.#verifier = :verifier',
  names: { '#password': 'password', '#verifier': 'verifier' },
  values: { ':verifier': password.verifier },
});

/** Names the user's profile, not being deleted and still holding `login`. */
const holdsLogin = (login: Login): Condition =>
  both(LIVE, { expression: '#loginKey = :loginKey', names: { '#loginKey': 'loginKey' }, values: { ':loginKey': loginKey(login) } });

/**
 * A directory read's entries on the key entries leave (directory-shards.ts, directorySources: shard 0 of a grown
 * directory, or the key from before the shards), read ahead of the others. An entry leaves that key for its
 * shard with its profile's next write, so a shard's page read before the move and
 * the old key's read after it would both miss it. A shard's page is therefore trusted only up to where the old
 * key had been read when that page was asked for (`covered`): the entry is then met on one key or both (the
 * merge hands it out once), never on neither.
 */
class UnshardedEntries {
  private readonly items: Record<string, unknown>[] = [];
  private start: Record<string, unknown> | undefined;
  private done = false;
  private fetching: Promise<void> | undefined;

  constructor(
    private readonly db: DynamoClient,
    private readonly input: QueryInput,
    private readonly read: (item: Record<string, unknown>) => boolean,
  ) {
    this.start = input.ExclusiveStartKey;
  }

  /** How far the reads that have ended reach: every position up to this one, or all of them (`true`). */
  covered(): string | true | undefined {
    return this.done ? true : (this.items.at(-1)?.gsi1sk as string | undefined);
  }

  /** Reads the next page (one read at a time, whoever asks). */
  advance(): Promise<void> {
    if (this.done) return Promise.resolve();
    this.fetching ??= (async () => {
      const out = await this.db.send(new QueryCommand({ ...this.input, Limit: READ_PAGE, ExclusiveStartKey: this.start }));
      this.items.push(...(out.Items ?? []));
      this.start = out.LastEvaluatedKey;
      if (!this.start) this.done = true;
    })().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  async *entries(): AsyncGenerator<Positioned<Record<string, unknown>>> {
    for (let i = 0; ; i++) {
      while (i >= this.items.length) {
        if (this.done) return;
        await this.advance();
      }
      const item = this.items[i] as Record<string, unknown>;
      // The other kind still counts toward covered(): the key was read that far, for both.
      if (this.read(item)) yield { position: item.gsi1sk as string, item };
    }
  }
}

export class DynamoUserRepository implements UserRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async createWrite(saasId: string, user: UserRecord, login: Login, mail?: CountedMail): Promise<AtomicWrite> {
    const { shards, layout } = await new DirectoryShards(this.db, this.table).newEntryShards(saasId);
    const entry = keys.userDirectoryEntry(saasId, login, user.id, shards);
    return atomicWrite(
      putNew(this.table, ownerItem(saasId, login, user.id, user.password), RULE.loginFree),
      putNew(
        this.table,
        {
          ...keys.userProfile(saasId, user.id),
          ...(profilesInIndex(layout) ? entry : {}),
          entity: ENTITY.user,
          v: 1,
          loginKey: loginKey(login),
          ...user,
        },
        RULE.newItem,
      ),
      ...(entriesKept(layout)
        ? [
            putNew(
              this.table,
              { ...keys.userDirectoryItem(saasId, user.id), ...entry, entity: ENTITY.userDirectoryItem, v: 1, ...entryFields(user) },
              RULE.newItem,
            ),
          ]
        : []),
      ...(mail ? mailWrites(this.table, mail) : []),
    );
  }

  /** The profile item as stored, unless missing or being deleted. */
  private async liveProfile(saasId: string, userId: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.userProfile(saasId, userId), ConsistentRead: true }));
    return out.Item && !out.Item.deleting ? out.Item : undefined;
  }

  async get(saasId: string, userId: string): Promise<UserRecord | undefined> {
    const item = await this.liveProfile(saasId, userId);
    return item ? toUser(item) : undefined;
  }

  /** The token check's read (tokens.ts SessionRepository): three attributes of the profile, strongly consistent. */
  async session(saasId: string, userId: string): Promise<UserSession | undefined> {
    const out = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: keys.userProfile(saasId, userId),
        ConsistentRead: true,
        ProjectionExpression: '#version, #revoked, #deleting',
        ExpressionAttributeNames: { '#version': 'session_version', '#revoked': 'revoked_grants', '#deleting': 'deleting' },
      }),
    );
    return out.Item && !out.Item.deleting ? sessionOf(out.Item as Pick<UserRecord, 'session_version' | 'revoked_grants'>) : undefined;
  }

  async getMany(saasId: string, userIds: readonly string[]): Promise<Map<string, UserRecord>> {
    const items = await batchGet(
      this.db,
      this.table,
      [...new Set(userIds)].map((id) => keys.userProfile(saasId, id)),
    );
    return new Map(items.filter((item) => !item.deleting).map((item) => [item.id as string, toUser(item)]));
  }

  async findByLogin(saasId: string, login: Login): Promise<UserRecord | undefined> {
    const owner = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.loginOwner(saasId, login), ConsistentRead: true }));
    // A name nobody has still reads a profile (one that cannot exist): sign-in looks the name up, and the
    // time of its answer must not tell whether the name has an owner.
    const item = await this.liveProfile(saasId, (owner.Item?.user_id as string | undefined) ?? NOBODY);
    if (!owner.Item) return undefined;
    return item && item.loginKey === loginKey(login) ? toUser(item) : undefined;
  }

  async loginOwner(saasId: string, login: Login): Promise<string | undefined> {
    const owner = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.loginOwner(saasId, login), ConsistentRead: true }));
    return owner.Item?.user_id as string | undefined;
  }

  async signInCredential(saasId: string, login: Login): Promise<SignInCredential | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.loginOwner(saasId, login), ConsistentRead: true }));
    const owner = out.Item;
    if (!owner) return undefined;
    if (owner.credential === undefined) {
      // An owner item written before it carried the credential: read the profile, as before.
      const user = await this.findByLogin(saasId, login);
      return user && { userId: user.id, salt: user.password.salt, verifier: user.password.verifier };
    }
    const { salt, verifier } = owner.credential as { salt: string; verifier: string };
    // An imported user before the first sign-in has a hash and no verifier: SRP cannot prove a password
    // without one, so to SRP the name is nobody's, and the answer and its work are a wrong password's.
    if (!verifier) return undefined;
    return { userId: owner.user_id as string, salt, verifier };
  }

  /**
   * The whole directory, each item projected to what the lists answer: its entries (a SaaS made now) or its
   * profiles (made before, decision 18); a profile is mostly its SRP verifier, which DynamoDB then neither sends nor this function parses (the read units are the same: DynamoDB
   * counts the items it reads, not what it returns). The shards are read side by side (each its own
   * partition's read throughput), then put in name order. A 1-shard directory is one key.
   *
   * The key entries leave is read first, the other shards after it: an entry that moves to its shard meanwhile
   * is then met on one key or on both, never on neither (read side by side, its shard could be read before the
   * move and the old key after it).
   */
  async list(saasId: string): Promise<UserSummary[]> {
    const read = (gsi1pk: string) => collect(queryPages(this.db, { ...indexQuery(this.table, { gsi1pk }), ...projection(LISTED_ATTRIBUTES) }));
    const layout = await new DirectoryShards(this.db, this.table).layout(saasId);
    const [unsharded, ...shards] = directorySources(saasId, layout);
    const before = await read(unsharded);
    const sources = [before, ...(await Promise.all(shards.map(read)))];
    const items = sources
      .flat()
      .filter(readKind(layout))
      .sort((a, b) => compareKeys(a.gsi1sk as string, b.gsi1sk as string));
    // An entry moving from the unsharded key to its shard while it is read may be met on both.
    return items
      .filter((item, i) => !item.deleting && (i === 0 || items[i - 1]?.gsi1sk !== item.gsi1sk))
      .map((item) => ({
        id: item.id as string,
        email: item.email as string,
        sign_in_id: item.sign_in_id as string,
        attributes: (item.attributes ?? {}) as UserSummary['attributes'],
        last_login_at: item.last_login_at as number,
      }));
  }

  directory(saasId: string, filter: UserFilter) {
    const prefix =
      filter.emailPrefix !== undefined
        ? loginKey({ kind: 'email', value: filter.emailPrefix })
        : filter.signInIdPrefix !== undefined
          ? loginKey({ kind: 'sign_in_id', value: filter.signInIdPrefix })
          : '';
    const { db, table } = this;
    const layout = () => new DirectoryShards(db, table).layout(saasId);
    const liveProfile = (id: string) => this.liveProfile(saasId, id);
    return {
      accepts(position: string): boolean {
        const m = DIRECTORY_POSITION.exec(position);
        return m !== null && position.startsWith(prefix) && (filter.id === undefined || m[1] === filter.id);
      },
      async *read(after: string | undefined): AsyncGenerator<Positioned<UserSummary>> {
        if (filter.id !== undefined) {
          const item = await liveProfile(filter.id);
          // The profile's own name: where entries are the directory, the profile is in no index.
          const position = item && `${item.loginKey as string} ${item.id as string}`;
          if (item && position?.startsWith(prefix) && (after === undefined || compareKeys(position, after) > 0))
            yield { position, item: toUser(item) };
          return;
        }
        const userId = after ? ((DIRECTORY_POSITION.exec(after) as RegExpExecArray)[1] as string) : undefined;
        // Each source resumes after the position: a start key naming the entry there would be at.
        const query = (gsi1pk: string): QueryInput => ({
          ...indexQuery(table, { gsi1pk, gsi1skPrefix: prefix }),
          ...(after && userId ? { ExclusiveStartKey: { gsi1pk, gsi1sk: after, ...keys.userProfile(saasId, userId) } } : {}),
        });
        const current = await layout();
        const kind = readKind(current);
        const [unsharded, ...shards] = directorySources(saasId, current);
        const old = new UnshardedEntries(db, query(unsharded), kind);
        // A 1-shard directory is this key alone, read READ_PAGE entries at a time.
        await old.advance();
        async function* shard(gsi1pk: string): AsyncGenerator<Positioned<Record<string, unknown>>> {
          const input = query(gsi1pk);
          let start = input.ExclusiveStartKey;
          let limit = FIRST_SHARD_PAGE;
          for (;;) {
            const trusted = old.covered();
            const out = await db.send(new QueryCommand({ ...input, Limit: limit, ExclusiveStartKey: start }));
            let beyond = false;
            for (const item of out.Items ?? []) {
              const position = item.gsi1sk as string;
              if (trusted !== true && (trusted === undefined || compareKeys(position, trusted) > 0)) {
                beyond = true;
                break;
              }
              if (kind(item)) yield { position, item };
              start = { gsi1pk, gsi1sk: position, pk: item.pk, sk: item.sk };
            }
            if (beyond) {
              // Past what the old key had been read to when this page was asked for: read the old key further,
              // then this shard again from its last entry.
              await old.advance();
              continue;
            }
            if (!out.LastEvaluatedKey) return;
            start = out.LastEvaluatedKey;
            limit = Math.min(READ_PAGE, limit * 4);
          }
        }
        const merged = mergeAscending([old.entries(), ...shards.map(shard)], after);
        for await (const { position, item } of merged) if (!item.deleting) yield { position, item: toUser(item) };
      },
    };
  }

  async changeLoginWrite(
    saasId: string,
    userId: string,
    from: Login,
    to: Login,
    names: { email: string; sign_in_id: string },
    password: PasswordCredential,
  ): Promise<AtomicWrite> {
    const layout = await new DirectoryShards(this.db, this.table).layout(saasId);
    const position = keys.userDirectoryPosition(to, userId);
    const named = () => new Update().set('email', names.email).set('sign_in_id', names.sign_in_id);
    const change = named().set('loginKey', loginKey(to));
    // The new owner item copies the credential: the move holds only while the password is still that one.
    const profile = update(
      this.table,
      keys.userProfile(saasId, userId),
      profilesInIndex(layout) ? onDirectoryShard(saasId, userId, change.set('gsi1sk', position)) : change,
      both(holdsLogin(from), holdsPassword(password)),
      RULE.loginUnchanged,
    );
    const entry = !entriesKept(layout)
      ? []
      : profilesInIndex(layout)
        ? await this.keptEntry(saasId, userId, layout, { ...names, gsi1sk: position }, RULE.loginUnchanged)
        : [entryWrite(this.table, saasId, userId, layout, named().set('gsi1sk', position))];
    // Only the spelling changes (a letter's case): the name, and so its owner item, stays.
    if (loginKey(from) === loginKey(to)) return atomicWrite(profile, ...entry);
    return atomicWrite(
      profile,
      ...entry,
      remove(this.table, keys.loginOwner(saasId, from), ownedBy(userId), RULE.loginUnchanged),
      putNew(this.table, ownerItem(saasId, to, userId, password), RULE.loginFree),
    );
  }

  passwordWrite(
    saasId: string,
    user: Pick<UserRecord, 'id' | 'email' | 'sign_in_id'>,
    credential: PasswordCredential,
    mail?: CountedMail,
    options: { onlyBeforeFirstSignIn?: boolean; activity?: ActivityChange } = {},
  ): AtomicWrite {
    const change = withActivity(
      // A password set any way replaces an imported hash for good (domain/migration/imports.ts).
      onDirectoryShard(saasId, user.id, new Update().set('password', credential).remove('imported_password').add('session_version', 1)),
      options.activity,
    );
    const profile = keys.userProfile(saasId, user.id);
    const login = loginOf(user);
    const copy = new Update().set('credential', { salt: credential.salt, verifier: credential.verifier });
    return atomicWrite(
      options.onlyBeforeFirstSignIn
        ? update(this.table, profile, change, both(holdsLogin(login), AWAITING_FIRST_SIGN_IN), RULE.awaitingFirstSignIn)
        : update(this.table, profile, change, holdsLogin(login), RULE.userLive),
      update(this.table, keys.loginOwner(saasId, login), copy, ownedBy(user.id), RULE.loginUnchanged),
      ...(mail ? mailWrites(this.table, mail) : []),
    );
  }

  disabledWrite(saasId: string, userId: string, disabled: boolean): AtomicWrite {
    const change = disabled ? new Update().set('disabled', true).add('session_version', 1) : new Update().remove('disabled');
    return atomicWrite(update(this.table, keys.userProfile(saasId, userId), onDirectoryShard(saasId, userId, change), LIVE, RULE.userLive));
  }

  async attributesWrite(saasId: string, userId: string, changes: AttributeChanges): Promise<AtomicWrite> {
    const key = keys.userProfile(saasId, userId);
    const change = () => new Update().changeEntries('attributes', changes);
    if (change().isEmpty()) return atomicWrite(check(this.table, key, LIVE, RULE.userLive));
    const layout = await new DirectoryShards(this.db, this.table).layout(saasId);
    if (!entriesKept(layout)) return atomicWrite(update(this.table, key, onDirectoryShard(saasId, userId, change()), LIVE, RULE.userLive));
    if (!profilesInIndex(layout))
      return atomicWrite(update(this.table, key, change(), LIVE, RULE.userLive), entryWrite(this.table, saasId, userId, layout, change()));
    // Both kept: the entry takes the whole map, as the profile read holds it with the changes, while it still does.
    const read = await this.liveProfile(saasId, userId);
    if (!read) return atomicWrite(check(this.table, key, LIVE, RULE.userLive));
    const attributes: Record<string, unknown> = { ...(read.attributes as Record<string, unknown> | undefined) };
    for (const [name, value] of Object.entries(changes))
      if (value === null) delete attributes[name];
      else attributes[name] = value;
    return atomicWrite(
      update(this.table, key, onDirectoryShard(saasId, userId, change()), profileAsRead(read, ['attributes']), RULE.userUnchanged),
      ...(await this.keptEntry(saasId, userId, layout, { attributes }, RULE.userLive, read)),
    );
  }

  /**
   * The user's entry, while a SaaS moves onto entries and writes keep both (directory-migration.ts): `changed` set,
   * and the rest of what it copies from the profile set only where it has none yet (the job writes it whole, from
   * the profile, while the profile still holds what it read). Written whether or not it exists, so that a write
   * needs no knowledge of how far the job has come.
   */
  private async keptEntry(
    saasId: string,
    userId: string,
    layout: DirectoryLayout,
    changed: Record<string, unknown>,
    rule: string,
    read?: Record<string, unknown>,
  ) {
    const profile = read ?? (await this.liveProfile(saasId, userId));
    if (!profile) return [];
    const change = entryChange({ ...profile, ...changed }, ['id', ...Object.keys(changed)], knownEntryShard(saasId, userId, layout));
    return [upsert(this.table, keys.userDirectoryItem(saasId, userId), change, rule)];
  }

  /**
   * A sign-in's time copied to the user's entry (where entries are the directory), after the sign-in wrote it on
   * the profile: the API log writer's work (shared/domain/apilog/shipped-lines.ts), off the sign-in's path. Only
   * a later time replaces the copy, so lines delivered twice or out of order leave the latest; no entry (a SaaS
   * whose profiles are the directory, a user deleted since) is left alone. The entry moves to its shard as the
   * layout this instance keeps says (it reads none: the writer's requests are its batches').
   */
  async copyLastSignIn(saasId: string, userId: string, at: number): Promise<void> {
    const later: Condition = {
      expression: 'attribute_exists(#pk) AND #at < :at',
      names: { '#pk': 'pk', '#at': 'last_login_at' },
      values: { ':at': at },
    };
    const layout = keptLayout(saasId);
    const shard = layout && entriesKept(layout) ? knownEntryShard(saasId, userId, layout) : undefined;
    const change = new Update().set('last_login_at', at);
    if (shard) change.set('gsi1pk', shard);
    await unlessConditionFails(() =>
      this.db.send(new UpdateCommand(updateRequest(this.table, keys.userDirectoryItem(saasId, userId), change, later))),
    );
  }

  private conditionalUpdate(key: ItemKey, change: Update, condition: Condition): Promise<boolean> {
    return unlessConditionFails(() => this.db.send(new UpdateCommand(updateRequest(this.table, key, change, condition))));
  }

  setMfa(saasId: string, userId: string, preference: MfaPreference, activity?: ActivityChange): Promise<boolean> {
    const change = withActivity(onDirectoryShard(saasId, userId, new Update().set(['mfa', 'enabled'], preference.enabled)), activity);
    if (preference.method) change.set(['mfa', 'method'], preference.method);
    else change.remove(['mfa', 'method']);
    const registered: Condition = {
      expression: '#mfa.#registered = :registered',
      names: { '#mfa': 'mfa', '#registered': 'software_token_registered' },
      values: { ':registered': true },
    };
    return this.conditionalUpdate(keys.userProfile(saasId, userId), change, preference.method === 'softwareToken' ? both(LIVE, registered) : LIVE);
  }

  /** The link goes with the provider account's owner item and the user's side of it, while the link is the one read. */
  async unlinkProvider(saasId: string, userId: string, provider: string): Promise<boolean> {
    const subject = (await this.get(saasId, userId))?.providers[provider]?.subject;
    if (subject === undefined) return false;
    const sameLink: Condition = {
      expression: '#providers.#provider.#subject = :subject',
      names: { '#providers': 'providers', '#provider': provider, '#subject': 'subject' },
      values: { ':subject': subject },
    };
    const outcome = await new DynamoCommitter(this.db).commit(
      atomicWrite(
        update(
          this.table,
          keys.userProfile(saasId, userId),
          onDirectoryShard(saasId, userId, new Update().remove(['providers', provider])),
          both(LIVE, sameLink),
          RULE.userLive,
        ),
        part(RULE.userLive, { Delete: { TableName: this.table, Key: keys.externalIdentity(saasId, provider, subject) } }),
        part(RULE.userLive, { Delete: { TableName: this.table, Key: keys.userExternalIdentity(saasId, userId, provider) } }),
      ),
    );
    return outcome.committed;
  }

  async findByIdentity(saasId: string, provider: string, subject: string): Promise<UserRecord | undefined> {
    const owner = await this.db.send(
      new GetCommand({ TableName: this.table, Key: keys.externalIdentity(saasId, provider, subject), ConsistentRead: true }),
    );
    const userId = owner.Item?.user_id;
    return typeof userId === 'string' ? this.get(saasId, userId) : undefined;
  }

  /**
   * Hide first (out of the directory, and no write conditioned on a live user passes any more, so no new
   * membership can join); then everything in the user's partition and the items those name as `mirror`
   * (the tenant side of memberships, and whatever sign-in keeps elsewhere); then the sign-in name; the
   * profile goes last, so an interrupted delete is finished by the next one.
   */
  async delete(saasId: string, userId: string): Promise<boolean> {
    const profile = keys.userProfile(saasId, userId);
    let hidden: Record<string, unknown> | undefined;
    const found = await unlessConditionFails(async () => {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: profile,
          UpdateExpression: 'SET #deleting = :true REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#deleting': 'deleting', '#pk': 'pk' },
          ExpressionAttributeValues: { ':true': true },
          ReturnValues: 'ALL_NEW',
        }),
      );
      hidden = out.Attributes;
    });
    if (!found || !hidden) return false;
    // Out of the directory next, where entries are it (the partition's emptying below would take it too, later).
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: keys.userDirectoryItem(saasId, userId) }));
    const contents = await queryAll(this.db, this.table, keys.userContents(saasId, userId));
    await batchDeleteWithMirrors(
      this.db,
      this.table,
      contents.filter((item) => item.sk !== profile.sk),
    );
    await deleteIfPresent(this.db, this.table, keys.loginOwner(saasId, loginFromKey(hidden.loginKey as string)), {
      attribute: 'user_id',
      value: userId,
    });
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: profile }));
    return true;
  }
}
