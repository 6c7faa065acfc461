/**
 * Webhooks, API keys and the payment provider's key in the export and back (issue 39, docs/migration.md
 * "Webhooks, API keys and the payment provider"), through DynamoDB Local and the real handlers: exported under
 * the operator's seal key and imported into a fresh SaaS, a delivery there is signed with the webhook's old
 * secret (the receiver verifies it unchanged), a backend signs with its old key and secret and is accepted, and
 * the provider's key is the same. Without the key, or with another, each row is refused by line and nothing of it
 * is written; a job started through the API takes no API keys; a re-run writes nothing; another SaaS's export
 * holds nothing of this one.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { issueApiKey } from '../../shared/domain/accounts/accounts.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import { configurationService, exportService, importService, secretBox } from '../../shared/wiring.js';
import { onApi } from '../support/other-api.js';

const STRIPE_KEY = `sk_test_${'a1B2c3D4'.repeat(4)}`;
const sealKey = randomBytes(32);

let h: Harness;
let source: SignedClient;
let sourceId: string;
let receiver: Server;
let url: string;
let received: { headers: Record<string, string>; body: string }[] = [];
let webhook: { id: string; secret: string };
let backend: { apiKey: string; secret: string };
let jsonl: string;

interface Row {
  type: string;
  id?: string;
  api_key?: string;
  secret?: string;
  secret_key?: string;
  permissions?: string[];
}
const rowsOf = (file: string) =>
  file
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);
const lineOf = (file: string, type: string) => rowsOf(file).findIndex((row) => row.type === type) + 1;

/** As `npm run admin -- export --seal-key-file KEY --api-keys` writes it. */
async function exported(saasId: string, key?: Buffer, apiKeys = true): Promise<string> {
  const lines: string[] = [];
  for await (const row of exportService().rows(saasId, { sealKey: key, apiKeys })) lines.push(`${JSON.stringify(row)}\n`);
  return lines.join('');
}

/** As `npm run admin -- import FILE` runs it (operator), or as POST /migration/imports starts it (API). */
async function importInto(saasId: string, file: string, options: { seal_key?: string; operator?: boolean }): Promise<ImportJob> {
  const imports = importService();
  const job = await imports.start(saasId, file, options);
  await imports.run(saasId, job.job_id);
  return imports.get(saasId, job.job_id);
}

/** The target's events delivered now: what the receiver got. */
async function deliveredNow(): Promise<typeof received> {
  received = [];
  await h.flush();
  await runScheduledWork();
  return received;
}

beforeAll(async () => {
  h = await startHarness();
  ({ saasId: sourceId, client: source } = await h.newSaas(['*', 'migration:read', 'migration:write']));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const created = await onApi(source, 'integration').post<{ id: string; secret: string }>('/webhooks', {
    url,
    event_types: ['create_tenant'],
    description: 'orders',
  });
  assert.equal(created.status, 201, created.text);
  webhook = created.body;
  // A second endpoint, turned off: it arrives off.
  const off = await onApi(source, 'integration').post<{ id: string }>('/webhooks', { url: `${url}/off` });
  assert.equal((await onApi(source, 'integration').patch(`/webhooks/${off.body.id}`, { disabled: true })).status, 200);
  backend = await issueApiKey(h.accounts, secretBox(), sourceId, ['tenant:read', 'tenant:write'], 'orders backend');
  assert.equal((await source.put('/payment-provider', { provider: 'stripe', secret_key: STRIPE_KEY })).status, 200);
  jsonl = await exported(sourceId, sealKey);
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await h.close();
});

