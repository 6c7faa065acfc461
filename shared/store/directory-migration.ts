/**
 * Moving a SaaS whose profiles are its user directory onto entry items of their own (docs/decisions.md, decision 18
 * "Existing data"), while it signs in and writes: the scheduled worker takes the next step each run
 * (`DirectoryMigration.step`), through the phases of directory-shards.ts (DirectoryPhase):
 * 1. `profiles` → `writing`: from now on every write of a listed field keeps an entry too.
 * 2. once no instance holds `profiles` any more (STEP_WAITS_SECONDS): an entry for every profile in the index,
 *    a page at a time, each written from the profile as read and only while the profile still holds that;
 *    then `writing` → `reading`: reads take the entries.
 * 3. once no instance holds `writing`: `reading` → `entries`: writes keep the entries alone.
 * 4. once no instance holds `reading`: every profile taken out of the index; the job is done.
 * Two neighbouring phases are all instances hold at once, and each pair reads a whole directory: readers of
 * `profiles`/`writing` take the profiles (every one in the index until step 4), readers of `reading`/`entries` take
 * the entries (every user has one, as current as the profile, before step 2 ends). Each step is a conditional write
 * or a rewrite of what is there, so a run cut short, or two side by side, repeat work and change nothing else.
 */
import { nowSeconds } from '../clock.js';
import { unlessConditionFails } from './conditional.js';
import { directorySources, forgetLayout, GROWTH_SETTLES_SECONDS, layoutOf, storedPhase, type DirectoryPhase } from './directory-shards.js';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { ENTITY, keys } from './keys.js';
import { indexQuery } from './query.js';
import { check, DynamoCommitter, LIVE, part, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';

/** What an entry copies of its profile, and its name order (the profile's index sort key). */
const COPIED = ['id', 'email', 'sign_in_id', 'attributes', 'last_login_at', 'gsi1sk'] as const;
/** Profiles read at a time, and entries written in one transaction (two items each: the entry and the profile's check). */
const PAGE = 100;
const PER_TRANSACTION = 25;
const ATTEMPTS = 5;
/**
 * From one step to the next: every copy of the layout kept before the step has expired (GROWTH_SETTLES_SECONDS), and
 * so has every read that began under it, which runs as long as a request may (API Gateway ends one at 29 s): a list
 * begun on the profiles must have ended before the last step takes them out of the index.
 */
export const STEP_WAITS_SECONDS = GROWTH_SETTLES_SECONDS + 30;

/** The profile holds what `profile` read of it (every field its entry copies, and the name), and is live. */
export function profileAsRead(profile: Record<string, unknown>, fields: readonly string[] = [...COPIED, 'loginKey']): Condition {
  const parts = [LIVE.expression];
  const names: Record<string, string> = { ...LIVE.names };
  const values: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    names[`#f${i}`] = field;
    if (profile[field] === undefined) parts.push(`attribute_not_exists(#f${i})`);
    else {
      parts.push(`#f${i} = :f${i}`);
      values[`:f${i}`] = profile[field];
    }
  });
  return { expression: parts.join(' AND '), names, values };
}

/**
 * The user's entry as `profile` says it, over whatever entry is there: the fields named in `current` are set, the
 * others only where the entry has none (it is as current as the profile already, the writes before having kept it).
 * The entry stays on the key it is on (it never moves back to the key it left), or goes to `shard`; a new one starts
 * where the profile is.
 */
export function entryChange(profile: Record<string, unknown>, current: readonly string[], shard?: string): Update {
  const change = new Update().set('entity', ENTITY.userDirectoryItem).set('v', 1);
  for (const field of COPIED)
    if (profile[field] !== undefined) change.set(field, profile[field], current.includes(field) ? ':v' : 'if_not_exists(#self, :v)');
  return shard ? change.set('gsi1pk', shard) : change.set('gsi1pk', profile.gsi1pk, 'if_not_exists(#self, :v)');
}

/** An update of an item, whether or not it exists (a transaction's part). */
export const upsert = (table: string, key: { pk: string; sk: string }, change: Update, rule: string) =>
  part(rule, {
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: change.expression(),
      ExpressionAttributeNames: change.names,
      ExpressionAttributeValues: change.values,
    },
  });

type Cursor = { source: number; start?: Record<string, unknown> };

export class DirectoryMigration {
  private readonly committer: DynamoCommitter;

  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {
    this.committer = new DynamoCommitter(db);
  }

