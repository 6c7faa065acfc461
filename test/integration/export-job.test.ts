/**
 * The export as a job (POST /migration/exports, GET /migration/exports/{job_id}, our extension, issue 39): started
 * with a seal key, worked by the scheduled worker, its file read page by page and imported into a fresh SaaS, where
 * a user signs in with the same password and the same authenticator app. A job written over several runs gives the
 * file one run gives, also when the SaaS changed between them. Another SaaS cannot read the job; a key without migration:read is refused; the seal key is
 * kept no longer than the job.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { answerChallenge } from '../../dev-support/sign-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { nowSeconds } from '../../shared/clock.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import type { ExportJob, ImportJob } from '../../shared/schemas/migration.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';
import { dynamo, exportJobService, tableName, userRepository } from '../../shared/wiring.js';
import { accessTokenOf } from '../support/tokens.js';

let h: Harness;
let sourceId: string;
let admin: SignedClient;
let reader: SignedClient;
const USER = { email: 'erin@jobs.example.test', password: 'Erin-old-pass-5' };
let secret: string;
let erinId: string;

const passwordSignIn = (client: SignedClient, USERNAME: string, PASSWORD: string) =>
  client.post<SignInResult>('/sign-in', { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME, PASSWORD } });

/** Starts a job, runs the worker until it is done, and reads its file page by page. */
async function exportedFile(body: Record<string, unknown>): Promise<{ job: ExportJob; jsonl: string; pages: number }> {
  const started = await reader.post<ExportJob>('/migration/exports', body);
  assert.equal(started.status, 201, started.text);
  assert.equal(started.body.state, 'queued');
  await runScheduledWork();
  return readFile(started.body.job_id);
}

async function readFile(jobId: string): Promise<{ job: ExportJob; jsonl: string; pages: number }> {
  const job = await reader.get<ExportJob>(`/migration/exports/${jobId}`);
  assert.equal(job.status, 200, job.text);
  assert.equal(job.body.state, 'done', job.text);
  let [jsonl, pages, part] = ['', 0, 0 as number | undefined];
  while (part !== undefined) {
    const page = await reader.get<ExportJob>(`/migration/exports/${jobId}?part=${part}`);
    assert.equal(page.status, 200, page.text);
    jsonl += page.body.jsonl ?? '';
    pages++;
    part = page.body.next_part;
  }
  return { job: job.body, jsonl, pages };
}

beforeAll(async () => {
  h = await startHarness();
  ({ saasId: sourceId, client: admin } = await h.newSaas());
  reader = await h.newKey(sourceId, ['migration:read']);
  const made = await admin.post<{ id: string; email: string; sign_in_id: string }>('/users', USER);
  assert.equal(made.status, 201, made.text);
  erinId = made.body.id;
  const token = await accessTokenOf(sourceId, made.body);
  secret = (await admin.post<{ secret_code: string }>(`/users/${erinId}/mfa/software-token/secret-code`, { access_token: token })).body.secret_code;
  const code = totpCodeAt(base32Decode(secret) as Buffer, totpStep(nowSeconds()));
  assert.equal((await admin.put(`/users/${erinId}/mfa/software-token`, { access_token: token, verification_code: code })).status, 200);
  assert.equal((await admin.patch(`/users/${erinId}/mfa/preference`, { enabled: true, method: 'softwareToken' })).status, 200);
  const tenant = await admin.post<{ id: string }>('/tenants', { name: 'Jobs', attributes: {}, back_office_staff_email: 'ops@jobs.example.test' });
  assert.equal(tenant.status, 201, tenant.text);
  assert.equal((await admin.post(`/tenants/${tenant.body.id}/users`, { email: USER.email, attributes: {} })).status, 201);
});
afterAll(() => h.close());

