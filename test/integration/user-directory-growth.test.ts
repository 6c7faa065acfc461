/**
 * A SaaS's user directory follows its load (shared/store/directory-shards.ts): a SaaS made now is on 1 shard and
 * pays what the directory cost before it had shards (a 5-page search in 5 store requests, GET /users in one query
 * page); its count grows to 32 when the directory writes it measures near one key's limit, or when the store
 * throttles a profile write; writes reach the new shards only once every instance's kept layout has expired;
 * entries move with their next write, and every read meanwhile answers each user once, in name order.
 * user-directory-shards.test.ts covers a SaaS made before counts were.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { config } from '../../shared/config.js';
import { AwsServiceError } from '../../shared/adapters/aws/json-service.js';
import {
  DirectoryShards,
  ENTRY_UNITS,
  GROW_AT_UNITS_PER_SECOND,
  GROWTH_SETTLES_SECONDS,
  LAYOUT_KEPT_SECONDS,
  watchThrottling,
} from '../../shared/store/directory-shards.js';
import { DynamoClient, GetCommand, QueryCommand, UpdateCommand } from '../../shared/store/dynamo-client.js';
import { keys, loginKey, USER_DIRECTORY_SHARDS } from '../../shared/store/keys.js';
import { DynamoCommitter } from '../../shared/store/transact.js';
import { dynamo, tableName, userService } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { countStoreRequests, type StoreRequestCounter } from '../support/store-requests.js';

const PASSWORD = 'Growth-pass-1';
let h: Harness;
let counter: StoreRequestCounter;

interface Listed {
  id: string;
  email: string;
}

beforeAll(async () => {
  h = await startHarness();
  counter = countStoreRequests();
});
afterAll(() => h.close());

const saasItem = async (saasId: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.saas(saasId), ConsistentRead: true }))).Item ?? {};
/** The shard of the user's directory entry (an item of its own in a SaaS made now: docs/decisions.md, decision 18). */
const directoryKey = async (saasId: string, userId: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userDirectoryItem(saasId, userId), ConsistentRead: true }))).Item?.gsi1pk;
const nameOrder = (users: Listed[]) =>
  [...users]
    .sort((a, b) =>
      Buffer.compare(
        Buffer.from(`${loginKey({ kind: 'email', value: a.email })} ${a.id}`),
        Buffer.from(`${loginKey({ kind: 'email', value: b.email })} ${b.id}`),
      ),
    )
    .map((u) => u.id);

async function searchAll(api: SignedClient, email: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const params = new URLSearchParams({ ...(email ? { email } : {}), limit: String(limit), ...(cursor ? { cursor } : {}) });
    const res = await api.get<{ users: Listed[]; cursor?: string }>(`/users/search?${params}`);
    assert.equal(res.status, 200, res.text);
    ids.push(...res.body.users.map((u) => u.id));
    cursor = res.body.cursor;
  } while (cursor);
  return ids;
}

describe('a SaaS made now: one directory shard', () => {
  it('a 5-page search makes 5 store requests and GET /users one query page, all on shard 0', async () => {
    const { saasId, client: api } = await h.newSaas();
    assert.equal((await saasItem(saasId)).directory_shards, 1, 'recorded when the SaaS is made');
    const users: Listed[] = [];
    for (let i = 0; i < 100; i += 20) {
      users.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, (_, j) => userService().create(saasId, { email: `one-${i + j}@growth.test`, password: PASSWORD })),
        )),
      );
    }
    users.push(await userService().create(saasId, { email: `another@growth.test`, password: PASSWORD }));
    for (const user of users) assert.equal(await directoryKey(saasId, user.id), keys.userDirectoryShardKey(saasId, 0));

    const expected = nameOrder(users.filter((u) => u.email.startsWith('one-')));
    const queried: unknown[] = [];
    dynamo().intercept((command, next) => {
      if (command instanceof QueryCommand) queried.push(command.input.ExpressionAttributeValues?.[':pk']);
      return next();
    });
    // The clock held: what this instance keeps (the layout, the API key) stays kept, however slow the machine.
    setClockForTests(Date.now());
    try {
      assert.deepEqual(await searchAll(api, 'one-', 20), expected); // warms the layout
      const pages = await counter.requestsOf(async () => assert.deepEqual(await searchAll(api, 'one-', 20), expected));
      assert.deepEqual(pages, ['Query', 'Query', 'Query', 'Query', 'Query'], 'one query a page');

      queried.length = 0;
      const listed = await counter.requestsOf(async () => {
        const res = await api.get<{ users: Listed[] }>('/users');
        assert.equal(res.status, 200);
        assert.deepEqual(
          res.body.users.map((u) => u.id),
          nameOrder(users),
        );
      });
      assert.deepEqual(listed, ['Query'], '101 users: one page of one key');
      assert.deepEqual([...new Set(queried)], [keys.userDirectoryShardKey(saasId, 0)]);
    } finally {
      resetClockForTests();
    }
  });
});

