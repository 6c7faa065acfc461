/**
 * A SaaS made before directory entries (its profiles are its user directory) moved onto them by the scheduled worker
 * while it keeps signing in and writing (shared/store/directory-migration.ts; docs/decisions.md, decision 18). At
 * every phase, and for an instance still holding the phase before (the SaaS item rewound to it for a while, which
 * is all such an instance knows), GET /users, a paged search and a tenant's user list answer every live user once,
 * with what was last written; writes by either instance are kept. A re-run changes nothing, and afterwards a
 * sign-in writes no index. A legacy SaaS (no shard count, entries on the key from before the shards) moves alike.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { nowMillis, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { forgetLayout } from '../../shared/store/directory-shards.js';
import { DirectoryMigration, STEP_WAITS_SECONDS } from '../../shared/store/directory-migration.js';
import { GetCommand, UpdateCommand } from '../../shared/store/dynamo-client.js';
import { apiLogKeys, keys, USER_DIRECTORY_SHARDS } from '../../shared/store/keys.js';
import { DynamoCommitter } from '../../shared/store/transact.js';
import { dynamo, tableName, userService } from '../../shared/wiring.js';
import { userRepository } from '../../shared/wiring/repositories.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

const PASSWORD = 'Moving-pass-1';
let h: Harness;
/** Index write units of the service's own requests while set (the API log writer's left out). */
let indexUnits: number | undefined;

beforeAll(async () => {
  h = await startHarness();
  dynamo().intercept(async (command, next) => {
    const mine = indexUnits !== undefined && !apiLogKeys.isRecordWrite(command.operation, command.input);
    if (mine) (command.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
    const result = (await next()) as { ConsumedCapacity?: unknown };
    if (mine && indexUnits !== undefined)
      for (const c of [result.ConsumedCapacity ?? []].flat() as { GlobalSecondaryIndexes?: Record<string, { WriteCapacityUnits?: number }> }[])
        for (const index of Object.values(c.GlobalSecondaryIndexes ?? {})) indexUnits += index.WriteCapacityUnits ?? 0;
    return result;
  });
});
afterAll(() => {
  resetClockForTests();
  return h.close();
});

/** The clock moved past every layout copy kept and every step's wait. */
function later() {
  setClockForTests(nowMillis() + (STEP_WAITS_SECONDS + 1) * 1000);
}

const item = async (key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
const setPhase = (saasId: string, stored: unknown) =>
  dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.saas(saasId),
      ...(stored === undefined
        ? { UpdateExpression: 'REMOVE directory_entries' }
        : { UpdateExpression: 'SET directory_entries = :p', ExpressionAttributeValues: { ':p': stored } }),
    }),
  );

interface Listed {
  id: string;
  email: string;
  attributes: Record<string, unknown>;
  last_login_at: number;
}
type Expected = Map<string, { email: string; attributes: Record<string, unknown>; last_login_at: number }>;

class World {
  expected: Expected = new Map();
  tenantId = '';
  constructor(
    readonly saasId: string,
    readonly api: SignedClient,
  ) {}

  async create(email: string) {
    const user = await userService().create(this.saasId, { email, password: PASSWORD });
    this.expected.set(user.id, { email, attributes: {}, last_login_at: 0 });
    return user.id;
  }

  async signIn(id: string) {
    const user = this.expected.get(id)!;
    const signedIn = await srpSignIn(this.api, user.email, PASSWORD);
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    user.last_login_at = (await item(keys.userProfile(this.saasId, id)))?.last_login_at as number;
  }

  async setAttribute(id: string, value: string) {
    const committed = await new DynamoCommitter(dynamo()).commit(await userRepository().attributesWrite(this.saasId, id, { team: value }));
    assert.ok(committed.committed);
    this.expected.get(id)!.attributes = { team: value };
  }

  async changeEmail(id: string, email: string) {
    await userService().changeEmail(this.saasId, id, email);
    this.expected.get(id)!.email = email;
  }

  async remove(id: string) {
    assert.equal((await this.api.delete(`/users/${id}`)).status, 200);
    this.expected.delete(id);
  }

  /** As an instance holding the phase `stored` (the SaaS item says it for as long as `work` runs). */
  async asInstanceOf(stored: unknown, work: () => Promise<void>) {
    const now = (await item(keys.saas(this.saasId)))?.directory_entries;
    await setPhase(this.saasId, stored);
    forgetLayout(this.saasId);
    try {
      await work();
    } finally {
      await setPhase(this.saasId, now);
      forgetLayout(this.saasId);
    }
  }

