/**
 * A SaaS's own domain (ConfigurationService with shared/adapters/site-domains.ts's port): the records Get Basic
 * Information answers are the certificate issuer's and the API's real target, each as soon as it exists, and
 * links move to the domain only once its CNAME points at the target. The port is scripted here as AWS would
 * answer over time; the settings live in DynamoDB Local.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ConfigurationService, type SiteDomainPort } from '../../shared/domain/configuration/configuration.js';
import type { DnsRecord } from '../../shared/schemas/configuration.js';
import { DynamoSettingsRepository } from '../../shared/store/settings-repository.js';
import { dynamo, secretBox, tableName } from '../../shared/wiring.js';
import { LocalEmailIdentities } from '../../shared/adapters/mail/identities.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** ACM and API Gateway as they answer over time: what the test has let happen so far. */
class ScriptedDomains implements SiteDomainPort {
  requested: string[] = [];
  served: string[] = [];
  record: DnsRecord | undefined;
  issued = false;
  pointing = false;

  async requestCertificate(domain: string) {
    this.requested.push(domain);
    return `arn:aws:acm:us-east-1:123456789012:certificate/${domain}`;
  }
  async certificate() {
    return { ...(this.record ? { record: this.record } : {}), issued: this.issued };
  }
  async serve(domain: string) {
    this.served.push(domain);
    return 'd-abc123.execute-api.us-east-1.amazonaws.com';
  }
  async pointsAt() {
    return this.pointing;
  }
}

const screen = (saasId: string, origin = 'https://api.example.com') => `${origin}/v1/auth/login/${saasId}/`;

