/**
 * Both searches over 250 users and their memberships: every filter, paging with cursors, stable order, and
 * cursors that cannot be bent to read past the filter or the SaaS.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { DynamoCommitter } from '../../shared/store/transact.js';
import { tenantUserService, userService, dynamo } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;

interface User {
  id: string;
  email: string;
  sign_in_id: string;
  index: number;
}
interface Membership {
  userId: string;
  tenantId: string;
  roles: [number, string][];
}

const users: User[] = [];
const memberships: Membership[] = [];
const tenants: string[] = [];

const pad = (n: number) => String(n).padStart(3, '0');
/** 80 alpha and 70 beta e-mail users, 60 user- and 40 admin- sign-in-ID users: 250. */
const NAMES = [
  ...Array.from({ length: 80 }, (_, i) => ({ email: `Alpha-${pad(i)}@a.test` })),
  ...Array.from({ length: 70 }, (_, i) => ({ email: `beta-${pad(i)}@b.test` })),
  ...Array.from({ length: 60 }, (_, i) => ({ sign_in_id: `user-${pad(i)}` })),
  ...Array.from({ length: 40 }, (_, i) => ({ sign_in_id: `Admin-${pad(i)}` })),
];

/** Runs the tasks a few at a time. */
async function inBatches<T>(tasks: (() => Promise<T>)[], size = 8): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += size) results.push(...(await Promise.all(tasks.slice(i, i + size).map((t) => t()))));
  return results;
}

async function ok<T>(promise: Promise<{ status: number; body: T }>, status = 200): Promise<T> {
  const res = await promise;
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

/** Every page of a search; each page but the last is full and has a cursor, the last has none. */
async function pageAll<T>(client: SignedClient, path: string, query: Record<string, string | number>, limit: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 1000, 'paging ends');
    const params = new URLSearchParams({ ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), limit: String(limit) });
    if (cursor) params.set('cursor', cursor);
    const page = await ok(client.get<{ users: T[]; cursor?: string }>(`${path}?${params}`));
    items.push(...page.users);
    if (!page.cursor) {
      assert.ok(page.users.length <= limit);
      return items;
    }
    assert.equal(page.users.length, limit, 'a page before the last is full');
    cursor = page.cursor;
  }
}

const sorted = (list: string[]) => [...list].sort();

/**
 * Seeded through the domain (the searches under test go through the API): users as Create SaaS User makes
 * them, memberships with their roles as the invitation flow will add them, one commit each.
 */
beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  for (const env of [
    { id: 1, name: 'prod' },
    { id: 2, name: 'dev' },
  ]) {
    await ok(api.post('/envs', env), 201);
  }
  for (const role_name of ['admin', 'viewer']) await ok(api.post('/roles', { role_name, display_name: role_name }), 201);
  for (const name of ['T1', 'T2', 'T3']) {
    tenants.push((await ok(api.post<{ id: string }>('/tenants', { name, attributes: {}, back_office_staff_email: 'ops@t.test' }), 201)).id);
  }
  const userDomain = userService();
  const created = await inBatches(NAMES.map((name) => () => userDomain.create(saas.saasId, { ...name, password: 'Search-pass-1' })));
  created.forEach((user, index) => users.push({ ...user, index }));

  // T1: every second user; T2: every third; T3: every fifth. Roles follow the index too.
  for (const user of users) {
    const plan: [string, [number, string][]][] = [];
    if (user.index % 2 === 0) plan.push([tenants[0]!, user.index % 4 === 0 ? [[1, 'admin']] : [[2, 'viewer']]]);
    if (user.index % 3 === 0)
      plan.push([
        tenants[1]!,
        user.index % 9 === 0
          ? [
              [2, 'admin'],
              [1, 'viewer'],
            ]
          : [],
      ]);
    if (user.index % 5 === 0) plan.push([tenants[2]!, []]);
    for (const [tenantId, roles] of plan) memberships.push({ userId: user.id, tenantId, roles });
  }
  const tenantUsers = tenantUserService();
  const committer = new DynamoCommitter(dynamo());
  await inBatches(
    memberships.map((m) => async () => {
      const envs = [...new Set(m.roles.map(([env]) => env))].map((id) => ({
        id,
        role_names: m.roles.filter(([env]) => env === id).map(([, role]) => role),
      }));
      const prepared = await tenantUsers.prepareMembership(saas.saasId, { tenantId: m.tenantId, userId: m.userId, envs });
      assert.deepEqual(await committer.commit(...prepared.writes), { committed: true });
    }),
  );
});
afterAll(() => h.close());