describe('the export job', () => {
  const sealKey = randomBytes(32);

  it('starts, is done after the worker, and its file imports elsewhere: the same password and the same app sign in', async () => {
    const { job, jsonl } = await exportedFile({ seal_key: sealKey.toString('base64') });
    assert.equal(job.seal_key, true);
    assert.equal(job.rows, jsonl.trimEnd().split('\n').length);
    assert.deepEqual([job.by_type.user, job.by_type.tenant, job.by_type.membership], [1, 1, 1]);
    assert.equal(job.passwords_withheld, 0);
    const verifier = (await userRepository().get(sourceId, erinId))?.password.verifier as string;
    assert.ok(verifier.length > 64 && !jsonl.toLowerCase().includes(verifier.toLowerCase()));
    assert.ok(!jsonl.includes(secret));
    // The operator's key is kept no longer than the job.
    const item = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.exportJob(sourceId, job.job_id) }))).Item;
    assert.equal(item?.sealed_key, undefined);

    const { saasId: targetId } = await h.newSaas();
    const target = await h.newKey(targetId, ['*', 'migration:write']);
    const started = await target.post<ImportJob>('/migration/imports', { jsonl, seal_key: sealKey.toString('base64') });
    assert.equal(started.status, 201, started.text);
    await runScheduledWork();
    const imported = (await target.get<ImportJob>(`/migration/imports/${started.body.job_id}`)).body;
    assert.equal(imported.failed, 0, JSON.stringify(imported.errors));
    assert.equal((await passwordSignIn(target, USER.email, 'not-her-password')).status, 401);
    const asked = await passwordSignIn(target, USER.email, USER.password);
    assert.equal(asked.body.challenge_name, 'SOFTWARE_TOKEN_MFA', asked.text);
    const code = totpCodeAt(base32Decode(secret) as Buffer, totpStep(nowSeconds()));
    const answered = await answerChallenge(target, 'SOFTWARE_TOKEN_MFA', { USERNAME: USER.email, SOFTWARE_TOKEN_MFA_CODE: code }, asked.body.session);
    assert.ok(answered.body.credentials?.access_token, answered.text);
  });

  it('written over several runs, gives the file one run gives; read in pages', async () => {
    // Without a seal key the file is the same on every run (nothing sealed, so no nonce): GET /migration/export's.
    const direct = await reader.get<{ jsonl: string; passwords_withheld: number }>('/migration/export');
    const started = await reader.post<ExportJob>('/migration/exports', {});
    assert.equal(started.status, 201, started.text);
    const jobs = exportJobService();
    // Tiny parts, and a deadline already past: each run writes one part and stops.
    assert.equal(await jobs.run(sourceId, started.body.job_id, { partBytes: 200, deadline: 0 }), 1);
    const halfway = (await reader.get<ExportJob>(`/migration/exports/${started.body.job_id}`)).body;
    assert.equal(halfway.state, 'running');
    assert.equal(halfway.parts, 1);
    const early = await reader.get<{ type: string }>(`/migration/exports/${started.body.job_id}?part=0`);
    assert.equal(early.status, 400, early.text);
    assert.equal(early.body.type, 'export_not_done');
    while ((await jobs.run(sourceId, started.body.job_id, { partBytes: 200, deadline: 0 })) > 0);
    const { job, jsonl, pages } = await readFile(started.body.job_id);
    assert.equal(jsonl, direct.body.jsonl);
    assert.ok(halfway.rows > 0 && halfway.rows < job.rows, `${halfway.rows} of ${job.rows} rows after the first run`);
    assert.ok(job.parts >= 2 && pages === 1, `${job.parts} parts, ${pages} pages`);
    assert.equal(job.seal_key, false);
    assert.equal(job.passwords_withheld, direct.body.passwords_withheld);
    assert.equal(job.passwords_withheld, 1);
    assert.equal((await reader.get(`/migration/exports/${started.body.job_id}?part=${job.parts}`)).status, 404);
  });

  it('a SaaS that changes between two runs gets the file as it is after the change: no row lost or written twice', async () => {
    const started = await reader.post<ExportJob>('/migration/exports', {});
    const jobs = exportJobService();
    assert.equal(await jobs.run(sourceId, started.body.job_id, { partBytes: 200, deadline: 0 }), 1);
    // Tenants come before users: a new one moves every later row, the last one written included.
    const made = await admin.post('/tenants', { name: 'Jobs 2', attributes: {}, back_office_staff_email: 'ops2@jobs.example.test' });
    assert.equal(made.status, 201, made.text);
    while ((await jobs.run(sourceId, started.body.job_id, { partBytes: 200, deadline: 0 })) > 0);
    const { job, jsonl } = await readFile(started.body.job_id);
    assert.equal(jsonl, (await reader.get<{ jsonl: string }>('/migration/export')).body.jsonl);
    assert.equal(job.by_type.tenant, 2);
    assert.equal(job.rows, jsonl.trimEnd().split('\n').length);
  });

  it('another SaaS cannot read the job; a key without migration:read is refused; a bad seal key is a 400', async () => {
    const started = await reader.post<ExportJob>('/migration/exports', {});
    assert.equal(started.status, 201, started.text);
    await runScheduledWork();
    const other = await h.newSaas(['migration:read']);
    for (const path of [`/migration/exports/${started.body.job_id}`, `/migration/exports/${started.body.job_id}?part=0`]) {
      const theirs = await other.client.get<{ type: string }>(path);
      assert.equal(theirs.status, 404, theirs.text);
      assert.equal(theirs.body.type, 'export_not_found');
    }
    for (const grants of [['*'], ['*', 'migration:write']]) {
      const key = await h.newKey(sourceId, grants);
      assert.equal((await key.post('/migration/exports', {})).status, 403, grants.join());
      assert.equal((await key.get(`/migration/exports/${started.body.job_id}`)).status, 403, grants.join());
    }
    const bad = await reader.post<{ type: string; data: { field?: string } }>('/migration/exports', { seal_key: 'c2hvcnQ=' });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.data.field, 'seal_key');
  });
});
