/**
 * Red team, verified domains (issue 41): a tenant claiming or verifying a domain another tenant of the SaaS
 * verified, and a tenant's identity provider asserting an address of another tenant's verified domain.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import type { ServiceSetup } from '../../examples/app/demo.js';
import { setTxtRecordsForTests } from '../../shared/adapters/dns-txt.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { followRedirects, type TestOidcIdp } from '../support/oidc-idp.js';
import { connectTenantOidc, tenantSaas, verifyDomain } from '../support/tenant-providers.js';

interface Domain {
  status: string;
  record: { name: string; value: string };
}

let h: Harness;
let admin: SignedClient;
let saasId: string;
let acme: string;
let mallory: string;
let malloryIdp: TestOidcIdp;
let screen: string;
const KIM = 'kim@acme.test';
const published: Record<string, string[]> = {};

beforeAll(async () => {
  h = await startHarness();
  let setup: ServiceSetup;
  ({
    saasId,
    admin,
    screen,
    setup,
    tenants: { Acme: acme, Mallory: mallory },
  } = await tenantSaas(h, ['Acme', 'Mallory']));
  // Kim is Acme's, and Mallory's too (a shared contractor): Mallory's provider must still not speak for acme.test.
  const kim = await setup.createUser(KIM, 'Kim#Secret42');
  await setup.addMember(acme, kim, KIM);
  await setup.addMember(mallory, kim, KIM);
  setTxtRecordsForTests(published);
  await verifyDomain(admin, acme, 'acme.test', published);
  malloryIdp = await connectTenantOidc(admin, screen, mallory, 'mallory');
});
afterAll(async () => {
  setTxtRecordsForTests(undefined);
  await malloryIdp?.close();
  await h?.close();
});

describe('a domain another tenant verified', () => {
  it('cannot be claimed, nor verified with a record of its own published beside', async () => {
    const claim = await admin.post<{ type: string }>(`/tenants/${mallory}/domains`, { domain: 'ACME.test.' });
    assert.equal(claim.status, 400, JSON.stringify(claim.body));
    assert.equal(claim.body.type, 'domain_claimed');
    // Claimed while it was nobody's, and proven as well (say Mallory controls one DNS record of acme.test):
    // the domain stays Acme's.
    const other = await admin.post<Domain>(`/tenants/${mallory}/domains`, { domain: 'sub.acme.test' });
    assert.equal(other.status, 201);
    assert.equal((await admin.delete(`/tenants/${acme}/domains/acme.test`)).status, 200);
    const race = await admin.post<Domain>(`/tenants/${mallory}/domains`, { domain: 'acme.test' });
    assert.equal(race.status, 201);
    const again = await admin.post<Domain>(`/tenants/${acme}/domains`, { domain: 'acme.test' });
    published[again.body.record.name] = [again.body.record.value, race.body.record.value];
    assert.equal((await admin.post<Domain>(`/tenants/${acme}/domains/acme.test/verify`, {})).body.status, 'verified');
    const stolen = await admin.post<{ type: string }>(`/tenants/${mallory}/domains/acme.test/verify`, {});
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.type, 'domain_claimed');
    const acmeDomains = (await admin.get<{ domains: Domain[] }>(`/tenants/${acme}/domains`)).body.domains;
    assert.equal(acmeDomains.find((d) => d.record.name === '_identity-verification.acme.test')?.status, 'verified');
  });

  it('is nobody’s once the tenant that verified it is deleted: another tenant may then prove it', async () => {
    const gone = await admin.post<{ id: string }>('/tenants', { name: 'Gone', attributes: {}, back_office_staff_email: 'ops@gone.test' });
    assert.equal(gone.status, 201, JSON.stringify(gone.body));
    const claim = await admin.post<Domain>(`/tenants/${gone.body.id}/domains`, { domain: 'gone.test' });
    published[claim.body.record.name] = [claim.body.record.value];
    assert.equal((await admin.post<Domain>(`/tenants/${gone.body.id}/domains/gone.test/verify`, {})).body.status, 'verified');
    assert.equal((await admin.post(`/tenants/${mallory}/domains`, { domain: 'gone.test' })).status, 400, 'held while its tenant lives');
    assert.equal((await admin.delete(`/tenants/${gone.body.id}`)).status, 200);
    const after = await admin.post<Domain>(`/tenants/${mallory}/domains`, { domain: 'gone.test' });
    assert.equal(after.status, 201, JSON.stringify(after.body));
    published[after.body.record.name] = [after.body.record.value];
    assert.equal((await admin.post<Domain>(`/tenants/${mallory}/domains/gone.test/verify`, {})).body.status, 'verified');
  });

  it("is refused from another tenant's identity provider, even for a person who is that tenant's user too", async () => {
    malloryIdp.signInAs({ sub: 'mallory-kim', email: KIM });
    const done = await followRedirects(
      `${screen}oidc?tenant_id=${mallory}`,
      new Map(),
      (url) => !url.startsWith(`${screen}oidc`) && !url.startsWith(malloryIdp.issuer),
    );
    assert.equal(done.status, 400, done.text);
    assert.match(done.text, /another tenant verified/);
    assert.equal((await deliveredMail(h.sesUrl, saasId, KIM)).length, 0, 'no link code mailed to Kim');
  });
});