  /**
   * The SaaS's next step onto entries, as far as `deadline` (ms) allows; a SaaS on entries already costs this one
   * read. Answers the items written (entries, or profiles taken out of the index).
   */
  async step(saasId: string, deadline: number): Promise<number> {
    const item = (await this.db.send(new GetCommand({ TableName: this.table, Key: keys.saas(saasId), ConsistentRead: true }))).Item;
    if (!item) return 0;
    const layout = layoutOf(item);
    const cursor = item.directory_moving as Cursor | undefined;
    if (layout.phase === 'profiles') {
      await this.enter(saasId, 'profiles', 'writing', { source: 0 });
      return 0;
    }
    if (layout.phase === 'entries' && !cursor) return 0;
    // Until every instance's copy of the layout from before the last step has expired.
    if (nowSeconds() < Number(item.directory_entries_since ?? 0) + STEP_WAITS_SECONDS) return 0;
    if (layout.phase === 'reading') {
      await this.enter(saasId, 'reading', 'entries', { source: 0 });
      return 0;
    }
    const sources = directorySources(saasId, layout);
    let written = 0;
    for (let at: Cursor | undefined = cursor ?? { source: 0 }; at;) {
      if (Date.now() >= deadline) return written;
      const gsi1pk = sources[at.source] as string;
      const out: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> } = await this.db.send(
        new QueryCommand({ ...indexQuery(this.table, { gsi1pk }), Limit: PAGE, ExclusiveStartKey: at.start }),
      );
      const profiles = (out.Items ?? []).filter((found) => keys.isUserProfile(found) && !found.deleting);
      written += layout.phase === 'writing' ? await this.writeEntries(saasId, profiles) : await this.unindex(profiles);
      const next: Cursor | undefined = out.LastEvaluatedKey
        ? { source: at.source, start: out.LastEvaluatedKey }
        : at.source + 1 < sources.length
          ? { source: at.source + 1 }
          : undefined;
      if (next) await this.saveCursor(saasId, layout.phase, next);
      at = next;
    }
    if (layout.phase === 'writing') await this.enter(saasId, 'writing', 'reading');
    else await this.finish(saasId);
    return written;
  }

  /** From phase `from` to `to` (only from `from`: a step taken by another run is not taken twice). */
  private async enter(saasId: string, from: DirectoryPhase, to: Exclude<DirectoryPhase, 'profiles'>, cursor?: Cursor): Promise<void> {
    const change = new Update().set('directory_entries', storedPhase(to)).set('directory_entries_since', nowSeconds());
    if (cursor) change.set('directory_moving', cursor);
    else change.remove('directory_moving');
    const was: Condition =
      from === 'profiles'
        ? { expression: 'attribute_exists(#pk) AND attribute_not_exists(#phase)', names: { '#pk': 'pk', '#phase': 'directory_entries' } }
        : { expression: '#phase = :from', names: { '#phase': 'directory_entries' }, values: { ':from': storedPhase(from) } };
    await unlessConditionFails(() => this.db.send(new UpdateCommand(updateRequest(this.table, keys.saas(saasId), change, was))));
    forgetLayout(saasId);
  }

  private async saveCursor(saasId: string, phase: DirectoryPhase, cursor: Cursor): Promise<void> {
    const change = new Update().set('directory_moving', cursor);
    const still: Condition = {
      expression: '#phase = :phase AND attribute_exists(#moving)',
      names: { '#phase': 'directory_entries', '#moving': 'directory_moving' },
      values: { ':phase': storedPhase(phase as Exclude<DirectoryPhase, 'profiles'>) },
    };
    await unlessConditionFails(() => this.db.send(new UpdateCommand(updateRequest(this.table, keys.saas(saasId), change, still))));
  }

  private async finish(saasId: string): Promise<void> {
    const change = new Update().remove('directory_moving').remove('directory_entries_since');
    const still: Condition = { expression: '#phase = :true', names: { '#phase': 'directory_entries' }, values: { ':true': true } };
    await unlessConditionFails(() => this.db.send(new UpdateCommand(updateRequest(this.table, keys.saas(saasId), change, still))));
  }

  /** An entry for each profile, a transaction at a time; where a profile changed since it was read, one by one. */
  private async writeEntries(saasId: string, profiles: Record<string, unknown>[]): Promise<number> {
    for (let i = 0; i < profiles.length; i += PER_TRANSACTION) {
      const group = profiles.slice(i, i + PER_TRANSACTION);
      const outcome = await this.committer.commit({ parts: group.flatMap((profile) => this.entryParts(saasId, profile)) });
      if (!outcome.committed) for (const profile of group) await this.writeEntry(saasId, profile);
    }
    return profiles.length;
  }

  private entryParts(saasId: string, profile: Record<string, unknown>) {
    const id = profile.id as string;
    return [
      upsert(this.table, keys.userDirectoryItem(saasId, id), entryChange(profile, COPIED), 'entry'),
      check(this.table, keys.userProfile(saasId, id), profileAsRead(profile), 'profile'),
    ];
  }

  /** The profile read again until its entry is written from what it holds at the write; none once it is gone. */
  private async writeEntry(saasId: string, first: Record<string, unknown>): Promise<void> {
    let profile: Record<string, unknown> | undefined = first;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (!profile || profile.deleting || profile.gsi1pk === undefined) return;
      if ((await this.committer.commit({ parts: this.entryParts(saasId, profile) })).committed) return;
      const key = keys.userProfile(saasId, first.id as string);
      profile = (await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }))).Item;
    }
    throw new Error(`the directory entry of user ${first.id as string} could not be written: its profile kept changing`);
  }

  /** Each profile out of the index; a profile deleted meanwhile is not made again. */
  private async unindex(profiles: Record<string, unknown>[]): Promise<number> {
    const remove = new Update().remove('gsi1pk').remove('gsi1sk');
    const exists: Condition = { expression: 'attribute_exists(#pk)', names: { '#pk': 'pk' } };
    for (let i = 0; i < profiles.length; i += 10)
      await Promise.all(
        profiles
          .slice(i, i + 10)
          .map((profile) =>
            unlessConditionFails(() =>
              this.db.send(new UpdateCommand(updateRequest(this.table, { pk: profile.pk as string, sk: profile.sk as string }, remove, exists))),
            ),
          ),
      );
    return profiles.length;
  }
}
