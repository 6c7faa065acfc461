/**
 * Passkeys on the hosted screen in headless Chromium, with Chromium's own virtual authenticator (DevTools
 * protocol, WebAuthn domain: CTAP2, internal transport, resident keys, user verification): a person signs in
 * with their password, adds the passkey the screen offers, signs out, and signs in with the passkey alone; then
 * sees and removes it on the screen. A minute spent on the offer does not outlive the sign-in's code. The screen is on the SaaS's own host, `<saas id>.localhost`: the relying
 * party is the host that serves the screen.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { EN } from '../../web/login/texts/en.js';
import { seriousViolations } from '../support/axe.js';
import { addVirtualAuthenticator, chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { startSaasBackend, type SaasBackend } from '../support/saas-backend.js';

const skip = chromiumMissing();
const SCREENSHOTS = '.test-results/login-screen';
const AKIKO = { email: 'akiko@example.com', password: 'Akiko#Secret42' };

let h: Harness;
let browser: Browser;
let admin: SignedClient;
let loginUrl: string;
let backend: SaasBackend;
let akikoId: string;
let saasId: string;

(skip ? describe.skip : describe)('passkeys on the hosted login screen in Chromium', () => {
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [h, browser] = await Promise.all([startHarness({ perSaasHosts: true }), launchChromium()]);
    ({ saasId, client: admin } = await h.newSaas());
    // The SaaS's own host (`<saas id>.localhost`, as LOGIN_DOMAIN gives each SaaS): the passkey's relying party.
    loginUrl = `http://${saasId}.localhost:${h.api.port}/v1/auth/login/${saasId}/`;
    backend = await startSaasBackend(admin, loginUrl);
    assert.equal((await admin.put('/auth-info', { callback_url: backend.callbackUrl })).status, 200);
    assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    akikoId = await new ServiceSetup(admin).createUser(AKIKO.email, AKIKO.password);

    context = await browser.newContext();
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    ({ cdp, authenticatorId } = await addVirtualAuthenticator(context, page));
  });
  afterAll(async () => {
    resetClockForTests();
    await browser?.close();
    await backend?.close();
    await h?.close();
  });

  async function expectBackAtTheSaas() {
    await Promise.race([page.waitForURL(`${backend.url}/`), page.locator('#error:not([hidden])').waitFor()]);
    if (page.url().startsWith(loginUrl)) assert.fail(`refused: ${await page.textContent('#error')}`);
    assert.equal(await page.textContent('#who'), AKIKO.email);
    assert.equal(backend.callbacks.at(-1)?.status, 200, 'the code is traded for the credentials');
  }

  /** Signed out of the SaaS (its session cookie gone) and of the screen: back at the sign-in form. */
  async function signOut() {
    await context.clearCookies();
    await page.goto(`${loginUrl}sign-out?redirect_uri=${encodeURIComponent(`${backend.url}/`)}`);
    assert.ok(page.url().startsWith(loginUrl), 'the SaaS sends a visitor without a session to the screen');
    await page.locator('#sign-in-form:not([hidden])').waitFor();
  }

  /** axe-core over the page as it is now: no serious or critical violation. */
  const accessible = async (what: string) => assert.deepEqual(await seriousViolations(page), [], what);

  const storedCredentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;

  it('offers a passkey after a password sign-in, and registers a discoverable one', async () => {
    await page.goto(`${backend.url}/dashboard`);
    assert.ok(page.url().startsWith(loginUrl));
    assert.equal(await page.textContent('#sign-in-with-passkey'), EN.page.signInWithPasskey);
    await accessible('the sign-in form with the passkey button');
    await page.fill('#username', AKIKO.email);
    await page.fill('#password', AKIKO.password);
    await page.click('#sign-in-form button[type=submit]');
    await page.locator('#passkeys-form:not([hidden])').waitFor();
    assert.equal(await page.textContent('#passkeys-intro'), EN.page.passkeysOffer);
    assert.equal(await page.textContent('#passkey-list li'), EN.page.noPasskeys);
    await page.screenshot({ path: `${SCREENSHOTS}/passkey-offer.png` });
    await accessible('the passkey offer');
    // The person reads the offer for a minute, longer than a sign-in's code lives: the code starts when they leave.
    setClockForTests(() => Date.now() + 60_000);

    await page.click('#add-passkey');
    await page.locator('#status', { hasText: EN.messages.passkeyAdded }).waitFor();
    assert.equal(await page.locator('#passkey-list .remove-passkey').count(), 1);
    const [credential, ...more] = await storedCredentials();
    assert.equal(more.length, 0);
    assert.equal(credential?.isResidentCredential, true, 'a discoverable credential');
    assert.equal(credential?.rpId, `${saasId}.localhost`, 'for the host that serves the screen');
    await page.screenshot({ path: `${SCREENSHOTS}/passkeys.png` });
    await accessible('the list of passkeys');

    await page.click('#passkeys-continue');
    await expectBackAtTheSaas();
    const listed = await admin.get<{ passkeys: { last_used_at: number }[] }>(`/users/${akikoId}/passkeys`);
    assert.equal(listed.body.passkeys.length, 1);
    assert.equal(listed.body.passkeys[0]?.last_used_at, 0);
    resetClockForTests();
  });

  it('signs in with the passkey alone after signing out', async () => {
    await signOut();
    await page.click('#sign-in-with-passkey');
    await expectBackAtTheSaas();
    const listed = await admin.get<{ passkeys: { last_used_at: number }[] }>(`/users/${akikoId}/passkeys`);
    assert.ok((listed.body.passkeys[0]?.last_used_at ?? 0) > 0, 'its use is recorded');
  });

  it('shows the person their passkeys when asked, and removes one; a removed passkey signs in no more', async () => {
    await signOut();
    await page.check('#manage-passkeys');
    await page.click('#sign-in-with-passkey');
    await page.locator('#passkeys-form:not([hidden])').waitFor();
    assert.equal(await page.textContent('#passkeys-intro'), EN.page.passkeysIntro);
    await page.click('#passkey-list .remove-passkey');
    await page.locator('#status', { hasText: EN.messages.passkeyRemoved }).waitFor();
    assert.equal(await page.textContent('#passkey-list li'), EN.page.noPasskeys);
    assert.deepEqual((await admin.get<{ passkeys: unknown[] }>(`/users/${akikoId}/passkeys`)).body.passkeys, []);
    await page.click('#passkeys-continue');
    await expectBackAtTheSaas();

    // The authenticator still holds the credential; the screen no longer knows it.
    await signOut();
    await page.click('#sign-in-with-passkey');
    await page.locator('#error:not([hidden])').waitFor();
    assert.equal(await page.textContent('#error'), EN.messages.passkeyRefused);
  });
});
