/**
 * The setup link end to end in headless Chromium (issue 41): the operator makes a link on the console's tenant page;
 * the customer's IT admin opens it with no account and, on the hosted screen's setup page, connects a SAML test IdP
 * and an `oidc-provider` IdP (each tested first), turns SCIM on and verifies the domain. The directory then
 * provisions a person through SCIM, who signs in on the hosted screen by typing the address alone (sent to the
 * OpenID Connect provider; the first time, the mailed code links the provider account to the provisioned user). A
 * SCIM `active: false` then refuses her next sign-in and her refresh token. axe-core on every page.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { setTxtRecordsForTests } from '../../shared/adapters/dns-txt.js';
import type { Harness } from '../../dev-support/harness.js';
import { chromiumMissing } from '../support/chromium.js';
import { axeClean, signInConsole, startConsoleBrowser } from '../support/console-browser.js';
import { deliveredMail } from '../support/mail.js';
import { startTestOidcIdp, type TestOidcIdp } from '../support/oidc-idp.js';
import { EMAIL_ATTRIBUTE, startTestIdp } from '../support/saml-idp.js';
import { PATCH_OP, scimClient, USER_SCHEMA, type ScimClient } from '../support/scim.js';

const skip = chromiumMissing();
const CALLBACK = 'https://app.acme.test/callback';
const ADA = { sub: 'okta-ada', email: 'ada@acme.test', name: 'Ada' };

let h: Harness;
let browser: Browser;
let saas: { saasId: string; apiKey: string; secret: string; client: SignedClient };
let tenantId: string;
let idp: TestOidcIdp;
let screen: string;
let setupUrl: string;
let scim: ScimClient;
const published: Record<string, string[]> = {};

/** A page whose arrival at the SaaS's callback is caught: the code the screen sent there. */
async function caughtPage(): Promise<{ page: Page; code: () => string | undefined }> {
  const context = await browser.newContext();
  let code: string | undefined;
  await context.route(`${CALLBACK}**`, (route) => {
    code = new URL(route.request().url()).searchParams.get('code') ?? undefined;
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>App</title><h1 id="app">Signed in</h1>' });
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { page, code: () => code };
}

/** Types the address on the hosted screen and leaves the field: off to the tenant's provider. */
async function addressFirst(page: Page) {
  await page.goto(`${screen}?state=setup-e2e`);
  await page.locator('#username').focus();
  await page.keyboard.type(ADA.email);
  await page.keyboard.press('Tab');
}

(skip ? describe.skip : describe)('a setup link, from the console to a provisioned user’s sign-in and deprovisioning, in Chromium', () => {
  beforeAll(async () => {
    ({ h, browser } = await startConsoleBrowser());
    saas = await h.newSaas();
    screen = `${h.api.baseUrl}/login/${saas.saasId}/`;
    assert.equal((await saas.client.put('/auth-info', { callback_url: CALLBACK })).status, 200);
    const setup = new ServiceSetup(saas.client);
    await setup.ensureDefinitions();
    tenantId = await setup.createTenant('Acme');
    setTxtRecordsForTests(published);
    idp = await startTestOidcIdp({ redirectUris: [`${screen}oidc/callback`] });
  });
  afterAll(async () => {
    setTxtRecordsForTests(undefined);
    await idp?.close();
    await browser?.close();
    await h?.close();
  });

  it('the operator makes a link for 3 days on the tenant’s page, shown once and listed', async () => {
    const { context, page } = await signInConsole(browser, h, saas, { at: `tenants/${tenantId}` });
    await page.fill('#setup-link-valid_days', '3');
    await page.click('#setup-link button[type=submit]');
    setupUrl = await page.inputValue('#setup-link-url');
    assert.ok(setupUrl.startsWith(`${screen}setup?key=stl.`), setupUrl);
    await page.locator('#setup-links').waitFor();
    assert.match((await page.textContent('#setup-links')) ?? '', /Not opened yet/);
    await axeClean(page, 'tenant-setup-links', true);
    await context.close();
  });

  it('the IT admin opens it, connects SAML and OpenID Connect after testing each, turns SCIM on and verifies the domain', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(setupUrl);
    assert.equal(page.url(), `${screen}setup`, 'the key is gone from the address');
    assert.match((await page.textContent('h1')) ?? '', /Set up sign-in for Acme/);
    await axeClean(page, 'setup-overview', true);

    // By keyboard: the step list's SAML link, then its form.
    await page.locator('nav.setup-steps a[href$="setup/saml"]').focus();
    await Promise.all([page.waitForURL(/setup\/saml$/), page.keyboard.press('Enter')]);
    const samlIdp = startTestIdp('acme');
    await page.fill('#metadata_xml', samlIdp.metadata);
    await page.fill('#email_attribute', EMAIL_ATTRIBUTE);
    await page.click('button[value=test]');
    assert.match((await page.textContent('#notice')) ?? '', /The metadata works: identity provider https:\/\/idp-acme\.test\/metadata/);
    await page.click('button[value=save]');
    assert.equal(await page.textContent('#notice'), 'Saved.');
    await axeClean(page, 'setup-saml', true);

    await page.click('nav.setup-steps a[href$="setup/oidc"]');
    await page.fill('#discovery_url', idp.discoveryUrl);
    await page.fill('#client_id', idp.clientId);
    await page.fill('#client_secret', idp.clientSecret);
    await page.click('button[value=test]');
    assert.match((await page.textContent('#notice')) ?? '', /The provider answers: issuer/);
    await page.click('button[value=save]');
    assert.equal(await page.textContent('#notice'), 'Saved.');
    await axeClean(page, 'setup-oidc', true);

    await page.click('nav.setup-steps a[href$="setup/scim"]');
    await page.click('button[value=create]');
    scim = scimClient(await page.inputValue('#scim-url'), await page.inputValue('#scim-token'));
    await axeClean(page, 'setup-scim', true);

    await page.click('nav.setup-steps a[href$="setup/domain"]');
    await page.fill('#domain', 'acme.test');
    await page.click('button[value=claim]');
    published[await page.inputValue('#record-name-0')] = [await page.inputValue('#record-value-0')];
    await page.click('button[value=verify]');
    assert.equal(await page.textContent('#notice'), 'acme.test is verified.');
    await axeClean(page, 'setup-domain', true);
    await context.close();

    const idps = await saas.client.get<{ saml?: object }>(`/tenants/${tenantId}/identity-providers`);
    assert.ok(idps.body.saml);
    const oidc = await saas.client.get<{ oidc?: { client_id: string } }>(`/tenants/${tenantId}/identity-providers/oidc`);
    assert.equal(oidc.body.oidc?.client_id, idp.clientId);
  });

  it('a person the directory provisions signs in by her address alone; deprovisioned, she is refused, and so is her refresh token', async () => {
    const created = await scim.call<{ id: string }>('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: ADA.email,
      emails: [{ value: ADA.email, primary: true }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    idp.signInAs(ADA);

    const first = await caughtPage();
    await addressFirst(first.page);
    // The provider account meets a user it is not linked to yet: the code mailed to her address links them.
    await first.page.locator('#link-form:not([hidden])').waitFor();
    const code = /(\d{6})/.exec((await deliveredMail(h.sesUrl, saas.saasId, ADA.email)).at(-1)?.body.text ?? '')?.[1];
    assert.ok(code);
    await first.page.fill('#link-code', code);
    await first.page.click('#link-form button[type=submit]');
    await first.page.locator('#app').waitFor();
    const tokens = await saas.client.get<{ refresh_token: string }>(`/credentials?code=${encodeURIComponent(first.code() ?? '')}`);
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));

    const again = await caughtPage();
    await addressFirst(again.page);
    await again.page.locator('#app').waitFor();
    assert.ok(again.code(), 'linked: the provider alone signs her in');

    const off = await scim.call('PATCH', `/Users/${created.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    const refused = await caughtPage();
    await addressFirst(refused.page);
    await refused.page.locator('#message').waitFor();
    assert.equal(refused.code(), undefined, 'never back at the SaaS with a code');
    await axeClean(refused.page, 'setup-deprovisioned', true);
    const refresh = await saas.client.get(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${encodeURIComponent(tokens.body.refresh_token)}`);
    assert.equal(refresh.status, 401);
  });
});
