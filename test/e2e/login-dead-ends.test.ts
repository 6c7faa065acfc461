/**
 * Issue 29's "No dead ends" audit, in Chromium, in Japanese and English, light and dark: every page a browser
 * can reach where a sign-in cannot go on (an unknown SaaS or page, an expired step, a provider whose settings
 * are broken, the authorization server's and the SAML function's refusals, a host that is not the SaaS's) is
 * HTML in the person's language, in the SaaS's look when the SaaS is known (its theme: colours, corners, dark
 * mode) and the product's otherwise, and axe-core finds no serious or critical violation on it. The icon browsers
 * ask each host for is the host's SaaS's, or the product's.
 *
 * The example application's callback without its own state starting a fresh hosted sign-in is
 * test/e2e/example-app.test.ts's ("takes the screen opened directly"); a provider out of reach,
 * test/e2e/login-languages.test.ts's.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { DEMO_THEME } from '../../examples/app/demo-theme.js';
import { DEFAULT_ICON } from '../../web/login/dead-ends.js';
import { EN, type LoginTexts } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { resetConfigForTests } from '../../shared/config.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

const skip = chromiumMissing();
const LANGS: [string, LoginTexts, string][] = [
  ['en', EN, 'en-US'],
  ['ja', JA, 'ja-JP'],
];
const SCHEMES = ['light', 'dark'] as const;
/** The card of the screen's two palettes (web/login/theme.ts). */
const CARD = { light: 'rgb(255, 255, 255)', dark: 'rgb(27, 30, 37)' };
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" fill="#0f766e"/></svg>';
const svg = (text: string) => `data:image/svg+xml;base64,${Buffer.from(text).toString('base64')}`;

let h: Harness;
let browser: Browser;
/** A Google whose discovery document is not one: the SaaS's Google settings cannot be used. */
let brokenGoogle: Server;
let branded: { saasId: string; admin: SignedClient; url: string };
let plain: { saasId: string; url: string };

/** The screen the service links to (sign_in_page_url without its `sign-in`): `http://<saas id>.localhost:<port>/…`. */
async function screenUrl(admin: SignedClient): Promise<string> {
  const refused = await admin.get<{ data: { sign_in_page_url: string } }>('/userinfo?token=not-a-token');
  return refused.body.data.sign_in_page_url.replace(/sign-in$/, '');
}

interface DeadEnd {
  name: string;
  /** Where the browser goes; a POST form when `form` is given. */
  url: () => string;
  form?: Record<string, string>;
  status: number;
  title: keyof LoginTexts['page'];
  /** In the branded SaaS's look (its theme), or the product's. */
  look: 'branded' | 'product';
  /** The page offers a way on (back to the sign-in page, or the other ways in). */
  action?: boolean;
}

const DEAD_ENDS: DeadEnd[] = [
  {
    name: 'unknown SaaS',
    url: () => `${h.api.baseUrl}/login/00000000-0000-4000-8000-000000000000/`,
    status: 404,
    title: 'notFoundTitle',
    look: 'product',
  },
  { name: 'unknown page of a SaaS', url: () => `${branded.url}no-such-page`, status: 404, title: 'notFoundTitle', look: 'branded' },
  { name: 'unknown page under oauth2', url: () => `${h.api.baseUrl}/oauth2/no-such-page`, status: 404, title: 'notFoundTitle', look: 'product' },
  {
    name: 'expired link step',
    url: () => `${branded.url}link?ticket=not-a-ticket`,
    status: 400,
    title: 'stepExpiredTitle',
    look: 'branded',
    action: true,
  },
  {
    name: 'Google settings that cannot be used',
    url: () => `${branded.url}federated/google?state=s`,
    status: 503,
    title: 'providerUnavailableTitle',
    look: 'branded',
    action: true,
  },
  {
    name: 'authorization request of an unknown client',
    url: () => `${h.api.baseUrl}/oauth2/authorize?client_id=nobody&response_type=code`,
    status: 400,
    title: 'badRequestTitle',
    look: 'product',
  },
  {
    name: 'authorization request to a callback not registered',
    url: () => `${h.api.baseUrl}/oauth2/authorize?client_id=${branded.saasId}&redirect_uri=${encodeURIComponent('https://elsewhere.test/cb')}`,
    status: 400,
    title: 'badRequestTitle',
    look: 'branded',
  },
  {
    name: 'SAML sign-in of a tenant without SAML',
    url: () => `${h.api.baseUrl}/saml2/login/${branded.saasId}/no-such-tenant`,
    status: 404,
    title: 'notFoundTitle',
    look: 'branded',
  },
  {
    name: 'SAML metadata of an unknown SaaS',
    url: () => `${h.api.baseUrl}/saml2/metadata/nobody`,
    status: 404,
    title: 'notFoundTitle',
    look: 'product',
  },
  {
    name: 'SAML answer of no request',
    url: () => `${h.api.baseUrl}/saml2/idpresponse`,
    form: { SAMLResponse: Buffer.from('<samlp:Response/>').toString('base64') },
    status: 400,
    title: 'samlFailedTitle',
    look: 'product',
  },
  {
    name: "a SaaS's screen on another SaaS's host",
    url: () => branded.url.replace(branded.saasId, plain.saasId),
    status: 421,
    title: 'wrongHostTitle',
    look: 'product',
  },
];

