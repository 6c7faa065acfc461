/**
 * The length-first policy on the hosted screen, in Chromium, in English and Japanese: one rule listed (15
 * characters), met as the person types a passphrase of spaces and Japanese; a breached password named live as
 * it is typed (the screen's `password-check` step), the note cleared when the password changes, and the same
 * words when the service refuses one at submission. Typed and submitted by keyboard; axe-core finds no serious
 * or critical violation with the note shown.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { EN, fill, type LoginTexts } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { seriousViolations } from '../support/axe.js';
import { saasWithScreen } from '../support/passkey-screen.js';
import { chromiumMissing, launchChromium, openPage } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

const skip = chromiumMissing();
const LANGS: [string, LoginTexts][] = [
  ['en', EN],
  ['ja', JA],
];
/** Long enough for length first, and on the breached list. */
const BREACHED = 'qwertyuiopasdfgh';
const PASSPHRASE = '春はあけぼの やうやう白くなりゆく';

let h: Harness;
let browser: Browser;
let admin: SignedClient;
let loginUrl: string;

(skip ? describe.skip : describe)('the length-first rules and the breach note on the hosted screen, in Chromium', () => {
  beforeAll(async () => {
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    ({ api: admin, loginUrl } = await saasWithScreen(h));
    const set = await admin.put('/sign-in-settings', {
      self_regist: { enable: true },
      sign_up: { password: 'chosen' },
      password_length_first: { enable: true },
    });
    assert.equal(set.status, 200, set.text);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  describe.each(LANGS)('in %s', (lang, texts) => {
    it('lists one rule, says live that a password was breached, and refuses it in the same words', async () => {
      const page = await openPage(browser, `${loginUrl}sign-up?lang=${lang}`);
      await page.locator('#sign-up-form:not([hidden])').waitFor();
      const rules = () =>
        page.$$eval('#sign-up-password-rules li', (items) =>
          items.map((li) => `${(li as HTMLElement).dataset.rule}: ${li.classList.contains('met') ? 'met' : 'not'}`),
        );
      assert.deepEqual(await rules(), ['length: not']);
      assert.ok(((await page.textContent('#sign-up-password-rules')) ?? '').includes(fill(texts.page.ruleLength, { count: '15' })));

      await page.fill('#sign-up-email', `breached-${lang}@example.com`);
      await page.focus('#sign-up-password');
      await page.keyboard.type(BREACHED);
      assert.deepEqual(await rules(), ['length: met']);
      const note = page.locator('#sign-up-password-breached');
      await page.waitForFunction(
        (text) => document.querySelector('#sign-up-password-breached')?.textContent === text,
        texts.messages.passwordBreached,
      );
      assert.equal(await note.getAttribute('aria-live'), 'polite');
      assert.ok(((await page.getAttribute('#sign-up-password', 'aria-describedby')) ?? '').split(' ').includes('sign-up-password-breached'));
      assert.deepEqual(await seriousViolations(page), []);

      // Submitted anyway, by keyboard: the service refuses it, in the same words.
      await page.fill('#sign-up-password-confirm', BREACHED);
      await page.focus('#sign-up-password-confirm');
      await page.keyboard.press('Enter');
      await page.locator('#error:not([hidden])').waitFor();
      assert.equal(await page.textContent('#error'), texts.messages.passwordBreached);

      // A passphrase of spaces and Japanese: the rule met, the note cleared.
      await page.fill('#sign-up-password', '');
      await page.focus('#sign-up-password');
      await page.keyboard.type(PASSPHRASE);
      assert.deepEqual(await rules(), ['length: met']);
      await page.waitForFunction(() => document.querySelector('#sign-up-password-breached')?.textContent === '');
      await page.context().close();
    });
  });
});
