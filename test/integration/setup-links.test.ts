/**
 * Setup links (shared/domain/tenants/setup-links.ts) and the setup page they open (web/login/setup): the SaaS makes a
 * link through the API, a tenant's IT admin opens it with no account, and through the page's forms tests and saves
 * the tenant's SAML and OpenID Connect providers, turns SCIM on and verifies a domain. Each change is read back
 * through the API, as the SaaS would see it.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { setTxtRecordsForTests } from '../../shared/adapters/dns-txt.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { startTestOidcIdp, type TestOidcIdp } from '../support/oidc-idp.js';
import { EMAIL_ATTRIBUTE, startTestIdp } from '../support/saml-idp.js';
import { scimClient } from '../support/scim.js';
import { createSetupLink, SetupBrowser, type SetupLinkAnswer } from '../support/setup-page.js';

let h: Harness;
let admin: SignedClient;
let saasId: string;
let tenant: string;
let idp: TestOidcIdp;
const published: Record<string, string[]> = {};

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, client: admin } = await h.newSaas());
  const setup = new ServiceSetup(admin);
  await setup.ensureDefinitions();
  tenant = await setup.createTenant('Acme');
  setTxtRecordsForTests(published);
  idp = await startTestOidcIdp({ redirectUris: [`${h.api.baseUrl}/login/${saasId}/oidc/callback`] });
});
afterAll(async () => {
  setTxtRecordsForTests(undefined);
  await idp?.close();
  await h?.close();
});

describe('setup links through the API', () => {
  it('makes a link valid for the days asked, its URL on the hosted screen with the key, listed without it', async () => {
    const link = await createSetupLink(admin, tenant, 3);
    assert.equal(link.state, 'unused');
    assert.equal(link.expires_at - link.created_at, 3 * 86400);
    assert.ok(link.url.startsWith(`${h.api.baseUrl}/login/${saasId}/setup?key=`), link.url);
    const listed = await admin.get<{ setup_links: SetupLinkAnswer[] }>(`/tenants/${tenant}/setup-links`);
    assert.equal(listed.status, 200);
    const mine = listed.body.setup_links.find((l) => l.id === link.id);
    assert.ok(mine);
    assert.equal(mine.state, 'unused');
    assert.ok(!JSON.stringify(listed.body).includes(new URL(link.url).searchParams.get('key')?.split('.')[3] ?? '-'), 'the secret is never listed');
    assert.equal((await createSetupLink(admin, tenant)).expires_at - (await createSetupLink(admin, tenant)).created_at, 7 * 86400);
  });

  it('refuses a validity outside 1 to 30 days, an unknown tenant, an unknown link', async () => {
    for (const valid_days of [0, 31, 1.5, '7']) {
      const res = await admin.post(`/tenants/${tenant}/setup-links`, { valid_days });
      assert.equal(res.status, 400, `${valid_days}: ${JSON.stringify(res.body)}`);
    }
    assert.equal((await admin.post('/tenants/no-such-tenant/setup-links', {})).status, 404);
    assert.equal((await admin.delete(`/tenants/${tenant}/setup-links/0123456789abcdef`)).status, 404);
  });

  it('revokes a link: listed as revoked, and it no longer opens', async () => {
    const link = await createSetupLink(admin, tenant);
    assert.equal((await admin.delete(`/tenants/${tenant}/setup-links/${link.id}`)).status, 200);
    const listed = await admin.get<{ setup_links: SetupLinkAnswer[] }>(`/tenants/${tenant}/setup-links`);
    assert.equal(listed.body.setup_links.find((l) => l.id === link.id)?.state, 'revoked');
    assert.equal((await new SetupBrowser().open(link.url)).status, 401);
  });

  it('needs tenant:write to make or revoke a link, tenant:read to list them', async () => {
    const reader = await h.newKey(saasId, ['tenant:read']);
    assert.equal((await reader.get(`/tenants/${tenant}/setup-links`)).status, 200);
    assert.equal((await reader.post(`/tenants/${tenant}/setup-links`, {})).status, 403);
  });
});

describe('the setup page', () => {
  let page: SetupBrowser;

  beforeAll(async () => {
    const link = await createSetupLink(admin, tenant);
    page = new SetupBrowser();
    const opened = await page.open(link.url);
    assert.equal(opened.status, 303);
    assert.equal(new URL(opened.headers.get('location') ?? '', link.url).search, '', 'the key leaves the address bar');
    const cookie = opened.headers.getSetCookie().join('\n');
    assert.match(cookie, /setup=[^;]+; Path=\/v1\/auth\/login\/[^/]+\/setup; HttpOnly; SameSite=Lax/);
    const listed = await admin.get<{ setup_links: SetupLinkAnswer[] }>(`/tenants/${tenant}/setup-links`);
    assert.equal(listed.body.setup_links.find((l) => l.id === link.id)?.state, 'used');
  });

  it('shows the overview of the tenant, in English and in Japanese', async () => {
    const { status, html } = await page.get();
    assert.equal(status, 200);
    assert.match(html, /Set up sign-in for Acme/);
    const ja = await page.browser.request(`${page.page}?lang=ja`);
    assert.match(await ja.text(), /Acme のサインイン設定/);
    await page.browser.request(`${page.page}?lang=en`);
  });

  it('shows our SAML URLs, tests the metadata and saves it, as GetTenantIdentityProviders then answers', async () => {
    const shown = await page.get('saml');
    assert.match(shown.html, new RegExp(`saml2/idpresponse`));
    assert.match(shown.html, new RegExp(`saml2/metadata/${saasId}`));
    const samlIdp = startTestIdp('setup');
    const tested = await page.post('saml', { action: 'test', metadata_xml: samlIdp.metadata, email_attribute: EMAIL_ATTRIBUTE });
    assert.equal(tested.status, 200);
    assert.match(tested.html, /The metadata works: identity provider https:\/\/idp-setup\.test\/metadata/);
    assert.equal((await admin.get<{ saml?: object }>(`/tenants/${tenant}/identity-providers`)).body.saml, undefined, 'a test saves nothing');
    const bad = await page.post('saml', { action: 'save', metadata_xml: '<nope/>', email_attribute: 'email' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /role="alert"/);
    const saved = await page.post('saml', { action: 'save', metadata_xml: samlIdp.metadata, email_attribute: EMAIL_ATTRIBUTE });
    assert.equal(saved.status, 200);
    const idps = await admin.get<{ saml?: { email_attribute: string; metadata_xml?: string } }>(`/tenants/${tenant}/identity-providers`);
    assert.equal(idps.body.saml?.email_attribute, EMAIL_ATTRIBUTE);
    assert.equal(idps.body.saml?.metadata_xml, samlIdp.metadata.trim());
  });

  it('tests an OpenID Connect provider (discovery and JWKS), refuses a broken one, and saves it', async () => {
    const tested = await page.post('oidc', { action: 'test', discovery_url: idp.discoveryUrl });
    assert.equal(tested.status, 200);
    assert.match(tested.html, new RegExp(`issuer ${idp.issuer.replace(/[.]/g, '\\.')}, 1 signing key`));
    const broken = await page.post('oidc', { action: 'test', discovery_url: `${idp.issuer}/nothing-here` });
    assert.equal(broken.status, 400);
    const saved = await page.post('oidc', {
      action: 'save',
      discovery_url: idp.discoveryUrl,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      claim_email: 'email',
    });
    assert.equal(saved.status, 200, saved.html);
    const oidc = await admin.get<{ oidc?: { client_id: string; has_client_secret: boolean } }>(`/tenants/${tenant}/identity-providers/oidc`);
    assert.equal(oidc.body.oidc?.client_id, idp.clientId);
    assert.equal(oidc.body.oidc?.has_client_secret, true);
  });

  it('turns SCIM on: the URL and a token shown once, which the SCIM endpoint then takes', async () => {
    const created = await page.post('scim', { action: 'create' });
    assert.equal(created.status, 200);
    const token = /id="scim-token" class="copy" readonly value="([^"]+)"/.exec(created.html)?.[1] ?? '';
    const url = /id="scim-url" class="copy" readonly value="([^"]+)"/.exec(created.html)?.[1] ?? '';
    assert.match(token, /^scim_/);
    assert.equal((await scimClient(url.replace(/&amp;/g, '&'), token).call('GET', '/Users')).status, 200);
    assert.ok(!(await page.get('scim')).html.includes(token), 'shown once');
  });

  it('claims a domain, shows its TXT record, and verifies it once published', async () => {
    const claimed = await page.post('domain', { action: 'claim', domain: 'acme-setup.test' });
    assert.equal(claimed.status, 200);
    const name = /id="record-name-0" class="copy" readonly value="([^"]+)"/.exec(claimed.html)?.[1] ?? '';
    const value = /id="record-value-0" class="copy" readonly value="([^"]+)"/.exec(claimed.html)?.[1] ?? '';
    assert.ok(name && value);
    const early = await page.post('domain', { action: 'verify', domain: 'acme-setup.test' });
    assert.match(early.html, /Waiting for the DNS record/);
    published[name] = [value];
    const verified = await page.post('domain', { action: 'verify', domain: 'acme-setup.test' });
    assert.match(verified.html, /acme-setup\.test is verified/);
    const domains = await admin.get<{ domains: { domain: string; status: string }[] }>(`/tenants/${tenant}/domains`);
    assert.equal(domains.body.domains.find((d) => d.domain === 'acme-setup.test')?.status, 'verified');
  });

  it('refuses a form of another type, and a step with a bad value, changing nothing', async () => {
    const json = await page.browser.request(`${page.page}/domain`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'claim', domain: 'json.test' }),
    });
    assert.equal(json.status, 400);
    const unknown = await page.post('domain', { action: 'explode', domain: 'x.test' });
    assert.equal(unknown.status, 400);
    const domains = await admin.get<{ domains: { domain: string }[] }>(`/tenants/${tenant}/domains`);
    assert.deepEqual(
      domains.body.domains.map((d) => d.domain),
      ['acme-setup.test'],
    );
  });
});
