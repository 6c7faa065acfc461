/**
 * Lazy migration from a live Cognito user pool (issue 39), end to end: cognito-local (npm) stands in for the old
 * pool in a process of its own, reached through the AWS SDK's Cognito client with an endpoint override, so the
 * wire protocol is Cognito's. A name unknown here signs in with USER_PASSWORD_AUTH: accepted by the old pool,
 * the user is made here (the pool's address, a verifier of the password) and signs in, by SRP after that;
 * refused by the pool, or unknown to both, the answer is a wrong password's and nobody is made.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startServiceProcess, type ServiceProcess } from '../../bench/service-process.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn, type ErrorBody } from '../../dev-support/sign-in.js';
import { resetConfigForTests } from '../../shared/config.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { externalId } from '../../shared/domain/migration/external-id.js';
import { defineEnvsAndRoles } from '../support/definitions.js';
import { expectError } from '../support/expect.js';
import { openScreen, screenStep } from '../support/screen-client.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';

let h: Harness;
let api: SignedClient;
let oldPool: ServiceProcess;
let saasId: string;
let oldPoolSetting: { region: string; user_pool_id: string; client_id: string };
const OLD_PASSWORD = 'Old-pool-pass-1';

const passwordSignIn = (USERNAME: string, PASSWORD: string) =>
  api.post<SignInResult & ErrorBody>('/sign-in', { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME, PASSWORD } });
type Memberships = { tenants: { id: string; envs: { id: number; roles: { role_name: string }[] }[] }[] };
/** Each tenant of the user with that address, with its envs' role names. */
async function membershipsOf(email: string) {
  const found = await api.get<Memberships>(`/userinfo/search/email?email=${encodeURIComponent(email)}`);
  assert.equal(found.status, 200, found.text);
  return found.body.tenants.map((t) => ({
    id: t.id,
    envs: t.envs.map((e) => ({ id: e.id, roles: e.roles.map((r) => r.role_name).sort() })).sort((a, b) => a.id - b.id),
  }));
}
const usersHere = async () => (await api.get<{ users: { email: string }[] }>('/users')).body.users.map((u) => u.email).sort();

beforeAll(async () => {
  h = await startHarness();
  oldPool = await startServiceProcess({ childScript: join(process.cwd(), 'bench/cognito-local-child.ts'), basePath: '' });
  process.env.COGNITO_ENDPOINT = oldPool.baseUrl;
  resetConfigForTests();
  const cognito = new CognitoIdentityProviderClient({
    endpoint: oldPool.baseUrl,
    region: 'ap-northeast-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const pool = (await cognito.send(new CreateUserPoolCommand({ PoolName: 'saasus-old' }))).UserPool?.Id as string;
  const client = await cognito.send(
    new CreateUserPoolClientCommand({ UserPoolId: pool, ClientName: 'app', ExplicitAuthFlows: ['USER_PASSWORD_AUTH'] }),
  );
  const users = [
    'old@pool.example.test',
    'other@pool.example.test',
    'member@pool.example.test',
    'grouped@pool.example.test',
    'ungrouped@pool.example.test',
    'late@pool.example.test',
  ];
  for (const email of users) {
    await cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: pool,
        Username: email,
        TemporaryPassword: 'Temp-pass-1',
        MessageAction: 'SUPPRESS',
        UserAttributes: [
          { Name: 'email', Value: email },
          { Name: 'email_verified', Value: 'true' },
        ],
      }),
    );
    await cognito.send(new AdminSetUserPasswordCommand({ UserPoolId: pool, Username: email, Password: OLD_PASSWORD, Permanent: true }));
  }
  // The old pool's groups: one the mapping names, one it does not (SaaSus's pools hold such groups of their own).
  for (const GroupName of ['acme-admins', 'beta-testers']) await cognito.send(new CreateGroupCommand({ UserPoolId: pool, GroupName }));
  for (const GroupName of ['acme-admins', 'beta-testers']) {
    await cognito.send(new AdminAddUserToGroupCommand({ UserPoolId: pool, Username: 'grouped@pool.example.test', GroupName }));
  }
  await cognito.send(new AdminAddUserToGroupCommand({ UserPoolId: pool, Username: 'ungrouped@pool.example.test', GroupName: 'beta-testers' }));
  await cognito.send(new AdminAddUserToGroupCommand({ UserPoolId: pool, Username: 'late@pool.example.test', GroupName: 'acme-admins' }));
  cognito.destroy();

  ({ saasId } = await h.newSaas());
  api = await h.newKey(saasId, ['*']);
  oldPoolSetting = { region: 'ap-northeast-1', user_pool_id: pool, client_id: client.UserPoolClient?.ClientId as string };
  const settings = { password_sign_in: { user_password_auth: true, cognito_pool: oldPoolSetting } };
  const put = await api.put('/sign-in-settings', settings);
  assert.equal(put.status, 200, put.text);
});