  /** Every live user once, with what was last written, in GET /users, a search paged 3 at a time, and the tenant's list. */
  async readsExact(when: string) {
    await h.flush();
    const want = [...this.expected].map(([id, u]) => ({ id, ...u })).sort((a, b) => a.id.localeCompare(b.id));
    const shape = (users: Listed[]) =>
      users
        .map((u) => ({ id: u.id, email: u.email, attributes: u.attributes, last_login_at: u.last_login_at }))
        .sort((a, b) => a.id.localeCompare(b.id));
    const listed = (await this.api.get<{ users: Listed[] }>('/users')).body.users;
    assert.deepEqual(shape(listed), want, `GET /users ${when}`);
    const searched: Listed[] = [];
    for (let cursor: string | undefined, pages = 0; pages === 0 || cursor; pages++) {
      assert.ok(pages < 50);
      const page = (await this.api.get<{ users: Listed[]; cursor?: string }>(`/users/search?email=m&limit=3${cursor ? `&cursor=${cursor}` : ''}`))
        .body;
      searched.push(...page.users);
      cursor = page.cursor;
    }
    assert.deepEqual(shape(searched), want, `a paged search ${when}`);
    const members = (await this.api.get<{ users: { id: string }[] }>(`/tenants/${this.tenantId}/users`)).body.users.map((u) => u.id).sort();
    assert.deepEqual(members, [...this.expected.keys()].filter((id) => this.members.has(id)).sort(), `the tenant's users ${when}`);
  }

  members = new Set<string>();
  async join(id: string) {
    const res = await this.api.post(`/tenants/${this.tenantId}/users`, { email: this.expected.get(id)!.email, attributes: {} });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    this.members.add(id);
  }

  /** The SaaS item's phase after a scheduled run, and the items the run wrote for this SaaS's directory. */
  async run() {
    await runScheduledWork();
    return (await item(keys.saas(this.saasId)))?.directory_entries;
  }
}

async function oldSaas(legacy: boolean): Promise<World> {
  const { saasId, client } = await h.newSaas();
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.saas(saasId),
      UpdateExpression: legacy ? 'REMOVE directory_entries, directory_shards' : 'REMOVE directory_entries',
    }),
  );
  later();
  const world = new World(saasId, client);
  const tenant = await client.post<{ id: string }>('/tenants', { name: 'Moving', attributes: {}, back_office_staff_email: 'ops@moving.test' });
  world.tenantId = tenant.body.id;
  for (let i = 0; i < 8; i++) await world.create(`m-${i}@moving.test`);
  return world;
}

/** Every live user's entry holds what their profile does; whether the profiles are still in the index. */
async function entriesMatch(world: World, profilesIndexed: boolean) {
  for (const [id, want] of world.expected) {
    const [profile, entry] = [await item(keys.userProfile(world.saasId, id)), await item(keys.userDirectoryItem(world.saasId, id))];
    assert.ok(entry, `an entry for ${want.email}`);
    assert.deepEqual(
      { email: entry.email, attributes: entry.attributes ?? {}, gsi1sk: entry.gsi1sk },
      { email: want.email, attributes: want.attributes, gsi1sk: `${profile?.loginKey as string} ${id}` },
    );
    assert.equal(profile?.gsi1sk !== undefined, profilesIndexed, `${want.email}'s profile in the index: ${profilesIndexed}`);
  }
}