describe('webhooks, API keys and the payment provider', () => {
  it('go out as rows, every secret sealed under the seal key and none in the clear', async () => {
    const rows = rowsOf(jsonl);
    const hooks = rows.filter((row) => row.type === 'webhook');
    assert.equal(hooks.length, 2);
    assert.ok(hooks.some((hook) => hook.id === webhook.id));
    const keys = rows.filter((row) => row.type === 'api_key');
    assert.deepEqual(keys.find((row) => row.api_key === backend.apiKey)?.permissions, ['tenant:read', 'tenant:write']);
    const sealed = rows.filter((row) => ['webhook', 'api_key', 'payment_provider'].includes(row.type)).map((row) => row.secret ?? row.secret_key);
    assert.ok(sealed.length >= 4 && sealed.every((value) => value?.startsWith('v1.')), JSON.stringify(sealed));
    for (const secret of [webhook.secret, webhook.secret.slice(6), backend.secret, STRIPE_KEY]) assert.ok(!jsonl.includes(secret));
    // The API's export has no seal key: the webhooks and the provider without their secrets, and no API key.
    const api = await source.get<{ jsonl: string; rows: number; by_type: Record<string, number> }>('/migration/export');
    assert.equal(api.status, 200, api.text);
    // The rows by type, as the admin command reports them on stderr (one tally, exports.ts rowTally).
    const counted: Record<string, number> = {};
    for (const row of rowsOf(api.body.jsonl)) counted[row.type] = (counted[row.type] ?? 0) + 1;
    assert.deepEqual(api.body.by_type, counted);
    assert.deepEqual([api.body.by_type.webhook, api.body.by_type.payment_provider, api.body.by_type.api_key], [2, 1, undefined]);
    const apiRows = rowsOf(api.body.jsonl).filter((row) => ['webhook', 'api_key', 'payment_provider'].includes(row.type));
    assert.deepEqual(apiRows.map((row) => row.type).sort(), ['payment_provider', 'webhook', 'webhook']);
    assert.ok(
      apiRows.every((row) => row.secret === undefined && row.secret_key === undefined),
      api.body.jsonl,
    );
    // Nor does the operator's export without --api-keys.
    assert.ok(!rowsOf(await exported(sourceId, sealKey, false)).some((row) => row.type === 'api_key'));
  });

  it('round trip: the receiver verifies with its old secret, the backend signs with its old key, the provider key is the same', async () => {
    const { saasId, client } = await h.newSaas();
    const job = await importInto(saasId, jsonl, { seal_key: sealKey.toString('base64'), operator: true });
    assert.equal(job.failed, 0, JSON.stringify(job.errors));
    // The job's counts by type of row: every row of the file, each as imported.
    const none = { unchanged: 0, failed: 0 };
    assert.deepEqual(
      [job.by_type.payment_provider, job.by_type.webhook, job.by_type.api_key],
      [
        { imported: 1, ...none },
        { imported: 2, ...none },
        { imported: 2, ...none },
      ],
    );
    assert.equal(
      Object.values(job.by_type).reduce((sum, counts) => sum + counts.imported, 0),
      rowsOf(jsonl).length,
    );
    const integration = onApi(client, 'integration');
    const hooks = (await integration.get<{ webhooks: { id: string; url: string; event_types: string[]; disabled: boolean }[] }>('/webhooks')).body
      .webhooks;
    const hook = hooks.find((found) => found.id === webhook.id);
    assert.deepEqual([hook?.url, hook?.event_types, hook?.disabled], [url, ['create_tenant'], false]);
    assert.deepEqual(hooks.map((found) => found.disabled).sort(), [false, true]);
    // An event of the target, delivered there: signed with the secret the receiver has had all along.
    const tenant = await client.post<{ id: string }>('/tenants', {
      name: 'Moved',
      attributes: {},
      back_office_staff_email: 'ops@moved.example.test',
    });
    assert.equal(tenant.status, 201, tenant.text);
    const got = await deliveredNow();
    assert.equal(got.length, 1, 'only the enabled endpoint that wants create_tenant');
    const payload = new Webhook(webhook.secret).verify(got[0]?.body ?? '', got[0]?.headers ?? {}) as { type: string };
    assert.equal(payload.type, 'create_tenant');
    // The backend's key and secret, unchanged, sign a request to the target SaaS.
    const moved = new SignedClient(h.api.baseUrl, { saasId, apiKey: backend.apiKey, secret: backend.secret });
    const listed = await moved.get<{ tenants: { id: string }[] }>('/tenants');
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.body.tenants.some((t) => t.id === tenant.body.id));
    // Its permissions came with it: no more.
    assert.equal((await moved.get('/users')).status, 403);
    const forged = new SignedClient(h.api.baseUrl, { saasId, apiKey: backend.apiKey, secret: randomBytes(32).toString('base64url') });
    assert.equal((await forged.get('/tenants')).status, 401);
    const provider = await client.get<{ provider: string; secret_key: string }>('/payment-provider');
    assert.deepEqual(provider.body, (await source.get('/payment-provider')).body);
    assert.equal(provider.body.provider, 'stripe');

    // A re-run writes nothing.
    const again = await importInto(saasId, jsonl, { seal_key: sealKey.toString('base64'), operator: true });
    assert.equal(again.imported, 0, JSON.stringify(again));
    assert.equal(again.failed, 0, JSON.stringify(again.errors));
    assert.ok(Object.values(again.by_type).every((counts) => counts.imported === 0 && counts.failed === 0 && counts.unchanged > 0));
    assert.deepEqual(Object.keys(again.by_type).sort(), Object.keys(job.by_type).sort());
    assert.equal((await integration.get<{ webhooks: unknown[] }>('/webhooks')).body.webhooks.length, 2);
  });

  it('a job of the API takes no API key: that row is refused by line, the rest arrive', async () => {
    const { saasId } = await h.newSaas();
    const job = await importInto(saasId, jsonl, { seal_key: sealKey.toString('base64') });
    const apiKeyLines = rowsOf(jsonl).flatMap((row, i) => (row.type === 'api_key' ? [i + 1] : []));
    assert.deepEqual(
      job.errors?.map((e) => e.line),
      apiKeyLines,
      JSON.stringify(job.errors),
    );
    assert.ok(job.errors?.every((e) => /API keys are imported by the operator only/.test(e.reason)));
    assert.deepEqual(job.by_type.api_key, { imported: 0, unchanged: 0, failed: 2 });
    assert.equal(job.by_type.webhook?.imported, 2);
    const moved = new SignedClient(h.api.baseUrl, { saasId, apiKey: backend.apiKey, secret: backend.secret });
    assert.equal((await moved.get('/tenants')).status, 401);
  });

  it('without the seal key, or with another, each secret row is refused by line with its reason, and nothing of it is written', async () => {
    for (const [options, reason] of [
      [{ operator: true }, /is sealed; start the job with the seal_key/],
      [{ operator: true, seal_key: randomBytes(32).toString('base64') }, /does not open with the seal_key/],
    ] as const) {
      const { saasId, client } = await h.newSaas();
      const job = await importInto(saasId, jsonl, options);
      for (const type of ['payment_provider', 'webhook', 'api_key']) {
        const error = job.errors?.find((e) => e.line === lineOf(jsonl, type));
        assert.match(error?.reason ?? '', reason, `${type}: ${JSON.stringify(job.errors)}`);
      }
      assert.equal((await onApi(client, 'integration').get<{ webhooks: unknown[] }>('/webhooks')).body.webhooks.length, 0);
      assert.deepEqual((await client.get('/payment-provider')).body, { provider: '', secret_key: '' });
      const moved = new SignedClient(h.api.baseUrl, { saasId, apiKey: backend.apiKey, secret: backend.secret });
      assert.equal((await moved.get('/tenants')).status, 401);
    }
    // A file exported without a key names what it left out.
    const { saasId } = await h.newSaas();
    const bare = await exported(sourceId, undefined, false);
    const job = await importInto(saasId, bare, { operator: true, seal_key: sealKey.toString('base64') });
    assert.match(job.errors?.find((e) => e.line === lineOf(bare, 'webhook'))?.reason ?? '', /secret: is left out; export with a seal key/);
  });

  it("another SaaS's export holds nothing of this one", async () => {
    const other = await h.newSaas();
    const file = await exported(other.saasId, sealKey);
    const rows = rowsOf(file);
    assert.deepEqual(
      rows.filter((row) => row.type === 'api_key').map((row) => row.api_key),
      [other.apiKey],
    );
    assert.ok(!rows.some((row) => row.type === 'webhook' || row.type === 'payment_provider'), file);
    assert.ok(!file.includes(backend.apiKey) && !file.includes(webhook.id));
  });
});

