/**
 * The operator console's catalogue and settings pages in headless Chromium against the local stack: a plan built
 * from units and menus and given to a tenant, the tenant's metered usage charted; the login screen themed with
 * its preview following the form (language and scheme switches), and saved. axe-core on each page; screenshots
 * go to .test-results/console/. (test/e2e/console.test.ts covers the shell and the other pages.)
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SignedClient } from '../../client/signed-fetch.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startTestIdp } from '../support/saml-idp.js';

const skip = chromiumMissing();
const IMAGES = '.test-results/console';

let h: Harness;
let browser: Browser;
let saas: { saasId: string; apiKey: string; secret: string; client: SignedClient };

const consoleUrl = (page = 'overview') => `${h.api.baseUrl}/console/${page}`;

async function axeClean(page: Page, name: string) {
  await page.screenshot({ path: `${IMAGES}/${name}.png`, fullPage: true });
  assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
}

async function signedIn(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(consoleUrl());
  await page.fill('#sign-in-saas_id', saas.saasId);
  await page.fill('#sign-in-api_key', saas.apiKey);
  await page.fill('#sign-in-client_secret', saas.secret);
  await Promise.all([page.waitForURL(/overview/), page.click('#sign-in button[type=submit]')]);
  await page.waitForSelector('#sign-out');
  return { context, page };
}

/** The checkbox whose label names `text`, inside the form `form`. */
const tick = (page: Page, form: string, text: string) => page.locator(`${form} label`, { hasText: text }).locator('input').check();

