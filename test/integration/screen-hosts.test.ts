/**
 * The host rule through the local API (web/login/host-gate.ts over shared/screen-hosts.ts): which host
 * serves which SaaS's screen, OpenID Connect and SAML paths, with per-SaaS hosts under a login domain, with a
 * SaaS's own domain once live, and without either. The domain is driven live as the configuration function
 * would (its ACM and API Gateway port scripted), in the same table the API reads.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { EN } from '../../web/login/texts/en.js';
import { ConfigurationService, type SiteDomainPort } from '../../shared/domain/configuration/configuration.js';
import { LocalEmailIdentities } from '../../shared/adapters/mail/identities.js';
import { dynamo, secretBox, tableName } from '../../shared/wiring.js';
import { DynamoSettingsRepository } from '../../shared/store/settings-repository.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { requestOnHost } from '../support/host-request.js';

const B_DOMAIN = 'login.b-corp.test';
let h: Harness;
let a: { saasId: string; client: SignedClient };
let b: { saasId: string; client: SignedClient };

const on = (host: string, path: string, method = 'GET', headers: Record<string, string> = {}, body = '') =>
  requestOnHost(h.api.port, host, method, path, headers, body);
const own = (saasId: string) => `${saasId}.localhost:${h.api.port}`;
const shared = () => `127.0.0.1:${h.api.port}`;
const screenPath = (saasId: string) => `/v1/auth/login/${saasId}/`;

async function signInPageUrl(client: SignedClient): Promise<string> {
  const refused = await client.get<{ data: { sign_in_page_url: string } }>('/userinfo?token=not-a-token');
  return refused.body.data.sign_in_page_url;
}

/** ACM and API Gateway answering at once, and the CNAME in place: the domain goes live on the next poll. */
const liveDomains: SiteDomainPort = {
  requestCertificate: async (domain) => `arn:aws:acm:us-east-1:123456789012:certificate/${domain}`,
  certificate: async () => ({ record: { type: 'CNAME', name: '_x.b-corp.test.', value: '_y.acm-validations.aws.' }, issued: true }),
  serve: async () => 'd-abc123.execute-api.us-east-1.amazonaws.com',
  pointsAt: async () => true,
};

beforeAll(async () => {
  // The API reads the settings this file writes beside it at once.
  process.env.SETTINGS_CACHE_SECONDS = '0';
  h = await startHarness({ perSaasHosts: true });
  [a, b] = [await h.newSaas(), await h.newSaas()];
  const look = { title: 'Screen', icon: '', favicon: '', terms_of_service_url: '', privacy_policy_url: '', is_sign_in_id_enabled: false };
  for (const saas of [a, b]) {
    assert.equal((await saas.client.patch('/customize-page-settings', { ...look, tag_manager_container_id: 'GTM-OWN42' })).status, 200);
  }
  const configuration = new ConfigurationService(
    new DynamoSettingsRepository(dynamo(), tableName()),
    secretBox(),
    new LocalEmailIdentities(),
    'auth.localhost',
    (saasId, origin) => `${origin ?? ''}/v1/auth/login/${saasId}/`,
    liveDomains,
    'https://auth.localhost/v1/auth',
  );
  await configuration.updateBasicInfo(b.saasId, { domain_name: B_DOMAIN, from_email_address: 'no-reply@b-corp.test' });
  for (let poll = 0; poll < 3; poll++) await configuration.basicInfo(b.saasId);
});
afterAll(async () => {
  delete process.env.SETTINGS_CACHE_SECONDS;
  await h.close();
});

