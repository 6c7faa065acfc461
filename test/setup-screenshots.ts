/**
 * `npx tsx test/setup-screenshots.ts`: the pictures of docs/enterprise.md, "Setup links": each step of the setup
 * page a setup link opens, in English and Japanese, as an IT admin sees it after using it (a connection tested,
 * a SCIM token made, a domain claimed), taken in headless Chromium against the same local stack as the browser
 * tests, with a SAML test IdP and `oidc-provider` standing in for the customer's. Written to
 * docs/images/enterprise/setup-<step>-<lang>.jpg. Japanese needs a CJK font (Debian: `apt-get install fonts-noto-cjk`).
 */
import '../local/cli-errors.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ServiceSetup } from '../examples/app/demo.js';
import { allowLoopbackForTests } from '../shared/http/public-fetch.js';
import { startHarness } from '../dev-support/harness.js';
import { launchChromium } from './support/chromium.js';
import { startTestOidcIdp } from './support/oidc-idp.js';
import { EMAIL_ATTRIBUTE, startTestIdp } from './support/saml-idp.js';
import { createSetupLink } from './support/setup-page.js';

const OUT = 'docs/images/enterprise';
const LANGS = ['en', 'ja'] as const;
const JPEG_QUALITY = 70;

async function shoot(page: Page, name: string): Promise<number> {
  const jpeg = await page.screenshot({ type: 'jpeg', quality: JPEG_QUALITY, fullPage: true });
  writeFileSync(`${OUT}/${name}.jpg`, jpeg);
  process.stdout.write(`${OUT}/${name}.jpg  ${(jpeg.length / 1024).toFixed(0)} KB\n`);
  return jpeg.length;
}

async function steps(browser: Browser, url: string, lang: (typeof LANGS)[number], idp: { discoveryUrl: string; clientId: string }): Promise<number> {
  const context = await browser.newContext({ locale: lang === 'ja' ? 'ja-JP' : 'en-US', viewport: { width: 960, height: 720 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.goto(`${page.url()}?lang=${lang}`);
  let bytes = await shoot(page, `setup-overview-${lang}`);
  await page.click('nav.setup-steps a[href$="setup/saml"]');
  await page.fill('#metadata_xml', startTestIdp('acme').metadata);
  await page.fill('#email_attribute', EMAIL_ATTRIBUTE);
  await page.click('button[value=test]');
  await page.locator('#notice').waitFor();
  bytes += await shoot(page, `setup-saml-${lang}`);
  await page.click('nav.setup-steps a[href$="setup/oidc"]');
  await page.fill('#discovery_url', idp.discoveryUrl);
  await page.fill('#client_id', idp.clientId);
  await page.click('button[value=test]');
  await page.locator('#notice').waitFor();
  bytes += await shoot(page, `setup-oidc-${lang}`);
  await page.click('nav.setup-steps a[href$="setup/scim"]');
  await page.click('button[value=create]');
  await page.locator('#scim-token').waitFor();
  bytes += await shoot(page, `setup-scim-${lang}`);
  await page.click('nav.setup-steps a[href$="setup/domain"]');
  await page.fill('#domain', lang === 'ja' ? 'acme.co.jp' : 'acme.com');
  await page.click('button[value=claim]');
  await page.locator('#record-name-0').waitFor();
  bytes += await shoot(page, `setup-domain-${lang}`);
  await context.close();
  return bytes;
}

async function main() {
  const fonts = execFileSync('fc-list', [':lang=ja', 'family'], { encoding: 'utf8' });
  if (!fonts.trim()) throw new Error('no Japanese font for Chromium: install one (Debian: apt-get install fonts-noto-cjk)');
  const [h, browser] = await Promise.all([startHarness(), launchChromium()]);
  allowLoopbackForTests(true);
  const { saasId, client } = await h.newSaas();
  const idp = await startTestOidcIdp({ redirectUris: [`${h.api.baseUrl}/login/${saasId}/oidc/callback`] });
  try {
    const setup = new ServiceSetup(client);
    await setup.ensureDefinitions();
    mkdirSync(OUT, { recursive: true });
    let total = 0;
    for (const lang of LANGS) {
      const tenant = await setup.createTenant(lang === 'ja' ? 'アクメ株式会社' : 'Acme Corporation');
      total += await steps(browser, (await createSetupLink(client, tenant)).url, lang, idp);
    }
    process.stdout.write(`${LANGS.length * 5} pictures, ${(total / 1024 / 1024).toFixed(2)} MB\n`);
  } finally {
    await idp.close();
    await browser.close();
    await h.close();
  }
}

await main();
