/**
 * Import jobs (POST /migration/imports, our extension, issue 39) through the handlers on DynamoDB Local, run by
 * the scheduled worker as on AWS: a file with every row type and every hash format imports its good rows and
 * names each bad one by line and reason; a second run of the same file changes nothing; `*` does not reach it;
 * another SaaS cannot read the job; an imported user is nobody to SRP until the first sign-in makes a verifier.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { externalId } from '../../shared/domain/migration/external-id.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { hashVector } from '../support/hash-vectors.js';
import { deliveredMail } from '../support/mail.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

beforeAll(async () => {
  h = await startHarness();
  ({ saasId } = await h.newSaas());
  api = await h.newKey(saasId, ['*', 'migration:write']);
});
afterAll(() => h.close());

const row = (value: object) => JSON.stringify(value);

/** Every row type, one user per hash format (the unit test's vectors), and a bad row of each kind. */
const FILE = [
  row({ type: 'attribute', kind: 'saas_user', attribute_name: 'nickname', display_name: 'Nickname', attribute_type: 'string' }),
  row({ type: 'role', role_name: 'editor', display_name: 'Editor' }),
  row({ type: 'env', id: 7, name: 'staging', display_name: 'Staging' }),
  row({ type: 'tenant', external_id: 't-acme', name: 'Acme', back_office_staff_email: 'ops@acme.example.test' }),
  row({
    type: 'user',
    external_id: 'u-bcrypt',
    email: 'bcrypt@acme.example.test',
    attributes: { nickname: 'bee' },
    created_at: '2021-03-04T05:06:07Z',
    password_hash: { algorithm: 'bcrypt', hash: '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' },
  }),
  row({
    type: 'user',
    external_id: 'u-argon2',
    sign_in_id: 'argon-user',
    password_hash: { algorithm: 'argon2', hash: '$argon2i$v=19$m=256,t=2,p=2$c29tZXNhbHQ$T/XOJ2mh1/TIpJHfCdQan76Q5esCFVoT5MAeIM1Oq2E' },
  }),
  row({
    type: 'user',
    external_id: 'u-firebase',
    email: 'firebase@acme.example.test',
    password_hash: hashVector('firebase_scrypt').hash,
  }),
  row({
    type: 'user',
    external_id: 'u-pbkdf2',
    email: 'pbkdf2@acme.example.test',
    password_hash: {
      algorithm: 'pbkdf2',
      digest: 'sha1',
      iterations: 4096,
      hash: '4b007901b765489abead49d926f721d065a429c1',
      salt: '73616c74',
      encoding: 'hex',
    },
  }),
  row({ type: 'user', external_id: 'u-none', email: 'nopassword@acme.example.test', email_verified: false }),
  row({ type: 'membership', user: 'u-bcrypt', tenant: 't-acme', envs: [{ id: 7, role_names: ['editor'] }] }),
  row({ type: 'membership', user: 'u-argon2', tenant: 't-acme' }),
  '',
  // Bad rows, each with what the report must say of it.
  '{"type": "user", "external_id": ',
  row({ type: 'user', external_id: 'u-both', email: 'both@acme.example.test', sign_in_id: 'both' }),
  row({
    type: 'user',
    external_id: 'u-md5',
    email: 'md5@acme.example.test',
    password_hash: { algorithm: 'bcrypt', hash: '5f4dcc3b5aa765d61d8327deb882cf99' },
  }),
  row({ type: 'user', external_id: 'u-taken', email: 'BCRYPT@acme.example.test' }),
  row({ type: 'user', external_id: 'u-attr', email: 'attr@acme.example.test', attributes: { nickname: 12 } }),
  row({ type: 'membership', user: 'u-ghost', tenant: 't-acme' }),
  row({ type: 'group', name: 'x' }),
  row({ type: 'user', external_id: 'u-long', email: 'long@acme.example.test', attributes: { nickname: 'x'.repeat(20_000) } }),
].join('\n');

const EXPECTED_ERRORS: [number, RegExp][] = [
  [13, /not JSON/],
  [14, /either email or sign_in_id/],
  [15, /password_hash: bcrypt: hash must be/],
  [16, /already used by another user/],
  [17, /nickname/],
  [18, /user: no user row u-ghost/],
  [19, /type must be one of/],
  [20, /longer than 16384 bytes/],
];

async function importFile(client: SignedClient, jsonl: string): Promise<ImportJob> {
  const started = await client.post<ImportJob>('/migration/imports', { jsonl });
  assert.equal(started.status, 201, started.text);
  assert.equal(started.body.state, 'queued');
  // The scheduled worker runs it, as every minute on AWS and every few seconds under npm start.
  await runScheduledWork();
  const read = await client.get<ImportJob>(`/migration/imports/${started.body.job_id}`);
  assert.equal(read.status, 200, read.text);
  return read.body;
}

