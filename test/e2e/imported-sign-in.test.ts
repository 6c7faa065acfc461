/**
 * An imported user's first sign-in on the hosted screen (issue 39), in Chromium, in English and Japanese: the
 * person types the password of the old system; SRP refuses (the user has a bcrypt hash and no verifier), the
 * page sends the password once to its password step, the hash is checked and replaced, and the person is back
 * at the application. A wrong password says how a user moved without a password sets one. axe-core finds no
 * serious or critical violation on the refusal.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { EN, type LoginTexts } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium, openPage } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

const skip = chromiumMissing();
const LANGS: [string, LoginTexts][] = [
  ['en', EN],
  ['ja', JA],
];
const BCRYPT = { algorithm: 'bcrypt', hash: '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' };
const OLD_PASSWORD = 'U*U';

let h: Harness;
let browser: Browser;
let api: SignedClient;
let loginUrl: string;
let app: Server;
let callback: string;

(skip ? describe.skip : describe)("an imported user's first sign-in, in Chromium", () => {
  beforeAll(async () => {
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    const { saasId } = await h.newSaas();
    api = await h.newKey(saasId, ['*', 'migration:write']);
    loginUrl = `${h.api.baseUrl}/login/${saasId}/`;
    app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="app">back at the app</p>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    assert.equal((await api.put('/auth-info', { callback_url: callback })).status, 200);
    const rows = LANGS.map(([lang]) =>
      JSON.stringify({ type: 'user', external_id: `u-${lang}`, email: `moved-${lang}@example.com`, password_hash: BCRYPT }),
    );
    const started = await api.post('/migration/imports', { jsonl: rows.join('\n') });
    assert.equal(started.status, 201, started.text);
    await runScheduledWork();
  });
  afterAll(async () => {
    await browser?.close();
    app?.closeAllConnections();
    await new Promise((resolve) => app?.close(resolve));
    await h?.close();
  });

  describe.each(LANGS)('in %s', (lang, texts) => {
    const email = `moved-${lang}@example.com`;

    it('a wrong password is refused with the words for a moved account, and axe finds nothing serious', async () => {
      const page = await openPage(browser, `${loginUrl}?lang=${lang}`);
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      await page.fill('#username', email);
      await page.fill('#password', 'not the old one');
      await page.click('#sign-in-form button[type=submit]');
      await page.locator('#error:not([hidden])').waitFor();
      assert.equal(await page.textContent('#error'), texts.messages.wrongCredentialsMoved);
      assert.deepEqual(await seriousViolations(page), []);
      await page.context().close();
    });

    it('the old password signs in by keyboard, back at the application, and SRP alone signs in after', async () => {
      assert.notEqual((await srpSignIn(api, email, OLD_PASSWORD)).status, 200, 'no verifier before the first sign-in');
      const page = await openPage(browser, `${loginUrl}?lang=${lang}`);
      await page.focus('#username');
      await page.keyboard.type(email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(OLD_PASSWORD);
      await page.keyboard.press('Enter');
      await Promise.race([page.waitForURL(/\/callback\?code=/), page.locator('#error:not([hidden])').waitFor()]);
      if (page.url().startsWith(loginUrl)) assert.fail(`refused: ${await page.textContent('#error')}`);
      assert.equal(await page.textContent('#app'), 'back at the app');
      await page.context().close();
      assert.equal((await srpSignIn(api, email, OLD_PASSWORD)).status, 200);
    });
  });
});
