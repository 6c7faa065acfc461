/**
 * An address that nothing answers, opened in Chromium in Japanese and English: the `$default` route's public
 * function answers the login screen's "page not found" (web/login/unmatched-page.ts) in the product's look and
 * the person's language, axe-core finds no serious or critical violation on it, and whatever it offers to
 * follow is reached by keyboard. The same address as JSON for programs is test/integration/unmatched-pages.test.ts's.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { EN, type LoginTexts } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

const skip = chromiumMissing();
const LANGS: [string, LoginTexts, string][] = [
  ['ja', JA, 'ja-JP'],
  ['en', EN, 'en-US'],
];

let h: Harness;
let browser: Browser;

(skip ? describe.skip : describe)('an address nothing answers, in Chromium', () => {
  beforeAll(async () => {
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it.each(LANGS)('is a page in %s, in the screen’s look, with no serious axe violation, usable by keyboard', async (lang, texts, locale) => {
    const context = await browser.newContext({ locale });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const res = await page.goto(`${new URL(h.api.baseUrl).origin}/v1/auth/no-such-page`);
      assert.equal(res?.status(), 404);
      assert.match(res?.headers()['content-type'] ?? '', /^text\/html/);
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      assert.equal(await page.title(), texts.page.notFoundTitle);
      assert.equal(await page.textContent('h1'), texts.page.notFoundTitle);
      assert.equal(await page.textContent('#message'), texts.page.notFound);
      // The screen's stylesheet reached the page (the product's look: its font, card and corners).
      const seen = await page.evaluate(() => ({
        font: getComputedStyle(document.body).fontFamily,
        radius: getComputedStyle(document.querySelector('main') as Element).borderTopLeftRadius,
      }));
      assert.match(seen.font, /system-ui/);
      assert.equal(seen.radius, '8px');
      assert.deepEqual(await seriousViolations(page), []);

      // By keyboard: Tab reaches everything there is to follow, in order, each with a visible focus; a page with
      // nothing to follow (this one today) leaves the focus on the document without trapping it anywhere.
      const targets = await page.$$eval('a[href], button, input, select, textarea, [tabindex]', (nodes) =>
        nodes.filter((node) => (node as HTMLElement).tabIndex >= 0).map((node) => node.outerHTML),
      );
      for (const target of targets) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const active = document.activeElement as HTMLElement;
          return { html: active.outerHTML, outline: getComputedStyle(active).outlineStyle };
        });
        assert.equal(focused.html, target);
        assert.notEqual(focused.outline, 'none', `${target}: a visible focus`);
      }
      await page.keyboard.press('Tab');
      const after = await page.evaluate(() => document.activeElement?.tagName);
      if (targets.length === 0) assert.equal(after, 'BODY', 'nothing on the page takes the focus it cannot give back');
    } finally {
      await context.close();
    }
  });
});
