/**
 * The login theme in headless Chromium: the screen's primary colour and dark mode follow the SaaS's theme
 * (PATCH /login-theme), auto follows prefers-color-scheme, the CSP allows no inline style, the SaaS's HTML
 * reads in the screen's font, and axe-core finds no colour-contrast (or other serious) violation in either mode.
 * Screenshots (default and branded, light and dark, desktop and 390 px) go to .test-results/login-theme/; the
 * pictures of docs/login-screen.md are `npm run screenshots`'s.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

const skip = chromiumMissing();
const IMAGES = '.test-results/login-theme';
/** A small logo (an 'A' on blue), as a SaaS would upload it. */
const ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSI2NCIgaGVpZ2h0PSI2NCIgdmlld0JveD0iMCAwIDY0IDY0Ij48cmVjdCB3aWR0aD0iNjQiIGhlaWdodD0iNjQiIHJ4PSIxNCIgZmlsbD0iIzJhNDZhZCIvPjxwYXRoIGQ9Ik0xOCA0NiAzMiAxNmwxNCAzMGgtOGwtNi0xNC02IDE0eiIgZmlsbD0iI2ZmZiIvPjwvc3ZnPg==';
/** The same logo in the branded SaaS's colour. */
const TEAL_ICON = `data:image/svg+xml;base64,${Buffer.from(Buffer.from(ICON.split(',')[1]!, 'base64').toString().replace('#2a46ad', '#0f766e')).toString('base64')}`;
/** A soft diagonal gradient, as a SaaS might upload for its background. */
const BACKGROUND = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0f766e"/><stop offset="1" stop-color="#134e4a"/></linearGradient></defs><rect width="800" height="600" fill="url(#g)"/></svg>',
).toString('base64')}`;
const BRAND = {
  primary_color: '#0f766e',
  background_color: '#134e4a',
  background_image: BACKGROUND,
  mode: 'auto',
  corner_radius: 14,
  logo_position: 'center',
};

let h: Harness;
let browser: Browser;
let plain: { saasId: string; client: SignedClient };
let branded: { saasId: string; client: SignedClient };

const screenUrl = (saasId: string) => `${h.api.baseUrl}/login/${saasId}/`;

async function brandAs(admin: SignedClient, title: string, html: string, icon = ICON) {
  const settings = {
    title,
    icon,
    favicon: icon,
    terms_of_service_url: 'https://acme.test/terms',
    privacy_policy_url: '',
    tag_manager_container_id: '',
  };
  assert.equal((await admin.patch('/customize-page-settings', settings)).status, 200);
  const page = { html_contents: html, is_terms_of_service: false, is_privacy_policy: false };
  assert.equal((await admin.patch('/customize-pages', { sign_in_page: page })).status, 200);
  const google = {
    application_id: 'demo.apps.googleusercontent.com',
    application_secret: 'secret',
    approval_scope: 'openid email',
    is_button_hidden: false,
  };
  assert.equal((await admin.put('/identity-providers', { provider: 'Google', identity_provider_props: google })).status, 200);
}

(skip ? describe.skip : describe)('the login theme in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(IMAGES, { recursive: true });
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    [plain, branded] = [await h.newSaas(), await h.newSaas()];
    await brandAs(plain.client, 'Acme Cloud', '<p>Need help? Write to <a href="mailto:help@acme.test">help@acme.test</a>.</p>');
    await brandAs(branded.client, 'Teal Works', '<p>Need help? Write to <a href="mailto:help@teal.test">help@teal.test</a>.</p>', TEAL_ICON);
    assert.equal((await branded.client.patch('/login-theme', BRAND)).status, 200);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function open(saasId: string, colorScheme: 'light' | 'dark', width = 1024): Promise<{ page: Page; csp: string }> {
    const context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 760 }, colorScheme });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const res = await page.goto(screenUrl(saasId));
    await page.locator('#sign-in-form:not([hidden])').waitFor();
    await page.locator('iframe.custom:not([hidden])').waitFor();
    // The frame's stylesheets are loaded before its contents are measured or photographed.
    await page.frameLocator('iframe.custom').locator('p').waitFor();
    return { page, csp: res?.headers()['content-security-policy'] ?? '' };
  }

  const style = (page: Page, selector: string, property: string) =>
    page.$eval(selector, (el, name) => getComputedStyle(el).getPropertyValue(name), property);

  it("applies the theme's primary colour, and its dark mode with the system's (auto)", async () => {
    const light = await open(branded.saasId, 'light');
    assert.equal(await style(light.page, '#sign-in-form button[type=submit]', 'background-color'), 'rgb(15, 118, 110)');
    assert.equal(await style(light.page, '#sign-in-form button[type=submit]', 'color'), 'rgb(255, 255, 255)');
    assert.equal(await style(light.page, 'main', 'background-color'), 'rgb(255, 255, 255)');
    assert.equal(await style(light.page, 'main', 'border-top-left-radius'), '14px');
    assert.match(await style(light.page, 'body', 'background-image'), /^url\("data:image\/svg\+xml;base64,/);
    const dark = await open(branded.saasId, 'dark');
    assert.equal(await style(dark.page, 'main', 'background-color'), 'rgb(27, 30, 37)');
    assert.equal(await style(dark.page, 'h1', 'color'), 'rgb(232, 234, 240)');
    assert.equal(await style(dark.page, '#sign-in-form button[type=submit]', 'background-color'), 'rgb(15, 118, 110)');
    await Promise.all([light.page.context().close(), dark.page.context().close()]);
  });

  it('keeps dark when the theme says dark, whatever the system says', async () => {
    assert.equal((await branded.client.patch('/login-theme', { mode: 'dark' })).status, 200);
    try {
      const { page } = await open(branded.saasId, 'light');
      assert.equal(await style(page, 'main', 'background-color'), 'rgb(27, 30, 37)');
      await page.context().close();
    } finally {
      await branded.client.patch('/login-theme', { mode: 'auto' });
    }
  });

  it("keeps the CSP strict: no inline style, the theme from the screen's own origin", async () => {
    const { page, csp } = await open(branded.saasId, 'light');
    assert.match(csp, /(^|; )style-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const sheets = await page.$$eval('link[rel=stylesheet]', (links) => links.map((l) => (l as HTMLLinkElement).href));
    assert.ok(
      sheets.some((href) => /\/assets\/theme\.css\?v=[\w-]{16}$/.test(href)),
      sheets.join(),
    );
    assert.equal(await page.$$eval('[style]', (els) => els.length), 0, 'no element carries a style attribute');
    await page.context().close();
  });

  it("shows the SaaS's HTML in the screen's font and colours, still without script", async () => {
    const { page } = await open(branded.saasId, 'dark');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert.ok(frame);
    const [frameFont, pageFont] = [
      await frame.$eval('body', (el) => getComputedStyle(el).fontFamily),
      await page.$eval('body', (el) => getComputedStyle(el).fontFamily),
    ];
    assert.equal(frameFont, pageFont);
    assert.match(frameFont, /system-ui/);
    assert.equal(await frame.$eval('p', (el) => getComputedStyle(el).color), 'rgb(232, 234, 240)');
    assert.equal(await page.getAttribute('iframe.custom', 'sandbox'), '');
    await page.context().close();
  });

  it("carries Google's mark, drawn in the page, and an 'or' between it and the password form", async () => {
    const { page } = await open(plain.saasId, 'light');
    assert.equal(await page.locator('#sign-in-with-google svg.google-mark path').count(), 4);
    assert.equal((await page.textContent('.divider'))?.trim(), 'or');
    const order = await page.$$eval('#sign-in-form button[type=submit], #sign-in-form .divider, #sign-in-with-google', (els) =>
      els.map((el) => el.id || el.className || el.tagName),
    );
    assert.deepEqual(order, ['BUTTON', 'divider', 'sign-in-with-google']);
    await page.context().close();
  });

  for (const [name, saas] of [
    ['default', () => plain],
    ['branded', () => branded],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`${name}, ${scheme}: axe-core finds nothing serious; photographed at desktop and 390 px`, async () => {
        for (const width of [1024, 390]) {
          const { page } = await open(saas().saasId, scheme, width);
          assert.deepEqual(await seriousViolations(page), []);
          await page.screenshot({ path: `${IMAGES}/login-${name}-${scheme}-${width < 500 ? 'mobile' : 'desktop'}.png`, fullPage: true });
          await page.context().close();
        }
      });
    }
  }
});