describe('import jobs', () => {
  let first: ImportJob;

  beforeAll(async () => {
    first = await importFile(api, FILE);
  });

  it('imports the good rows and names each bad one by its line and reason', async () => {
    assert.equal(first.state, 'done');
    assert.equal(first.lines, 20);
    assert.deepEqual(
      { imported: first.imported, unchanged: first.unchanged, failed: first.failed },
      { imported: 11, unchanged: 0, failed: EXPECTED_ERRORS.length },
      JSON.stringify(first.errors),
    );
    assert.deepEqual(
      first.errors?.map((e) => e.line),
      EXPECTED_ERRORS.map(([line]) => line),
    );
    for (const [line, reason] of EXPECTED_ERRORS) assert.match(first.errors?.find((e) => e.line === line)?.reason ?? '', reason, `line ${line}`);

    const users = (await api.get<{ users: { id: string; email: string; sign_in_id: string; attributes: Record<string, unknown> }[] }>('/users')).body
      .users;
    assert.deepEqual(users.map((u) => u.email || u.sign_in_id).sort(), [
      'argon-user',
      'bcrypt@acme.example.test',
      'firebase@acme.example.test',
      'nopassword@acme.example.test',
      'pbkdf2@acme.example.test',
    ]);
    const bcrypt = users.find((u) => u.email === 'bcrypt@acme.example.test');
    assert.equal(bcrypt?.id, externalId(saasId, 'user', 'u-bcrypt'));
    assert.deepEqual(bcrypt?.attributes, { nickname: 'bee' });

    const tenantId = externalId(saasId, 'tenant', 't-acme');
    const members = await api.get<{ users: { id: string; envs: { id: number; roles: { role_name: string }[] }[] }[] }>(`/tenants/${tenantId}/users`);
    assert.equal(members.status, 200, members.text);
    const editor = members.body.users.find((u) => u.id === bcrypt?.id);
    assert.deepEqual(
      editor?.envs.map((env) => [env.id, env.roles.map((r) => r.role_name)]),
      [[7, ['editor']]],
    );
    assert.equal(members.body.users.length, 2);
  });

  it('keeps the hash on the profile, with no SRP verifier, and the creation time the file gave', async () => {
    const item = (
      await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, externalId(saasId, 'user', 'u-bcrypt')) }))
    ).Item;
    assert.equal((item?.imported_password as { algorithm: string }).algorithm, 'bcrypt');
    assert.equal((item?.password as { verifier: string }).verifier, '');
    assert.equal(item?.created_at, Date.parse('2021-03-04T05:06:07Z') / 1000);
  });

  it('a second run of the same file changes nothing: every row that arrived is unchanged', async () => {
    const bcryptId = externalId(saasId, 'user', 'u-bcrypt');
    assert.equal((await api.patch(`/users/${bcryptId}/attributes`, { attributes: { nickname: 'changed since' } })).status, 200);
    const again = await importFile(api, FILE);
    assert.deepEqual({ imported: again.imported, unchanged: again.unchanged, failed: again.failed }, { imported: 0, unchanged: 11, failed: 8 });
    assert.deepEqual((await api.get<{ attributes: object }>(`/users/${bcryptId}`)).body.attributes, { nickname: 'changed since' });
    assert.equal((await api.get<{ users: unknown[] }>('/users')).body.users.length, 5);
    const jobs = (await api.get<{ imports: ImportJob[] }>('/migration/imports')).body.imports;
    assert.deepEqual(
      jobs.map((job) => job.job_id),
      [again.job_id, first.job_id],
    );
  });

  it('to SRP an imported user is nobody until the first sign-in: the answer of a name nobody has', async () => {
    const imported = await srpSignIn(api, 'bcrypt@acme.example.test', 'U*U');
    const nobody = await srpSignIn(api, 'nobody-here@acme.example.test', 'U*U');
    assert.equal(imported.status, nobody.status);
    assert.equal((imported.body as unknown as { type: string }).type, (nobody.body as unknown as { type: string }).type);
  });

  it('a password set by the SaaS replaces the imported hash for good, and SRP then signs in', async () => {
    const userId = externalId(saasId, 'user', 'u-pbkdf2');
    assert.equal((await api.patch(`/users/${userId}/password`, { password: 'Chosen-pass-1' })).status, 200);
    const item = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, userId) }))).Item;
    assert.equal(item?.imported_password, undefined);
    const signedIn = await srpSignIn(api, 'pbkdf2@acme.example.test', 'Chosen-pass-1');
    assert.equal(signedIn.status, 200, signedIn.text);
  });

  it('mails nobody unless the job asks for it; the choice must be a boolean', async () => {
    assert.equal(first.mail_set_password, undefined);
    assert.deepEqual(await deliveredMail(h.sesUrl, saasId, 'nopassword@acme.example.test'), []);
    const bad = await api.post<{ type: string; data: { field?: string } }>('/migration/imports', { jsonl: FILE, mail_set_password: 'yes' });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.type, 'invalid_parameter');
  });

  it('`*` does not reach it; another SaaS cannot read the job; an empty file is a 400', async () => {
    const star = await h.newKey(saasId, ['*']);
    assert.equal((await star.post('/migration/imports', { jsonl: FILE })).status, 403);
    assert.equal((await star.get(`/migration/imports/${first.job_id}`)).status, 403);
    const other = await h.newSaas(['migration:write']);
    const read = await other.client.get<{ type: string }>(`/migration/imports/${first.job_id}`);
    assert.equal(read.status, 404);
    assert.equal(read.body.type, 'import_not_found');
    assert.equal((await other.client.get<{ imports: unknown[] }>('/migration/imports')).body.imports.length, 0);
    assert.equal((await api.post('/migration/imports', { jsonl: '' })).status, 400);
  });
});
