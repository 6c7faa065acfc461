/** The definitions group through the API: behaviour, bad input on every route, races and SaaS isolation. */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;

beforeAll(async () => {
  h = await startHarness();
  api = (await h.newSaas()).client;
});
afterAll(() => h.close());

describe('attributes', () => {
  const kinds = [
    { path: '/user-attributes', list: 'user_attributes' },
    { path: '/saas-user-attributes', list: 'user_attributes' },
    { path: '/tenant-attributes', list: 'tenant_attributes' },
  ];

  for (const { path, list } of kinds) {
    it(`${path}: create, list in creation order, delete`, async () => {
      const names = [`zeta${path.length}`, `alpha${path.length}`, `mid${path.length}`];
      for (const [i, name] of names.entries()) {
        const res = await api.post(path, { attribute_name: name, display_name: `D${i}`, attribute_type: ['string', 'number', 'date'][i] });
        assert.equal(res.status, 201);
        assert.deepEqual(res.body, { attribute_name: name, display_name: `D${i}`, attribute_type: ['string', 'number', 'date'][i] });
      }
      const listed = await api.get<Record<string, { attribute_name: string }[]>>(path);
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body[list]!.map((a) => a.attribute_name),
        names,
      );
      const deleted = await api.delete(`${path}/${names[1]}`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.text, '');
      const after = await api.get<Record<string, { attribute_name: string }[]>>(path);
      assert.deepEqual(
        after.body[list]!.map((a) => a.attribute_name),
        [names[0], names[2]],
      );
      await expectError(api.delete(`${path}/${names[1]}`), 404, 'attribute_not_found');
    });
  }

  it('keeps one namespace for user and SaaS-user attributes, apart from tenant attributes', async () => {
    const def = { attribute_name: 'shared', display_name: 'S', attribute_type: 'bool' };
    assert.equal((await api.post('/user-attributes', def)).status, 201);
    await expectError(api.post('/saas-user-attributes', def), 400, 'attribute_already_exists');
    await expectError(api.post('/user-attributes', def), 400, 'attribute_already_exists');
    assert.equal((await api.post('/tenant-attributes', def)).status, 201);
    // Deleting through the other kind's route finds nothing and removes nothing.
    await expectError(api.delete('/saas-user-attributes/shared'), 404, 'attribute_not_found');
    const users = await api.get<{ user_attributes: { attribute_name: string }[] }>('/user-attributes');
    assert.ok(users.body.user_attributes.some((a) => a.attribute_name === 'shared'));
    const saasUsers = await api.get<{ user_attributes: { attribute_name: string }[] }>('/saas-user-attributes');
    assert.ok(!saasUsers.body.user_attributes.some((a) => a.attribute_name === 'shared'));
  });

  it('takes names with spaces and non-ASCII letters through the path', async () => {
    const name = 'Größe der Firma';
    assert.equal((await api.post('/tenant-attributes', { attribute_name: name, display_name: 'x', attribute_type: 'number' })).status, 201);
    assert.equal((await api.delete(`/tenant-attributes/${encodeURIComponent(name)}`)).status, 200);
  });
});

describe('roles', () => {
  it('create, list, update, delete', async () => {
    assert.equal((await api.post('/roles', { role_name: 'admin', display_name: 'Admin' })).status, 201);
    assert.equal((await api.post('/roles', { role_name: 'viewer', display_name: 'Viewer' })).status, 201);
    const updated = await api.patch('/roles/admin', { display_name: 'Administrator' });
    assert.equal(updated.status, 200);
    assert.equal(updated.text, '');
    const listed = await api.get<{ roles: unknown[] }>('/roles');
    assert.deepEqual(listed.body.roles, [
      { role_name: 'admin', display_name: 'Administrator' },
      { role_name: 'viewer', display_name: 'Viewer' },
    ]);
    assert.equal((await api.delete('/roles/viewer')).status, 200);
    await expectError(api.delete('/roles/viewer'), 404, 'role_not_found');
    await expectError(api.patch('/roles/viewer', { display_name: 'x' }), 404, 'role_not_found');
    const after = await api.get<{ roles: unknown[] }>('/roles');
    assert.deepEqual(after.body.roles, [{ role_name: 'admin', display_name: 'Administrator' }]);
  });

  it('gives exactly one 201 when two creates of the same name race', async () => {
    for (let round = 0; round < 5; round++) {
      const name = `race-${round}`;
      const results = await Promise.all([
        api.post('/roles', { role_name: name, display_name: 'first' }),
        api.post('/roles', { role_name: name, display_name: 'second' }),
      ]);
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 400]);
      const loser = results.find((r) => r.status === 400)!;
      assert.equal((loser.body as { type: string }).type, 'role_already_exists');
      const winner = results.find((r) => r.status === 201)!.body as { display_name: string };
      const stored = (await api.get<{ roles: { role_name: string; display_name: string }[] }>('/roles')).body.roles.filter(
        (r) => r.role_name === name,
      );
      assert.deepEqual(stored, [{ role_name: name, display_name: winner.display_name }]);
    }
  });
});

