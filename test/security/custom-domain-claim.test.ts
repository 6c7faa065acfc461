/**
 * Issue 36: a SaaS could save `<other saas id>.<login domain>`, another SaaS's screen host, as its own custom
 * domain (in capitals too) and got a 200; once DNS pointed there, two screens would share one origin again.
 * Any name under the login domain, the login domain itself and the API's own hosts are refused
 * (shared/screen-hosts.ts, isServiceDomain), case-insensitively and after IDNA normalisation.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { isServiceDomain, screenHostPlan } from '../../shared/screen-hosts.js';
import { expectError } from '../support/expect.js';

let h: Harness;
let a: { saasId: string; client: SignedClient };
let b: { saasId: string; client: SignedClient };

beforeAll(async () => {
  // Each SaaS's screen on `<saas id>.localhost:<port>`: the login domain is `localhost`.
  h = await startHarness({ perSaasHosts: true });
  [a, b] = [await h.newSaas(), await h.newSaas()];
});
afterAll(() => h.close());

const basic = (domain_name: string) => ({ domain_name, from_email_address: 'no-reply@a-corp.test' });

describe("a SaaS's own domain", () => {
  it("cannot be another SaaS's screen host, nor any name under the login domain, in any letters", async () => {
    const before = (await a.client.get('/basic-info')).body;
    const claims = [
      `${b.saasId}.localhost`,
      `${b.saasId.toUpperCase()}.LOCALHOST`,
      `${b.saasId}.LocalHost`,
      `www.${b.saasId}.localhost`,
      `${a.saasId}.localhost`,
      'nobody-yet.localhost',
    ];
    for (const domain of claims) await expectError(a.client.put('/basic-info', basic(domain)), 400, 'domain_reserved', 'domain_name');
    assert.deepEqual((await a.client.get('/basic-info')).body, before, 'a refused claim changed nothing');
    // A domain of its own is still taken.
    assert.equal((await a.client.put('/basic-info', basic('login.a-corp.test'))).status, 200);
  });

  it('is compared as DNS compares: lower case, IDNA to ASCII, no trailing dot, without the port', () => {
    const plan = screenHostPlan({
      publicBaseUrl: 'https://api.example.com/v1/auth',
      tokenIssuer: 'https://api.example.com/v1/auth',
      loginDomain: 'login.example.com',
    });
    for (const name of [
      'login.example.com',
      'LOGIN.Example.COM',
      'b.login.example.com',
      'B.LOGIN.EXAMPLE.COM.',
      'ｂ.ｌｏｇｉｎ.ｅｘａｍｐｌｅ.ｃｏｍ',
      'b.login.example.com:443',
      'api.example.com',
      'abc123.execute-api.us-east-1.amazonaws.com',
    ]) {
      assert.equal(isServiceDomain(plan, name), true, name);
    }
    for (const name of ['login.example.com.evil.test', 'xlogin.example.com', 'example.com', 'auth.acme.test']) {
      assert.equal(isServiceDomain(plan, name), false, name);
    }
  });
});
