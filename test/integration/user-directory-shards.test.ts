/**
 * The user directory of a SaaS made before directories had a shard count (directory-shards.ts: no count
 * recorded, so 32 shards behind the key from before the shards) through the API: entries spread over the
 * shards, prefix search pages to the end in name order whatever the page size, GET /users answers every user,
 * and entries still on the unsharded key (written before the directory was sharded) are found, in order,
 * never twice, and move to their shard with their profile's next write. user-directory-growth.test.ts covers
 * the SaaS made now, on 1 shard until it grows.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoClient, type StoreCommand } from '../../shared/store/dynamo-client.js';
import { DynamoUserRepository, READ_PAGE } from '../../shared/store/user-repository.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { INDEX_NAME, keys, loginKey, USER_DIRECTORY_SHARDS } from '../../shared/store/keys.js';
import { directorySources, layoutOf } from '../../shared/store/directory-shards.js';
import { userService, dynamo, tableName } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

const PASSWORD = 'Shard-pass-1';
const pad = (n: number) => String(n).padStart(3, '0');
/** 90 users under one prefix, 30 under another, 20 sign-in-ID users. */
const NAMES = [
  ...Array.from({ length: 90 }, (_, i) => ({ email: `member-${pad(i)}@shard.test` })),
  ...Array.from({ length: 30 }, (_, i) => ({ email: `other-${pad(i)}@shard.test` })),
  ...Array.from({ length: 20 }, (_, i) => ({ sign_in_id: `member-${pad(i)}` })),
];

interface Created {
  id: string;
  email: string;
  sign_in_id: string;
}
const users: Created[] = [];

/** DynamoDB's order of the directory: the entry's sort key by its UTF-8 bytes. */
const position = (u: Created) =>
  `${loginKey(u.email ? { kind: 'email', value: u.email.toLowerCase() } : { kind: 'sign_in_id', value: u.sign_in_id.toLowerCase() })} ${u.id}`;
const inNameOrder = (list: Created[]) =>
  [...list].sort((a, b) => Buffer.compare(Buffer.from(position(a), 'utf8'), Buffer.from(position(b), 'utf8'))).map((u) => u.id);

/** The shard a write puts the user's entry on: the 32 of a SaaS with no recorded count. */
const shardOf = (userId: string) => keys.userDirectoryShard(saasId, userId, USER_DIRECTORY_SHARDS);
const profile = async (userId: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, userId), ConsistentRead: true }))).Item ?? {};
/** Puts a user's entry back on the unsharded key: the profile as it was written before the directory had shards. */
const toLegacyKey = (userId: string) =>
  dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.userProfile(saasId, userId),
      UpdateExpression: 'SET gsi1pk = :legacy',
      ExpressionAttributeValues: { ':legacy': `SAAS#${saasId}#USERS` },
    }),
  );

async function ok<T>(promise: Promise<{ status: number; body: T }>, status = 200): Promise<T> {
  const res = await promise;
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

/** Every page of a search: each page but the last full, with a cursor; the last without. */
async function searchAll(query: Record<string, string>, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 500, 'paging ends');
    const params = new URLSearchParams({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    const page = await ok(api.get<{ users: Created[]; cursor?: string }>(`/users/search?${params}`));
    ids.push(...page.users.map((u) => u.id));
    if (!page.cursor) return ids;
    assert.equal(page.users.length, limit, 'a page before the last is full');
    cursor = page.cursor;
  }
}

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
  // As a SaaS item written before directories had a count.
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.saas(saasId),
      UpdateExpression: 'REMOVE directory_shards, directory_writes_from, directory_entries',
    }),
  );
  const domain = userService();
  for (let i = 0; i < NAMES.length; i += 10) {
    const batch = await Promise.all(NAMES.slice(i, i + 10).map((name) => domain.create(saasId, { ...name, password: PASSWORD })));
    users.push(...batch.map((u) => ({ id: u.id, email: u.email, sign_in_id: u.sign_in_id })));
  }
});
afterAll(() => h.close());

