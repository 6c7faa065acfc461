/**
 * The example application in headless Chromium against the real service: e-mail login, ID login,
 * refused sign-ins with their messages, the temporary-password and TOTP steps, sign-out, and that page
 * scripts never see a token. One browser for the file, a fresh context (cookie jar) per test.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EN as APP_EN, JA as APP_JA } from '../../examples/app/page/texts.js';
import { ID_LOGIN_ERRORS } from '../../examples/app/server/sign-in.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { enableTotp, setTemporaryPassword, startAppWorld, type AppWorld } from '../support/example-app.js';

const skip = chromiumMissing();
const SCREENSHOT = '.test-results/example-app-signed-in.png';
const TOKEN_COOKIES = ['access_token', 'id_token', 'refresh_token'];

let world: AppWorld;
let browser: Browser;
/** A tenant with login_domain @example.com, one without, one whose login_domain lacks the @. */
const tenants = { example: '', bare: '', noAt: '' };
const TARO = { email: 'taro@example.com', password: 'Taro#Secret42' };
const NEWCOMER = { email: 'newcomer@example.com', temporary: 'Temp#Pass123', chosen: 'Chosen#Pass456' };
const HANAKO = { email: 'hanako@example.com', password: 'Hanako#Secret7' };
let hanakoTotpSecret: string;

/** The authenticator app's current code, or one that is surely not it. */
function totpCode(secret: string, offByOne = false): string {
  const code = totpCodeAt(base32Decode(secret) as Buffer, totpStep(Date.now() / 1000));
  return offByOne ? String((Number(code) + 1) % 1_000_000).padStart(6, '0') : code;
}

