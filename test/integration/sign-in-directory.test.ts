/**
 * A sign-in writes no index (docs/decisions.md, decision 18): in a SaaS made now the user directory is an entry
 * item of its own beside the profile, and the profile is in no index, so the sign-in's one write of the profile
 * (last_login_at, the lockout reset, the spent session, the activity event) costs no index write unit, as DynamoDB
 * Local's consumed capacity tells. The API log writer copies the sign-in's time to the entry, so GET /users and
 * search answer it; listed fields written through the API reach the entry; a deleted user leaves the directory. A
 * SaaS made before entries (its profiles are the directory) is read and written as it was.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { GetCommand, UpdateCommand } from '../../shared/store/dynamo-client.js';
import { apiLogKeys, keys } from '../../shared/store/keys.js';
import { DynamoCommitter } from '../../shared/store/transact.js';
import { dynamo, tableName, userService } from '../../shared/wiring.js';
import { userRepository } from '../../shared/wiring/repositories.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { LAYOUT_KEPT_SECONDS } from '../../shared/store/directory-shards.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

const PASSWORD = 'Entry-pass-1';
let h: Harness;

interface Capacity {
  TableName?: string;
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number; WriteCapacityUnits?: number }>;
}
/** Index write units of the service's own requests (the API log writer's left out) while `counting` is set. */
let counting: { indexUnits: number; writes: string[] } | undefined;

beforeAll(async () => {
  h = await startHarness();
  dynamo().intercept(async (command, next) => {
    const mine = counting && !apiLogKeys.isRecordWrite(command.operation, command.input);
    if (mine) (command.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
    const result = await next();
    if (mine && counting && command.operation !== 'GetItem' && command.operation !== 'Query') {
      counting.writes.push(`${command.operation} ${JSON.stringify((command.input as { Key?: { sk?: string } }).Key?.sk ?? '')}`);
      for (const c of [(result as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity ?? []].flat())
        for (const index of Object.values(c.GlobalSecondaryIndexes ?? {}))
          counting.indexUnits += index.WriteCapacityUnits ?? index.CapacityUnits ?? 0;
    }
    return result;
  });
});
afterAll(() => h.close());

async function measured(work: () => Promise<unknown>) {
  counting = { indexUnits: 0, writes: [] };
  try {
    await work();
    return counting;
  } finally {
    counting = undefined;
  }
}

const item = async (key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

interface Listed {
  id: string;
  email: string;
  attributes: Record<string, unknown>;
  last_login_at: number;
}
const listed = async (api: SignedClient) => (await api.get<{ users: Listed[] }>('/users')).body.users;
const searched = async (api: SignedClient, email: string) => (await api.get<{ users: Listed[] }>(`/users/search?email=${email}`)).body.users;

describe('a SaaS made now: the directory is entries, which no sign-in writes', () => {
  it('signs in with no index write; the lists answer the time once the writer copied it', async () => {
    const { saasId, client: api } = await h.newSaas();
    const user = await userService().create(saasId, { email: 'signs-in@entry.test', password: PASSWORD });
    const entry = await item(keys.userDirectoryItem(saasId, user.id));
    assert.equal(entry?.gsi1pk, keys.userDirectoryShardKey(saasId, 0), 'the entry is in the directory');
    assert.equal((await item(keys.userProfile(saasId, user.id)))?.gsi1pk, undefined, 'the profile is in no index');

    for (let i = 0; i < 2; i++) {
      const signIn = await measured(async () => assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200));
      assert.ok(signIn.writes.includes('UpdateItem "PROFILE"'), `the profile's write among ${signIn.writes.join(', ')}`);
      assert.equal(signIn.indexUnits, 0, 'no index write unit in any of its writes');
    }
    const at = (await item(keys.userProfile(saasId, user.id)))?.last_login_at as number;
    assert.ok(at > 0);

    await h.flush();
    assert.equal((await listed(api)).find((u) => u.id === user.id)?.last_login_at, at, 'GET /users');
    assert.deepEqual(
      (await searched(api, 'signs-in')).map((u) => [u.id, u.last_login_at]),
      [[user.id, at]],
      'search',
    );
    // A copy told again, or an older one, leaves the latest.
    await userRepository().copyLastSignIn(saasId, user.id, at - 60);
    assert.equal((await item(keys.userDirectoryItem(saasId, user.id)))?.last_login_at, at);
  });

  it('a change of a listed field writes the entry; a deleted user leaves the directory', async () => {
    const { saasId, client: api } = await h.newSaas();
    const user = await userService().create(saasId, { email: 'changes@entry.test', password: PASSWORD });
    const committed = await new DynamoCommitter(dynamo()).commit(await userRepository().attributesWrite(saasId, user.id, { team: 'blue' }));
    assert.ok(committed.committed);
    assert.deepEqual(
      (await searched(api, 'changes')).map((u) => u.attributes),
      [{ team: 'blue' }],
    );

    assert.equal((await api.delete(`/users/${user.id}`)).status, 200);
    assert.equal(await item(keys.userDirectoryItem(saasId, user.id)), undefined);
    assert.deepEqual(await listed(api), []);
    // A sign-in's copy arriving after the delete makes no entry again.
    await userRepository().copyLastSignIn(saasId, user.id, 2_000_000_000);
    assert.equal(await item(keys.userDirectoryItem(saasId, user.id)), undefined);
  });
});

describe('a SaaS made before entries: its profiles are the directory, as before', () => {
  it('lists and finds its users, answers the time at once, and the writer makes no entry', async () => {
    const { saasId, client: api } = await h.newSaas();
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: keys.saas(saasId), UpdateExpression: 'REMOVE directory_entries' }));
    // Past any layout this instance kept of the SaaS as it was made.
    setClockForTests(Date.now() + (LAYOUT_KEPT_SECONDS + 1) * 1000);
    try {
      const user = await userService().create(saasId, { email: 'before@entry.test', password: PASSWORD });
      assert.equal((await item(keys.userProfile(saasId, user.id)))?.gsi1pk, keys.userDirectoryShardKey(saasId, 0), 'the profile is its entry');
      assert.equal(await item(keys.userDirectoryItem(saasId, user.id)), undefined);

      const signIn = await measured(async () => assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200));
      assert.ok(signIn.indexUnits > 0, 'its sign-in still writes the index, as before');
      const at = (await item(keys.userProfile(saasId, user.id)))?.last_login_at as number;
      assert.equal((await listed(api)).find((u) => u.id === user.id)?.last_login_at, at, 'at once: the profile is the entry');
      assert.deepEqual(
        (await searched(api, 'before')).map((u) => u.id),
        [user.id],
      );
      await h.flush();
      assert.equal(await item(keys.userDirectoryItem(saasId, user.id)), undefined, 'no entry made');
    } finally {
      resetClockForTests();
    }
  });
});
