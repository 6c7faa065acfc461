/**
 * Signing in with Google, end to end in headless Chromium: an application signs its users in through the
 * service's OpenID Connect endpoints (openid-client), the person picks "Sign in with Google" on the hosted
 * screen, and a real OpenID Connect provider from npm stands in for Google (local/google-stand-in.ts). Who the
 * account signs in as follows shared/domain/sign-in/federation.ts: a new user while self sign-up is on, the
 * linked user after that, and for an address that already has an account, a mailed code first.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { EN } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import type { LoginTexts } from '../../web/login/texts/en.js';
import { seriousViolations } from '../support/axe.js';
import { startGoogleStandIn, type GoogleStandIn } from '../../local/google-stand-in.js';
import { config, resetConfigForTests } from '../../shared/config.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { authorizationAttempt } from '../support/oidc-request.js';

const skip = chromiumMissing();
const SCREENSHOTS = '.test-results/federation';
const TARO = { email: 'taro.fed@example.com', password: 'Taro#Secret42', sub: 'google-taro' };
const NEW = { email: 'newcomer.fed@gmail.test', sub: 'google-newcomer' };
const UNVERIFIED = { email: 'unverified.fed@gmail.test', sub: 'google-unverified' };
/** One new account per language: the consents are asked once, before the account exists. */
const CONSENTER = (lang: string) => ({ email: `consenter-${lang}.fed@gmail.test`, sub: `google-consenter-${lang}` });
const LANGS: [string, LoginTexts][] = [
  ['en', EN],
  ['ja', JA],
];

let h: Harness;
let browser: Browser;
let google: GoogleStandIn;
let admin: SignedClient;
let saasId: string;
let taroId: string;
let app: Server;
let callbackUrl: string;
let client: oidc.Configuration;

beforeAll(async () => {
  if (skip) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  [h, browser] = await Promise.all([startHarness({ issuerIsApi: true }), launchChromium()]);
  google = await startGoogleStandIn({
    returnUrl: `${config().publicBaseUrl}/oauth2/idpresponse`,
    accounts: [
      { sub: TARO.sub, email: TARO.email, email_verified: true },
      { sub: NEW.sub, email: NEW.email, email_verified: true },
      { sub: UNVERIFIED.sub, email: UNVERIFIED.email, email_verified: false },
      ...LANGS.map(([lang]) => ({ sub: CONSENTER(lang).sub, email: CONSENTER(lang).email, email_verified: true })),
    ],
  });
  process.env.GOOGLE_ISSUER = google.issuer;
  resetConfigForTests();
  // The application: its callback page only says it was reached.
  app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="app">back at the app</p>'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
});
afterAll(async () => {
  await browser?.close();
  await google?.close();
  app?.closeAllConnections();
  await new Promise((resolve) => app?.close(resolve));
  await h?.close();
});

/** Every screen on the API's origin, then on hosts of their own: the flow crosses to the API's host, where Google returns. */
const onEachHosting = (skip ? describe.skip : describe).each([false, true]);