describe('envs', () => {
  it('create, get, list by id, update, delete', async () => {
    assert.deepEqual((await api.post('/envs', { id: 3, name: 'prod', display_name: 'Production' })).body, {
      id: 3,
      name: 'prod',
      display_name: 'Production',
    });
    assert.deepEqual((await api.post('/envs', { id: 1, name: 'dev' })).body, { id: 1, name: 'dev', display_name: '' });
    assert.equal((await api.post('/envs', { id: 20, name: 'stage' })).status, 201);
    const listed = await api.get<{ envs: { id: number }[] }>('/envs');
    assert.deepEqual(
      listed.body.envs.map((e) => e.id),
      [1, 3, 20],
    );
    assert.equal((await api.patch('/envs/1', { name: 'development', display_name: 'Dev' })).status, 200);
    assert.deepEqual((await api.get('/envs/1')).body, { id: 1, name: 'development', display_name: 'Dev' });
    // display_name left out keeps what was there
    assert.equal((await api.patch('/envs/1', { name: 'dev2' })).status, 200);
    assert.deepEqual((await api.get('/envs/1')).body, { id: 1, name: 'dev2', display_name: 'Dev' });
    assert.equal((await api.delete('/envs/20')).status, 200);
    await expectError(api.get('/envs/20'), 404, 'env_not_found');
    await expectError(api.delete('/envs/20'), 404, 'env_not_found');
    await expectError(api.patch('/envs/20', { name: 'x' }), 404, 'env_not_found');
    await expectError(api.post('/envs', { id: 3, name: 'again' }), 400, 'env_already_exists');
    assert.deepEqual((await api.get('/envs/3')).body, { id: 3, name: 'prod', display_name: 'Production' });
  });
});

describe('bad input on every definitions route changes nothing', () => {
  const goodAttribute = { attribute_name: 'good', display_name: 'Good', attribute_type: 'string' };
  const attributeCases: [string, unknown, string][] = [
    ['missing name', { display_name: 'x', attribute_type: 'string' }, 'attribute_name'],
    ['blank name', { ...goodAttribute, attribute_name: '   ' }, 'attribute_name'],
    ['empty name', { ...goodAttribute, attribute_name: '' }, 'attribute_name'],
    ['name with slash', { ...goodAttribute, attribute_name: 'a/b' }, 'attribute_name'],
    ['name too long', { ...goodAttribute, attribute_name: 'x'.repeat(101) }, 'attribute_name'],
    ['number as name', { ...goodAttribute, attribute_name: 12 }, 'attribute_name'],
    ['missing display name', { attribute_name: 'a', attribute_type: 'string' }, 'display_name'],
    ['unknown type', { ...goodAttribute, attribute_type: 'integer' }, 'attribute_type'],
    ['missing type', { attribute_name: 'a', display_name: 'x' }, 'attribute_type'],
    ['null type', { ...goodAttribute, attribute_type: null }, 'attribute_type'],
  ];

  for (const path of ['/user-attributes', '/saas-user-attributes', '/tenant-attributes']) {
    it(`POST ${path}`, async () => {
      for (const [label, body, field] of attributeCases) {
        await expectError(api.post(path, body), 400, 'invalid_parameter', field).catch((e: Error) => {
          throw new Error(`${label}: ${e.message}`);
        });
      }
      await expectError(api.post(path, '{"attribute_name":'), 400, 'invalid_json');
      await expectError(api.post(path, '"just a string"'), 400, 'invalid_parameter', 'body');
      const list = await api.get<Record<string, unknown[]>>(path);
      assert.ok(!JSON.stringify(list.body).includes('"good"'), 'nothing was stored');
    });
  }

  it('DELETE attribute routes: unknown names are 404', async () => {
    await expectError(api.delete('/user-attributes/none'), 404, 'attribute_not_found');
    await expectError(api.delete('/saas-user-attributes/none'), 404, 'attribute_not_found');
    await expectError(api.delete('/tenant-attributes/none'), 404, 'attribute_not_found');
  });

  it('POST /roles, PATCH /roles/{name}, DELETE /roles/{name}', async () => {
    await expectError(api.post('/roles', { display_name: 'x' }), 400, 'invalid_parameter', 'role_name');
    await expectError(api.post('/roles', { role_name: ' ', display_name: 'x' }), 400, 'invalid_parameter', 'role_name');
    await expectError(api.post('/roles', { role_name: 'r', display_name: 5 }), 400, 'invalid_parameter', 'display_name');
    await expectError(api.post('/roles', { role_name: 'r' }), 400, 'invalid_parameter', 'display_name');
    await expectError(api.post('/roles', { role_name: 'r', display_name: 'x'.repeat(201) }), 400, 'invalid_parameter', 'display_name');
    assert.equal((await api.post('/roles', { role_name: 'keep', display_name: 'Keep' })).status, 201);
    await expectError(api.patch('/roles/keep', {}), 400, 'invalid_parameter', 'display_name');
    await expectError(api.patch('/roles/keep', { display_name: ['x'] }), 400, 'invalid_parameter', 'display_name');
    await expectError(api.patch('/roles/keep', '{'), 400, 'invalid_json');
    await expectError(api.delete('/roles/nobody'), 404, 'role_not_found');
    const roles = await api.get<{ roles: { role_name: string; display_name: string }[] }>('/roles');
    assert.deepEqual(
      roles.body.roles.find((r) => r.role_name === 'keep'),
      { role_name: 'keep', display_name: 'Keep' },
    );
    assert.ok(!roles.body.roles.some((r) => r.role_name === 'r'));
  });

  it('POST /envs, GET/PATCH/DELETE /envs/{id}', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'x' }, 'id'],
      [{ id: 0, name: 'x' }, 'id'],
      [{ id: -1, name: 'x' }, 'id'],
      [{ id: 1.5, name: 'x' }, 'id'],
      [{ id: '4', name: 'x' }, 'id'],
      [{ id: 2 ** 31, name: 'x' }, 'id'],
      [{ id: 40 }, 'name'],
      [{ id: 40, name: '' }, 'name'],
      [{ id: 40, name: 'x', display_name: 7 }, 'display_name'],
    ];
    for (const [body, field] of cases) await expectError(api.post('/envs', body), 400, 'invalid_parameter', field);
    for (const id of ['0', 'abc', '1.5', '-2', '1e2', '99999999999']) {
      await expectError(api.get(`/envs/${id}`), 400, 'invalid_parameter', 'env_id');
      await expectError(api.patch(`/envs/${id}`, { name: 'x' }), 400, 'invalid_parameter', 'env_id');
      await expectError(api.delete(`/envs/${id}`), 400, 'invalid_parameter', 'env_id');
    }
    assert.equal((await api.post('/envs', { id: 41, name: 'stable' })).status, 201);
    await expectError(api.patch('/envs/41', { display_name: 'no name' }), 400, 'invalid_parameter', 'name');
    await expectError(api.patch('/envs/41', { name: '  ' }), 400, 'invalid_parameter', 'name');
    assert.deepEqual((await api.get('/envs/41')).body, { id: 41, name: 'stable', display_name: '' });
    const envs = await api.get<{ envs: { id: number }[] }>('/envs');
    assert.ok(!envs.body.envs.some((e) => e.id === 40));
  });
});