describe('growing', () => {
  it('grows at the measured write rate; writes reach the new shards once every kept layout has expired; entries move with their next write', async () => {
    const { saasId, client: api } = await h.newSaas();
    const domain = userService();
    let now = Date.now();
    setClockForTests(() => now);
    try {
      const create = (email: string) => domain.create(saasId, { email, password: PASSWORD });
      const users: Listed[] = [];
      // Within one second of this instance: an entry's units a sign-up, so this many reach the rate at which it grows.
      const burst = Math.ceil(GROW_AT_UNITS_PER_SECOND / ENTRY_UNITS.created);
      for (let i = 0; i < burst - 1; i += 25) {
        users.push(...(await Promise.all(Array.from({ length: Math.min(25, burst - 1 - i) }, (_, j) => create(`early-${i + j}@growth.test`)))));
      }
      assert.equal((await saasItem(saasId)).directory_shards, 1, 'no request to tell the rate within the second');
      now += 1000;
      const teller = await counter.requestsOf(async () => users.push(await create('teller@growth.test')));
      assert.deepEqual(teller, ['UpdateItem', 'UpdateItem', 'TransactWriteItems'], 'tells the rate, grows, writes');
      const grown = await saasItem(saasId);
      assert.equal(grown.directory_shards, USER_DIRECTORY_SHARDS);
      assert.equal(grown.directory_writes_from, Math.floor(now / 1000) + GROWTH_SETTLES_SECONDS);
      assert.ok(GROWTH_SETTLES_SECONDS > LAYOUT_KEPT_SECONDS, 'every kept copy has expired first');
      for (const user of users) assert.equal(await directoryKey(saasId, user.id), keys.userDirectoryShardKey(saasId, 0), 'the teller too');

      // Before then, a kept 1-shard copy elsewhere reads shard 0 alone, so writes stay there.
      now += (GROWTH_SETTLES_SECONDS - 1) * 1000;
      const waiting = await create('waiting@growth.test');
      users.push(waiting);
      assert.equal(await directoryKey(saasId, waiting.id), keys.userDirectoryShardKey(saasId, 0));

      now += 1000;
      const spread: Listed[] = [];
      for (let i = 0; i < 40; i += 20) spread.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => create(`late-${i + j}@growth.test`)))));
      users.push(...spread);
      const used = new Set<unknown>();
      for (const user of spread) {
        const key = await directoryKey(saasId, user.id);
        assert.equal(key, keys.userDirectoryShard(saasId, user.id, USER_DIRECTORY_SHARDS));
        used.add(key);
      }
      assert.ok(used.size > 10, `${used.size} shards used`);

      // A sign-in writes the profile alone; the copy of its time the API log writer gives the entry moves it from
      // shard 0 to its shard.
      const mover = users.find((u) => keys.userDirectoryShard(saasId, u.id, USER_DIRECTORY_SHARDS) !== keys.userDirectoryShardKey(saasId, 0))!;
      assert.equal((await srpSignIn(api, mover.email, PASSWORD)).status, 200);
      await h.flush();
      assert.equal(await directoryKey(saasId, mover.id), keys.userDirectoryShard(saasId, mover.id, USER_DIRECTORY_SHARDS));

      // An instance whose clock is behind `directory_writes_from` (or whose copy is stale) writes over shard 0 alone:
      // its writes leave an entry where it is, never move one back onto shard 0 (a read could then miss it).
      const spreadUser = spread.find((u) => keys.userDirectoryShard(saasId, u.id, USER_DIRECTORY_SHARDS) !== keys.userDirectoryShardKey(saasId, 0))!;
      const later = now;
      now -= 2000;
      assert.equal((await srpSignIn(api, spreadUser.email, PASSWORD)).status, 200);
      await h.flush();
      assert.equal(await directoryKey(saasId, spreadUser.id), keys.userDirectoryShard(saasId, spreadUser.id, USER_DIRECTORY_SHARDS));
      now = later;

      const everyone = nameOrder(users);
      const listed = await api.get<{ users: Listed[] }>('/users');
      assert.deepEqual(
        listed.body.users.map((u) => u.id),
        everyone,
      );
      for (const limit of [7, 50]) assert.deepEqual(await searchAll(api, '', limit), everyone, `pages of ${limit}`);
      assert.deepEqual(await searchAll(api, 'early-1', 4), nameOrder(users.filter((u) => u.email.startsWith('early-1'))));
      assert.equal(await new DirectoryShards(dynamo(), tableName()).grow(saasId), false, 'grows once');
    } finally {
      resetClockForTests();
    }
  });

  it('grows when the store throttles a profile write', async () => {
    const { saasId } = await h.newSaas();
    const { region, dynamoEndpoint } = config();
    const throttled = new DynamoClient({ region, ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}), maxAttempts: 1 });
    throttled.intercept(async (command, next) => {
      // Every write but the one that grows (the SaaS item's partition is not the throttled one).
      if (command.operation !== 'GetItem' && (command.input as { Key?: { sk?: string } }).Key?.sk !== 'SAAS')
        throw new AwsServiceError('ThrottlingException', 'Throughput exceeds the current capacity', 400, true);
      return next();
    });
    watchThrottling(throttled);
    try {
      const user = await userService().prepareUser(saasId, { email: `throttled-${randomUUID()}@growth.test`, password: PASSWORD });
      await assert.rejects(new DynamoCommitter(throttled).commit(user.write), { name: 'ThrottlingException' });
      assert.equal((await saasItem(saasId)).directory_shards, USER_DIRECTORY_SHARDS);
      // A throttled write of anything but a profile grows nothing.
      const other = await h.newSaas();
      await assert.rejects(
        throttled.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.setting(other.saasId, 'any'),
            UpdateExpression: 'SET x = :x',
            ExpressionAttributeValues: { ':x': 1 },
          }),
        ),
        { name: 'ThrottlingException' },
      );
      assert.equal((await saasItem(other.saasId)).directory_shards, 1);
    } finally {
      throttled.destroy();
    }
  });
});