describe('Search SaaS Users', () => {
  const search = (query: Record<string, string | number>, limit = 7) => pageAll<User>(api, '/users/search', query, limit);
  const ids = (list: { id: string }[]) => list.map((u) => u.id);
  const expectIds = (match: (u: User) => boolean) => sorted(users.filter(match).map((u) => u.id));

  it('pages through all 250 users in a stable order, each once', async () => {
    const first = await search({});
    assert.equal(first.length, 250);
    assert.equal(new Set(ids(first)).size, 250);
    assert.deepEqual(sorted(ids(first)), sorted(ids(users)));
    assert.deepEqual(ids(await search({}, 13)), ids(first), 'the same order with another page size');
    const whole = await ok(api.get<{ users: User[]; cursor?: string }>('/users/search'));
    assert.equal(whole.users.length, 100, 'the default limit');
    assert.ok(whole.cursor);
    assert.deepEqual(ids(whole.users), ids(first).slice(0, 100));
  });

  it('filters by e-mail prefix, sign-in ID prefix and id, without regard to case', async () => {
    assert.deepEqual(
      sorted(ids(await search({ email: 'alpha' }, 9))),
      expectIds((u) => u.email.startsWith('Alpha')),
    );
    assert.deepEqual(
      sorted(ids(await search({ email: 'ALPHA-01' }, 3))),
      expectIds((u) => u.email.startsWith('Alpha-01')),
    );
    assert.equal((await search({ email: 'beta-06' }, 4)).length, 10);
    assert.equal((await search({ email: 'b' }, 11)).length, 70);
    assert.deepEqual(
      sorted(ids(await search({ sign_in_id: 'user-' }, 8))),
      expectIds((u) => u.sign_in_id.startsWith('user-')),
    );
    assert.deepEqual(
      sorted(ids(await search({ sign_in_id: 'admin-00' }, 3))),
      expectIds((u) => u.sign_in_id.startsWith('Admin-00')),
    );
    assert.deepEqual(await search({ email: 'gamma' }), []);
    assert.deepEqual(await search({ email: 'user-' }), [], 'e-mail prefixes never match sign-in IDs');
    assert.deepEqual(await search({ email: 'alpha', sign_in_id: 'user' }), []);
    const someone = users[42]!;
    assert.deepEqual(ids(await search({ id: someone.id })), [someone.id]);
    assert.deepEqual(ids(await search({ id: someone.id.toUpperCase() })), [someone.id]);
    assert.deepEqual(ids(await search({ id: someone.id, email: 'alpha-04' })), [someone.id]);
    assert.deepEqual(await search({ id: someone.id, email: 'beta' }), []);
    assert.deepEqual(await search({ id: randomUUID() }), []);
    const sdkStyle = await ok(api.get<{ users: User[] }>(`/users/search?id=&email=&sign_in_id=user-00&cursor=&limit=100`));
    assert.equal(sdkStyle.users.length, 10, 'empty parameters mean "not given"');
  });

  it('refuses bad limits, filters and cursors', async () => {
    for (const limit of ['0', '101', 'ten', '1.5']) await expectError(api.get(`/users/search?limit=${limit}`), 400, 'invalid_parameter', 'limit');
    await expectError(api.get('/users/search?id=not-a-uuid'), 400, 'invalid_parameter', 'id');
    await expectError(api.get('/users/search?email=a%20b'), 400, 'invalid_parameter', 'email');
    const page = await ok(api.get<{ cursor: string }>('/users/search?email=alpha&limit=5'));
    const [encoded, mac] = page.cursor.split('.') as [string, string];
    const position = Buffer.from(encoded, 'base64url').toString('utf8');
    // Altered positions keep the genuine MAC: a cursor is refused for what it says, not only for its form.
    const altered = (text: string) => `${Buffer.from(text, 'utf8').toString('base64url')}.${mac}`;
    const bad = [
      'not a cursor!',
      `${page.cursor}=`,
      encoded,
      altered(position.replace(/ [0-9a-f-]+$/, ' not-an-id')),
      altered(position.replace('E#alpha', 'E#beta')),
      altered(`S#user-001 ${randomUUID()}`),
      // Still inside the filter's range, a user further on: the attack the MAC stops.
      altered(position.replace(/ [0-9a-f-]+$/, ` ${randomUUID()}`)),
    ];
    for (const cursor of bad) {
      await expectError(api.get(`/users/search?email=alpha&cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor', 'cursor');
    }
    // A cursor of one filter does not serve another.
    await expectError(api.get(`/users/search?email=beta&cursor=${page.cursor}`), 400, 'invalid_cursor');
    await expectError(api.get(`/users/search?sign_in_id=user&cursor=${page.cursor}`), 400, 'invalid_cursor');
    const later = await ok(api.get<{ users: User[] }>(`/users/search?email=alpha&limit=100&cursor=${page.cursor}`));
    assert.equal(later.users.length, 75);
    assert.ok(later.users.every((u) => u.email.startsWith('Alpha')));
  });

  it('a cursor carried to another SaaS is refused there, and reads nothing of either', async () => {
    const page = await ok(api.get<{ cursor: string }>('/users/search?limit=3'));
    const other = (await h.newSaas()).client;
    for (const email of ['zed@z.test', 'Alpha-999@a.test']) await ok(other.post('/users', { email, password: 'Other-pass-1' }), 201);
    await expectError(other.get(`/users/search?cursor=${page.cursor}`), 400, 'invalid_cursor', 'cursor');
    const theirs = await ok(other.get<{ users: User[] }>('/users/search'));
    assert.deepEqual(theirs.users.map((u) => u.email).sort(), ['Alpha-999@a.test', 'zed@z.test']);
  });

  it('paging goes on after the last user of a page is deleted', async () => {
    const first = await ok(api.get<{ users: User[]; cursor: string }>('/users/search?sign_in_id=admin-03&limit=4'));
    const rest = await search({ sign_in_id: 'admin-03' }, 10);
    assert.equal(rest.length, 10);
    await ok(api.delete(`/users/${first.users[3]!.id}`));
    const next = await ok(api.get<{ users: User[] }>(`/users/search?sign_in_id=admin-03&limit=10&cursor=${first.cursor}`));
    assert.deepEqual(ids(next.users), ids(rest).slice(4));
    users.splice(
      users.findIndex((u) => u.id === first.users[3]!.id),
      1,
    );
    for (let i = memberships.length - 1; i >= 0; i--) if (memberships[i]!.userId === first.users[3]!.id) memberships.splice(i, 1);
  });
});

describe('Search Tenant Users', () => {
  interface TenantUser {
    id: string;
    tenant_id: string;
    email: string;
    sign_in_id: string;
    envs: { id: number; roles: { role_name: string }[] }[];
  }
  const search = (query: Record<string, string | number>, limit = 9) => pageAll<TenantUser>(api, '/tenants/all/users/search', query, limit);
  const pairs = (list: TenantUser[]) => list.map((m) => `${m.id} ${m.tenant_id}`);
  const expected = (match: (m: Membership, u: User) => boolean) =>
    sorted(
      memberships
        .filter((m) =>
          match(
            m,
            users.find((u) => u.id === m.userId)!,
          ),
        )
        .map((m) => `${m.userId} ${m.tenantId}`),
    );
  const holds = (m: Membership, env?: number, role?: string) =>
    m.roles.some(([e, r]) => (env === undefined || e === env) && (role === undefined || r === role));

  it('pages through every membership, each once, in a stable order', async () => {
    const all = await search({}, 17);
    assert.equal(all.length, memberships.length);
    assert.equal(new Set(pairs(all)).size, all.length);
    assert.deepEqual(
      sorted(pairs(all)),
      expected(() => true),
    );
    assert.deepEqual(pairs(await search({}, 40)), pairs(all));
  });

  it('filters by tenant, user, e-mail and sign-in ID prefix, env and role, alone and together', async () => {
    const [t1, t2, t3] = tenants as [string, string, string];
    const someone = users.find((u) => u.index === 30)!;
    const cases: [Record<string, string | number>, (m: Membership, u: User) => boolean][] = [
      [{ tenant_id: t1 }, (m) => m.tenantId === t1],
      [{ tenant_id: t3 }, (m) => m.tenantId === t3],
      [{ id: someone.id }, (m) => m.userId === someone.id],
      [{ id: someone.id, tenant_id: t2 }, (m) => m.userId === someone.id && m.tenantId === t2],
      [{ email: 'alpha-0' }, (_, u) => u.email.toLowerCase().startsWith('alpha-0')],
      [{ email: 'BETA' }, (_, u) => u.email.startsWith('beta')],
      [{ sign_in_id: 'admin-' }, (_, u) => u.sign_in_id.toLowerCase().startsWith('admin-')],
      [{ env_id: 1 }, (m) => holds(m, 1)],
      [{ role_name: 'admin' }, (m) => holds(m, undefined, 'admin')],
      [{ env_id: 2, role_name: 'admin' }, (m) => holds(m, 2, 'admin')],
      [{ tenant_id: t1, role_name: 'viewer' }, (m) => m.tenantId === t1 && holds(m, undefined, 'viewer')],
      [{ email: 'beta', tenant_id: t2 }, (m, u) => u.email.startsWith('beta') && m.tenantId === t2],
      [{ sign_in_id: 'user-', env_id: 2 }, (m, u) => u.sign_in_id.startsWith('user-') && holds(m, 2)],
      [{ email: 'alpha', role_name: 'nobody' }, () => false],
    ];
    for (const [query, match] of cases) {
      const found = await search(query, 10);
      assert.deepEqual(sorted(pairs(found)), expected(match), JSON.stringify(query));
      assert.ok(found.length > 0 || query.role_name === 'nobody', `the case ${JSON.stringify(query)} finds something`);
    }
  });

  it('shows each membership with its envs and roles', async () => {
    const user = users.find((u) => u.index === 36)!;
    const found = await search({ id: user.id, tenant_id: tenants[1]! });
    assert.equal(found.length, 1);
    assert.deepEqual(
      found[0]!.envs.map((e) => [e.id, e.roles.map((r) => r.role_name)]),
      [
        [1, ['viewer']],
        [2, ['admin']],
      ],
    );
  });

  it('refuses bad filters and cursors', async () => {
    await expectError(api.get('/tenants/all/users/search?env_id=0'), 400, 'invalid_parameter', 'env_id');
    await expectError(api.get('/tenants/all/users/search?tenant_id=t1'), 400, 'invalid_parameter', 'tenant_id');
    await expectError(api.get('/tenants/all/users/search?limit=101'), 400, 'invalid_parameter', 'limit');
    const byName = await ok(api.get<{ cursor: string }>('/tenants/all/users/search?email=alpha&limit=3'));
    await expectError(api.get(`/tenants/all/users/search?email=beta&cursor=${byName.cursor}`), 400, 'invalid_cursor', 'cursor');
    await expectError(api.get(`/tenants/all/users/search?tenant_id=${tenants[0]}&cursor=${byName.cursor}`), 400, 'invalid_cursor', 'cursor');
    const all = await ok(api.get<{ cursor: string }>('/tenants/all/users/search?limit=3'));
    await expectError(api.get(`/tenants/all/users/search?email=alpha&cursor=${all.cursor}`), 400, 'invalid_cursor', 'cursor');
    await expectError(api.get('/tenants/all/users/search?cursor=%25%25'), 400, 'invalid_cursor', 'cursor');
  });
});
