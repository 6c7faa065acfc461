/**
 * How many shards a SaaS's user directory has (keys.ts, USER_DIRECTORY_SHARDS; docs/decisions.md, "Directory
 * shards that follow the load"). Recorded on the SaaS item: `directory_shards`, 1 when the SaaS is made and
 * USER_DIRECTORY_SHARDS once its directory writes near one index key's limit, and `directory_writes_from`, when
 * writes may use the grown count. A SaaS item without a count was made before counts were: its entries are on
 * the 32 shards or on the key from before the shards, and it is read and written as it was.
 *
 * The count goes from 1 straight to 32 and never back, so an entry only ever leaves shard 0 (or the unsharded
 * key), and a read of the key entries leave ahead of the others never misses one that moves meanwhile
 * (user-repository.ts, UnshardedEntries). Each instance keeps the layout it read LAYOUT_KEPT_SECONDS; a growth
 * lets writes reach the new shards only after every kept copy has expired, so no instance reads fewer shards
 * than hold entries.
 */
import { nowMillis, nowSeconds } from '../clock.js';
import { unlessConditionFails } from './conditional.js';
import { GetCommand, TransactionCanceledException, UpdateCommand, type DynamoClient, type StoreCommand } from './dynamo-client.js';
import { keys, TTL_ATTRIBUTE, USER_DIRECTORY_SHARDS } from './keys.js';
import { Recent } from './recent.js';

export interface DirectoryLayout {
  /** The shards reads merge: 1, or USER_DIRECTORY_SHARDS. */
  shards: number;
  /** Unix seconds from which writes spread over `shards`; before, over shard 0 alone. */
  writesFrom: number;
  /** No count recorded: 32 shards behind the key entries were written under before the shards. */
  legacy: boolean;
  /**
   * Reads take the entry items of their own (keys.userDirectoryItem), which no sign-in writes; false: the profiles
   * themselves, as in every SaaS made before entries (docs/decisions.md, decision 18) until it is moved onto them.
   */
  entries: boolean;
  /** Where the SaaS is on the way from profiles to entries (directory-migration.ts); 'entries' for a SaaS made now. */
  phase: DirectoryPhase;
}

/**
 * A directory made of profiles moves onto entries in three steps (directory-migration.ts), each taken only once every
 * copy of the layout kept before the last one has expired, so two neighbouring phases are all instances ever hold:
 * - `profiles`: reads and writes use the profiles, in the index; no entry exists.
 * - `writing`: reads still take the profiles; every write of a listed field keeps the profile and the entry both,
 *   while the job writes an entry for every profile.
 * - `reading`: every user has an entry as current as their profile; reads take the entries, writes still keep both.
 * - `entries`: writes keep the entries alone, and the job takes the profiles out of the index.
 */
export type DirectoryPhase = 'profiles' | 'writing' | 'reading' | 'entries';
/** How the SaaS item's `directory_entries` stores each phase: none, a word, or `true` (what a SaaS made now records). */
const STORED_PHASE = { writing: 'writing', reading: 'reading', entries: true } as const;
export const storedPhase = (phase: Exclude<DirectoryPhase, 'profiles'>): string | boolean => STORED_PHASE[phase];
const phaseOf = (stored: unknown): DirectoryPhase =>
  stored === true ? 'entries' : stored === 'writing' ? 'writing' : stored === 'reading' ? 'reading' : 'profiles';

/** The profiles are in the index, and every write of one keeps it there (all phases before `entries`). */
export const profilesInIndex = (layout: DirectoryLayout): boolean => layout.phase !== 'entries';
/** Writes keep an entry for the user (every phase after `profiles`). */
export const entriesKept = (layout: DirectoryLayout): boolean => layout.phase !== 'profiles';

/** What the SaaS item of a SaaS made now records (account-repository.ts). */
export const NEW_SAAS_DIRECTORY = { directory_shards: 1, directory_entries: true };
/** The SaaS item's attributes that hold the layout: no part of the account. */
export const LAYOUT_ATTRIBUTES = [
  'directory_shards',
  'directory_writes_from',
  'directory_entries',
  'directory_entries_since',
  'directory_moving',
] as const;

/**
 * How long an instance keeps a layout it read. A constant, not a setting: a growth's writes wait for every
 * instance's copy to expire, so all must keep it alike.
 */
export const LAYOUT_KEPT_SECONDS = 5;
/** From a growth to the first write on a new shard: every copy kept before it has expired, with a margin for clocks. */
export const GROWTH_SETTLES_SECONDS = LAYOUT_KEPT_SECONDS + 2;
/** Index write units a second (all instances together) at which a 1-shard directory grows: half one key's 1 000. */
export const GROW_AT_UNITS_PER_SECOND = 500;
/**
 * An instance tells its rate only above this (about 10 sign-ups a second on it alone), so a quiet SaaS pays no
 * request for measuring. Many instances each below it are caught by the store's throttling instead (watchThrottling).
 */