/** A user imported without a password (their tenant and roles came first), as a SaaSus SaaS's move does. */
async function importWithoutPassword(email: string): Promise<string> {
  const admin = await h.newKey(saasId, ['migration:write']);
  const started = await admin.post<{ job_id: string }>('/migration/imports', {
    jsonl: JSON.stringify({ type: 'user', external_id: 'saasus-1', email }),
  });
  assert.equal(started.status, 201, started.text);
  await runScheduledWork();
  return externalId(saasId, 'user', 'saasus-1');
}
afterAll(async () => {
  delete process.env.COGNITO_ENDPOINT;
  resetConfigForTests();
  await oldPool?.stop();
  await h.close();
});

describe('lazy migration from a Cognito user pool (cognito-local)', () => {
  it('refused by the old pool, or unknown to both: the answer of a wrong password, and nobody is made', async () => {
    const refused = await passwordSignIn('other@pool.example.test', 'not the password');
    const unknown = await passwordSignIn('nobody@pool.example.test', OLD_PASSWORD);
    for (const answer of [refused, unknown]) {
      assert.equal(answer.status, 401, answer.text);
      assert.equal(answer.body.type, 'not_authorized');
      assert.equal(answer.body.message, refused.body.message);
    }
    assert.deepEqual(await usersHere(), []);
  });

  it('a user imported without a password takes it from the old pool: the same user, now with a verifier', async () => {
    const userId = await importWithoutPassword('member@pool.example.test');
    assert.equal((await passwordSignIn('member@pool.example.test', 'not the password')).status, 401);
    // On the hosted screen's password step, as the page sends it after SRP refused.
    assert.equal((await api.put('/auth-info', { callback_url: 'https://app.example.test/callback' })).status, 200);
    const screen = `${h.api.baseUrl}/login/${saasId}/`;
    const first = await screenStep(screen, await openScreen(screen), 'password', { username: 'member@pool.example.test', password: OLD_PASSWORD });
    assert.equal(first.status, 200, await first.text());
    const signedIn = await srpSignIn(api, 'member@pool.example.test', OLD_PASSWORD);
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.equal((await api.get<{ id: string }>(`/users/${userId}`)).status, 200);
    assert.equal((await api.delete(`/users/${userId}`)).status, 200);
  });

  it('accepted by the old pool: the user is made here with its address and a verifier, and signs in by SRP after', async () => {
    const first = await passwordSignIn('old@pool.example.test', OLD_PASSWORD);
    assert.equal(first.status, 200, first.text);
    assert.ok(first.body.credentials?.id_token);
    assert.deepEqual(await usersHere(), ['old@pool.example.test']);
    assert.equal((await srpSignIn(api, 'old@pool.example.test', OLD_PASSWORD)).status, 200);
    // Made once: a second sign-in with the password signs in the user now here.
    assert.equal((await passwordSignIn('OLD@pool.example.test', OLD_PASSWORD)).status, 200);
    assert.deepEqual(await usersHere(), ['old@pool.example.test']);
    // No mapping: no membership.
    assert.deepEqual(await membershipsOf('old@pool.example.test'), []);
  });

  it("with a group mapping, the user arrives in the tenants and roles the mapping gives the old pool's groups", async () => {
    await defineEnvsAndRoles(api);
    const tenant = async (client: SignedClient, name: string) => {
      const made = await client.post<{ id: string }>('/tenants', { name, attributes: {}, back_office_staff_email: 'ops@acme.example.test' });
      assert.equal(made.status, 201, made.text);
      return made.body.id;
    };
    const [acme, other] = [await tenant(api, 'Acme'), await tenant(api, 'Other')];
    const theirs = await tenant((await h.newSaas()).client, 'Not ours');
    const mapping = (groups: unknown[]) => ({ password_sign_in: { user_password_auth: true, cognito_pool: { ...oldPoolSetting, groups } } });
    const entry = { group: 'acme-admins', tenant_id: acme, env_id: 1, role_names: ['admin'] };

    // Refused when saved, naming what is wrong, and nothing changes: another SaaS's tenant, an unknown env or role.
    const field = 'password_sign_in.cognito_pool.groups[1]';
    await expectError(
      api.put('/sign-in-settings', mapping([entry, { ...entry, tenant_id: theirs }])),
      400,
      'invalid_parameter',
      `${field}.tenant_id`,
    );
    await expectError(api.put('/sign-in-settings', mapping([entry, { ...entry, env_id: 9 }])), 400, 'invalid_parameter', `${field}.env_id`);
    await expectError(
      api.put('/sign-in-settings', mapping([entry, { ...entry, role_names: ['owner'] }])),
      400,
      'invalid_parameter',
      `${field}.role_names`,
    );
    // The same through an import's setting row: that row refused with its reason, the setting as it was.
    const admin = await h.newKey(saasId, ['migration:write']);
    const row = { type: 'setting', name: 'sign-in-settings', value: mapping([{ ...entry, tenant_id: theirs }]) };
    const job = await admin.post<{ job_id: string }>('/migration/imports', { jsonl: JSON.stringify(row) });
    assert.equal(job.status, 201, job.text);
    await runScheduledWork();
    const report = await admin.get<{ errors: { line: number; reason: string }[] }>(`/migration/imports/${job.body.job_id}`);
    assert.deepEqual(
      report.body.errors.map((e) => [e.line, e.reason.split(':')[0]]),
      [[1, 'password_sign_in.cognito_pool.groups[0].tenant_id']],
    );
    const kept = await api.get<{ password_sign_in: { cognito_pool: object } }>('/sign-in-settings');
    assert.deepEqual(kept.body.password_sign_in.cognito_pool, oldPoolSetting);

    const groups = [
      entry,
      { group: 'acme-admins', tenant_id: acme, env_id: 2, role_names: ['admin', 'viewer'] },
      { group: 'acme-admins', tenant_id: other, env_id: 1, role_names: ['viewer'] },
      { group: 'unheld-group', tenant_id: other, env_id: 2, role_names: ['admin'] },
    ];
    const saved = await api.put('/sign-in-settings', mapping(groups));
    assert.equal(saved.status, 200, saved.text);
    // The export names the old pool without the mapping: its tenant ids change with a move.
    const exported = await (await h.newKey(saasId, ['migration:read'])).get<{ jsonl: string }>('/migration/export');
    const rows = exported.body.jsonl
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { name?: string; value?: Record<string, unknown> });
    const signInRow = rows.find((row) => row.name === 'sign-in-settings');
    assert.deepEqual((signInRow?.value?.password_sign_in as { cognito_pool: object }).cognito_pool, oldPoolSetting);

    const first = await passwordSignIn('grouped@pool.example.test', OLD_PASSWORD);
    assert.equal(first.status, 200, first.text);
    const byTenant = (await membershipsOf('grouped@pool.example.test')).sort((a, b) => (a.id === acme ? -1 : b.id === acme ? 1 : 0));
    assert.deepEqual(byTenant, [
      {
        id: acme,
        envs: [
          { id: 1, roles: ['admin'] },
          { id: 2, roles: ['admin', 'viewer'] },
        ],
      },
      { id: other, envs: [{ id: 1, roles: ['viewer'] }] },
    ]);
    // A user in no group the mapping names arrives in no tenant.
    assert.equal((await passwordSignIn('ungrouped@pool.example.test', OLD_PASSWORD)).status, 200);
    assert.deepEqual(await membershipsOf('ungrouped@pool.example.test'), []);

    // A tenant deleted after the mapping was saved does not keep a person out: made without the mapping's memberships.
    assert.equal((await api.delete(`/tenants/${other}`)).status, 200);
    const late = await passwordSignIn('late@pool.example.test', OLD_PASSWORD);
    assert.equal(late.status, 200, late.text);
    assert.deepEqual(await membershipsOf('late@pool.example.test'), []);
  });
});
