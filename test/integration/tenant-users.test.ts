/** Tenant users through the API: memberships, their attributes, roles per env, Delete User's answer, counts. */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { keys } from '../../shared/store/keys.js';
import { DynamoMembershipRepository } from '../../shared/store/membership-repository.js';
import { DynamoCommitter } from '../../shared/store/transact.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import { tenantUserService, userService, dynamo, tableName } from '../../shared/wiring.js';
import { ADMIN, defineEnvsAndRoles, VIEWER } from '../support/definitions.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

interface TenantUserBody {
  id: string;
  tenant_id: string;
  tenant_name: string;
  email: string;
  sign_in_id: string;
  attributes: Record<string, unknown>;
  envs: { id: number; name: string; display_name: string; roles: { role_name: string; display_name: string }[] }[];
}
type Users = { users: TenantUserBody[] };

const PASSWORD = 'Correct-horse-9';

async function createTenant(name: string, client = api): Promise<string> {
  const res = await client.post<{ id: string }>('/tenants', { name, attributes: {}, back_office_staff_email: `ops@${name.toLowerCase()}.test` });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

async function createUser(body: Record<string, unknown>, client = api): Promise<{ id: string; email: string; sign_in_id: string }> {
  const res = await client.post<{ id: string; email: string; sign_in_id: string }>('/users', { password: PASSWORD, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;

async function join(tenantId: string, body: Record<string, unknown>, client = api): Promise<TenantUserBody> {
  const res = await client.post<TenantUserBody>(`/tenants/${tenantId}/users`, { attributes: {}, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const member = async (tenantId: string, userId: string) => {
  const res = await api.get<TenantUserBody>(`/tenants/${tenantId}/users/${userId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
  await defineEnvsAndRoles(api);
  assert.equal((await api.post('/user-attributes', { attribute_name: 'department', display_name: 'Dept', attribute_type: 'string' })).status, 201);
  assert.equal((await api.post('/user-attributes', { attribute_name: 'seat', display_name: 'Seat', attribute_type: 'number' })).status, 201);
  assert.equal((await api.post('/saas-user-attributes', { attribute_name: 'nickname', display_name: 'Nick', attribute_type: 'string' })).status, 201);
});
afterAll(() => h.close());

describe('memberships', () => {
  it('adds an existing user by e-mail or sign-in ID, with attributes, and reads them back', async () => {
    const tenantId = await createTenant('Acme');
    const alice = await createUser({ email: address('Alice') });
    const bob = await createUser({ sign_in_id: `bob-${randomUUID().slice(0, 6)}` });
    const created = await join(tenantId, { email: alice.email.toUpperCase(), attributes: { department: 'Sales', seat: 4 } });
    assert.deepEqual(created, {
      id: alice.id,
      tenant_id: tenantId,
      tenant_name: 'Acme',
      email: alice.email,
      sign_in_id: '',
      attributes: { department: 'Sales', seat: 4 },
      envs: [],
    });
    assert.deepEqual(await member(tenantId, alice.id), created);
    const viaSignInId = await join(tenantId, { sign_in_id: bob.sign_in_id.toUpperCase(), email: '' });
    assert.equal(viaSignInId.id, bob.id);
    assert.equal(viaSignInId.sign_in_id, bob.sign_in_id);
    const listed = (await api.get<Users>(`/tenants/${tenantId}/users`)).body.users;
    assert.deepEqual(listed.map((u) => u.id).sort(), [alice.id, bob.id].sort());
  });

  it('refuses what cannot be a membership, and stores nothing', async () => {
    const tenantId = await createTenant('Refusals');
    const user = await createUser({ email: address('carol') });
    await expectError(api.post(`/tenants/${tenantId}/users`, { email: user.email }), 400, 'invalid_parameter', 'attributes');
    await expectError(api.post(`/tenants/${tenantId}/users`, { attributes: {} }), 400, 'invalid_parameter', 'email');
    await expectError(
      api.post(`/tenants/${tenantId}/users`, { email: user.email, sign_in_id: 'carol', attributes: {} }),
      400,
      'invalid_parameter',
      'email',
    );
    await expectError(api.post(`/tenants/${tenantId}/users`, { email: 'nobody@example.test', attributes: {} }), 404, 'user_not_found');
    await expectError(api.post(`/tenants/${tenantId}/users`, { sign_in_id: 'nobody', attributes: {} }), 404, 'user_not_found');
    await expectError(api.post(`/tenants/${randomUUID()}/users`, { email: user.email, attributes: {} }), 404, 'tenant_not_found');
    const bad: [Record<string, unknown>, string, string][] = [
      [{ unknown: 1 }, 'invalid_attribute', 'attributes.unknown'],
      [{ seat: 'four' }, 'invalid_attribute', 'attributes.seat'],
      [{ department: null }, 'invalid_parameter', 'attributes.department'],
    ];
    for (const [attributes, type, field] of bad) {
      await expectError(api.post(`/tenants/${tenantId}/users`, { email: user.email, attributes }), 400, type, field);
    }
    assert.deepEqual((await api.get(`/tenants/${tenantId}/users`)).body, { users: [] });
    await join(tenantId, { email: user.email });
    await expectError(api.post(`/tenants/${tenantId}/users`, { email: user.email, attributes: {} }), 400, 'user_already_member');
  });

  it('lists every membership, one object per tenant a user belongs to; Get User Info shows one user', async () => {
    const one = await createTenant('One');
    const two = await createTenant('Two');
    const dora = await createUser({ email: address('dora') });
    const eli = await createUser({ email: address('eli') });
    await join(one, { email: dora.email, attributes: { department: 'Ops' } });
    await join(two, { email: dora.email, attributes: { department: 'R&D' } });
    await join(two, { email: eli.email });
    const all = (await api.get<Users>('/tenants/all/users')).body.users;
    const doras = all.filter((u) => u.id === dora.id);
    assert.deepEqual(doras.map((u) => [u.tenant_name, u.attributes.department]).sort(), [
      ['One', 'Ops'],
      ['Two', 'R&D'],
    ]);
    assert.equal(all.filter((u) => u.id === eli.id).length, 1);
    const info = (await api.get<Users>(`/tenants/all/users/${dora.id}`)).body.users;
    assert.deepEqual(info.map((u) => u.tenant_id).sort(), [one, two].sort());
    const fresh = await createUser({ email: address('fresh') });
    assert.deepEqual((await api.get(`/tenants/all/users/${fresh.id}`)).body, { users: [] });
    await expectError(api.get(`/tenants/all/users/${randomUUID()}`), 404, 'user_not_found');
    // Tenant Two's list holds its members only.
    assert.deepEqual((await api.get<Users>(`/tenants/${two}/users`)).body.users.map((u) => u.id).sort(), [dora.id, eli.id].sort());
    assert.deepEqual(
      (await api.get<Users>(`/tenants/${one}/users`)).body.users.map((u) => u.id),
      [dora.id],
    );
  });

  it("lists every tenant's members together (so a compressed answer repeats each tenant within gzip's window)", async () => {
    const [red, blue] = [await createTenant('Red'), await createTenant('Blue')];
    // Ten users joining the two tenants in turn: in user-id (random) order they would interleave.
    for (let i = 0; i < 10; i++) {
      const user = await createUser({ email: address(`grouped-${i}`) });
      await join(i % 2 ? red : blue, { email: user.email });
    }
    const tenantIds = (await api.get<Users>('/tenants/all/users')).body.users.map((u) => u.tenant_id).filter((id) => id === red || id === blue);
    assert.equal(tenantIds.length, 10);
    const runs = tenantIds.filter((id, i) => i === 0 || tenantIds[i - 1] !== id);
    assert.deepEqual(runs.sort(), [red, blue].sort(), `one run per tenant: ${tenantIds.join(', ')}`);
  });

  it('answers 404 for an unknown tenant or a user who is not a member', async () => {
    const tenantId = await createTenant('Missing');
    const user = await createUser({ email: address('gus') });
    const unknown = randomUUID();
    await expectError(api.get(`/tenants/${unknown}/users`), 404, 'tenant_not_found');
    await expectError(api.get(`/tenants/${unknown}/users/${user.id}`), 404, 'tenant_not_found');
    await expectError(api.get(`/tenants/${tenantId}/users/${user.id}`), 404, 'user_not_found');
    await expectError(api.patch(`/tenants/${tenantId}/users/${user.id}`, { attributes: {} }), 404, 'user_not_found');
    await expectError(api.patch(`/tenants/${unknown}/users/${user.id}`, { attributes: {} }), 404, 'tenant_not_found');
    await expectError(api.delete(`/tenants/${tenantId}/users/${user.id}`), 404, 'user_not_found');
    await expectError(api.post(`/tenants/${tenantId}/users/${user.id}/envs/1/roles`, { role_names: ['admin'] }), 404, 'user_not_found');
    await expectError(api.delete(`/tenants/${tenantId}/users/${user.id}/envs/1/roles/admin`), 404, 'user_not_found');
  });
});

describe('attributes of tenant users', () => {
  it('keeps user attributes per membership and SaaS user attributes on the user, one value in every tenant', async () => {
    const one = await createTenant('AttrOne');
    const two = await createTenant('AttrTwo');
    const user = await createUser({ email: address('hana') });
    await join(one, { email: user.email, attributes: { department: 'Sales', nickname: 'Hanna' } });
    await join(two, { email: user.email, attributes: { department: 'Legal' } });
    assert.deepEqual((await member(one, user.id)).attributes, { department: 'Sales', nickname: 'Hanna' });
    assert.deepEqual((await member(two, user.id)).attributes, { department: 'Legal', nickname: 'Hanna' });
    assert.deepEqual((await api.get<{ attributes: object }>(`/users/${user.id}`)).body.attributes, { nickname: 'Hanna' });

    assert.equal((await api.patch(`/tenants/${two}/users/${user.id}`, { attributes: { seat: 7, nickname: 'H' } })).status, 200);
    assert.deepEqual((await member(two, user.id)).attributes, { department: 'Legal', seat: 7, nickname: 'H' });
    assert.deepEqual((await member(one, user.id)).attributes, { department: 'Sales', nickname: 'H' });
    assert.equal((await api.patch(`/tenants/${two}/users/${user.id}`, { attributes: { department: null } })).status, 200);
    assert.deepEqual((await member(two, user.id)).attributes, { seat: 7, nickname: 'H' });

    await expectError(
      api.patch(`/tenants/${two}/users/${user.id}`, { attributes: { seat: 'x', nickname: 'changed' } }),
      400,
      'invalid_attribute',
      'attributes.seat',
    );
    await expectError(api.patch(`/tenants/${two}/users/${user.id}`, { attributes: { other: 1 } }), 400, 'invalid_attribute', 'attributes.other');
    await expectError(api.patch(`/tenants/${two}/users/${user.id}`, {}), 400, 'invalid_parameter', 'attributes');
    assert.deepEqual((await member(two, user.id)).attributes, { seat: 7, nickname: 'H' }, 'a refused change changes nothing');
  });
});

describe('roles', () => {
  it('assigns roles per env (twice is harmless), removes one, and 404s one not held', async () => {
    const tenantId = await createTenant('Roles');
    const user = await createUser({ email: address('ivan') });
    await join(tenantId, { email: user.email });
    const roles = `/tenants/${tenantId}/users/${user.id}/envs`;
    const added = await api.post(`${roles}/1/roles`, { role_names: ['viewer', 'admin'] });
    assert.equal(added.status, 201);
    assert.equal(added.text, '');
    assert.equal((await api.post(`${roles}/1/roles`, { role_names: ['admin', 'admin'] })).status, 201);
    assert.equal((await api.post(`${roles}/2/roles`, { role_names: ['viewer'] })).status, 201);
    assert.deepEqual((await member(tenantId, user.id)).envs, [
      { id: 1, name: 'prod', display_name: 'Production', roles: [ADMIN, VIEWER] },
      { id: 2, name: 'dev', display_name: 'Development', roles: [VIEWER] },
    ]);

    assert.equal((await api.delete(`${roles}/1/roles/viewer`)).status, 200);
    await expectError(api.delete(`${roles}/1/roles/viewer`), 404, 'role_not_assigned');
    await expectError(api.delete(`${roles}/2/roles/admin`), 404, 'role_not_assigned');
    await expectError(api.delete(`${roles}/3/roles/admin`), 404, 'role_not_assigned');
    assert.deepEqual(
      (await member(tenantId, user.id)).envs.map((e) => [e.id, e.roles.map((r) => r.role_name)]),
      [
        [1, ['admin']],
        [2, ['viewer']],
      ],
    );
  });

  it('needs the env and every role to exist, and assigns nothing otherwise', async () => {
    const tenantId = await createTenant('RoleChecks');
    const user = await createUser({ email: address('jill') });
    await join(tenantId, { email: user.email });
    const roles = `/tenants/${tenantId}/users/${user.id}/envs`;
    await expectError(api.post(`${roles}/9/roles`, { role_names: ['admin'] }), 404, 'env_not_found');
    await expectError(api.post(`${roles}/1/roles`, { role_names: ['admin', 'ghost'] }), 400, 'role_not_found', 'role_names');
    await expectError(api.post(`${roles}/0/roles`, { role_names: ['admin'] }), 400, 'invalid_parameter', 'env_id');
    await expectError(api.post(`${roles}/x/roles`, { role_names: ['admin'] }), 400, 'invalid_parameter', 'env_id');
    await expectError(api.post(`${roles}/1/roles`, { role_names: [] }), 400, 'invalid_parameter', 'role_names');
    await expectError(api.post(`${roles}/1/roles`, {}), 400, 'invalid_parameter', 'role_names');
    await expectError(api.post(`/tenants/${randomUUID()}/users/${user.id}/envs/1/roles`, { role_names: ['admin'] }), 404, 'tenant_not_found');
    assert.deepEqual((await member(tenantId, user.id)).envs, []);
  });

  it('ending a membership ends its roles; a new membership starts without them', async () => {
    const tenantId = await createTenant('Leavers');
    const user = await createUser({ email: address('kim') });
    await join(tenantId, { email: user.email, attributes: { department: 'Ops' } });
    await api.post(`/tenants/${tenantId}/users/${user.id}/envs/1/roles`, { role_names: ['admin'] });
    const removed = await api.delete(`/tenants/${tenantId}/users/${user.id}`);
    assert.equal(removed.status, 200);
    assert.equal(removed.text, '');
    await expectError(api.get(`/tenants/${tenantId}/users/${user.id}`), 404, 'user_not_found');
    await expectError(api.delete(`/tenants/${tenantId}/users/${user.id}`), 404, 'user_not_found');
    assert.deepEqual((await api.get(`/tenants/all/users/${user.id}`)).body, { users: [] });
    const again = await join(tenantId, { email: user.email });
    assert.deepEqual(again.envs, []);
    assert.deepEqual(again.attributes, {});
  });

  it('leaves out roles and envs whose definitions were deleted', async () => {
    const tenantId = await createTenant('Stale');
    const user = await createUser({ email: address('lee') });
    await join(tenantId, { email: user.email });
    assert.equal((await api.post('/roles', { role_name: 'temp', display_name: 'Temporary' })).status, 201);
    await api.post(`/tenants/${tenantId}/users/${user.id}/envs/1/roles`, { role_names: ['temp', 'viewer'] });
    assert.equal((await api.delete('/roles/temp')).status, 200);
    assert.deepEqual((await member(tenantId, user.id)).envs, [{ id: 1, name: 'prod', display_name: 'Production', roles: [VIEWER] }]);
  });
});

describe('writes against a tenant or user that is going', () => {
  it('refuses a membership in a tenant being deleted, or of a user being deleted', async () => {
    const tenantId = await createTenant('Going');
    const user = await createUser({ email: address('max') });
    const hide = (key: { pk: string; sk: string }) =>
      dynamo().send(
        new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET deleting = :yes', ExpressionAttributeValues: { ':yes': true } }),
      );
    const staying = await createTenant('Staying');
    await join(staying, { email: user.email });
    await hide(keys.tenant(saasId, tenantId));
    await expectError(api.post(`/tenants/${tenantId}/users`, { email: user.email, attributes: {} }), 404, 'tenant_not_found');
    const membership = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.membership(saasId, tenantId, user.id) }));
    assert.equal(membership.Item, undefined);

    const otherTenant = await createTenant('Other');
    await hide(keys.userProfile(saasId, user.id));
    await expectError(api.post(`/tenants/${otherTenant}/users`, { email: user.email, attributes: {} }), 404, 'user_not_found');
    await expectError(api.get(`/tenants/${staying}/users/${user.id}`), 404, 'user_not_found');
  });
});

describe('deleting', () => {
  it('Delete User answers the user as they were, with every tenant, and removes their memberships', async () => {
    const acme = await createTenant('DelAcme');
    const beta = await createTenant('DelBeta');
    await api.put(`/tenants/${acme}/plans`, { next_plan_id: '11111111-1111-4111-8111-111111111111' });
    await api.put(`/tenants/${acme}/stripe-customer`, { customer_id: 'cus_1', subscription_schedule_id: '' });
    const user = await createUser({ email: address('nina') });
    const other = await createUser({ email: address('otto') });
    await join(acme, { email: user.email, attributes: { department: 'Sales', nickname: 'Nin' } });
    await join(beta, { email: user.email, attributes: { seat: 3 } });
    await join(acme, { email: other.email });
    await api.post(`/tenants/${acme}/users/${user.id}/envs/2/roles`, { role_names: ['admin'] });

    const res = await api.delete(`/users/${user.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body as { tenants: { id: string }[] };
    body.tenants.sort((a, b) => (a.id === acme ? -1 : b.id === acme ? 1 : 0));
    assert.deepEqual(body, {
      id: user.id,
      email: user.email,
      sign_in_id: '',
      user_attribute: { nickname: 'Nin' },
      tenants: [
        {
          id: acme,
          name: 'DelAcme',
          completed_sign_up: true,
          envs: [{ id: 2, name: 'dev', display_name: 'Development', roles: [ADMIN] }],
          user_attribute: { department: 'Sales', nickname: 'Nin' },
          back_office_staff_email: 'ops@delacme.test',
          plan_id: '11111111-1111-4111-8111-111111111111',
          is_paid: true,
        },
        {
          id: beta,
          name: 'DelBeta',
          completed_sign_up: true,
          envs: [],
          user_attribute: { seat: 3, nickname: 'Nin' },
          back_office_staff_email: 'ops@delbeta.test',
          is_paid: false,
        },
      ],
    });
    assert.deepEqual(
      (await api.get<Users>(`/tenants/${acme}/users`)).body.users.map((u) => u.id),
      [other.id],
    );
    assert.deepEqual((await api.get(`/tenants/${beta}/users`)).body, { users: [] });
    assert.ok(!(await api.get<Users>('/tenants/all/users')).body.users.some((u) => u.id === user.id));
    const tenantSide = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.membership(saasId, acme, user.id) }));
    assert.equal(tenantSide.Item, undefined);
  });

  it('deleting a tenant removes its memberships from its users', async () => {
    const tenantId = await createTenant('Closing');
    const keep = await createTenant('Keeping');
    const user = await createUser({ email: address('pia') });
    await join(tenantId, { email: user.email });
    await join(keep, { email: user.email });
    await api.post(`/tenants/${tenantId}/users/${user.id}/envs/1/roles`, { role_names: ['admin'] });
    assert.equal((await api.delete(`/tenants/${tenantId}`)).status, 200);
    assert.deepEqual(
      (await api.get<Users>(`/tenants/all/users/${user.id}`)).body.users.map((u) => u.tenant_id),
      [keep],
    );
    assert.equal((await api.get(`/users/${user.id}`)).status, 200, 'the user stays');
  });
});

describe('tenant user counts', () => {
  it('saves counts per existing tenant and reads them back; an unknown tenant stores nothing', async () => {
    const counts = (await h.newSaas()).client;
    const a = await createTenant('CountA', counts);
    const b = await createTenant('CountB', counts);
    assert.deepEqual((await counts.get('/tenants/all/users/count')).body, { tenant_user_counts: [] });
    const saved = await counts.post('/tenants/all/users/count', {
      tenant_user_counts: [
        { tenant_id: a, count: 3 },
        { tenant_id: b, count: 0 },
      ],
    });
    assert.equal(saved.status, 200);
    assert.equal(saved.text, '');
    type Counts = { tenant_user_counts: { tenant_id: string; count: number; updated_at: number }[] };
    const read = (await counts.get<Counts>('/tenants/all/users/count')).body.tenant_user_counts;
    assert.deepEqual(
      read.map((c) => [c.tenant_id, c.count]).sort(),
      [
        [a, 3],
        [b, 0],
      ].sort(),
    );
    for (const c of read) assert.ok(Math.abs(c.updated_at - Date.now() / 1000) < 60);

    const before = (await counts.get('/tenants/all/users/count')).body;
    await expectError(
      counts.post('/tenants/all/users/count', {
        tenant_user_counts: [
          { tenant_id: a, count: 9 },
          { tenant_id: randomUUID(), count: 1 },
        ],
      }),
      400,
      'tenant_not_found',
      'tenant_user_counts.1.tenant_id',
    );
    await expectError(
      counts.post('/tenants/all/users/count', {
        tenant_user_counts: [
          { tenant_id: a, count: 9 },
          { tenant_id: a, count: 1 },
        ],
      }),
      400,
      'invalid_parameter',
      'tenant_user_counts.1.tenant_id',
    );
    await expectError(
      counts.post('/tenants/all/users/count', { tenant_user_counts: [{ tenant_id: a, count: -1 }] }),
      400,
      'invalid_parameter',
      'tenant_user_counts.0.count',
    );
    await expectError(
      counts.post('/tenants/all/users/count', { tenant_user_counts: [{ tenant_id: 'x', count: 1 }] }),
      400,
      'invalid_parameter',
      'tenant_user_counts.0.tenant_id',
    );
    await expectError(counts.post('/tenants/all/users/count', {}), 400, 'invalid_parameter', 'tenant_user_counts');
    assert.deepEqual((await counts.get('/tenants/all/users/count')).body, before, 'a refused save stores nothing');

    // Deleting a tenant takes its count with it.
    assert.equal((await counts.delete(`/tenants/${b}`)).status, 200);
    assert.deepEqual(
      (await counts.get<Counts>('/tenants/all/users/count')).body.tenant_user_counts.map((c) => c.tenant_id),
      [a],
    );
  });

  it('the store writes a long list of counts in batches, every one of them', async () => {
    const repository = new DynamoMembershipRepository(dynamo(), tableName(), new DynamoUserRepository(dynamo(), tableName()));
    const owner = randomUUID();
    const counts = Array.from({ length: 260 }, (_, i) => ({ tenant_id: randomUUID(), count: i }));
    await repository.saveUserCounts(owner, counts, 1234);
    const stored = await repository.userCounts(owner);
    assert.deepEqual(
      stored.sort((a, b) => a.count - b.count),
      counts.map((c) => ({ ...c, updated_at: 1234 })),
    );
  });

  it('takes up to 10 000 counts in one request, and no more', async () => {
    const many = Array.from({ length: 10_000 }, () => ({ tenant_id: randomUUID(), count: 1_000_000 }));
    // The body is far over the general limit, yet read: the answer is about the first unknown tenant.
    await expectError(api.post('/tenants/all/users/count', { tenant_user_counts: many }), 400, 'tenant_not_found', 'tenant_user_counts.0.tenant_id');
    await expectError(
      api.post('/tenants/all/users/count', { tenant_user_counts: [...many, { tenant_id: randomUUID(), count: 1 }] }),
      400,
      'invalid_parameter',
      'tenant_user_counts',
    );
  });
});

describe('the domain functions other flows reuse', () => {
  it('a new user and their membership with roles commit together, or not at all', async () => {
    const tenantId = await createTenant('Invited');
    const users = userService();
    const tenantUsers = tenantUserService();
    const committer = new DynamoCommitter(dynamo());

    const refused = await users.prepareUser(saasId, { email: address('ghost'), password: PASSWORD });
    const badRoles = await tenantUsers.prepareMembership(saasId, {
      tenantId,
      userId: refused.user.id,
      envs: [{ id: 1, role_names: ['admin', 'nobody'] }],
      userIsNew: true,
    });
    assert.deepEqual(await committer.commit(refused.write, ...badRoles.writes), { committed: false, refusedBy: 'role_exists:nobody' });
    assert.equal(await users.findByUsername(saasId, refused.user.email), undefined, 'no user without the membership');

    const invited = await users.prepareUser(saasId, { email: address('invitee') }, 'sign_up');
    const membership = await tenantUsers.prepareMembership(saasId, {
      tenantId,
      userId: invited.user.id,
      envs: [{ id: 2, role_names: ['viewer', 'admin'] }],
      userIsNew: true,
    });
    assert.deepEqual(await committer.commit(invited.write, ...membership.writes), { committed: true });
    assert.deepEqual(
      (await member(tenantId, invited.user.id)).envs.map((e) => [e.id, e.roles.map((r) => r.role_name)]),
      [[2, ['admin', 'viewer']]],
    );

    const later = await createUser({ sign_in_id: `later-${randomUUID().slice(0, 6)}` });
    await tenantUsers.addMember(saasId, { tenantId, userId: later.id, envs: [{ id: 1, role_names: ['viewer'] }] });
    assert.deepEqual(
      (await member(tenantId, later.id)).envs.map((e) => e.id),
      [1],
    );
    await assert.rejects(tenantUsers.addMember(saasId, { tenantId, userId: later.id }), { code: 'user_already_member' });
    await assert.rejects(tenantUsers.addMember(saasId, { tenantId, userId: randomUUID() }), { code: 'user_not_found' });
    const another = await createUser({ email: address('another') });
    await assert.rejects(tenantUsers.addMember(saasId, { tenantId, userId: another.id, envs: [{ id: 9, role_names: ['admin'] }] }), {
      code: 'env_not_found',
    });
    await expectError(api.get(`/tenants/${tenantId}/users/${another.id}`), 404, 'user_not_found');
  });
});

describe('isolation', () => {
  it("tenant A's members never appear for tenant B, and another SaaS sees nothing", async () => {
    const a = await createTenant('IsoA');
    const b = await createTenant('IsoB');
    const user = await createUser({ email: address('quin') });
    await join(a, { email: user.email });
    assert.deepEqual((await api.get(`/tenants/${b}/users`)).body, { users: [] });
    await expectError(api.get(`/tenants/${b}/users/${user.id}`), 404, 'user_not_found');
    assert.deepEqual((await api.get(`/tenants/all/users/search?tenant_id=${b}`)).body, { users: [] });
    await expectError(api.patch(`/tenants/${b}/users/${user.id}`, { attributes: { department: 'x' } }), 404, 'user_not_found');
    await expectError(api.delete(`/tenants/${b}/users/${user.id}`), 404, 'user_not_found');
    await expectError(api.post(`/tenants/${b}/users/${user.id}/envs/1/roles`, { role_names: ['admin'] }), 404, 'user_not_found');

    const other = (await h.newSaas()).client;
    assert.deepEqual((await other.get('/tenants/all/users')).body, { users: [] });
    await expectError(other.get(`/tenants/${a}/users`), 404, 'tenant_not_found');
    await expectError(other.get(`/tenants/all/users/${user.id}`), 404, 'user_not_found');
    await expectError(other.post(`/tenants/${a}/users`, { email: user.email, attributes: {} }), 404, 'tenant_not_found');
    assert.deepEqual((await other.get(`/tenants/all/users/search?id=${user.id}`)).body, { users: [] });
    // Its own tenant cannot take in this SaaS's user either.
    const theirs = await createTenant('Theirs', other);
    await expectError(other.post(`/tenants/${theirs}/users`, { email: user.email, attributes: {} }), 404, 'user_not_found');
  });
});
