/**
 * The operator console's settings pages in headless Chromium against the local stack: a tenant's metered usage
 * charted; catalogue items renamed and deleted; the login screen themed with its draft preview following the
 * form (language and scheme switches), saved, with its title and pages; SAML per tenant; the payment provider.
 * axe-core on each page; screenshots go to .test-results/console/. (test/e2e/console.test.ts covers the shell
 * and the other pages.)
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { onApi } from '../support/other-api.js';
import { chromiumMissing } from '../support/chromium.js';
import { axeClean, signInConsole, startConsoleBrowser, stopConsoleBrowser, type ConsoleSaas } from '../support/console-browser.js';
import { EN as EN_CONSOLE } from '../../web/console/texts/en.js';
import { JA as JA_CONSOLE } from '../../web/console/texts/ja.js';
import type { Harness } from '../../dev-support/harness.js';
import { startTestIdp } from '../support/saml-idp.js';

const skip = chromiumMissing();

let h: Harness;
let browser: Browser;
let saas: ConsoleSaas;

const signedIn = () => signInConsole(browser, h, saas);

(skip ? describe.skip : describe)('the console settings pages in Chromium', () => {
  beforeAll(async () => {
    ({ h, browser, saas } = await startConsoleBrowser());
  });
  afterAll(() => stopConsoleBrowser(h, browser));

  for (const [lang, texts] of [
    ['en', EN_CONSOLE],
    ['ja', JA_CONSOLE],
  ] as const) {
    it(`${lang}: switches the breached-password range service and passkeys required on the sign-in settings page`, async () => {
      const s = texts.signInSettings;
      assert.equal((await saas.client.put('/sign-in-settings', { passkeys: { enable: false } })).status, 200, 'passkeys not offered yet');
      const { context, page } = await signInConsole(browser, h, saas, { lang, at: 'sign-in-settings' });
      await page.waitForSelector('#sign-in-settings-passkeys_required');
      assert.equal((await page.textContent('label[for=sign-in-settings-password_breach_range]'))?.trim(), s.breachRange);
      assert.equal((await page.textContent('label[for=sign-in-settings-passkeys_required]'))?.trim(), s.passkeysRequired);
      // Required without passkeys offered: the service's refusal, at the passkeys field.
      await page.check('#sign-in-settings-passkeys_required');
      await page.click('#sign-in-settings button[type=submit]');
      await page.waitForSelector('#sign-in-settings-passkeys-error');
      await page.check('#sign-in-settings-passkeys');
      await page.check('#sign-in-settings-password_breach_range');
      await page.click('#sign-in-settings button[type=submit]');
      await page.waitForSelector('#sign-in-settings .done');
      const on = await saas.client.get<{ passkeys: unknown; password_breach_range: unknown }>('/sign-in-settings');
      assert.deepEqual(on.body.passkeys, { enable: true, required: true });
      assert.deepEqual(on.body.password_breach_range, { enable: true });
      await axeClean(page, `sign-in-settings-${lang}`);

      // Read back as saved, and switched off again from the page.
      await page.reload();
      await page.waitForSelector('#sign-in-settings-passkeys_required:checked');
      assert.equal(await page.isChecked('#sign-in-settings-password_breach_range'), true);
      await page.uncheck('#sign-in-settings-passkeys_required');
      await page.uncheck('#sign-in-settings-password_breach_range');
      await page.click('#sign-in-settings button[type=submit]');
      await page.waitForSelector('#sign-in-settings .done');
      const off = await saas.client.get<{ passkeys: unknown; password_breach_range: unknown }>('/sign-in-settings');
      assert.deepEqual(off.body.passkeys, { enable: true });
      assert.deepEqual(off.body.password_breach_range, { enable: false });
      await context.close();
    });
  }

  it('charts a tenant’s metered usage per day from the counts the API recorded', async () => {
    const tenant = await saas.client.post<{ id: string }>('/tenants', { name: 'Acme', attributes: {}, back_office_staff_email: 'staff@example.com' });
    assert.equal(tenant.status, 201);
    const pricing = onApi(saas.client, 'pricing');
    const unit = await pricing.post('/metering/units', {
      unit_name: 'api_calls',
      aggregate_usage: 'sum',
      display_name: 'API calls',
      description: '',
    });
    assert.equal(unit.status, 201);
    const day = 86_400;
    // Counted from the start of today (UTC), so no count falls after now or across midnight: today 3 + 4, two
    // days ago 5, twenty days ago (outside the chart) 9.
    const today = Math.floor(Date.now() / 1000 / day) * day;
    for (const [at, count] of [
      [today, 3],
      [today, 4],
      [today - 2 * day + 100, 5],
      [today - 20 * day, 9],
    ] as const) {
      const put = await pricing.put(`/metering/tenants/${tenant.body.id}/units/api_calls/timestamp/${at}`, { method: 'add', count });
      assert.equal(put.status, 200);
    }
    const { context, page } = await signedIn();
    await page.click('nav >> text=Metered usage');
    await page.waitForSelector('#usage-chart');
    const bars = await page.$$eval('#usage-chart rect.bar', (rects) => rects.map((r) => Number(r.getAttribute('data-count'))));
    assert.equal(bars.length, 14);
    assert.equal(bars[13], 7);
    assert.equal(bars[11], 5);
    assert.equal(
      bars.reduce((a, b) => a + b, 0),
      12,
    );
    assert.match((await page.getAttribute('#usage-chart', 'aria-label')) ?? '', /api_calls: 12 in 14 days/);
    await page.click('#usage-table-summary, summary');
    assert.equal(await page.locator('#usage-table tbody tr').count(), 14);
    await axeClean(page, 'usage', true);
    await context.close();
  });

  it('renames and deletes catalogue items on the Pricing page; what a menu names is refused until the menu goes', async () => {
    const pricing = onApi(saas.client, 'pricing');
    const unit = await pricing.post<{ id: string }>('/units', {
      type: 'fixed',
      name: 'seat_fee',
      display_name: 'Seat fee',
      description: '',
      currency: 'JPY',
      unit_amount: 500,
      recurring_interval: 'month',
    });
    assert.equal(unit.status, 201);
    const menu = await pricing.post<{ id: string }>('/menus', { name: 'seats', display_name: 'Seats', description: '', unit_ids: [unit.body.id] });
    assert.equal(menu.status, 201);
    const { context, page } = await signedIn();
    await page.click('nav >> text=Pricing');
    await page.waitForSelector('#change-item-item');
    await page.selectOption('#change-item-item', `unit:${unit.body.id}`);
    await page.fill('#change-item-display_name', 'Per seat');
    await page.click('#change-item button[type=submit]');
    await page.waitForSelector('#change-item .done');
    await page.waitForSelector('#units >> text=Per seat');
    const read = await pricing.get<{ display_name: string; unit_amount: number }>(`/units/${unit.body.id}`);
    assert.deepEqual([read.body.display_name, read.body.unit_amount], ['Per seat', 500]);

    await page.click('#delete-item');
    await page.waitForSelector('#changes-heading ~ .error');
    assert.equal((await pricing.get(`/units/${unit.body.id}`)).status, 200);
    await page.selectOption('#change-item-item', `menu:${menu.body.id}`);
    await page.click('#delete-item');
    await page.waitForSelector('#changes-heading ~ .done');
    await page.selectOption('#change-item-item', `unit:${unit.body.id}`);
    await page.click('#delete-item');
    await page.waitForSelector('#changes-heading ~ .done');
    assert.equal((await pricing.get(`/units/${unit.body.id}`)).status, 404);
    // The catalogue's own table loads again without the unit.
    await page.waitForSelector('#units >> text=seat_fee', { state: 'detached' });
    await context.close();
  });

  it('themes the login screen: the preview follows the form, switches language and scheme, and Save makes it live', async () => {
    const { context, page } = await signedIn();
    await page.click('nav >> text=Login screen');
    await page.waitForSelector('#theme');
    const buttonColour = () => page.$eval('#preview-button', (b) => getComputedStyle(b).backgroundColor);
    const cardColour = () => page.$eval('#login-preview .lp-card', (c) => getComputedStyle(c).backgroundColor);

    const before = await buttonColour();
    await page.fill('#theme-primary_color', '#ffcc00');
    assert.equal(await buttonColour(), 'rgb(255, 204, 0)');
    assert.notEqual(before, 'rgb(255, 204, 0)');
    // A light primary colour gets black text, as the real screen's stylesheet gives it.
    assert.equal(await page.$eval('#preview-button', (b) => getComputedStyle(b).color), 'rgb(0, 0, 0)');

    assert.match((await page.textContent('#preview-button')) ?? '', /Sign in/);
    await page.check('#preview-lang-ja');
    assert.equal(await page.textContent('#preview-button'), 'ログイン');
    assert.equal(await page.getAttribute('#login-preview', 'lang'), 'ja');

    assert.equal(await cardColour(), 'rgb(255, 255, 255)');
    await page.selectOption('#theme-mode', 'auto');
    await page.check('#preview-scheme-dark');
    assert.equal(await cardColour(), 'rgb(27, 30, 37)');
    await page.check('#preview-scheme-light');
    assert.equal(await cardColour(), 'rgb(255, 255, 255)');

    // The API refuses a colour it does not take: shown at the field, nothing saved.
    await page.fill('#theme-background_color', 'red');
    await page.click('#theme button[type=submit]');
    await page.waitForSelector('#theme-background_color-error');
    assert.notEqual((await saas.client.get<{ primary_color: string }>('/login-theme')).body.primary_color, '#ffcc00');

    await page.fill('#theme-background_color', '#102030');
    await page.fill('#theme-corner_radius', '16');
    await page.click('#theme button[type=submit]');
    await page.waitForSelector('#theme .done');
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
    // The preview renders on the page's next update, not within fill(): wait for it, then say what it shows.
    await page
      .waitForFunction(() => document.querySelector('#login-preview .lp-title')?.textContent === 'Acme Cloud', undefined, { timeout: 10_000 })
      .catch(() => undefined);
    assert.equal(await page.textContent('#login-preview .lp-title'), 'Acme Cloud');
    await page.fill('#page-settings-terms_of_service_url', 'not a url');
    await page.click('#page-settings button[type=submit]');
    await page.waitForSelector('#page-settings-terms_of_service_url-error');
    await page.fill('#page-settings-terms_of_service_url', 'https://acme.example/terms');
    await page.click('#page-settings button[type=submit]');
    await page.waitForSelector('#page-settings .done');
    const settings = await saas.client.get<{ title: string; terms_of_service_url: string }>('/customize-page-settings');
    assert.deepEqual([settings.body.title, settings.body.terms_of_service_url], ['Acme Cloud', 'https://acme.example/terms']);

    // The real screen's frame loads again after the save and carries the new title.
    await page.waitForFunction(
      () => document.querySelector<HTMLIFrameElement>('#theme-preview')?.contentDocument?.title === 'Acme Cloud',
      undefined,
      {
        timeout: 10_000,
      },
    );

    await page.click('summary >> text=Sign-up page');
    await page.check('#page-sign_up_page-is_terms_of_service');
    await page.fill('#page-sign_up_page-html_contents', '<p>Welcome to Acme</p>');
    await page.click('#page-sign_up_page button[type=submit]');
    await page.waitForSelector('#page-sign_up_page .done');
    const pages = await saas.client.get<{ sign_up_page: { html_contents: string; is_terms_of_service: boolean } }>('/customize-pages');
    assert.deepEqual(pages.body.sign_up_page, { html_contents: '<p>Welcome to Acme</p>', is_terms_of_service: true, is_privacy_policy: false });
    await axeClean(page, 'login-screen', true);
    await context.close();
  });

  it('sets a tenant’s SAML identity provider by its metadata file, a bad URL refused at its field', async () => {
    const tenant = await saas.client.post<{ id: string }>('/tenants', {
      name: 'Saml Corp',
      attributes: {},
      back_office_staff_email: 'it@example.com',
    });
    const { context, page } = await signedIn();
    await page.click('nav >> text=SAML per tenant');
    await page.waitForSelector('#saml-tenant');
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
    await axeClean(page, 'saml', true);
    await context.close();
  });

  it('keeps a Stripe key sealed and shows only its end; a key that is not a secret key is refused at its field', async () => {
    const { context, page } = await signedIn();
    await page.click('nav >> text=Payment provider');
    await page.waitForSelector('#payment-provider');
    assert.match((await page.textContent('#payment-state')) ?? '', /No payment provider/);
    await page.fill('#payment-provider-secret_key', 'pk_test_public123456');
    await page.click('#payment-provider button[type=submit]');
    await page.waitForSelector('#payment-provider-secret_key-error');
    await page.fill('#payment-provider-secret_key', 'sk_test_console9876');
    await page.click('#payment-provider button[type=submit]');
    await page.waitForSelector('#payment-state >> text=9876');
    assert.ok(!(await page.content()).includes('sk_test_console'), 'the key is never shown');
    await axeClean(page, 'payment', true);
    await context.close();
  });
});
