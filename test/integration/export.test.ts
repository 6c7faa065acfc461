/**
 * The export (GET /migration/export, our extension, issue 39) and its round trip through DynamoDB Local: a SaaS
 * with definitions, a tenant, members with roles, users with passwords (one signed in here, one still on an
 * imported hash, one with a sign-in ID) is exported, imported into a fresh SaaS, and every user signs in there
 * with the old password (first through USER_PASSWORD_AUTH, then SRP); memberships and roles arrive; `*` and
 * `migration:write` do not reach the export; another SaaS's export holds nothing of this one.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { externalId } from '../../shared/domain/migration/imports.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

let h: Harness;
let source: SignedClient;
let sourceId: string;
const ids: Record<string, string> = {};
let tenantId: string;

const BCRYPT = { algorithm: 'bcrypt', hash: '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' };
const PASSWORDS = { ann: 'Ann-old-pass-1', bob: 'Bob-old-pass-2', imported: 'U*U' };

const passwordSignIn = (client: SignedClient, USERNAME: string, PASSWORD: string) =>
  client.post<SignInResult>('/sign-in', { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME, PASSWORD } });

async function created(response: Promise<{ status: number; text: string; body: { id: string } }>): Promise<string> {
  const res = await response;
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

beforeAll(async () => {
  h = await startHarness();
  ({ saasId: sourceId } = await h.newSaas());
  source = await h.newKey(sourceId, ['*', 'migration:read', 'migration:write']);
  assert.equal(
    (await source.post('/saas-user-attributes', { attribute_name: 'nickname', display_name: 'Nickname', attribute_type: 'string' })).status,
    201,
  );
  assert.equal((await source.post('/envs', { id: 5, name: 'prod', display_name: 'Production' })).status, 201);
  assert.equal((await source.post('/roles', { role_name: 'editor', display_name: 'Editor' })).status, 201);
  ids.ann = await created(source.post('/users', { email: 'ann@source.example.test', password: PASSWORDS.ann }));
  assert.equal((await source.patch(`/users/${ids.ann}/attributes`, { attributes: { nickname: 'Annie' } })).status, 200);
  ids.bob = await created(source.post('/users', { sign_in_id: 'bob', password: PASSWORDS.bob }));
  // Ann signs in here before the export: her password goes out as this stack's verifier.
  assert.equal((await srpSignIn(source, 'ann@source.example.test', PASSWORDS.ann)).status, 200);
  // One user still on an imported hash: it goes out as it came in.
  const started = await source.post<ImportJob>('/migration/imports', {
    jsonl: JSON.stringify({ type: 'user', external_id: 'old-1', email: 'imported@source.example.test', password_hash: BCRYPT }),
  });
  assert.equal(started.status, 201, started.text);
  await runScheduledWork();
  ids.imported = externalId(sourceId, 'user', 'old-1');
  tenantId = await created(source.post('/tenants', { name: 'Acme', attributes: {}, back_office_staff_email: 'ops@acme.example.test' }));
  assert.equal((await source.post(`/tenants/${tenantId}/users`, { email: 'ann@source.example.test', attributes: {} })).status, 201);
  assert.equal((await source.post(`/tenants/${tenantId}/users/${ids.ann}/envs/5/roles`, { role_names: ['editor'] })).status, 201);
});
afterAll(() => h.close());

describe('export', () => {
  let jsonl: string;

  beforeAll(async () => {
    const res = await source.get<{ jsonl: string; rows: number }>('/migration/export');
    assert.equal(res.status, 200, res.text);
    jsonl = res.body.jsonl;
    assert.equal(jsonl.trimEnd().split('\n').length, res.body.rows);
  });

  it('writes the import format, passwords as SRP verifiers or the imported hash, never a password', () => {
    const rows = jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const users = rows.filter((row) => row.type === 'user');
    const ann = users.find((row) => row.external_id === ids.ann) as { password_hash: Record<string, string>; attributes: object };
    assert.equal(ann.password_hash.algorithm, 'srp');
    assert.equal(ann.password_hash.user_id, ids.ann);
    assert.deepEqual(ann.attributes, { nickname: 'Annie' });
    assert.deepEqual((users.find((row) => row.external_id === ids.imported) as { password_hash: object }).password_hash, BCRYPT);
    assert.deepEqual(
      rows.find((row) => row.type === 'membership'),
      {
        type: 'membership',
        user: ids.ann,
        tenant: tenantId,
        envs: [{ id: 5, role_names: ['editor'] }],
        attributes: {},
      },
    );
    for (const password of Object.values(PASSWORDS)) assert.ok(!jsonl.includes(password));
    // What a row names comes before it.
    const order = rows.map((row) => row.type);
    assert.ok(order.lastIndexOf('attribute') < order.indexOf('tenant') && order.lastIndexOf('user') < order.indexOf('membership'), order.join());
  });

  it('round trip: imported into a fresh SaaS, every user signs in there with the old password, then by SRP', async () => {
    const { saasId: targetId } = await h.newSaas();
    const target = await h.newKey(targetId, ['*', 'migration:write']);
    const started = await target.post<ImportJob>('/migration/imports', { jsonl });
    assert.equal(started.status, 201, started.text);
    await runScheduledWork();
    const job = (await target.get<ImportJob>(`/migration/imports/${started.body.job_id}`)).body;
    assert.equal(job.failed, 0, JSON.stringify(job.errors));

    for (const [name, password] of [
      ['ann@source.example.test', PASSWORDS.ann],
      ['bob', PASSWORDS.bob],
      ['imported@source.example.test', PASSWORDS.imported],
    ]) {
      assert.equal((await passwordSignIn(target, name as string, 'wrong-password')).status, 401, name);
      const first = await passwordSignIn(target, name as string, password as string);
      assert.equal(first.status, 200, `${name}: ${first.text}`);
      assert.equal((await srpSignIn(target, name as string, password as string)).status, 200, name);
    }
    const annHere = externalId(targetId, 'user', ids.ann as string);
    const members = await target.get<{ users: { id: string; envs: { id: number; roles: { role_name: string }[] }[] }[] }>(
      `/tenants/${externalId(targetId, 'tenant', tenantId)}/users`,
    );
    assert.equal(members.status, 200, members.text);
    assert.deepEqual(
      members.body.users.map((u) => [u.id, u.envs.map((env) => [env.id, env.roles.map((r) => r.role_name)])]),
      [[annHere, [[5, ['editor']]]]],
    );
    assert.deepEqual((await target.get<{ attributes: object }>(`/users/${annHere}`)).body.attributes, { nickname: 'Annie' });
  });

  it('`*` and migration:write do not reach it; a new SaaS exports only its own defaults', async () => {
    for (const grants of [['*'], ['*', 'migration:write']]) {
      assert.equal((await (await h.newKey(sourceId, grants)).get('/migration/export')).status, 403, grants.join());
    }
    const other = await h.newSaas(['migration:read']);
    const theirs = await other.client.get<{ jsonl: string }>('/migration/export');
    assert.equal(theirs.status, 200);
    assert.ok(!theirs.body.jsonl.includes('source.example.test'));
    assert.ok(!theirs.body.jsonl.includes(ids.ann as string));
  });
});