onEachHosting('signing in with Google (a stand-in OpenID Connect provider) in Chromium, own hosts %s', (perSaasHosts) => {
  beforeAll(async () => {
    h.usePerSaasHosts(perSaasHosts);
    ({ saasId, client: admin } = await h.newSaas());
    assert.equal((await admin.put('/auth-info', { callback_url: callbackUrl })).status, 200);
    assert.equal((await setGoogleClient(false)).status, 200);
    const created = await admin.post<{ id: string }>('/users', { email: TARO.email, password: TARO.password, attributes: {} });
    taroId = created.body.id;
    client = await oidc.discovery(new URL(h.api.baseUrl), saasId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  });

  /** The SaaS's Google client: the stand-in's. */
  const setGoogleClient = (hidden: boolean) =>
    admin.put('/identity-providers', {
      provider: 'Google',
      identity_provider_props: {
        application_id: google.clientId,
        application_secret: google.clientSecret,
        approval_scope: 'openid email',
        is_button_hidden: hidden,
      },
    });
  const selfSignUp = (enable: boolean) => admin.put('/sign-in-settings', { self_regist: { enable } });

  /** The application sends the browser to the authorization endpoint; the person picks Google and `sub`. */
  async function startWithGoogle(sub: string, locale = 'en-US') {
    const { url, verifier, nonce, state } = await authorizationAttempt(client, callbackUrl);
    // The browser's language (Accept-Language): the screen's pages after Google follow it.
    const page = await (await browser.newContext({ locale })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(url.toString());
    if (perSaasHosts) assert.ok(page.url().startsWith(`http://${saasId}.localhost:${h.api.port}/`), page.url());
    await page.locator('#sign-in-with-google').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/sign-in-with-google.png` });
    await page.click('#sign-in-with-google');
    await page.click(sub === 'deny' ? '#deny' : `#account-${sub}`);
    return { page, verifier, nonce, state };
  }

  /** Back at the application: the code traded with PKCE, the ID token checked; its subject. */
  async function backAtTheApp({ page, verifier, nonce, state }: Awaited<ReturnType<typeof startWithGoogle>>): Promise<string> {
    await page.locator('#app').waitFor();
    const tokens = await oidc.authorizationCodeGrant(client, new URL(page.url()), {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: state,
    });
    await page.context().close();
    return tokens.claims()?.sub as string;
  }

  async function refusedWith(page: Page, message: RegExp) {
    await page.locator('h1', { hasText: EN.page.federationFailedTitle }).waitFor();
    assert.match((await page.textContent('main')) ?? '', message);
    await page.context().close();
  }

  it('refuses a new address while self sign-up is off, and an address Google does not vouch for', async () => {
    assert.equal((await selfSignUp(false)).status, 200);
    await refusedWith((await startWithGoogle(NEW.sub)).page, /does not let people sign themselves up/);
    assert.equal((await selfSignUp(true)).status, 200);
    await refusedWith((await startWithGoogle(UNVERIFIED.sub)).page, /did not vouch for an e-mail address/);
  });

  it('makes a new user for a new address while self sign-up is on, and signs the same user in next time', async () => {
    const first = await backAtTheApp(await startWithGoogle(NEW.sub));
    const users = (await admin.get<{ users: { id: string; email: string }[] }>('/users')).body.users;
    assert.deepEqual(
      users.filter((u) => u.email === NEW.email).map((u) => u.id),
      [first],
    );
    assert.equal(await backAtTheApp(await startWithGoogle(NEW.sub)), first);
  });

  it.each(LANGS)(
    'asks a new account for the consents the sign-up page requires before it exists, in %s; an existing account is not asked',
    async (lang, texts) => {
      const consenter = CONSENTER(lang);
      const consents = (asked: boolean) =>
        admin.patch('/customize-pages', { sign_up_page: { html_contents: '', is_terms_of_service: asked, is_privacy_policy: asked } });
      const usersWith = async (email: string) =>
        (await admin.get<{ users: { id: string; email: string }[] }>('/users')).body.users.filter((u) => u.email === email).map((u) => u.id);
      assert.equal((await consents(true)).status, 200);
      try {
        const { page, ...flow } = await startWithGoogle(consenter.sub, lang === 'ja' ? 'ja-JP' : 'en-US');
        await page.locator('#consent-form:not([hidden])').waitFor();
        await page.screenshot({ path: `${SCREENSHOTS}/consent-${lang}.png` });
        assert.equal(await page.getAttribute('html', 'lang'), lang);
        assert.equal((await page.textContent('h1'))?.trim(), texts.page.consentHeading);
        assert.equal((await page.textContent('#consent-form button[type=submit]'))?.trim(), texts.page.consentContinue);
        const form = (await page.textContent('#consent-form')) ?? '';
        assert.ok(form.includes(texts.page.consentIntro.replace('{email}', consenter.email)), form);
        assert.deepEqual(await seriousViolations(page), []);
        assert.deepEqual(await usersWith(consenter.email), [], 'no account before the consents');
        // Not accepted: the browser holds the form back (required boxes), and nothing is made.
        await page.click('#consent-form button[type=submit]');
        assert.equal(await page.isVisible('#consent-form'), true);
        assert.deepEqual(await usersWith(consenter.email), []);
        await page.check('#consent-terms');
        await page.check('#consent-privacy');
        await page.click('#consent-form button[type=submit]');
        const made = await backAtTheApp({ page, ...flow });
        assert.deepEqual(await usersWith(consenter.email), [made]);
        // Signing in again, and the account made before the consents were asked for: straight to the application.
        assert.equal(await backAtTheApp(await startWithGoogle(consenter.sub)), made);
        assert.deepEqual(await usersWith(NEW.email), [await backAtTheApp(await startWithGoogle(NEW.sub))]);
      } finally {
        assert.equal((await consents(false)).status, 200);
      }
    },
  );

  it('refuses a consent ticket the screen did not seal, and consents not given, in the error shape', async () => {
    const answer = async (page: Page, body: object) =>
      page.evaluate(
        async ({ body, csrf }) => {
          const res = await fetch('api/consent', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
            body: JSON.stringify(body),
          });
          return { status: res.status, body: (await res.json()) as { type: string } };
        },
        { body, csrf: JSON.parse((await page.textContent('#page-data')) ?? '{}').csrf as string },
      );
    assert.equal(
      (await admin.patch('/customize-pages', { sign_up_page: { html_contents: '', is_terms_of_service: true, is_privacy_policy: false } })).status,
      200,
    );
    try {
      // A fresh screen page: a ticket it did not get is refused, whatever it says.
      const screen = await (await browser.newContext()).newPage();
      await screen.goto(`${h.api.baseUrl}/login/${saasId}/consent?ticket=forged`);
      assert.equal(await screen.locator('#consent-form').count(), 0, 'no form for a ticket the screen did not seal');
      await screen.goto(`${h.api.baseUrl}/login/${saasId}/`);
      const forged = await answer(screen, { ticket: 'forged', accepted_terms: true, accepted_privacy: true });
      assert.deepEqual([forged.status, forged.body.type], [400, 'invalid_parameter']);
      const unaccepted = await answer(screen, { ticket: 'forged', accepted_terms: false, accepted_privacy: false });
      assert.deepEqual([unaccepted.status, unaccepted.body.type], [400, 'must_accept']);
      await screen.context().close();
    } finally {
      await admin.patch('/customize-pages', { sign_up_page: { html_contents: '', is_terms_of_service: false, is_privacy_policy: false } });
    }
  });

  it('links an existing account only with the code mailed to it; after that, Google alone signs in', async () => {
    const { page, ...flow } = await startWithGoogle(TARO.sub);
    await page.locator('#link-form:not([hidden])').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/link-code.png` });
    assert.match((await page.textContent('#link-form')) ?? '', new RegExp(TARO.email.replace('.', '\\.')));
    await page.fill('#link-code', '000000');
    await page.click('#link-form button[type=submit]');
    await page.locator('#error:not([hidden])').waitFor();
    // The newest: the stand-in holds the mail of every SaaS of this file.
    const mail = (await deliveredMail(h.sesUrl, saasId, TARO.email)).at(-1);
    const code = /(\d{6})/.exec(mail?.body.text ?? '')?.[1];
    assert.ok(code, mail?.body.text);
    await page.fill('#link-code', code);
    await page.click('#link-form button[type=submit]');
    assert.equal(await backAtTheApp({ page, ...flow }), taroId);
    assert.equal(await backAtTheApp(await startWithGoogle(TARO.sub)), taroId);

    // Unlinked by the SaaS: the next Google sign-in asks for a code again.
    assert.equal((await admin.delete(`/users/${taroId}/providers/google`)).status, 200);
    const again = await startWithGoogle(TARO.sub);
    await again.page.locator('#link-form:not([hidden])').waitFor();
    await again.page.context().close();
  });

  it('comes back to the screen when the person cancels at Google, and hides the button when asked', async () => {
    const { page } = await startWithGoogle('deny');
    await page.locator('h1', { hasText: EN.page.federationFailedTitle }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /access_denied/);
    // The flow's cookie names the SaaS: its page (its theme), with the other ways in to where the app asked.
    assert.equal(await page.locator(`link[rel=stylesheet][href*="/login/${saasId}/assets/theme.css"]`).count(), 1);
    await page.click('#action');
    await page.locator('#sign-in-form:not([hidden])').waitFor();
    assert.ok(new URL(page.url()).searchParams.has('authorization'), `the application's request is kept: ${page.url()}`);
    await page.context().close();
    assert.equal((await setGoogleClient(true)).status, 200);
    const screen = await (await browser.newContext()).newPage();
    await screen.goto(`${h.api.baseUrl}/login/${saasId}/`);
    await screen.locator('#sign-in-form:not([hidden])').waitFor();
    assert.equal(await screen.locator('#sign-in-with-google').count(), 0);
    await screen.context().close();
  });
});
