/**
 * A SaaS's own domain (ConfigurationService with shared/site/domains.ts's port): the records Get Basic
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
import { dynamo, secrets, tableName } from '../../shared/store/client.js';
import { LocalEmailIdentities } from '../../shared/mail/identities.js';
import { startHarness, type Harness } from '../support/harness.js';

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
      secrets(),
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
});