describe('SaaS isolation', () => {
  it('a key of SaaS B sees and touches none of SaaS A definitions', async () => {
    const a = (await h.newSaas()).client;
    const b = (await h.newSaas()).client;
    await a.post('/roles', { role_name: 'secret-role', display_name: 'A only' });
    await a.post('/envs', { id: 9, name: 'a-env' });
    await a.post('/user-attributes', { attribute_name: 'a-attr', display_name: 'A', attribute_type: 'string' });
    await a.post('/saas-user-attributes', { attribute_name: 'a-saas-attr', display_name: 'A', attribute_type: 'string' });
    await a.post('/tenant-attributes', { attribute_name: 'a-tenant-attr', display_name: 'A', attribute_type: 'string' });

    assert.deepEqual((await b.get('/roles')).body, { roles: [] });
    assert.deepEqual((await b.get('/envs')).body, { envs: [] });
    assert.deepEqual((await b.get('/user-attributes')).body, { user_attributes: [] });
    assert.deepEqual((await b.get('/saas-user-attributes')).body, { user_attributes: [] });
    assert.deepEqual((await b.get('/tenant-attributes')).body, { tenant_attributes: [] });
    await expectError(b.get('/envs/9'), 404, 'env_not_found');
    await expectError(b.patch('/roles/secret-role', { display_name: 'hijacked' }), 404, 'role_not_found');
    await expectError(b.delete('/roles/secret-role'), 404, 'role_not_found');
    await expectError(b.delete('/envs/9'), 404, 'env_not_found');
    await expectError(b.delete('/user-attributes/a-attr'), 404, 'attribute_not_found');
    // B may create the same names: they are B's own.
    assert.equal((await b.post('/roles', { role_name: 'secret-role', display_name: 'B' })).status, 201);
    assert.equal((await b.post('/envs', { id: 9, name: 'b-env' })).status, 201);

    assert.deepEqual((await a.get('/roles')).body, { roles: [{ role_name: 'secret-role', display_name: 'A only' }] });
    assert.deepEqual((await a.get('/envs/9')).body, { id: 9, name: 'a-env', display_name: '' });
  });
});