(skip ? describe.skip : describe)('the example app in Chromium', () => {
  beforeAll(async () => {
    [world, browser] = await Promise.all([startAppWorld(), launchChromium()]);
    tenants.example = await world.setup.createTenant('Example', '@example.com');
    tenants.bare = await world.setup.createTenant('No login domain');
    tenants.noAt = await world.setup.createTenant('Login domain without @', 'example.com');
    const taroId = await world.setup.createUser(TARO.email, TARO.password);
    await world.setup.addMember(tenants.example, taroId, TARO.email);
    const newcomerId = await world.setup.createUser(NEWCOMER.email, 'Initial#Pass1');
    await setTemporaryPassword(world.admin, newcomerId, NEWCOMER.temporary);
    const hanakoId = await world.setup.createUser(HANAKO.email, HANAKO.password);
    hanakoTotpSecret = await enableTotp(world.admin, hanakoId, HANAKO.email, HANAKO.password);
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  /** A fresh browser context (its own cookies) on the login page. */
  async function openLogin(query = ''): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${world.app.url}/${query}`);
    await page.locator('#login').waitFor();
    return { context, page };
  }

  async function emailLogin(page: Page, email: string, password: string) {
    await page.fill('#email', email);
    await page.fill('#email-password', password);
    await page.click('#email-form button[type=submit]');
  }

  it('signs in through the hosted login screen with PKCE and comes back signed in', async () => {
    const { context, page } = await openLogin();
    await page.click('#hosted-sign-in');
    await page.waitForURL((url) => url.pathname.startsWith('/v1/auth/login/'));
    const screen = new URL(page.url()).searchParams;
    assert.match(screen.get('state') ?? '', /^[A-Za-z0-9_-]{32}$/);
    // Only the challenge travels; the verifier stays in the app's HttpOnly cookie for its callback.
    assert.match(screen.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(screen.get('code_challenge_method'), 'S256');
    await page.fill('#username', TARO.email);
    await page.fill('#password', TARO.password);
    await page.click('#sign-in-form button[type=submit]');
    await page.waitForURL(`${world.app.url}/`);
    await expectSignedInAs(page, TARO.email);
    const names = (await context.cookies()).map((cookie) => cookie.name);
    assert.ok(names.includes('access_token') && !names.includes('hosted_state'), names.join());
    await context.close();
  });

  it('gets a code from the screen that GET /credentials never answers: only the app’s verifier trades it', async () => {
    const { context, page } = await openLogin();
    let code = '';
    // The browser is stopped at the callback, so the app never trades this code.
    await page.route(`${world.app.url}/callback*`, async (route) => {
      code = new URL(route.request().url()).searchParams.get('code') ?? '';
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'stopped' });
    });
    await page.click('#hosted-sign-in');
    await page.waitForURL((url) => url.pathname.startsWith('/v1/auth/login/'));
    await page.fill('#username', TARO.email);
    await page.fill('#password', TARO.password);
    await page.click('#sign-in-form button[type=submit]');
    await page.waitForURL((url) => url.pathname === '/callback');
    assert.match(code, /^[0-9a-f-]{36}$/);
    const asked = await world.admin.get<{ type: string }>(`/credentials?code=${code}`);
    assert.equal(asked.status, 404, asked.text);
    assert.equal(asked.body.type, 'code_not_found');
    await context.close();
  });

  it('never trades a code at a callback whose state it did not send: it starts a sign-in of its own', async () => {
    const res = await fetch(`${world.app.url}/callback?code=00000000-0000-4000-8000-000000000000&state=forged`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const screen = new URL(res.headers.get('location') ?? '');
    assert.ok(screen.pathname.startsWith('/v1/auth/login/'), screen.toString());
    assert.match(screen.searchParams.get('state') ?? '', /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(screen.searchParams.get('state'), 'forged');
    assert.equal(res.headers.get('set-cookie')?.includes('access_token'), false);
    assert.match(res.headers.get('set-cookie') ?? '', /^hosted_state=[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43};/);
    // A state of as many characters as the cookie's but more bytes is not this browser's either.
    const cookie = 'hosted_state=' + 'A'.repeat(32) + '.' + 'B'.repeat(43);
    const wide = await fetch(`${world.app.url}/callback?code=x&state=${encodeURIComponent('é'.repeat(32))}`, {
      headers: { cookie },
      redirect: 'manual',
    });
    assert.equal(wide.status, 302);
    assert.equal(wide.headers.get('set-cookie')?.includes('access_token'), false);
  });

  it('takes the screen opened directly (the start banner\'s "Login screen") through to signed in, with one sign-in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${world.harness.api.baseUrl}/login/${world.saasId}/`);
    await page.fill('#username', TARO.email);
    await page.fill('#password', TARO.password);
    await page.click('#sign-in-form button[type=submit]');
    // Back at the app without its state: it sends the browser to sign in afresh with its own state, which the
    // screen's session answers at once (docs/login-screen.md, "Signed in once"): no second form.
    await page.waitForURL(`${world.app.url}/`);
    await expectSignedInAs(page, TARO.email);
    await context.close();
  });

  async function idLogin(page: Page, userId: string, password: string) {
    await page.fill('#user-id', userId);
    await page.fill('#id-password', password);
    await page.click('#id-form button[type=submit]');
  }

  /** Waits for the sign-in to end either way, so a refusal fails the test at once with its message. */
  async function expectSignedInAs(page: Page, email: string) {
    await page.locator('#signed-in:not([hidden]), #error:not([hidden])').first().waitFor();
    if (await page.isVisible('#error')) assert.fail(`sign-in refused: ${await page.textContent('#error')}`);
    assert.equal(await page.textContent('#who'), email);
  }

  async function expectError(page: Page, message: string) {
    const error = page.locator('#error');
    await error.waitFor();
    assert.equal(await error.textContent(), message);
  }

  /** What the page's own scripts can read (the test runs in Node: the expression runs in the page). */
  const scriptCookies = (page: Page) => page.evaluate<string>('document.cookie');

  async function tokenCookies(context: BrowserContext) {
    return (await context.cookies()).filter((c) => TOKEN_COOKIES.includes(c.name));
  }

  it('signs in by e-mail; the tokens are HttpOnly cookies that document.cookie never shows', async () => {
    const { context, page } = await openLogin();
    await emailLogin(page, TARO.email, TARO.password);
    await expectSignedInAs(page, TARO.email);
    // The tenant has no plan and the SaaS no metering unit: the plan line says so.
    assert.deepEqual(await page.locator('#tenants li').allTextContents(), ['Example: Administrator (Production)Plan: none']);
    assert.deepEqual(await page.locator('#tenants li .plan').allTextContents(), ['Plan: none']);
    mkdirSync('.test-results', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    const cookies = await tokenCookies(context);
    assert.deepEqual(cookies.map((c) => c.name).sort(), TOKEN_COOKIES);
    for (const cookie of cookies) {
      assert.equal(cookie.httpOnly, true, cookie.name);
      assert.equal(cookie.sameSite, 'Strict', cookie.name);
    }
    assert.equal(await scriptCookies(page), '');
    // Still signed in after a reload: the page asks the backend, which reads the cookies.
    await page.reload();
    await expectSignedInAs(page, TARO.email);
    assert.equal(await scriptCookies(page), '');
    await context.close();
  });

  it('signs in by ID login: username taro and the tenant id from ?tenant_id=', async () => {
    const { context, page } = await openLogin(`?tenant_id=${tenants.example}`);
    assert.equal(await page.getAttribute('#tab-id', 'aria-selected'), 'true');
    assert.equal(await page.inputValue('#tenant-id'), tenants.example);
    await idLogin(page, 'taro', TARO.password);
    await expectSignedInAs(page, TARO.email);
    assert.equal(await scriptCookies(page), '');
    await context.close();
  });

  it('shows an error for a wrong password and sets no token', async () => {
    const { context, page } = await openLogin();
    await emailLogin(page, TARO.email, 'Wrong#Password1');
    await expectError(page, 'Incorrect username or password.');
    assert.equal(await page.isVisible('#login'), true);
    assert.deepEqual(await tokenCookies(context), []);
    await context.close();
  });

  it('says so when the tenant has no login_domain', async () => {
    const { context, page } = await openLogin(`?tenant_id=${tenants.bare}`);
    await idLogin(page, 'taro', TARO.password);
    await expectError(page, ID_LOGIN_ERRORS.noLoginDomain);
    await context.close();
  });

  it('fails to authenticate when login_domain lacks the @ (as the spec of ID login says)', async () => {
    const { context, page } = await openLogin(`?tenant_id=${tenants.noAt}`);
    await idLogin(page, 'taro', TARO.password);
    // USERNAME "taroexample.com" names nobody: the proof fails like a wrong password.
    await expectError(page, 'Incorrect username or password.');
    assert.deepEqual(await tokenCookies(context), []);
    await context.close();
  });

  it('asks for a new password after a temporary one, then signs in with it', async () => {
    const { context, page } = await openLogin();
    await emailLogin(page, NEWCOMER.email, NEWCOMER.temporary);
    await page.locator('#new-password-form').waitFor();
    assert.deepEqual(await tokenCookies(context), []);
    // The policy's refusal is shown, and the same challenge takes the next try.
    await page.fill('#new-password', 'short');
    await page.click('#new-password-form button[type=submit]');
    await expectError(page, 'The new password must be at least 8 characters');
    await page.fill('#new-password', NEWCOMER.chosen);
    await page.click('#new-password-form button[type=submit]');
    await expectSignedInAs(page, NEWCOMER.email);
    await context.close();

    const again = await openLogin();
    await emailLogin(again.page, NEWCOMER.email, NEWCOMER.chosen);
    await expectSignedInAs(again.page, NEWCOMER.email);
    await again.context.close();
  });

  it('asks for the authenticator code when TOTP MFA is on', async () => {
    const { context, page } = await openLogin();
    await emailLogin(page, HANAKO.email, HANAKO.password);
    await page.locator('#code-form').waitFor();
    assert.equal(await page.textContent('#code-prompt'), 'Enter the code from your authenticator app');
    assert.deepEqual(await tokenCookies(context), []);
    await page.fill('#code', totpCode(hanakoTotpSecret, true));
    await page.click('#code-form button[type=submit]');
    await expectError(page, 'The code is wrong or has expired.');
    await page.fill('#code', totpCode(hanakoTotpSecret));
    await page.click('#code-form button[type=submit]');
    await expectSignedInAs(page, HANAKO.email);
    assert.equal(await scriptCookies(page), '');
    await context.close();
  });

  it('signs out: the session cookies are gone and the login form is back', async () => {
    const { context, page } = await openLogin();
    await emailLogin(page, TARO.email, TARO.password);
    await expectSignedInAs(page, TARO.email);
    await page.click('#sign-out');
    await page.locator('#login').waitFor();
    assert.deepEqual(await tokenCookies(context), []);
    await page.reload();
    await page.locator('#login').waitFor();
    assert.equal(await page.isVisible('#signed-in'), false);
    await context.close();
  });

  describe('in Japanese and English', () => {
    it('follows ?lang=, then the switch (by keyboard, remembered), then the browser’s language; English otherwise', async () => {
      const { context, page } = await openLogin('?lang=ja');
      assert.equal(await page.getAttribute('html', 'lang'), 'ja');
      assert.equal(await page.textContent('#email-form button[type=submit]'), APP_JA.signIn);
      assert.equal(await page.title(), APP_JA.title);
      assert.deepEqual(await seriousViolations(page), []);
      await emailLogin(page, TARO.email, 'Wrong#Password1');
      await expectError(page, APP_JA.server['Incorrect username or password.']);
      await page.locator('nav.languages button[lang=en]').focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.equal(await page.textContent('#email-form button[type=submit]'), APP_EN.signIn);
      assert.equal(await page.getAttribute('nav.languages button[lang=en]', 'aria-pressed'), 'true');
      assert.equal(new URL(page.url()).searchParams.has('lang'), false, 'the choice, not the link, decides now');
      assert.deepEqual(await seriousViolations(page), []);
      await page.reload();
      await page.locator('#login').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'en', 'the switch’s cookie');
      await context.close();

      const ja = await browser.newContext({ locale: 'ja-JP' });
      const jaPage = await ja.newPage();
      await jaPage.goto(`${world.app.url}/`);
      await jaPage.locator('#login').waitFor();
      assert.equal(await jaPage.getAttribute('html', 'lang'), 'ja');
      assert.equal(await jaPage.textContent('#tab-id'), APP_JA.idTab);
      await ja.close();
      const fr = await browser.newContext({ locale: 'fr-FR' });
      const frPage = await fr.newPage();
      await frPage.goto(`${world.app.url}/`);
      await frPage.locator('#login').waitFor();
      assert.equal(await frPage.getAttribute('html', 'lang'), 'en');
      await fr.close();
    });

    it('sends the page itself in the browser’s language (as the hosted screen does); ?lang= and the switch still win', async () => {
      const page = async (headers: Record<string, string>, query = '') => {
        const res = await fetch(`${world.app.url}/${query}`, { headers });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('vary') ?? '', /Accept-Language/);
        const html = await res.text();
        return { lang: /<html lang="([^"]*)">/.exec(html)?.[1], html };
      };
      const ja = await page({ 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.8' });
      assert.equal(ja.lang, 'ja');
      assert.ok(ja.html.includes(`<title data-text="title">${APP_JA.title}</title>`), ja.html);
      assert.ok(ja.html.includes(`data-text="idTab">${APP_JA.idTab}</button>`));
      assert.ok(ja.html.includes(`aria-label="${APP_JA.languageSwitch}"`));
      assert.equal(ja.html.includes(APP_EN.signIn), false, 'nothing left in English');
      assert.equal((await page({ 'accept-language': 'fr-FR,fr;q=0.9' })).lang, 'en');
      assert.equal((await page({ 'accept-language': 'fr, ja;q=0, en;q=0.5' })).lang, 'en', 'q=0 refuses ja');
      assert.equal((await page({})).lang, 'en');
      assert.equal((await page({ 'accept-language': 'ja' }, '?lang=en')).lang, 'en', '?lang= wins');
      assert.equal((await page({ 'accept-language': 'en' }, '?lang=ja')).lang, 'ja');
      assert.equal((await page({ 'accept-language': 'ja', cookie: 'app_lang=en' })).lang, 'en', 'the switch’s cookie');

      // A Japanese browser that runs no script reads the page in Japanese: the server chose, not the script.
      const context = await browser.newContext({ locale: 'ja-JP', javaScriptEnabled: false });
      const noScript = await context.newPage();
      await noScript.goto(`${world.app.url}/`);
      assert.equal(await noScript.getAttribute('html', 'lang'), 'ja');
      assert.equal(await noScript.textContent('#tab-email'), APP_JA.emailTab);
      await context.close();
    });

    it('signs in with the keyboard alone in Japanese and shows the signed-in page in Japanese', async () => {
      const { context, page } = await openLogin('?lang=ja');
      await page.locator('#email').focus();
      await page.keyboard.type(TARO.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(TARO.password);
      await page.keyboard.press('Enter');
      await expectSignedInAs(page, TARO.email);
      assert.equal(await page.textContent('#sign-out'), APP_JA.signOut);
      assert.deepEqual(await seriousViolations(page), []);
      await context.close();
    });
  });
});