describe('basic settings', () => {
  const BASIC = {
    domain_name: 'auth.moving.example.test',
    from_email_address: 'hello@moving.example.test',
    reply_email_address: 'help@moving.example.test',
  };
  interface BasicInfo {
    domain_name: string;
    from_email_address: string;
    reply_email_address: string;
    is_dns_validated: boolean;
    dkim_dns_records: unknown[];
  }

  it('go out as a plain setting; refused while another SaaS holds the domain; then set, the identity to be made again there', async () => {
    assert.equal((await source.put('/basic-info', BASIC)).status, 200);
    const file = await exported(sourceId, sealKey, false);
    const row = rowsOf(file).find((r) => r.type === 'setting' && (r as { name?: string }).name === 'basic-info') as { value?: object } | undefined;
    assert.deepEqual(row?.value, BASIC);
    const { saasId, client } = await h.newSaas();
    const refused = await importInto(saasId, file, { seal_key: sealKey.toString('base64') });
    assert.match(refused.errors?.[0]?.reason ?? '', /domain_name: another SaaS of this service uses this domain/, JSON.stringify(refused.errors));
    assert.equal(refused.failed, 1);
    assert.equal((await client.get<BasicInfo>('/basic-info')).body.domain_name, '');
    // The old SaaS lets the domain go (its cut-over): the same file sets it.
    assert.equal((await source.put('/basic-info', { ...BASIC, domain_name: 'auth.elsewhere.example.test' })).status, 200);
    const job = await importInto(saasId, file, { seal_key: sealKey.toString('base64') });
    assert.equal(job.failed, 0, JSON.stringify(job.errors));
    const info = (await client.get<BasicInfo>('/basic-info')).body;
    assert.deepEqual([info.domain_name, info.from_email_address, info.reply_email_address], Object.values(BASIC));
    assert.deepEqual([info.is_dns_validated, info.dkim_dns_records], [false, []], 'no identity made here yet');
    // SES would refuse a sender with no identity: the service's own until the SaaS sets it there.
    assert.match((await configurationService().senderAddresses(saasId)).from, /^no-reply@/);
    assert.equal((await client.put('/basic-info', BASIC)).status, 200);
    assert.equal((await client.get<BasicInfo>('/basic-info')).body.dkim_dns_records.length, 3);
    assert.equal((await configurationService().senderAddresses(saasId)).from, BASIC.from_email_address);
  });
});
