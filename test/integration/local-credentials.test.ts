/**
 * The keys `npm start` hands out: kept while active, a new key for the same SaaS once revoked, a new SaaS when
 * gone; and what its banner says of the example app's demo.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignedClient } from '../../client/signed-fetch.js';
import type { Demo } from '../../examples/app/demo.js';
import { startLocalExampleApp } from '../../examples/app/local.js';
import { localCredentials } from '../../local/runtime.js';
import { revokeApiKey } from '../../shared/domain/accounts/accounts.js';
import { secretBox } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const ORIGIN = 'http://127.0.0.1:8080';

describe('npm start’s credentials', () => {
  it('keeps an active key, replaces a revoked one in the same SaaS, and makes a SaaS when the stored one is gone', async () => {
    const first = await localCredentials(h.accounts, secretBox(), undefined, ORIGIN);
    assert.equal(first.made, 'saas');
    assert.equal(first.credentials.SAASUS_BASE_URL, `${ORIGIN}/v1`);

    const again = await localCredentials(h.accounts, secretBox(), first.credentials, ORIGIN);
    assert.equal(again.made, 'nothing');
    assert.deepEqual(again.credentials, first.credentials);

    await revokeApiKey(h.accounts, first.credentials.SAASUS_SAAS_ID, first.credentials.SAASUS_API_KEY);
    const replaced = await localCredentials(h.accounts, secretBox(), first.credentials, ORIGIN);
    assert.equal(replaced.made, 'key');
    assert.equal(replaced.credentials.SAASUS_SAAS_ID, first.credentials.SAASUS_SAAS_ID, 'the same SaaS, with its data');
    assert.notEqual(replaced.credentials.SAASUS_API_KEY, first.credentials.SAASUS_API_KEY);
    const client = new SignedClient(h.api.baseUrl, {
      saasId: replaced.credentials.SAASUS_SAAS_ID,
      apiKey: replaced.credentials.SAASUS_API_KEY,
      secret: replaced.credentials.SAASUS_SECRET_KEY,
    });
    assert.equal((await client.get('/roles')).status, 200, 'the new key signs');

    const gone = await localCredentials(h.accounts, secretBox(), { ...first.credentials, SAASUS_SAAS_ID: randomUUID() }, ORIGIN);
    assert.equal(gone.made, 'saas');
  });
});

describe('npm start’s example app banner', () => {
  const bannerLine = (banner: string[], label: string) => banner.find((line) => line.trimStart().startsWith(label))?.trim() ?? '';

  it('names the demo user’s id, keeps the demo when the app key is replaced, and stops showing a password that no longer signs in', async () => {
    const { saasId, client } = await h.newSaas();
    const dataDir = mkdtempSync(join(tmpdir(), 'example-app-'));
    const issueKey = async (permissions: string[]) => {
      const key = await h.newKey(saasId, permissions);
      return { apiKey: key.credentials.apiKey, secret: key.credentials.secret };
    };
    const start = async () => {
      const local = await startLocalExampleApp({ dataDir, port: 0, admin: client, issueKey });
      await local.app.close();
      return { banner: local.banner, state: JSON.parse(readFileSync(join(dataDir, 'example-app.json'), 'utf8')) as { apiKey: string; demo: Demo } };
    };
    try {
      const first = await start();
      const { demo } = first.state;
      assert.match(demo.userId, /^[0-9a-f-]{36}$/);
      assert.equal((await client.get<{ email: string }>(`/users/${demo.userId}`)).body.email, demo.email);
      assert.equal(bannerLine(first.banner, 'Demo user'), `Demo user        ${demo.email}  id ${demo.userId}`);
      assert.equal(bannerLine(first.banner, 'Demo password'), `Demo password    ${demo.password}`);

      await revokeApiKey(h.accounts, saasId, first.state.apiKey);
      const second = await start();
      assert.notEqual(second.state.apiKey, first.state.apiKey, 'the revoked key is replaced');
      assert.deepEqual(second.state.demo, demo, 'and the demo seeded before is kept, not seeded again');
      assert.equal(bannerLine(second.banner, 'Demo password'), `Demo password    ${demo.password}`);

      assert.equal((await client.patch(`/users/${demo.userId}/password`, { password: 'Changed-by-hand-1' })).status, 200);
      const third = await start();
      assert.equal(third.state.demo.password, undefined);
      assert.match(bannerLine(third.banner, 'Demo password'), /changed since the demo was seeded/);
      assert.doesNotMatch(third.banner.join('\n'), new RegExp(demo.password!));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
