/**
 * Sign-up with a chosen password (the sign-in setting sign_up.password "chosen", our extension), in Chromium,
 * in English and Japanese: the SaaS's password rules listed up front and marked as the person types, the
 * show/hide toggle worked by keyboard, the confirmation field holding the form back until it matches, the
 * mailed code, and the person signed in at the application with the password they chose. axe-core finds no
 * serious or critical violation on the new forms. The other new-password fields (first sign-in, reset) list
 * the same rules.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { EN, fill, type LoginTexts } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium, openPage } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';

const skip = chromiumMissing();
const CHOSEN = 'Chosen#Pass42';
const LANGS: [string, LoginTexts][] = [
  ['en', EN],
  ['ja', JA],
];

let h: Harness;
let browser: Browser;
let admin: SignedClient;
let saasId: string;
let loginUrl: string;
let app: Server;

(skip ? describe.skip : describe)('sign-up with a chosen password, in Chromium', () => {
  beforeAll(async () => {
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    ({ saasId, client: admin } = await h.newSaas());
    loginUrl = `${h.api.baseUrl}/login/${saasId}/`;
    app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="app">back at the app</p>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    assert.equal((await admin.put('/auth-info', { callback_url: callback })).status, 200);
    const set = await admin.put('/sign-in-settings', { self_regist: { enable: true }, sign_up: { password: 'chosen' } });
    assert.equal(set.status, 200, set.text);
  });
  afterAll(async () => {
    await browser?.close();
    app?.closeAllConnections();
    await new Promise((resolve) => app?.close(resolve));
    await h?.close();
  });

  const open = (url: string) => openPage(browser, url);

  /** Each rule's state as the page shows it: `rule: met|not`. */
  const ruleStates = (page: Page, field: string) =>
    page.$$eval(`#${field}-rules li`, (items) =>
      items.map((li) => `${(li as HTMLElement).dataset.rule}: ${li.classList.contains('met') ? 'met' : 'not'}`),
    );

  it('keeps axe clean on the new fields in a dark theme, with the password shown and the rules partly met', async () => {
    assert.equal((await admin.patch('/login-theme', { mode: 'dark', primary_color: '#7c3aed' })).status, 200);
    try {
      const page = await open(`${loginUrl}sign-up`);
      await page.locator('#sign-up-form:not([hidden])').waitFor();
      assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('main') as Element).colorScheme), 'dark');
      await page.fill('#sign-up-password', 'abc4');
      await page.fill('#sign-up-password-confirm', 'abc');
      await page.click('#sign-up-form button.reveal');
      assert.deepEqual(await seriousViolations(page), []);
      await page.context().close();
    } finally {
      await admin.patch('/login-theme', { mode: 'light' });
    }
  });

  describe.each(LANGS)('in %s', (lang, texts) => {
    const email = `chooser-${lang}@example.com`;

    it('lists the rules, checks them live, shows and hides by keyboard, holds the form until the passwords match', async () => {
      const page = await open(`${loginUrl}sign-up?lang=${lang}`);
      await page.locator('#sign-up-form:not([hidden])').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      const form = (await page.textContent('#sign-up-form')) ?? '';
      for (const text of [
        texts.page.signUpChosenIntro,
        texts.page.passwordRules,
        fill(texts.page.ruleLength, { count: '8' }),
        texts.page.ruleSymbol,
      ]) {
        assert.ok(form.includes(text), `${text} in ${form}`);
      }
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(await ruleStates(page, 'sign-up-password'), [
        'length: not',
        'lowercase: not',
        'uppercase: not',
        'number: not',
        'symbol: not',
        'outer-space: not',
      ]);

      // Typed by keyboard: each rule marked as it is met, its state said in words too.
      await page.fill('#sign-up-email', email);
      await page.focus('#sign-up-password');
      await page.keyboard.type('abc4');
      assert.deepEqual(await ruleStates(page, 'sign-up-password'), [
        'length: not',
        'lowercase: met',
        'uppercase: not',
        'number: met',
        'symbol: not',
        'outer-space: met',
      ]);
      assert.equal(await page.textContent('#sign-up-password-rules li[data-rule=lowercase] .rule-state'), texts.messages.ruleMet);
      assert.equal(await page.textContent('#sign-up-password-rules li[data-rule=uppercase] .rule-state'), texts.messages.ruleNotMet);

      // The toggle is the next control: a real button, pressed with the keyboard, its state in aria-pressed.
      await page.keyboard.press('Tab');
      const toggle = page.locator('#sign-up-form button.reveal');
      assert.equal(await toggle.evaluate((el) => el === document.activeElement), true);
      assert.equal(await toggle.textContent(), texts.page.showPassword);
      await page.keyboard.press('Space');
      assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
      assert.equal(await page.getAttribute('#sign-up-password', 'type'), 'text');
      assert.equal(await page.getAttribute('#sign-up-password-confirm', 'type'), 'text');
      await page.keyboard.press('Enter');
      assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
      assert.equal(await page.getAttribute('#sign-up-password', 'type'), 'password');

      await page.fill('#sign-up-password', CHOSEN);
      assert.ok((await ruleStates(page, 'sign-up-password')).every((state) => state.endsWith(': met')));
      await page.fill('#sign-up-password-confirm', 'Other#Pass42');
      assert.equal(await page.textContent('#sign-up-password-match'), texts.messages.passwordsDiffer);
      await page.click('#sign-up-form button[type=submit]');
      // Held back by the browser: no mail went out, the form is still there.
      assert.equal(await page.isVisible('#sign-up-form'), true);
      assert.equal(await page.$eval('#sign-up-password-confirm', (el) => (el as HTMLInputElement).validity.valid), false);
      assert.equal((await deliveredMail(h.sesUrl, saasId, email)).length, 0);
      await page.fill('#sign-up-password-confirm', CHOSEN);
      assert.equal(await page.textContent('#sign-up-password-match'), texts.messages.passwordsMatch);
      await page.context().close();
    });

    it('mails a code, makes the account with it, and signs the person in with the password they chose', async () => {
      const page = await open(`${loginUrl}sign-up?lang=${lang}`);
      await page.locator('#sign-up-form:not([hidden])').waitFor();
      await page.fill('#sign-up-email', email);
      await page.fill('#sign-up-password', CHOSEN);
      await page.fill('#sign-up-password-confirm', CHOSEN);
      await page.click('#sign-up-form button[type=submit]');
      await page.locator('#sign-up-code-form:not([hidden])').waitFor();
      assert.equal(await page.textContent('#sign-up-code-intro'), fill(texts.page.signUpCodeIntro, { email }));
      assert.equal(await page.textContent('#status'), fill(texts.messages.signUpCodeSent, { email }));
      assert.deepEqual(await seriousViolations(page), []);
      const users = async () => (await admin.get<{ users: { email: string }[] }>('/users')).body.users.filter((u) => u.email === email);
      assert.equal((await users()).length, 0, 'no account before the code');

      await page.fill('#sign-up-code', '000000');
      await page.click('#sign-up-code-form button[type=submit]');
      await page.locator('#error:not([hidden])').waitFor();
      assert.equal(await page.textContent('#error'), texts.messages.wrongCode);

      const code = /(\d{6})/.exec((await deliveredMail(h.sesUrl, saasId, email)).at(-1)?.body.text ?? '')?.[1];
      assert.ok(code);
      await page.fill('#sign-up-code', code);
      await page.click('#sign-up-code-form button[type=submit]');
      await page.locator('#app').waitFor();
      assert.match(page.url(), /\/callback\?code=/);
      assert.equal((await users()).length, 1);
      await page.context().close();
    });

    it('lists the same rules on the first sign-in and reset forms', async () => {
      const page = await open(`${loginUrl}?lang=${lang}`);
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      for (const field of ['new-password', 'reset-password']) {
        assert.equal(await page.locator(`#${field}-rules li`).count(), 6, field);
        assert.equal(await page.getAttribute(`#${field}`, 'aria-describedby'), `${field}-rules ${field}-breached`);
        assert.equal(await page.locator(`#${field} + button.reveal[aria-pressed=false][aria-controls=${field}]`).count(), 1, field);
      }
      await page.context().close();
    });
  });
});