describe("a SaaS's own domain", () => {
  it('answers the real records as they come, and moves links only once the CNAME points at the API', async () => {
    const domains = new ScriptedDomains();
    const service = new ConfigurationService(
      new DynamoSettingsRepository(dynamo(), tableName()),
      secretBox(),
      new LocalEmailIdentities(),
      'auth.localhost',
      (id, origin) => screen(id, origin),
      domains,
      'https://auth.localhost/v1/auth',
    );
    const saasId = randomUUID();
    await service.updateBasicInfo(saasId, { domain_name: 'Login.Acme.test', from_email_address: 'no-reply@acme.test' });
    assert.deepEqual(domains.requested, ['login.acme.test']);

    let info = await service.basicInfo(saasId);
    assert.deepEqual(info.certificate_dns_record, { type: 'CNAME', name: '', value: '' }, 'no record before the issuer made one');
    assert.deepEqual(info.cdn_dns_record, { type: 'CNAME', name: 'login.acme.test.', value: '' }, 'no target before the certificate');

    domains.record = { type: 'CNAME', name: '_x1.login.acme.test.', value: '_y1.acm-validations.aws.' };
    info = await service.basicInfo(saasId);
    assert.deepEqual(info.certificate_dns_record, domains.record);
    assert.deepEqual(domains.served, []);

    domains.issued = true;
    info = await service.basicInfo(saasId);
    assert.deepEqual(info.cdn_dns_record, { type: 'CNAME', name: 'login.acme.test.', value: 'd-abc123.execute-api.us-east-1.amazonaws.com.' });
    assert.equal(await service.loginScreenUrl(saasId), screen(saasId), 'the CNAME is not there yet: links stay');
    await service.basicInfo(saasId);
    assert.deepEqual(domains.served, ['login.acme.test'], 'served once');

    domains.pointing = true;
    await service.basicInfo(saasId);
    assert.equal(await service.loginScreenUrl(saasId), screen(saasId, 'https://login.acme.test'));
    assert.equal(await service.signInPageUrl(saasId), `${screen(saasId, 'https://login.acme.test')}sign-in`);

    await service.updateBasicInfo(saasId, { domain_name: 'login.acme.test', from_email_address: 'hello@acme.test' });
    assert.equal(await service.loginScreenUrl(saasId), screen(saasId, 'https://login.acme.test'), 'the same domain keeps its state');
    await service.updateBasicInfo(saasId, { domain_name: 'auth.acme.test', from_email_address: 'hello@acme.test' });
    assert.deepEqual(domains.requested, ['login.acme.test', 'auth.acme.test']);
    assert.equal(await service.loginScreenUrl(saasId), screen(saasId), 'another domain starts afresh');
  });

  it('is held by one SaaS at a time: another is refused (400 domain_taken, as the service answers a taken name) and never sees its records, until the owner moves to another', async () => {
    const { client: a } = await h.newSaas();
    const { client: b } = await h.newSaas();
    const domain = `login-${randomUUID().slice(0, 8)}.acme.test`;
    const basic = (domain_name: string) => ({ domain_name, from_email_address: 'no-reply@acme.test' });
    assert.equal((await a.put('/basic-info', basic(domain))).status, 200);
    const records = (await a.get<{ certificate_dns_record: DnsRecord; cdn_dns_record: DnsRecord }>('/basic-info')).body;
    assert.notEqual(records.certificate_dns_record.value, '', 'the owner sees its validation record');

    // The same name in other letters, and at once from both sides: B never gets it.
    await expectError(b.put('/basic-info', basic(domain)), 400, 'domain_taken', 'domain_name');
    await expectError(b.put('/basic-info', basic(domain.toUpperCase())), 400, 'domain_taken');
    const racing = await Promise.all([a.put('/basic-info', basic(domain)), b.put('/basic-info', basic(domain))]);
    assert.deepEqual(
      racing.map((r) => r.status),
      [200, 400],
    );
    const seenByB = JSON.stringify((await b.get('/basic-info')).body);
    assert.ok(!seenByB.includes(domain) && !seenByB.includes(records.certificate_dns_record.value), seenByB);

    // A keeps it when saving again; moving to another domain lets it go, and B may take it.
    assert.equal((await a.put('/basic-info', basic(domain))).status, 200);
    assert.equal((await a.put('/basic-info', basic(`other-${domain}`))).status, 200);
    assert.equal((await b.put('/basic-info', basic(domain))).status, 200);
    await expectError(a.put('/basic-info', basic(domain)), 400, 'domain_taken');
    // B moving on lets it go again, and A's former other domain was let go when A moved: B may take that.
    assert.equal((await b.put('/basic-info', basic(`third-${domain}`))).status, 200);
    assert.equal((await a.put('/basic-info', basic(domain))).status, 200);
    assert.equal((await b.put('/basic-info', basic(`other-${domain}`))).status, 200);

    // Two SaaS asking for a free domain at once, many times: one gets it, the other is refused.
    for (let i = 0; i < 5; i++) {
      const free = `race-${i}-${domain}`;
      const both = await Promise.all([a.put('/basic-info', basic(free)), b.put('/basic-info', basic(free))]);
      assert.deepEqual(both.map((r) => r.status).sort(), [200, 400], free);
    }
  });

  it('saved before domains were held: the first SaaS to read it holds it, and another shows none of its records', async () => {
    const { client: a, saasId: aId } = await h.newSaas();
    const { client: b, saasId: bId } = await h.newSaas();
    const domain = `legacy-${randomUUID().slice(0, 8)}.acme.test`;
    const settings = new DynamoSettingsRepository(dynamo(), tableName());
    // Two documents as the service saved them before: the same domain, each with its certificate's progress, no claim.
    for (const saasId of [aId, bId]) {
      await settings.put(saasId, 'basic-info', {
        domain_name: domain,
        from_email_address: 'no-reply@acme.test',
        reply_email_address: '',
        mail_domain: 'acme.test',
        dkim_tokens: [],
        is_dns_validated: false,
        certificate_id: `local-certificate:${domain}`,
        certificate_record: { type: 'CNAME', name: `_secret.${domain}.`, value: '_validation.acm-validations.aws.' },
        domain_target: 'd-legacy.execute-api.us-east-1.amazonaws.com',
        // Live already: the links of both used the domain.
        domain_live: true,
      });
    }
    type Info = { domain_name: string; certificate_dns_record: DnsRecord; cdn_dns_record: DnsRecord };
    const first = (await a.get<Info>('/basic-info')).body;
    assert.equal(first.cdn_dns_record.value, 'd-legacy.execute-api.us-east-1.amazonaws.com.');
    const second = (await b.get<Info>('/basic-info')).body;
    assert.deepEqual(second.certificate_dns_record, { type: 'CNAME', name: '', value: '' });
    assert.equal(second.cdn_dns_record.value, '');
    assert.ok(!JSON.stringify(second).includes('_validation') && !JSON.stringify(second).includes('d-legacy'), JSON.stringify(second));
    await expectError(b.put('/basic-info', { domain_name: domain, from_email_address: 'no-reply@acme.test' }), 400, 'domain_taken');
    assert.equal((await a.get<Info>('/basic-info')).body.cdn_dns_record.value, 'd-legacy.execute-api.us-east-1.amazonaws.com.', 'A keeps it');
    const stored = async (saasId: string) => (await settings.get<{ domain_live?: boolean; domain_held?: boolean }>(saasId, 'basic-info')) ?? {};
    assert.deepEqual([(await stored(aId)).domain_live, (await stored(aId)).domain_held], [true, true]);
    assert.deepEqual([(await stored(bId)).domain_live, (await stored(bId)).domain_held], [undefined, undefined], "B's links leave the domain");
  });
});
