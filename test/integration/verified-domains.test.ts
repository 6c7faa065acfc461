/**
 * Verified domains and home-realm discovery (shared/domain/tenants/verified-domains.ts): a tenant claims a
 * domain, publishes its TXT record (the records this file publishes: shared/adapters/dns-txt.ts), verifies it;
 * then the screen's `api/discover` sends an address of that domain to the tenant's provider, and a newcomer of
 * the domain joins the tenant with its role. A proof that is gone lapses the claim.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { setTxtRecordsForTests } from '../../shared/adapters/dns-txt.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { RECHECK_SECONDS } from '../../shared/domain/tenants/verified-domains.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { followRedirects, type TestOidcIdp } from '../support/oidc-idp.js';
import { openScreen } from '../support/screen-client.js';
import { connectTenantOidc, tenantSaas } from '../support/tenant-providers.js';

const CALLBACK = 'https://app.acme.test/callback';
interface Domain {
  domain: string;
  status: string;
  record: { name: string; value: string };
  jit_role_name?: string;
}

let h: Harness;
let admin: SignedClient;
let tenantA: string;
let tenantB: string;
let idp: TestOidcIdp;
let screen: string;
const published: Record<string, string[] | 'failing'> = {};

const publish = (record: { name: string; value: string }) => {
  published[record.name] = [record.value];
  setTxtRecordsForTests(published);
};

/** The page's `api/discover` step, as its script calls it once the address is typed. */
async function discover(email: string, state = 's-1') {
  const page = await openScreen(screen);
  const res = await fetch(`${screen}api/discover`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: page.cookie, 'x-csrf-token': String(page.data?.csrf) },
    body: JSON.stringify({ email, state }),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as { redirect?: string };
}

beforeAll(async () => {
  h = await startHarness();
  ({
    admin,
    screen,
    tenants: { Acme: tenantA, Beta: tenantB },
  } = await tenantSaas(h, ['Acme', 'Beta'], CALLBACK));
  setTxtRecordsForTests(published);
  idp = await connectTenantOidc(admin, screen, tenantA);
});
afterAll(async () => {
  setTxtRecordsForTests(undefined);
  resetClockForTests();
  await idp?.close();
  await h?.close();
});

describe('verified domains', () => {
  it('claims a domain with the TXT record to publish, and verifies it once published', async () => {
    const claimed = await admin.post<Domain>(`/tenants/${tenantA}/domains`, { domain: 'Acme.TEST', jit_role_name: 'admin' });
    assert.equal(claimed.status, 201, JSON.stringify(claimed.body));
    assert.equal(claimed.body.domain, 'acme.test');
    assert.equal(claimed.body.status, 'pending');
    assert.equal(claimed.body.record.name, '_identity-verification.acme.test');
    assert.match(claimed.body.record.value, /^identity-verification=\S{20,}$/);
    const early = await admin.post<{ type: string }>(`/tenants/${tenantA}/domains/acme.test/verify`, {});
    assert.equal(early.status, 400);
    assert.equal(early.body.type, 'domain_not_verified');
    publish(claimed.body.record);
    const verified = await admin.post<Domain>(`/tenants/${tenantA}/domains/acme.test/verify`, {});
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.equal(verified.body.status, 'verified');
    const listed = await admin.get<{ domains: Domain[] }>(`/tenants/${tenantA}/domains`);
    assert.deepEqual(
      listed.body.domains.map((d) => [d.domain, d.status, d.jit_role_name]),
      [['acme.test', 'verified', 'admin']],
    );
  });

  it('refuses what is no domain, a role that does not exist, and an unknown tenant', async () => {
    for (const domain of ['acme', 'not a domain', '-acme.test', 'acme..test', 'x'.repeat(300) + '.test']) {
      assert.equal((await admin.post(`/tenants/${tenantB}/domains`, { domain })).status, 400, domain);
    }
    assert.equal((await admin.post(`/tenants/${tenantB}/domains`, { domain: 'beta.test', jit_role_name: 'no-such-role' })).status, 400);
    assert.equal((await admin.post('/tenants/no-such-tenant/domains', { domain: 'beta.test' })).status, 404);
    assert.deepEqual((await admin.get(`/tenants/${tenantB}/domains`)).body, { domains: [] });
  });

  it('sends an address of the verified domain straight to the tenant’s provider, carrying the state; others go on with the password', async () => {
    const routed = await discover('x@ACME.test');
    assert.ok(routed.redirect, JSON.stringify(routed));
    const to = new URL(routed.redirect, h.api.baseUrl);
    assert.equal(to.pathname, new URL(`${screen}oidc`).pathname);
    assert.equal(to.searchParams.get('tenant_id'), tenantA);
    assert.equal(to.searchParams.get('state'), 's-1');
    assert.deepEqual(await discover('x@beta.test'), {});
    assert.deepEqual(await discover('not-an-address'), {});
  });

  it('signs a newcomer of the verified domain in and makes them the tenant’s user with the role (just-in-time)', async () => {
    idp.signInAs({ sub: 'okta-new', email: 'newcomer@acme.test', name: 'New Comer' });
    const { redirect } = await discover('newcomer@acme.test');
    const done = await followRedirects(new URL(redirect as string, h.api.baseUrl).toString(), new Map(), (url) => url.startsWith(CALLBACK));
    assert.equal(done.status, 302, done.text);
    assert.ok(done.location?.startsWith(`${CALLBACK}?code=`), done.location);
    const users = await admin.get<{ users: { email: string; envs: { roles: { role_name: string }[] }[] }[] }>(`/tenants/${tenantA}/users`);
    const newcomer = users.body.users.find((u) => u.email === 'newcomer@acme.test');
    assert.ok(newcomer, 'a tenant user now');
    assert.deepEqual(
      newcomer.envs.flatMap((e) => e.roles.map((r) => r.role_name)),
      ['admin'],
    );
  });

  it('lapses the claim when its proof is gone a day later, and routes nothing then; a failing resolver lapses nothing', async () => {
    const record = (await admin.get<{ domains: Domain[] }>(`/tenants/${tenantA}/domains`)).body.domains[0]?.record as Domain['record'];
    const now = Date.now();
    setClockForTests(() => now + (RECHECK_SECONDS + 60) * 1000);
    try {
      published[record.name] = 'failing';
      assert.ok((await discover('x@acme.test')).redirect, 'a resolver failing proves nothing gone');
      setClockForTests(() => now + 2 * (RECHECK_SECONDS + 60) * 1000);
      delete published[record.name];
      assert.deepEqual(await discover('x@acme.test'), {});
      const listed = await admin.get<{ domains: Domain[] }>(`/tenants/${tenantA}/domains`);
      assert.equal(listed.body.domains[0]?.status, 'lapsed');
      publish(record);
      assert.equal((await admin.post<Domain>(`/tenants/${tenantA}/domains/acme.test/verify`, {})).body.status, 'verified');
      assert.ok((await discover('x@acme.test')).redirect);
    } finally {
      resetClockForTests();
    }
  });
});
