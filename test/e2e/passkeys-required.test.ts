/**
 * Passkeys required (sign-in setting `passkeys.required`, issue 43) on the hosted screen in headless Chromium,
 * in English and Japanese, with Chromium's virtual authenticator: a person with no passkey signs in with their
 * password, is asked to create a passkey (the password alone does not reach the application), creates it and is
 * signed in with it; signed out, their password alone is refused in their words, and the passkey signs them in.
 * axe finds no serious violation on the enrolment page or the refusal. The screen is on `<saas id>.localhost`.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { EN } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { seriousViolations } from '../support/axe.js';
import { addVirtualAuthenticator, chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { startSaasBackend, type SaasBackend } from '../support/saas-backend.js';

const skip = chromiumMissing();
const PASSWORD = 'Haruko#Secret42';

let h: Harness;
let browser: Browser;
let admin: SignedClient;
let loginUrl: string;
let backend: SaasBackend;

(skip ? describe.skip : describe)('passkeys required on the hosted login screen in Chromium', () => {
  beforeAll(async () => {
    let saasId: string;
    [h, browser] = await Promise.all([startHarness({ perSaasHosts: true }), launchChromium()]);
    ({ saasId, client: admin } = await h.newSaas());
    loginUrl = `http://${saasId}.localhost:${h.api.port}/v1/auth/login/${saasId}/`;
    backend = await startSaasBackend(admin, loginUrl);
    assert.equal((await admin.put('/auth-info', { callback_url: backend.callbackUrl })).status, 200);
    assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: true, required: true } })).status, 200);
  });
  afterAll(async () => {
    await browser?.close();
    await backend?.close();
    await h?.close();
  });

  /** A browser of its own (its language, a virtual authenticator that holds the person's passkey). */
  async function personIn(locale: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await addVirtualAuthenticator(context, page);
    return { context, page };
  }

  for (const [lang, locale, texts] of [
    ['en', 'en-US', EN],
    ['ja', 'ja-JP', JA],
  ] as const) {
    it(`${lang}: a password enrols the first passkey, which signs in; the password alone is refused after`, async () => {
      const email = `haruko-${lang}@example.com`;
      await new ServiceSetup(admin).createUser(email, PASSWORD);
      const { context, page } = await personIn(locale);
      const accessible = async (what: string) => assert.deepEqual(await seriousViolations(page), [], what);
      const backAtTheSaas = async () => {
        await Promise.race([page.waitForURL(`${backend.url}/`), page.locator('#error:not([hidden])').waitFor()]);
        if (page.url().startsWith(loginUrl)) assert.fail(`refused: ${await page.textContent('#error')}`);
        assert.equal(await page.textContent('#who'), email);
      };
      const signInWithPassword = async () => {
        await page.goto(`${backend.url}/dashboard`);
        assert.ok(page.url().startsWith(loginUrl));
        await page.fill('#username', email);
        await page.fill('#password', PASSWORD);
        await page.press('#password', 'Enter');
      };

      await signInWithPassword();
      await page.locator('#passkeys-form:not([hidden])').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      assert.equal(await page.textContent('#passkeys-intro'), texts.page.passkeysRequired);
      assert.equal(await page.isVisible('#passkeys-continue'), false, 'no way on without a passkey');
      assert.ok(page.url().startsWith(loginUrl), 'the password alone did not reach the application');
      await accessible('the enrolment page');
      // Keyboard: the page moves the focus to "Add a passkey", and Enter creates it.
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'add-passkey');
      await page.keyboard.press('Enter');
      await backAtTheSaas();
      assert.equal(backend.callbacks.at(-1)?.status, 200, 'the code is traded for the credentials');

      await context.clearCookies();
      await page.goto(`${loginUrl}sign-out?redirect_uri=${encodeURIComponent(`${backend.url}/`)}`);
      await signInWithPassword();
      await page.locator('#error:not([hidden])').waitFor();
      assert.equal(await page.textContent('#error'), texts.messages.passkeyRequired);
      await accessible('the refusal of a password alone');

      await page.click('#sign-in-with-passkey');
      await backAtTheSaas();
      await context.close();
    });
  }
});