(skip ? describe.skip : describe)('no dead ends on the hosted login screen, in Chromium', () => {
  beforeAll(async () => {
    brokenGoogle = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer":'));
    await new Promise<void>((done) => brokenGoogle.listen(0, '127.0.0.1', done));
    process.env.GOOGLE_ISSUER = `http://127.0.0.1:${(brokenGoogle.address() as AddressInfo).port}`;
    resetConfigForTests();
    [h, browser] = await Promise.all([startHarness({ perSaasHosts: true }), launchChromium()]);
    const [first, second] = [await h.newSaas(), await h.newSaas()];
    branded = { saasId: first.saasId, admin: first.client, url: await screenUrl(first.client) };
    plain = { saasId: second.saasId, url: await screenUrl(second.client) };
    const look = {
      title: 'Acme Cloud',
      icon: svg(LOGO),
      favicon: svg(LOGO),
      terms_of_service_url: '',
      privacy_policy_url: '',
      tag_manager_container_id: '',
      is_sign_in_id_enabled: false,
    };
    const settings = await Promise.all([
      first.client.patch('/login-theme', DEMO_THEME),
      first.client.patch('/customize-page-settings', look),
      first.client.put('/identity-providers', {
        provider: 'Google',
        identity_provider_props: {
          application_id: 'client-of-a-broken-google',
          application_secret: 'secret',
          approval_scope: 'openid email',
          is_button_hidden: false,
        },
      }),
    ]);
    for (const res of settings) assert.equal(res.status, 200, res.text);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await new Promise((done) => brokenGoogle?.close(done));
    delete process.env.GOOGLE_ISSUER;
    resetConfigForTests();
  });

  /** The navigation's answer: a plain GET, or the form a provider would post. */
  async function visit(page: Page, end: DeadEnd) {
    if (!end.form) return page.goto(end.url());
    await page.goto(`${h.api.baseUrl}/login/assets/login.css`);
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.evaluate(
        ([action, fields]) => {
          const form = document.createElement('form');
          form.method = 'POST';
          form.action = action;
          for (const [name, value] of Object.entries(fields)) form.append(Object.assign(document.createElement('input'), { name, value }));
          document.body.append(form);
          form.submit();
        },
        [end.url(), end.form] as const,
      ),
    ]);
    return answer;
  }

  describe.each(LANGS)('in %s', (lang, texts, locale) => {
    it.each(SCHEMES)('answers every dead end with a page of the screen, %s', async (scheme) => {
      const context = await browser.newContext({ locale, colorScheme: scheme });
      try {
        for (const end of DEAD_ENDS) {
          const page = await context.newPage();
          page.setDefaultTimeout(15_000);
          const res = await visit(page, end);
          assert.equal(res?.status(), end.status, end.name);
          assert.match(res?.headers()['content-type'] ?? '', /^text\/html/, end.name);
          assert.equal(await page.getAttribute('html', 'lang'), lang, end.name);
          assert.equal(await page.textContent('h1'), texts.page[end.title], end.name);
          const seen = await page.evaluate(() => ({
            font: getComputedStyle(document.body).fontFamily,
            card: getComputedStyle(document.querySelector('main') as Element).backgroundColor,
            radius: getComputedStyle(document.querySelector('main') as Element).borderTopLeftRadius,
            page: getComputedStyle(document.body).backgroundColor,
          }));
          assert.match(seen.font, /system-ui/, `${end.name}: the screen's stylesheet`);
          assert.equal(seen.card, CARD[scheme], `${end.name}: the ${scheme} palette`);
          if (end.look === 'branded') {
            assert.equal(seen.radius, `${DEMO_THEME.corner_radius}px`, `${end.name}: the SaaS's corners`);
            assert.equal(seen.page, 'rgb(19, 78, 74)', `${end.name}: the SaaS's background`);
          } else {
            assert.equal(seen.radius, '8px', `${end.name}: the product's corners`);
            assert.notEqual(seen.page, 'rgb(19, 78, 74)', end.name);
          }
          if (end.action) assert.equal(await page.locator('#action').count(), 1, `${end.name}: a way on`);
          assert.deepEqual(await seriousViolations(page), [], end.name);
          await page.close();
        }
      } finally {
        await context.close();
      }
    });
  });

  it('answers each host its own icon: the SaaS’s on its host, the product’s on the API’s and on a SaaS without one', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const origin = (url: string) => new URL(url).origin;
    const icon = async (url: string) => {
      const res = await page.goto(url);
      assert.equal(res?.status(), 200, url);
      const headers = res?.headers() ?? {};
      assert.match(headers['content-security-policy'] ?? '', /sandbox/, `${url}: opened by itself, an SVG runs nothing`);
      return { type: headers['content-type'], body: (await res?.body())?.toString('utf8') };
    };
    assert.deepEqual(await icon(`${origin(branded.url)}/favicon.ico`), { type: 'image/svg+xml', body: LOGO });
    assert.deepEqual(await icon(`${branded.url}favicon.ico`), { type: 'image/svg+xml', body: LOGO });
    for (const url of [`${origin(h.api.baseUrl)}/favicon.ico`, `${origin(plain.url)}/favicon.ico`, `${plain.url}favicon.ico`]) {
      assert.deepEqual(await icon(url), { type: 'image/svg+xml', body: DEFAULT_ICON }, url);
    }
    // A script in the SaaS's SVG, opened by itself on the API's shared origin, does not run.
    const scripted = `<svg xmlns="http://www.w3.org/2000/svg"><script>document.title = 'ran'</script></svg>`;
    const settings = (await branded.admin.get<Record<string, unknown>>('/customize-page-settings')).body;
    assert.equal((await branded.admin.patch('/customize-page-settings', { ...settings, favicon: svg(scripted) })).status, 200);
    await page.goto(`${h.api.baseUrl}/login/${branded.saasId}/favicon.ico`);
    assert.notEqual(await page.evaluate(() => document.title), 'ran');
    assert.equal((await branded.admin.patch('/customize-page-settings', settings)).status, 200);
    await context.close();
  });
});