export const TELL_FROM_UNITS_PER_SECOND = 40;
/**
 * Index write units of a new user's directory item (inside a transaction) and of a later write of it: a profile of
 * about 1.25 KB where the profiles are the directory, an entry of about 200 bytes where entries are.
 */
export const DIRECTORY_UNITS = { created: 4, written: 2 };
export const ENTRY_UNITS = { created: 2, written: 1 };

const LEGACY = { shards: USER_DIRECTORY_SHARDS, writesFrom: 0, legacy: true };
const MAX_MEASURED = 10_000;

const kept = new Recent<{ layout: DirectoryLayout }>();
/** This instance's directory write units per SaaS since `since` (ms). */
const measured = new Map<string, { since: number; units: number }>();

export function layoutOf(item: Record<string, unknown> | undefined): DirectoryLayout {
  const phase = phaseOf(item?.directory_entries);
  const entries = phase === 'entries' || phase === 'reading';
  const shards = item?.directory_shards;
  if (typeof shards !== 'number') return { ...LEGACY, entries, phase };
  const from = item?.directory_writes_from;
  return { shards, writesFrom: typeof from === 'number' ? from : 0, legacy: false, entries, phase };
}

/** The shards a write at `now` (Unix seconds) spreads over. */
export const writeShards = (layout: DirectoryLayout, now = nowSeconds()): number => (layout.legacy || now >= layout.writesFrom ? layout.shards : 1);

/**
 * Every key a directory read merges, the one entries leave from first: the unsharded key ahead of the 32
 * shards for a SaaS without a count, else shard 0 ahead of the others (only it ever loses entries).
 */
export function directorySources(saasId: string, layout: DirectoryLayout): [string, ...string[]] {
  const shards = Array.from({ length: layout.shards }, (_, k) => keys.userDirectoryShardKey(saasId, k));
  return (layout.legacy ? [keys.userDirectoryUnsharded(saasId), ...shards] : shards) as [string, ...string[]];
}

/**
 * The key a write of the user's directory item moves it to, from the layout this instance holds (however old: a
 * count only grows), or undefined to leave it where it is: when the instance holds none, or its writes still use
 * shard 0 alone. An entry is then only ever on the key it leaves (shard 0, or the unsharded key) or on its own
 * shard among the 32, and moves only from the first to the second, never back, the one way a read allows for
 * (user-repository.ts, UnshardedEntries), whatever copy a stale instance holds. Counts the write toward this
 * instance's rate.
 */
function knownShard(saasId: string, userId: string, layout: DirectoryLayout | undefined, units: number): string | undefined {
  noteDirectoryWrite(saasId, units);
  const shards = layout && writeShards(layout);
  return shards && shards > 1 ? keys.userDirectoryShard(saasId, userId, shards) : undefined;
}

/**
 * Where a write of the user's profile moves the profile's directory entry (knownShard), in a SaaS whose profiles
 * are the directory; undefined too where this instance knows its directory is made of entries, whose profiles
 * are in no index, so that a write of one (a sign-in's) writes no index.
 */
export function knownDirectoryShard(saasId: string, userId: string): string | undefined {
  const layout = kept.peek(saasId)?.layout;
  return layout && !profilesInIndex(layout) ? undefined : knownShard(saasId, userId, layout, DIRECTORY_UNITS.written);
}

/** Where a write of the user's entry item moves it (knownShard), given the layout the write read. */
export const knownEntryShard = (saasId: string, userId: string, layout: DirectoryLayout): string | undefined =>
  knownShard(saasId, userId, layout, ENTRY_UNITS.written);

/** The layout this instance keeps of the SaaS, if it read one in the last LAYOUT_KEPT_SECONDS. */
export const keptLayout = (saasId: string): DirectoryLayout | undefined => kept.peek(saasId)?.layout;

/** Whether this instance knows the SaaS's profiles to be in the directory (a decoy of a profile's write is then indexed alike). */
export function profilesIndexed(saasId: string): boolean {
  const layout = kept.peek(saasId)?.layout;
  return layout !== undefined && profilesInIndex(layout);
}

/** This instance's copy of the SaaS's layout is gone: a phase or a count this instance changed is read afresh. */
export const forgetLayout = (saasId: string): void => kept.forget(saasId);

function noteDirectoryWrite(saasId: string, units: number): void {
  const window = measured.get(saasId);
  if (window) window.units += units;
  else {
    if (measured.size >= MAX_MEASURED) measured.delete(measured.keys().next().value as string);
    measured.set(saasId, { since: nowMillis(), units });
  }
}