(skip ? describe.skip : describe)('the console catalogue and login-screen pages in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(IMAGES, { recursive: true });
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    saas = await h.newSaas();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('builds a plan from units and menus, gives it to a tenant, and charts the tenant’s metered usage', async () => {
    const tenant = await saas.client.post<{ id: string }>('/tenants', { name: 'Acme', attributes: {}, back_office_staff_email: 'staff@example.com' });
    assert.equal(tenant.status, 201);
    const { context, page } = await signedIn();
    await page.click('nav >> text=Pricing');
    await page.waitForSelector('#create-unit');

    // A refusal of the Pricing API lands at the field it names.
    await page.fill('#create-unit-name', 'base_fee');
    await page.fill('#create-unit-display_name', 'Base fee');
    await page.fill('#create-unit-unit_amount', '-5');
    await page.click('#create-unit button[type=submit]');
    await page.waitForSelector('#create-unit-unit_amount-error');
    assert.equal(await page.getAttribute('#create-unit-unit_amount', 'aria-invalid'), 'true');

    await page.fill('#create-unit-unit_amount', '1000');
    await page.click('#create-unit button[type=submit]');
    await page.waitForSelector('#units >> text=base_fee');
    await page.selectOption('#create-unit-type', 'usage');
    await page.fill('#create-unit-name', 'api_usage');
    await page.fill('#create-unit-display_name', 'API usage');
    await page.fill('#create-unit-unit_amount', '2');
    await page.fill('#create-unit-metering_unit_name', 'api_calls');
    await page.click('#create-unit button[type=submit]');
    await page.waitForSelector('#units >> text=api_usage');

    await page.fill('#create-menu-name', 'standard_menu');
    await page.fill('#create-menu-display_name', 'Standard menu');
    await tick(page, '#create-menu', 'Base fee (base_fee)');
    await tick(page, '#create-menu', 'API usage (api_usage)');
    await page.click('#create-menu button[type=submit]');
    await page.waitForSelector('#menus >> text=standard_menu');
    assert.match((await page.textContent('#menus')) ?? '', /base_fee, api_usage/);

    await page.fill('#create-plan-name', 'standard');
    await page.fill('#create-plan-display_name', 'Standard Plan');
    await tick(page, '#create-plan', 'Standard menu (standard_menu)');
    await page.click('#create-plan button[type=submit]');
    await page.waitForSelector('#plans >> text=standard');

    await page.fill('#create-tax-rate-name', 'jct');
    await page.fill('#create-tax-rate-display_name', 'JCT');
    await page.fill('#create-tax-rate-percentage', '10');
    await page.fill('#create-tax-rate-country', 'JP');
    await page.click('#create-tax-rate button[type=submit]');
    await page.waitForSelector('#tax-rates >> text=jct');

    await page.waitForSelector('#assign-plan');
    await page.selectOption('#assign-plan-tenant_id', tenant.body.id);
    await page.selectOption('#assign-plan-next_plan_id', { label: 'Standard Plan' });
    await page.selectOption('#assign-plan-next_plan_tax_rate_id', { label: 'JCT' });
    await page.click('#assign-plan button[type=submit]');
    await page.waitForSelector('#assign-plan .done');
    await page.waitForSelector('#tenant-plans >> text=Standard Plan');

    const pricing = new SignedClient(h.api.baseUrl.replace(/\/v1\/auth$/, '/v1/pricing'), saas);
    const plans = await pricing.get<{ pricing_plans: { id: string; name: string; pricing_menus: { units: { name: string }[] }[] }[] }>('/plans');
    const plan = plans.body.pricing_plans.find((p) => p.name === 'standard');
    assert.deepEqual(
      plan?.pricing_menus.flatMap((m) => m.units.map((u) => u.name)),
      ['base_fee', 'api_usage'],
    );
    const detail = await saas.client.get<{ plan_id?: string }>(`/tenants/${tenant.body.id}`);
    assert.equal(detail.body.plan_id, plan?.id);

    // Names change in place; the rest of the item is sent as it was read.
    await page.click('button[aria-label="Edit api_usage"]');
    await page.fill('#edit-unit-display_name', 'API calls (metered)');
    await page.click('#edit-unit button[type=submit]');
    await page.waitForSelector('#units >> text=API calls (metered)');
    await page.click('button[aria-label="Edit standard"]');
    await page.fill('#edit-plan-display_name', 'Standard');
    await page.click('#edit-plan button[type=submit]');
    await page.waitForSelector('#edit-plan .done');
    const units = await pricing.get<{ units: { name: string; display_name: string; unit_amount: number; metering_unit_name?: string }[] }>('/units');
    const usage = units.body.units.find((u) => u.name === 'api_usage');
    assert.deepEqual([usage?.display_name, usage?.unit_amount, usage?.metering_unit_name], ['API calls (metered)', 2, 'api_calls']);
    const edited = await pricing.get<{ display_name: string; pricing_menus: unknown[] }>(`/plans/${plan?.id}`);
    assert.deepEqual([edited.body.display_name, edited.body.pricing_menus.length], ['Standard', 1]);

    // Usage recorded through the API shows as today's bar once the page loads again.
    const now = Math.floor(Date.now() / 1000);
    for (const count of [3, 4]) {
      const put = await pricing.put(`/metering/tenants/${tenant.body.id}/units/api_calls/timestamp/${now - count}`, { method: 'add', count });
      assert.equal(put.status, 200);
    }
    await page.reload();
    await page.waitForSelector('#usage-chart');
    const bars = await page.$$eval('#usage-chart rect.bar', (rects) => rects.map((r) => Number(r.getAttribute('data-count'))));
    assert.equal(bars.length, 14);
    assert.equal(bars[13], 7);
    assert.equal(
      bars.slice(0, 13).reduce((a, b) => a + b, 0),
      0,
    );
    assert.match((await page.getAttribute('#usage-chart', 'aria-label')) ?? '', /api_calls: 7 in 14 days/);
    await axeClean(page, 'pricing');
    await context.close();
  });

  it('themes the login screen: the preview follows the form, switches language and scheme, and Save makes it live', async () => {
    const { context, page } = await signedIn();
    await page.click('nav >> text=Login screen');
    await page.waitForSelector('#login-theme');
    const buttonColour = () => page.$eval('#preview-button', (b) => getComputedStyle(b).backgroundColor);
    const cardColour = () => page.$eval('#login-preview .lp-card', (c) => getComputedStyle(c).backgroundColor);

    const before = await buttonColour();
    await page.fill('#login-theme-primary_color', '#ffcc00');
    assert.equal(await buttonColour(), 'rgb(255, 204, 0)');
    assert.notEqual(before, 'rgb(255, 204, 0)');
    // A light primary colour gets black text, as the real screen's stylesheet gives it.
    assert.equal(await page.$eval('#preview-button', (b) => getComputedStyle(b).color), 'rgb(0, 0, 0)');

    assert.match((await page.textContent('#preview-button')) ?? '', /Sign in/);
    await page.check('#preview-lang-ja');
    assert.equal(await page.textContent('#preview-button'), 'ログイン');
    assert.equal(await page.getAttribute('#login-preview', 'lang'), 'ja');

    assert.equal(await cardColour(), 'rgb(255, 255, 255)');
    await page.selectOption('#login-theme-mode', 'auto');
    await page.check('#preview-scheme-dark');
    assert.equal(await cardColour(), 'rgb(27, 30, 37)');
    await page.check('#preview-scheme-light');
    assert.equal(await cardColour(), 'rgb(255, 255, 255)');

    // The API refuses a colour it does not take: shown at the field, nothing saved.
    await page.fill('#login-theme-background_color', 'red');
    await page.click('#login-theme button[type=submit]');
    await page.waitForSelector('#login-theme-background_color-error');
    assert.notEqual((await saas.client.get<{ primary_color: string }>('/login-theme')).body.primary_color, '#ffcc00');

    await page.fill('#login-theme-background_color', '#102030');
    await page.fill('#login-theme-corner_radius', '16');
    await page.click('#login-theme button[type=submit]');
    await page.waitForSelector('#login-theme .done');
    const saved = await saas.client.get<{ primary_color: string; background_color: string; mode: string; corner_radius: number }>('/login-theme');
    assert.deepEqual(
      { ...saved.body, background_image: undefined, logo_position: undefined },
      {
        primary_color: '#ffcc00',
        background_color: '#102030',
        mode: 'auto',
        corner_radius: 16,
        background_image: undefined,
        logo_position: undefined,
      },
    );
    // The title follows the settings form into the preview, and is saved with the legal links.
    await page.fill('#page-settings-title', 'Acme Cloud');
    assert.equal(await page.textContent('#login-preview .lp-title'), 'Acme Cloud');
    await page.fill('#page-settings-terms_of_service_url', 'not a url');
    await page.click('#page-settings button[type=submit]');
    await page.waitForSelector('#page-settings-terms_of_service_url-error');
    await page.fill('#page-settings-terms_of_service_url', 'https://acme.example/terms');
    await page.click('#page-settings button[type=submit]');
    await page.waitForSelector('#page-settings .done');
    const settings = await saas.client.get<{ title: string; terms_of_service_url: string }>('/customize-page-settings');
    assert.deepEqual([settings.body.title, settings.body.terms_of_service_url], ['Acme Cloud', 'https://acme.example/terms']);

    await page.click('summary >> text=Sign-up page');
    await page.check('#page-sign_up_page-is_terms_of_service');
    await page.fill('#page-sign_up_page-html_contents', '<p>Welcome to Acme</p>');
    await page.click('#page-sign_up_page button[type=submit]');
    await page.waitForSelector('#page-sign_up_page .done');
    const pages = await saas.client.get<{ sign_up_page: { html_contents: string; is_terms_of_service: boolean } }>('/customize-pages');
    assert.deepEqual(pages.body.sign_up_page, { html_contents: '<p>Welcome to Acme</p>', is_terms_of_service: true, is_privacy_policy: false });
    await axeClean(page, 'login-screen');
    await context.close();
  });

  it('edits a mail template with its rendered preview, refused at the field without {####}', async () => {
    const { context, page } = await signedIn();
    await page.click('nav >> text=Mail templates');
    await page.waitForSelector('#mail-authentication_mfa');
    assert.equal(await page.locator('main section.card').count(), 9);
    assert.match((await page.textContent('#preview-authentication_mfa .mail-text')) ?? '', /Your sign-in code is 482913/);

    await page.fill('#mail-authentication_mfa-subject', 'Code for <Acme>');
    await page.fill('#mail-authentication_mfa-message', 'No code here');
    assert.equal(await page.textContent('#preview-authentication_mfa .subject-text'), 'Code for <Acme>');
    await page.click('#mail-authentication_mfa button[type=submit]');
    await page.waitForSelector('#mail-authentication_mfa-message-error');

    await page.fill('#mail-authentication_mfa-message', 'Hello,\nyour code: {####}');
    assert.equal(await page.textContent('#preview-authentication_mfa .mail-text'), 'Hello,\nyour code: 482913');
    await page.click('#mail-authentication_mfa button[type=submit]');
    await page.waitForSelector('#mail-authentication_mfa .done');
    const saved = await saas.client.get<{ authentication_mfa: { subject: string; message: string } }>('/notification-messages');
    assert.deepEqual(saved.body.authentication_mfa, { subject: 'Code for <Acme>', message: 'Hello,\nyour code: {####}' });

    // An HTML message is shown in a sandboxed frame, the sample escaped as the service escapes the code.
    await page.fill('#mail-invite_tenant_user-message', '<p>Join us: <a href="{####}">accept</a></p>');
    const frame = page.frameLocator('#preview-invite_tenant_user iframe');
    assert.equal(await frame.locator('a').getAttribute('href'), 'https://auth.example.com/invitation?id=…');
    assert.equal(await page.getAttribute('#preview-invite_tenant_user iframe', 'sandbox'), '');
    await axeClean(page, 'mail');
    await context.close();
  });

  it('changes the password policy, self sign-up and refresh-token lifetime, a refusal shown at its field', async () => {
    const { context, page } = await signedIn();
    await page.click('nav >> text=Sign-in settings');
    await page.waitForSelector('#password-policy');
    await page.fill('#password-policy-minimum_length', '3');
    await page.click('#password-policy button[type=submit]');
    await page.waitForSelector('#password-policy-minimum_length-error');
    await page.fill('#password-policy-minimum_length', '12');
    await page.check('#password-policy-is_require_symbols');
    await page.click('#password-policy button[type=submit]');
    await page.waitForSelector('#password-policy .done');

    await page.check('#sign-in-access-self_regist');
    await page.selectOption('#sign-in-access-device_remembering', 'no');
    await page.click('#sign-in-access button[type=submit]');
    await page.waitForSelector('#sign-in-access .done');

    await page.fill('#refresh-token-value', '2');
    await page.selectOption('#refresh-token-unit', 'hours');
    await page.click('#refresh-token button[type=submit]');
    await page.waitForSelector('#refresh-token .done');

    const settings = await saas.client.get<{
      password_policy: { minimum_length: number; is_require_symbols: boolean };
      self_regist: { enable: boolean };
      device_configuration: { device_remembering: string };
      refresh_token_validity: { value: number; unit: string };
    }>('/sign-in-settings');
    assert.equal(settings.body.password_policy.minimum_length, 12);
    assert.equal(settings.body.password_policy.is_require_symbols, true);
    assert.equal(settings.body.self_regist.enable, true);
    assert.equal(settings.body.device_configuration.device_remembering, 'no');
    assert.deepEqual(settings.body.refresh_token_validity, { value: 2, unit: 'hours' });
    await axeClean(page, 'sign-in-settings');
    await context.close();
  });

  it('sets Google and a tenant’s SAML identity provider by its metadata file', async () => {
    const tenant = await saas.client.post<{ id: string }>('/tenants', {
      name: 'Saml Corp',
      attributes: {},
      back_office_staff_email: 'it@example.com',
    });
    const { context, page } = await signedIn();
    await page.click('nav >> text=Identity providers');
    await page.waitForSelector('#google');
    assert.match((await page.textContent('#google-state')) ?? '', /off/);
    await page.fill('#google-application_id', 'client-123.apps.googleusercontent.com');
    await page.fill('#google-application_secret', 'secret-abcd1234');
    await page.click('#google button[type=submit]');
    await page.waitForSelector('#google .done');
    await page.waitForSelector('#google-state >> text=offers');
    const google = await saas.client.get<{ google: { application_id: string; application_secret: string } }>('/identity-providers');
    assert.equal(google.body.google.application_id, 'client-123.apps.googleusercontent.com');
    assert.ok(!google.body.google.application_secret.includes('secret-ab'));

    await page.selectOption('#saml-tenant', tenant.body.id);
    await page.waitForSelector('#saml-state >> text=No SAML identity provider');
    // A metadata URL that is not https is refused at its field.
    await page.fill('#saml-metadata_url', 'http://idp.example/metadata');
    await page.click('#saml button[type=submit]');
    await page.waitForSelector('#saml-metadata_url-error');
    await page.setInputFiles('#saml-file', { name: 'idp.xml', mimeType: 'application/xml', buffer: Buffer.from(startTestIdp('console').metadata) });
    await page.waitForSelector('#saml-file-hint >> text=A file is chosen');
    await page.click('#saml button[type=submit]');
    await page.waitForSelector('#saml .done');
    await page.waitForSelector('#saml-state >> text=by metadata file');
    const saml = await saas.client.get<{ saml?: { email_attribute: string; metadata_xml?: string } }>(
      `/tenants/${tenant.body.id}/identity-providers`,
    );
    assert.equal(saml.body.saml?.email_attribute, 'email');
    await axeClean(page, 'identity-providers');
    await context.close();
  });

  it('sets the login domain and shows its DNS records waiting, and keeps a Stripe key masked', async () => {
    const { context, page } = await signedIn();
    await page.click('nav >> text=Domain, mail and payment');
    await page.waitForSelector('#basic-info');
    assert.match((await page.textContent('#domain-state')) ?? '', /No domain of your own/);
    await page.fill('#basic-info-domain_name', 'not a domain');
    await page.fill('#basic-info-from_email_address', 'no-reply@mail.example.com');
    await page.click('#basic-info button[type=submit]');
    await page.waitForSelector('#basic-info-domain_name-error');
    await page.fill('#basic-info-domain_name', 'login.example.com');
    await page.click('#basic-info button[type=submit]');
    await page.waitForSelector('#domain-state >> text=Waiting');
    await page.waitForSelector('#dns-records >> text=Certificate check');
    assert.match((await page.textContent('#dns-records')) ?? '', /Not seen yet/);

    await page.fill('#payment-provider-secret_key', 'pk_test_public123456');
    await page.click('#payment-provider button[type=submit]');
    await page.waitForSelector('#payment-provider-secret_key-error');
    await page.fill('#payment-provider-secret_key', 'sk_test_console9876');
    await page.click('#payment-provider button[type=submit]');
    await page.waitForSelector('#payment-state >> text=9876');
    assert.ok(!(await page.content()).includes('sk_test_console'), 'the key is never shown');
    await axeClean(page, 'basic-info');
    await context.close();
  });
});
