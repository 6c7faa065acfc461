/**
 * Address-first sign-in in headless Chromium (issue 41): a tenant connected its OpenID Connect provider
 * (`oidc-provider`, on another port of this machine) and verified its domain; a person of that domain types
 * the address on the hosted screen, leaves the field (Tab), and is sent to the tenant's provider and back to
 * the SaaS signed in, with no password asked; being new, the person joins the tenant with its role.
 * The setup is made through the API here; test/e2e/setup-link.test.ts makes it through the setup page an IT admin uses.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ServiceSetup } from '../../examples/app/demo.js';
import { setTxtRecordsForTests } from '../../shared/adapters/dns-txt.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import type { TestOidcIdp } from '../support/oidc-idp.js';
import { startSaasBackend, type SaasBackend } from '../support/saas-backend.js';
import { connectTenantOidc, verifyDomain } from '../support/tenant-providers.js';

const skip = chromiumMissing();
const PERSON = { sub: 'okta-ada', email: 'ada@acme.test', name: 'Ada' };

let h: Harness;
let browser: Browser;
let backend: SaasBackend;
let idp: TestOidcIdp;
let screen: string;
const published: Record<string, string[]> = {};

(skip ? describe.skip : describe)('address-first sign-in through a tenant’s OpenID Connect provider, in Chromium', () => {
  beforeAll(async () => {
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    const saas = await h.newSaas();
    screen = `${h.api.baseUrl}/login/${saas.saasId}/`;
    backend = await startSaasBackend(saas.client, screen);
    assert.equal((await saas.client.put('/auth-info', { callback_url: backend.callbackUrl })).status, 200);
    const setup = new ServiceSetup(saas.client);
    await setup.ensureDefinitions();
    const tenantId = await setup.createTenant('Acme');
    setTxtRecordsForTests(published);
    idp = await connectTenantOidc(saas.client, screen, tenantId);
    await verifyDomain(saas.client, tenantId, 'acme.test', published, { jit_role_name: 'admin' });
  });
  afterAll(async () => {
    setTxtRecordsForTests(undefined);
    await idp?.close();
    await backend?.close();
    await browser?.close();
    await h?.close();
  });

  it('sends the address straight to the tenant’s provider and back to the SaaS signed in, by keyboard alone', async () => {
    idp.signInAs(PERSON);
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${screen}?state=address-first`);
    await page.locator('#username').focus();
    await page.keyboard.type(PERSON.email);
    await page.keyboard.press('Tab');
    await page.locator('#who').waitFor();
    assert.equal(await page.textContent('#who'), PERSON.email);
    assert.equal(backend.callbacks.at(-1)?.state, 'address-first');
  });

  it('leaves an address of no verified domain on the screen, for its password', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(screen);
    await page.fill('#username', 'someone@elsewhere.test');
    const answered = page.waitForResponse((res) => res.url().endsWith('/api/discover'));
    await page.keyboard.press('Tab');
    // The discover step answered, and the page stayed: the password field has the focus the Tab gave it.
    await answered;
    assert.ok(page.url().startsWith(screen), page.url());
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'password');
  });
});