export class DirectoryShards {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  /** The SaaS's layout, as this instance read it in the last LAYOUT_KEPT_SECONDS (one strongly consistent read otherwise). */
  async layout(saasId: string): Promise<DirectoryLayout> {
    const { layout } = await kept.get(saasId, LAYOUT_KEPT_SECONDS, async () => {
      const out = await this.db.send(
        new GetCommand({
          TableName: this.table,
          Key: keys.saas(saasId),
          ConsistentRead: true,
          ProjectionExpression: '#shards, #from, #entries',
          ExpressionAttributeNames: { '#shards': LAYOUT_ATTRIBUTES[0], '#from': LAYOUT_ATTRIBUTES[1], '#entries': LAYOUT_ATTRIBUTES[2] },
        }),
      );
      return { layout: layoutOf(out.Item) };
    });
    return layout;
  }

  /**
   * A new user's entry: the shard its id names among those writes use now. Counts the write toward this
   * instance's rate, and tells the rate (tellRate) when a second has passed.
   */
  async newEntryShards(saasId: string): Promise<{ shards: number; layout: DirectoryLayout }> {
    const layout = await this.layout(saasId);
    noteDirectoryWrite(saasId, profilesInIndex(layout) ? DIRECTORY_UNITS.created : ENTRY_UNITS.created);
    await this.tellRate(saasId, layout);
    return { shards: writeShards(layout), layout };
  }

  /**
   * At most once a second, and only when this instance alone wrote TELL_FROM_UNITS_PER_SECOND, adds its rate to
   * the SaaS's count for the current second; when the instances' sum reaches GROW_AT_UNITS_PER_SECOND, grows.
   */
  private async tellRate(saasId: string, layout: DirectoryLayout): Promise<void> {
    const now = nowMillis();
    const window = measured.get(saasId);
    if (!window || now - window.since < 1000) return;
    const rate = Math.round((window.units * 1000) / (now - window.since));
    measured.set(saasId, { since: now, units: 0 });
    if (rate < TELL_FROM_UNITS_PER_SECOND || layout.shards >= USER_DIRECTORY_SHARDS) return;
    const second = Math.floor(now / 1000);
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.userDirectoryRate(saasId, second),
        UpdateExpression: 'ADD #units :rate SET #ttl = :ttl',
        ExpressionAttributeNames: { '#units': 'units', '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':rate': rate, ':ttl': second + 86_400 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    if (Number(out.Attributes?.units ?? 0) >= GROW_AT_UNITS_PER_SECOND) await this.grow(saasId);
  }

  /**
   * A 1-shard directory becomes USER_DIRECTORY_SHARDS, its writes reaching them GROWTH_SETTLES_SECONDS from now;
   * false when it had grown already (or the SaaS has no count: it has them all).
   */
  async grow(saasId: string): Promise<boolean> {
    const grown = await unlessConditionFails(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.saas(saasId),
          UpdateExpression: 'SET #shards = :all, #from = :from',
          ConditionExpression: '#shards = :one',
          ExpressionAttributeNames: { '#shards': LAYOUT_ATTRIBUTES[0], '#from': LAYOUT_ATTRIBUTES[1] },
          ExpressionAttributeValues: { ':all': USER_DIRECTORY_SHARDS, ':one': 1, ':from': nowSeconds() + GROWTH_SETTLES_SECONDS },
        }),
      ),
    );
    kept.forget(saasId);
    return grown;
  }
}

const THROTTLED = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException']);
const THROTTLED_IN_TRANSACTION = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);
const PROFILE_PARTITION = /^SAAS#([^#]+)#USER#[^#]+$/;

const isThrottled = (error: unknown) =>
  THROTTLED.has((error as Error).name) ||
  (error instanceof TransactionCanceledException && error.CancellationReasons.some((reason) => THROTTLED_IN_TRANSACTION.has(reason.Code ?? '')));

/** The SaaS and table of the user profile or directory entry a write names (alone or in a transaction), if it names one. */
function profileWritten(input: Record<string, unknown>): { saasId: string; table: string } | undefined {
  const parts = Array.isArray(input.TransactItems)
    ? (input.TransactItems as Record<string, Record<string, unknown>>[]).flatMap(Object.values)
    : [input];
  for (const part of parts) {
    const key = (part.Key ?? part.Item) as { pk?: unknown; sk?: unknown } | undefined;
    const saasId = (key?.sk === 'PROFILE' || key?.sk === 'DIRECTORY') && typeof key.pk === 'string' ? PROFILE_PARTITION.exec(key.pk)?.[1] : undefined;
    if (saasId && typeof part.TableName === 'string') return { saasId, table: part.TableName };
  }
  return undefined;
}

/**
 * The store's own word that a SaaS's directory writes are past a key's limit: a write of a profile or an entry refused as
 * throttled (after the client's retries) grows that SaaS's directory before the refusal goes on.
 */
export function watchThrottling(db: DynamoClient): void {
  db.intercept(async (command: StoreCommand, next) => {
    try {
      return await next();
    } catch (error) {
      const written = command.operation === 'GetItem' || !isThrottled(error) ? undefined : profileWritten(command.input as Record<string, unknown>);
      if (written) await new DirectoryShards(db, written.table).grow(written.saasId).catch(() => false);
      throw error;
    }
  });
}