describe('with a login domain', () => {
  it('links each SaaS to its host under the login domain, or to its own domain once live', async () => {
    assert.equal(await signInPageUrl(a.client), `http://${own(a.saasId)}${screenPath(a.saasId)}sign-in`);
    assert.equal(await signInPageUrl(b.client), `https://${B_DOMAIN}${screenPath(b.saasId)}sign-in`);
  });

  it('serves a screen with the SaaS’s own script on its hosts, and refuses every other SaaS’s there', async () => {
    for (const [saasId, host] of [
      [a.saasId, own(a.saasId)],
      [b.saasId, B_DOMAIN],
      [b.saasId, own(b.saasId)],
    ] as const) {
      const page = await on(host, screenPath(saasId));
      assert.equal(page.status, 200, `${host} ${page.text}`);
      assert.match(String(page.headers['content-security-policy']), /googletagmanager/);
      assert.match(page.text, /gtm\.js\?id=GTM-OWN42/);
    }
    for (const [saasId, host] of [
      [a.saasId, B_DOMAIN],
      [a.saasId, own(b.saasId)],
      [b.saasId, own(a.saasId)],
    ] as const) {
      const refused = await on(host, `${screenPath(saasId)}sign-up?state=x`);
      assert.equal(refused.status, 421, host);
      assert.match(refused.text, new RegExp(EN.page.wrongHost.slice(0, 30)));
      assert.doesNotMatch(refused.text, /page-data|gtm/);
    }
  });

  it('sends a page from the API’s host to the SaaS’s own, refuses a step posted there, and serves redirects and files', async () => {
    const toA = await on(shared(), `${screenPath(a.saasId)}invitation?invitation_id=i&tenant_id=t`);
    assert.equal(toA.status, 302);
    assert.equal(toA.headers.location, `http://${own(a.saasId)}${screenPath(a.saasId)}invitation?invitation_id=i&tenant_id=t`);
    const toB = await on(shared(), `${screenPath(b.saasId)}sign-in?state=s`);
    assert.equal(toB.headers.location, `https://${B_DOMAIN}${screenPath(b.saasId)}sign-in?state=s`);
    const step = await on(shared(), `${screenPath(a.saasId)}api/forgot`, 'POST', { 'content-type': 'application/json' }, '{"username":"x"}');
    assert.equal(step.status, 421);
    assert.equal((JSON.parse(step.text) as { type: string }).type, 'wrong_host');
    assert.equal((await on(shared(), `${screenPath(a.saasId)}assets/login.css`)).status, 200);
    const signOut = await on(shared(), `${screenPath(a.saasId)}sign-out`);
    assert.equal(signOut.status, 302);
  });

  it('starts Google’s flow on the API’s host, where Google returns', async () => {
    const start = await on(own(a.saasId), `${screenPath(a.saasId)}federated/google?state=g`);
    assert.equal(start.status, 302);
    assert.equal(start.headers.location, `http://${shared()}${screenPath(a.saasId)}federated/google?state=g`);
  });

  it('applies the same rule to the OpenID Connect and SAML paths that name a SaaS', async () => {
    const authorize = (clientId: string) => `/v1/auth/oauth2/authorize?client_id=${clientId}&response_type=code`;
    assert.equal((await on(own(b.saasId), authorize(a.saasId))).status, 421);
    assert.equal((await on(B_DOMAIN, authorize(a.saasId))).status, 421);
    assert.notEqual((await on(own(a.saasId), authorize(a.saasId))).status, 421);
    assert.notEqual((await on(shared(), authorize(a.saasId))).status, 421);
    const logout = (clientId: string) => `/v1/auth/oauth2/logout?client_id=${clientId}`;
    assert.equal((await on(own(b.saasId), logout(a.saasId))).status, 421);
    assert.equal((await on(own(a.saasId), logout(a.saasId))).status, 302);
    for (const path of [`/v1/auth/saml2/metadata/${a.saasId}`, `/v1/auth/saml2/login/${a.saasId}/tenant-1`]) {
      assert.equal((await on(B_DOMAIN, path)).status, 421, path);
      assert.equal((await on(own(b.saasId), path)).status, 421, path);
    }
    assert.equal((await on(own(a.saasId), `/v1/auth/saml2/metadata/${a.saasId}`)).status, 200);
    // Paths that name no SaaS pass on any host: the token endpoint takes no cookie.
    const token = await on(own(b.saasId), '/v1/auth/oauth2/token', 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=x');
    assert.notEqual(token.status, 421);
  });

  it("answers /favicon.ico with the host's SaaS's icon: on its host and its live domain; the product's elsewhere", async () => {
    const icon = (text: string) => `data:image/svg+xml;base64,${Buffer.from(text).toString('base64')}`;
    const [markA, markB] = ['<svg id="a"/>', '<svg id="b"/>'];
    // The settings the other tests of this file read stay as they were (the tag manager).
    const look = {
      title: 'Screen',
      terms_of_service_url: '',
      privacy_policy_url: '',
      tag_manager_container_id: 'GTM-OWN42',
      is_sign_in_id_enabled: false,
    };
    // A set only its logo, B its favicon (and another logo): each host shows its SaaS's tab icon.
    assert.equal((await a.client.patch('/customize-page-settings', { ...look, icon: icon(markA), favicon: '' })).status, 200);
    assert.equal((await b.client.patch('/customize-page-settings', { ...look, icon: icon('<svg id="logo"/>'), favicon: icon(markB) })).status, 200);
    const favicon = async (host: string) => {
      const res = await on(host, '/favicon.ico');
      assert.equal(res.status, 200, host);
      assert.equal(res.headers['content-type'], 'image/svg+xml', host);
      return res.text;
    };
    assert.equal(await favicon(own(a.saasId)), markA);
    assert.equal(await favicon(own(b.saasId)), markB);
    assert.equal(await favicon(B_DOMAIN), markB, 'the live domain is the SaaS’s');
    for (const host of [shared(), 'login.nobody.test', `${'0'.repeat(8)}-0000-4000-8000-000000000000.localhost:${h.api.port}`]) {
      assert.match(await favicon(host), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 32 32">/, host);
    }
  });
});

describe('without a login domain', () => {
  beforeAll(() => h.usePerSaasHosts(false));
  afterAll(() => h.usePerSaasHosts(true));

  it('serves a screen on the API’s origin without the SaaS’s script, and refuses the hosts that were per SaaS', async () => {
    assert.equal(await signInPageUrl(a.client), `http://${shared()}${screenPath(a.saasId)}sign-in`);
    const page = await on(shared(), screenPath(a.saasId));
    assert.equal(page.status, 200);
    assert.doesNotMatch(String(page.headers['content-security-policy']), /googletagmanager|google-analytics/);
    assert.doesNotMatch(page.text, /gtm\.js/);
    assert.equal((await on(own(a.saasId), screenPath(a.saasId))).status, 421);
  });

  it('still gives a SaaS with a live domain its own origin there', async () => {
    assert.equal((await on(shared(), screenPath(b.saasId))).headers.location, `https://${B_DOMAIN}${screenPath(b.saasId)}`);
    const page = await on(B_DOMAIN, screenPath(b.saasId));
    assert.equal(page.status, 200);
    assert.match(page.text, /gtm\.js\?id=GTM-OWN42/);
  });
});
