/** The keys `npm start` hands out: kept while active, a new key for the same SaaS once revoked, a new SaaS when gone. */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignedClient } from '../../client/signed-fetch.js';
import { localCredentials } from '../../local/runtime.js';
import { revokeApiKey } from '../../shared/domain/accounts/accounts.js';
import { secrets } from '../../shared/store/client.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const ORIGIN = 'http://127.0.0.1:8080';

describe('npm start’s credentials', () => {
  it('keeps an active key, replaces a revoked one in the same SaaS, and makes a SaaS when the stored one is gone', async () => {
    const first = await localCredentials(h.accounts, secrets(), undefined, ORIGIN);
    assert.equal(first.made, 'saas');
    assert.equal(first.credentials.SAASUS_BASE_URL, `${ORIGIN}/v1`);

    const again = await localCredentials(h.accounts, secrets(), first.credentials, ORIGIN);
    assert.equal(again.made, 'nothing');
    assert.deepEqual(again.credentials, first.credentials);

    await revokeApiKey(h.accounts, first.credentials.SAASUS_SAAS_ID, first.credentials.SAASUS_API_KEY);
    const replaced = await localCredentials(h.accounts, secrets(), first.credentials, ORIGIN);
    assert.equal(replaced.made, 'key');
    assert.equal(replaced.credentials.SAASUS_SAAS_ID, first.credentials.SAASUS_SAAS_ID, 'the same SaaS, with its data');
    assert.notEqual(replaced.credentials.SAASUS_API_KEY, first.credentials.SAASUS_API_KEY);
    const client = new SignedClient(h.api.baseUrl, {
      saasId: replaced.credentials.SAASUS_SAAS_ID,
      apiKey: replaced.credentials.SAASUS_API_KEY,
      secret: replaced.credentials.SAASUS_SECRET_KEY,
    });
    assert.equal((await client.get('/roles')).status, 200, 'the new key signs');

    const gone = await localCredentials(h.accounts, secrets(), { ...first.credentials, SAASUS_SAAS_ID: randomUUID() }, ORIGIN);
    assert.equal(gone.made, 'saas');
  });
});
