/**
 * `.data/credentials.env` carries the base-URL variable of every SDK, each in the form that SDK completes:
 * the JavaScript, PHP, Java and C# SDKs add `/v1/auth` to SAASUS_API_URL_BASE, the Python SDK adds `/auth` to
 * SAASUS_BASE_URL. Both must reach this API.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialsFile, readCredentials, sdkBaseUrls, writeCredentials } from '../../local/credentials-file.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('the SDKs’ base-URL variables', () => {
  it('lead each SDK to this API', async () => {
    const origin = new URL(h.api.baseUrl).origin;
    const vars = sdkBaseUrls(origin);
    const bases = { 'JavaScript, PHP, Java, C#': `${vars.SAASUS_API_URL_BASE}/v1/auth`, Python: `${vars.SAASUS_BASE_URL}/auth` };
    for (const [sdk, base] of Object.entries(bases)) {
      assert.equal(base, h.api.baseUrl, sdk);
      const res = await fetch(`${base}/.well-known/jwks.json`);
      assert.equal(res.status, 200, sdk);
    }
  });

  it('are written to credentials.env with the keys and the login URL, and read back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'credentials-'));
    const written = {
      SAASUS_SAAS_ID: 's',
      SAASUS_API_KEY: 'k',
      SAASUS_SECRET_KEY: 'x',
      ...sdkBaseUrls('http://127.0.0.1:8080'),
      SAASUS_LOGIN_URL: 'http://127.0.0.1:8081/',
    };
    writeCredentials(dir, written);
    const lines = readFileSync(credentialsFile(dir), 'utf8').split('\n');
    for (const name of ['SAASUS_SAAS_ID', 'SAASUS_API_KEY', 'SAASUS_SECRET_KEY', 'SAASUS_API_URL_BASE', 'SAASUS_BASE_URL', 'SAASUS_LOGIN_URL']) {
      assert.ok(
        lines.some((line) => line.startsWith(`${name}=`)),
        name,
      );
    }
    assert.deepEqual(readCredentials(dir), written);
  });
});