async function moveWhileWorking(world: World) {
  const ids = [...world.expected.keys()];
  await world.join(ids[0]!);
  await world.signIn(ids[1]!);
  await world.readsExact('before');

  assert.equal(await world.run(), 'writing');
  await world.readsExact('writing');
  // Writes of both instances, before the job writes any entry.
  await world.asInstanceOf(undefined, async () => {
    await world.readsExact('profiles, once writing began');
    await world.create('m-profiles@moving.test');
    await world.setAttribute(ids[2]!, 'red');
  });
  await world.setAttribute(ids[3]!, 'blue');
  await world.changeEmail(ids[4]!, 'm-renamed@moving.test');
  // The rename made ids[4] an entry before the job; a change by the instance before leaves it behind the profile,
  // which is what readers of this phase take.
  await world.asInstanceOf(undefined, () => world.setAttribute(ids[4]!, 'behind'));
  assert.deepEqual((await item(keys.userDirectoryItem(world.saasId, ids[4]!)))?.attributes, {});
  await world.readsExact('writing, an entry behind its profile');
  await world.remove(ids[5]!);
  await world.signIn(ids[6]!);
  assert.equal(await world.run(), 'writing', 'no step before every copy of the phase before has expired');
  assert.equal(await item(keys.userDirectoryItem(world.saasId, ids[0]!)), undefined);

  later();
  assert.equal(await world.run(), 'reading');
  await entriesMatch(world, true);
  await world.readsExact('reading');
  await world.asInstanceOf('writing', async () => {
    await world.readsExact('writing, once reading began');
    await world.setAttribute(ids[2]!, 'green');
    await world.join(await world.create('m-writing@moving.test'));
  });
  await world.setAttribute(ids[3]!, 'violet');
  await world.signIn(ids[7]!);
  await world.readsExact('reading, after writes');

  later();
  assert.equal(await world.run(), true);
  await world.readsExact('entries');
  await world.asInstanceOf('reading', async () => {
    await world.readsExact('reading, once entries began');
    await world.create('m-reading@moving.test');
    await world.changeEmail(ids[2]!, 'm-reading-renamed@moving.test');
  });
  await world.create('m-entries@moving.test');
  await world.readsExact('entries, after writes');

  later();
  assert.equal(await world.run(), true);
  assert.equal((await item(keys.saas(world.saasId)))?.directory_moving, undefined, 'done');
  await entriesMatch(world, false);
  await world.readsExact('after');

  // Run again: nothing left to do, nothing changed.
  const before = await Promise.all([...world.expected.keys()].map((id) => item(keys.userDirectoryItem(world.saasId, id))));
  later();
  assert.equal(await new DirectoryMigration(dynamo(), tableName()).step(world.saasId, Date.now() + 10_000), 0);
  assert.deepEqual(await Promise.all([...world.expected.keys()].map((id) => item(keys.userDirectoryItem(world.saasId, id)))), before);

  indexUnits = 0;
  try {
    await world.signIn(ids[7]!);
    assert.equal(indexUnits, 0, 'a sign-in writes no index');
  } finally {
    indexUnits = undefined;
  }
  await world.readsExact('after a sign-in');
}

describe('a SaaS whose profiles are its directory moves onto entries', () => {
  it('with every read exact at each phase, writes of both neighbouring phases kept, and no index written by a sign-in after', async () => {
    try {
      await moveWhileWorking(await oldSaas(false));
    } finally {
      resetClockForTests();
    }
  });

  it('a legacy SaaS too (no shard count; entries on the key from before the shards and on the 32)', async () => {
    try {
      const world = await oldSaas(true);
      const [first] = world.expected.keys();
      // As the SaaS's first users were written, before the directory had shards.
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.userProfile(world.saasId, first!),
          UpdateExpression: 'SET gsi1pk = :old',
          ExpressionAttributeValues: { ':old': keys.userDirectoryUnsharded(world.saasId) },
        }),
      );
      const shards = new Set(
        await Promise.all([...world.expected.keys()].map(async (id) => (await item(keys.userProfile(world.saasId, id)))?.gsi1pk)),
      );
      assert.ok(shards.size > 1 && USER_DIRECTORY_SHARDS > 1);
      await moveWhileWorking(world);
      assert.equal((await item(keys.saas(world.saasId)))?.directory_shards, undefined, 'still legacy');
    } finally {
      resetClockForTests();
    }
  });

  it('two runs side by side write each entry as its profile holds it', async () => {
    try {
      const world = await oldSaas(false);
      const migration = new DirectoryMigration(dynamo(), tableName());
      await migration.step(world.saasId, Date.now() + 10_000);
      later();
      const [a, b] = await Promise.all([0, 1].map(() => migration.step(world.saasId, Date.now() + 10_000)));
      assert.ok((a ?? 0) + (b ?? 0) >= world.expected.size);
      assert.equal((await item(keys.saas(world.saasId)))?.directory_entries, 'reading');
      await entriesMatch(world, true);
      await world.readsExact('reading');
    } finally {
      resetClockForTests();
    }
  });
});
