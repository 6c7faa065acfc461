/**
 * The console's Chromium tests' shared steps (test/e2e/console*.test.ts): the local stack and a browser started
 * together, the console's address, a fresh browser signed in through the sign-in form, and a page's screenshot
 * (to .test-results/console/) with axe-core's serious or critical violations.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { assertAxeClean } from './axe.js';
import { launchChromium } from './chromium.js';

const IMAGES = '.test-results/console';

/** A SaaS and its key: what the console is signed in with. */
export type ConsoleSaas = Awaited<ReturnType<Harness['newSaas']>>;

/**
 * The local stack and a headless Chromium, started side by side, and a SaaS with a key of `permissions` (every
 * one by default); the screenshots' folder made.
 */
export async function startConsoleBrowser(permissions?: string[]): Promise<{ h: Harness; browser: Browser; saas: ConsoleSaas }> {
  mkdirSync(IMAGES, { recursive: true });
  const [h, browser] = await Promise.all([startHarness(), launchChromium()]);
  return { h, browser, saas: await h.newSaas(permissions) };
}

/** Closes what startConsoleBrowser started (what of it did start, when it failed half-way). */
export async function stopConsoleBrowser(h: Harness | undefined, browser: Browser | undefined): Promise<void> {
  await browser?.close();
  await h?.close();
}

/** A console page's address on the harness (`overview` when none is named). */
export const consoleUrlOf = (h: Harness, page = 'overview') => `${h.api.baseUrl}/console/${page}`;

/** A fresh browser signed in with the key's id and secret through the sign-in form on `at` (its page stays `at`). */
export async function signInConsole(
  browser: Browser,
  h: Harness,
  credentials: { saasId: string; apiKey: string; secret: string },
  { lang = 'en', at = 'overview' }: { lang?: string; at?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: lang === 'ja' ? 'ja-JP' : 'en-US' });
  const page = await context.newPage();
  await page.goto(consoleUrlOf(h, at));
  await page.fill('#sign-in-saas_id', credentials.saasId);
  await page.fill('#sign-in-api_key', credentials.apiKey);
  await page.fill('#sign-in-client_secret', credentials.secret);
  await Promise.all([page.waitForURL(new RegExp(`/console/${at}`)), page.click('#sign-in button[type=submit]')]);
  await page.waitForSelector('#sign-out');
  return { context, page };
}

/** Screenshots the page as `name` and asserts axe-core finds no serious or critical violation on it. */
export async function axeClean(page: Page, name: string, fullPage = false) {
  await page.screenshot({ path: `${IMAGES}/${name}.png`, fullPage });
  await assertAxeClean(page, name);
}
