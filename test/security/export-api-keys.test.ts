/**
 * Attacks on the SaaS's API keys through the import (issue 39, shared/domain/migration/integration-rows.ts,
 * docs/decisions.md "An export's API keys"). (1) A key that holds `migration:write` and nothing else writes an
 * api_key row by hand, its secret sealed under a seal key of its own, and starts the job through the API: it must
 * not get a key of every permission that no operator issued. (2) A webhook's sealed secret copied onto another
 * webhook's row, to have that endpoint sign with a secret the attacker chose elsewhere, does not open: the seal is
 * bound to the row it was made for.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { sealForExport } from '../../shared/crypto/export-seal.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { onApi } from '../support/other-api.js';

let h: Harness;
const ownKey = randomBytes(32);

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function importThroughApi(client: SignedClient, rows: readonly object[]): Promise<ImportJob> {
  const jsonl = rows.map((row) => JSON.stringify(row)).join('\n');
  const started = await client.post<ImportJob>('/migration/imports', { jsonl, seal_key: ownKey.toString('base64') });
  assert.equal(started.status, 201, started.text);
  await runScheduledWork();
  return (await client.get<ImportJob>(`/migration/imports/${started.body.job_id}`)).body;
}

describe('API keys and webhooks in an import', () => {
  it('a migration:write key cannot make itself a key of every permission with a row it sealed', async () => {
    const { saasId, client } = await h.newSaas(['migration:write']);
    const apiKey = 'Forged0123456789Forged0123456789';
    const secret = randomBytes(32).toString('base64url');
    const job = await importThroughApi(client, [
      {
        type: 'api_key',
        api_key: apiKey,
        permissions: ['*', 'migration:read'],
        description: 'mine',
        created_at: 1,
        secret: sealForExport(ownKey, secret, `api-key.${apiKey}`),
      },
    ]);
    assert.deepEqual(
      job.errors?.map((e) => e.line),
      [1],
    );
    assert.match(job.errors?.[0]?.reason ?? '', /API keys are imported by the operator only/);
    const forged = new SignedClient(h.api.baseUrl, { saasId, apiKey, secret });
    assert.equal((await forged.get('/tenants')).status, 401);
    assert.equal((await forged.get('/migration/export')).status, 401);
  });

  it("a webhook secret sealed for one row does not open on another's", async () => {
    const { client } = await h.newSaas(['*', 'migration:write']);
    const [first, second] = [randomUUID(), randomUUID()];
    const row = (id: string, boundTo: string) => ({
      type: 'webhook',
      id,
      url: 'http://127.0.0.1:9/hooks',
      event_types: [],
      description: '',
      disabled: false,
      created_at: 1,
      secret: sealForExport(ownKey, `whsec_${randomBytes(24).toString('base64')}`, `webhook.${boundTo}`),
    });
    const job = await importThroughApi(client, [row(first, first), row(second, first)]);
    assert.deepEqual(
      job.errors?.map((e) => [e.line, /does not open with the seal_key/.test(e.reason)]),
      [[2, true]],
    );
    const hooks = (await onApi(client, 'integration').get<{ webhooks: { id: string }[] }>('/webhooks')).body.webhooks;
    assert.deepEqual(
      hooks.map((hook) => hook.id),
      [first],
    );
  });
});