describe('the user directory in shards', () => {
  it('puts each new user on the shard its id names, and the users spread over many shards', async () => {
    const shards = new Set<string>();
    for (const user of users) {
      const item = await profile(user.id);
      assert.equal(item.gsi1pk, shardOf(user.id));
      assert.notEqual(item.gsi1pk, `SAAS#${saasId}#USERS`);
      shards.add(item.gsi1pk as string);
    }
    // 140 random ids over 32 shards: all but a few are used (fewer than 20 would be a one-in-10^20 draw).
    assert.ok(shards.size >= 20, `${shards.size} shards used`);
    const sources = directorySources(saasId, layoutOf(undefined));
    assert.equal(sources.length, USER_DIRECTORY_SHARDS + 1, 'the unsharded key and the 32 shards');
    for (const shard of shards) assert.ok(sources.includes(shard), `${shard} is read`);
  });

  it('pages a prefix search to the end in name order, each user once, whatever the page size', async () => {
    const members = users.filter((u) => u.email.startsWith('member-'));
    const expected = inNameOrder(members);
    for (const limit of [1, 4, 7, 30, 89, 90, 100]) {
      assert.deepEqual(await searchAll({ email: 'member-' }, limit), expected, `pages of ${limit}`);
    }
    assert.deepEqual(await searchAll({ sign_in_id: 'MEMBER-01' }, 3), inNameOrder(users.filter((u) => u.sign_in_id.startsWith('member-01'))));
    assert.deepEqual(await searchAll({}, 11), inNameOrder(users), 'no filter: the whole directory');
  });

  it('GET /users answers exactly the users created, in name order', async () => {
    const body = await ok(api.get<{ users: Created[] }>('/users'));
    assert.deepEqual(
      body.users.map((u) => u.id),
      inNameOrder(users),
    );
  });

  it('finds entries still on the unsharded key, in order and once; their next write moves them to their shard', async () => {
    // Every third member-, among them the first and the last in name order: the merge must place them between the shards' entries.
    const ordered = inNameOrder(users.filter((u) => u.email.startsWith('member-')));
    const legacy = ordered.filter((_, i) => i % 3 === 0 || i === ordered.length - 1);
    for (const id of legacy) await toLegacyKey(id);
    const onOldKey = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: INDEX_NAME,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `SAAS#${saasId}#USERS` },
      }),
    );
    assert.equal(onOldKey.Items?.length, legacy.length, 'the unsharded key holds them');

    for (const limit of [1, 5, 16]) assert.deepEqual(await searchAll({ email: 'member-' }, limit), ordered, `pages of ${limit}`);
    const listed = (await ok(api.get<{ users: Created[] }>('/users'))).users.map((u) => u.id);
    assert.deepEqual(listed, inNameOrder(users));

    // A password change and a sign-in write the profile: each moves its entry.
    const [changed, signedIn] = [legacy[0]!, legacy[1]!];
    await ok(api.patch(`/users/${changed}/password`, { password: 'Shard-pass-2' }));
    const signer = users.find((u) => u.id === signedIn)!;
    const res = await srpSignIn(api, signer.email, PASSWORD);
    assert.equal(res.status, 200, res.text);
    for (const id of [changed, signedIn]) assert.equal((await profile(id)).gsi1pk, shardOf(id));
    assert.equal((await profile(legacy[2]!)).gsi1pk, `SAAS#${saasId}#USERS`, 'an unchanged one stays');
    assert.deepEqual(await searchAll({ email: 'member-' }, 6), ordered, 'still in order, once, after the moves');
  });

  it('pages the whole directory in order when the unsharded key holds more than one read of it', async () => {
    // All but every seventh user back on the old key: more than one page there, so the shards' pages reach past
    // what the old key has been read to, and are read again once it is read further.
    const ordered = inNameOrder(users);
    const legacy = ordered.filter((_, i) => i % 7 !== 0);
    assert.ok(legacy.length > READ_PAGE);
    for (const id of legacy) await toLegacyKey(id);
    for (const limit of [11, 100]) assert.deepEqual(await searchAll({}, limit), ordered, `pages of ${limit}`);
    assert.deepEqual(await searchAll({ email: 'member-' }, 13), inNameOrder(users.filter((u) => u.email.startsWith('member-'))));
    // Back on their shards, as their next writes would put them.
    for (const id of legacy) {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.userProfile(saasId, id),
          UpdateExpression: 'SET gsi1pk = :shard',
          ExpressionAttributeValues: { ':shard': shardOf(id) },
        }),
      );
    }
  });

  /**
   * A store client on which DynamoDB answers the mover's shard first, the mover's profile is then written (its
   * entry moves from the unsharded key to its shard), and only then is the unsharded key's read answered, if
   * it was asked for beside the shards. Every other request passes as it comes. `moved` settles with the move.
   */
  function racingMove(mover: string): { client: DynamoClient; moved: () => Promise<unknown> } {
    const unsharded = `SAAS#${saasId}#USERS`;
    const shard = shardOf(mover);
    const real = dynamo();
    let moved: Promise<unknown> | undefined;
    const client = {
      send: async (command: StoreCommand) => {
        const pk = command instanceof QueryCommand ? command.input.ExpressionAttributeValues?.[':pk'] : undefined;
        if (pk === unsharded) {
          // Whatever reads were started beside this one have started by now.
          await new Promise((resolve) => setImmediate(resolve));
          await moved;
        } else if (pk === shard && moved === undefined) {
          const answer = real.send(command);
          moved = answer.then(() =>
            real.send(
              new UpdateCommand({
                TableName: tableName(),
                Key: keys.userProfile(saasId, mover),
                UpdateExpression: 'SET gsi1pk = :shard',
                ExpressionAttributeValues: { ':shard': shard },
              }),
            ),
          );
          return answer;
        }
        return real.send(command);
      },
    } as unknown as DynamoClient;
    return { client, moved: () => moved ?? Promise.reject(new Error('the mover’s shard was never read')) };
  }

  it('finds an entry that moves to its shard while the directory is read, in GET /users and in a search', async () => {
    const others = inNameOrder(users.filter((u) => u.email.startsWith('other-')));
    for (const [i, mover] of [others[15]!, others[3]!].entries()) {
      await toLegacyKey(mover);
      const race = racingMove(mover);
      const repository = new DynamoUserRepository(race.client, tableName());
      if (i === 0) {
        assert.deepEqual(
          (await repository.list(saasId)).map((u) => u.id),
          inNameOrder(users),
          'GET /users',
        );
      } else {
        const found: string[] = [];
        for await (const { item } of repository.directory(saasId, { emailPrefix: 'other-' }).read(undefined)) found.push(item.id);
        assert.deepEqual(found, others, 'a search');
      }
      // The move was sent while the read went on (the unsharded key read first, the shards after); once it is done:
      await race.moved();
      assert.equal((await profile(mover)).gsi1pk, shardOf(mover), 'it moved during the read');
    }
  });

  it('resumes after a cursor whose user has since left the directory', async () => {
    const ordered = inNameOrder(users.filter((u) => u.email.startsWith('other-')));
    const first = await ok(api.get<{ users: Created[]; cursor?: string }>(`/users/search?email=other-&limit=10`));
    assert.ok(first.cursor);
    const last = first.users.at(-1)!;
    await ok(api.delete(`/users/${last.id}`));
    const params = new URLSearchParams({ email: 'other-', limit: '100', cursor: first.cursor });
    const rest = await ok(api.get<{ users: Created[]; cursor?: string }>(`/users/search?${params}`));
    assert.deepEqual(
      rest.users.map((u) => u.id),
      ordered.slice(10),
    );
  });
});
