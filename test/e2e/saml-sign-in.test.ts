/**
 * Per-tenant SAML sign-in in headless Chromium: the tenant's identity provider on another site (localhost, the
 * service on 127.0.0.1) posts its signed response across sites, the service's SAML function checks it and sends
 * the browser on to the login screen, whose SameSite=Lax cookie must name the request: this is where a browser's
 * cookie rules, not a test's fetch, decide. The first sign-in links the account with the mailed code; the next
 * one goes straight back to the SaaS (a backend built as the SaaSus samples are).
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ServiceSetup } from '../../examples/app/demo.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { startSaasBackend, type SaasBackend } from '../support/saas-backend.js';
import { serveTestIdp } from '../support/saml-idp.js';
import { connectTenantSaml } from '../support/tenant-providers.js';

const skip = chromiumMissing();
const KIM = { email: 'kim.browser@acme.test', password: 'Kim#Secret42', nameId: 'kim@acme-idp' };

let h: Harness;
let browser: Browser;
let backend: SaasBackend;
let idp: Awaited<ReturnType<typeof serveTestIdp>>;
let saasId: string;
let tenantId: string;
let screen: string;

beforeAll(async () => {
  if (!skip) [h, browser] = await Promise.all([startHarness(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** Every screen on the API's origin, then on hosts of their own: the flow crosses to the API's host, where the assertion comes. */
const onEachHosting = (skip ? describe.skip : describe).each([false, true]);

onEachHosting('SAML sign-in in Chromium, own hosts %s', (perSaasHosts) => {
  beforeAll(async () => {
    h.usePerSaasHosts(perSaasHosts);
    const saas = await h.newSaas();
    saasId = saas.saasId;
    screen = perSaasHosts ? `http://${saasId}.localhost:${h.api.port}/v1/auth/login/${saasId}/` : `${h.api.baseUrl}/login/${saasId}/`;
    backend = await startSaasBackend(saas.client, screen);
    assert.equal((await saas.client.put('/auth-info', { callback_url: backend.callbackUrl })).status, 200);
    const setup = new ServiceSetup(saas.client);
    await setup.ensureDefinitions();
    tenantId = await setup.createTenant('Acme');
    await setup.addMember(tenantId, await setup.createUser(KIM.email, KIM.password), KIM.email);
    idp = await serveTestIdp('acme', `${h.api.baseUrl}/saml2/metadata/${saasId}`, KIM);
    await connectTenantSaml(saas.client, tenantId, idp.idp.metadata);
  });
  afterAll(async () => {
    await idp?.close();
    await backend?.close();
  });

  it('signs a tenant user in through their identity provider, linking the account with the mailed code the first time', async () => {
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${screen}saml?tenant_id=${tenantId}&state=from-saml`);
    assert.match(page.url(), /^http:\/\/localhost:\d+\/sso\?SAMLRequest=.*&Signature=/);
    await page.click('#continue');
    await page.locator('#link-form:not([hidden])').waitFor();
    assert.ok(page.url().startsWith(screen), page.url());
    // The newest: the stand-in holds the mail of every SaaS of this file.
    const mail = (await deliveredMail(h.sesUrl, saasId, KIM.email)).at(-1);
    await page.fill('#link-code', /(\d{6})/.exec(mail?.body.text ?? '')?.[1] ?? '');
    await page.click('#link-form button[type=submit]');
    await page.locator('#who').waitFor();
    assert.equal(await page.textContent('#who'), KIM.email);
    assert.equal(backend.callbacks.at(-1)?.state, 'from-saml');

    // Signed out of the SaaS, then in again: the identity provider alone.
    const again = await (await browser.newContext()).newPage();
    await again.goto(`${screen}saml?tenant_id=${tenantId}`);
    await again.click('#continue');
    await again.locator('#who').waitFor();
    assert.equal(await again.textContent('#who'), KIM.email);
    await page.context().close();
    await again.context().close();
  });
});
