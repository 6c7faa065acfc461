/**
 * The hosted login screen in headless Chromium, with a SaaS backend built the way the SaaSus samples are
 * (test/support/saas-backend.ts): sent to the screen, signed in with the SRP in the page, back at the callback
 * URL with a code the backend trades once, then a protected page. Also the follow-up steps (temporary password,
 * authenticator code), refusals, the customize settings, invitations, and what the screen must never do
 * (redirect elsewhere, run the SaaS's HTML, answer a form posted without its CSRF token).
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { EN } from '../../web/login/texts/en.js';
import { config } from '../../shared/config.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { chromiumMissing, launchChromium, openPage } from '../support/chromium.js';
import { enableTotp, setTemporaryPassword } from '../support/example-app.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { startSaasBackend, type SaasBackend } from '../support/saas-backend.js';
import { deliveredMail } from '../support/mail.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

const skip = chromiumMissing();
const SCREENSHOTS = '.test-results/login-screen';
const TARO = { email: 'taro@example.com', password: 'Taro#Secret42' };
const NEWCOMER = { email: 'newcomer@example.com', temporary: 'Temp#Pass123', chosen: 'Chosen#Pass456' };
const HANAKO = { email: 'hanako@example.com', password: 'Hanako#Secret7' };
/** A small logo (an 'A' on blue), as a SaaS would upload it. */
const ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSI2NCIgaGVpZ2h0PSI2NCIgdmlld0JveD0iMCAwIDY0IDY0Ij48cmVjdCB3aWR0aD0iNjQiIGhlaWdodD0iNjQiIHJ4PSIxNCIgZmlsbD0iIzJhNDZhZCIvPjxwYXRoIGQ9Ik0xOCA0NiAzMiAxNmwxNCAzMGgtOGwtNi0xNC02IDE0eiIgZmlsbD0iI2ZmZiIvPjwvc3ZnPg==';

let h: Harness;
let browser: Browser;
let admin: SignedClient;
let saasId: string;
let loginUrl: string;
let backend: SaasBackend;
let setup: ServiceSetup;
let tenantId: string;
let hanakoSecret: string;

(skip ? describe.skip : describe)('the hosted login screen in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    ({ saasId, client: admin } = await h.newSaas());
    loginUrl = `${h.api.baseUrl}/login/${saasId}/`;
    backend = await startSaasBackend(admin, loginUrl);
    assert.equal((await admin.put('/auth-info', { callback_url: backend.callbackUrl })).status, 200);
    setup = new ServiceSetup(admin);
    await setup.ensureDefinitions();
    tenantId = await setup.createTenant('Acme');
    const taroId = await setup.createUser(TARO.email, TARO.password);
    await setup.addMember(tenantId, taroId, TARO.email);
    const newcomerId = await setup.createUser(NEWCOMER.email, 'Initial#Pass1');
    await setTemporaryPassword(admin, newcomerId, NEWCOMER.temporary);
    const hanakoId = await setup.createUser(HANAKO.email, HANAKO.password);
    hanakoSecret = await enableTotp(admin, hanakoId, HANAKO.email, HANAKO.password);
  });
  afterAll(async () => {
    await browser?.close();
    await backend?.close();
    await h?.close();
  });

  const open = (url: string) => openPage(browser, url);

  async function signIn(page: Page, username: string, password: string) {
    await page.locator('#sign-in-form:not([hidden])').waitFor();
    await page.fill('#username', username);
    await page.fill('#password', password);
    await page.click('#sign-in-form button[type=submit]');
  }

  /** The backend's protected page after the callback, or the screen's refusal at once. */
  async function expectBackAtTheSaas(page: Page, email: string) {
    await Promise.race([page.waitForURL(`${backend.url}/`), page.locator('#error:not([hidden])').waitFor()]);
    if (page.url().startsWith(loginUrl)) assert.fail(`refused: ${await page.textContent('#error')}`);
    assert.equal(await page.textContent('#who'), email);
  }

  /** A step posted as the page would, with its CSRF cookie and token. */
  async function postStep(step: string, body: object): Promise<{ status: number; body: { message?: string } & Record<string, unknown> }> {
    const page = await fetch(loginUrl);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const res = await fetch(`${loginUrl}api/${step}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': cookie.split('=')[1] as string },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { message?: string } };
  }

  const refusalOf = async (page: Page) => {
    await page.locator('#error:not([hidden])').waitFor();
    return page.textContent('#error');
  };

  it('signs in from the SaaS backend and returns to its callback with a code it trades once, and the state it passed', async () => {
    const page = await open(`${backend.url}/dashboard`);
    assert.ok(page.url().startsWith(loginUrl), 'the backend sends a visitor without a session to the screen');
    await page.screenshot({ path: `${SCREENSHOTS}/sign-in.png` });
    await signIn(page, TARO.email, TARO.password);
    await expectBackAtTheSaas(page, TARO.email);
    assert.deepEqual(await page.locator('#tenants li').allTextContents(), [tenantId]);
    const callback = backend.callbacks.at(-1);
    assert.equal(callback?.status, 200, 'the code is traded for the credentials');
    assert.equal(callback?.again, 404, 'and only once');
    assert.equal(callback?.state, 'from-/dashboard');
  });

  it('answers a wrong password and an unknown user with the same words', async () => {
    const page = await open(loginUrl);
    await signIn(page, TARO.email, 'Wrong#Password1');
    const wrong = await refusalOf(page);
    assert.equal(wrong, EN.messages.wrongCredentials);
    await page.reload();
    await signIn(page, 'nobody@example.com', 'Wrong#Password1');
    assert.equal(await refusalOf(page), wrong);
  });

  it('asks a user with a temporary password for a new one, checked against the policy', async () => {
    const page = await open(loginUrl);
    await signIn(page, NEWCOMER.email, NEWCOMER.temporary);
    await page.locator('#new-password-form:not([hidden])').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/new-password.png` });
    await page.fill('#new-password', 'short');
    await page.click('#new-password-form button[type=submit]');
    assert.match(String(await refusalOf(page)), /^The new password /);
    await page.fill('#new-password', NEWCOMER.chosen);
    await page.click('#new-password-form button[type=submit]');
    await expectBackAtTheSaas(page, NEWCOMER.email);
  });

  it('asks for the authenticator code when MFA is on, and refuses a wrong one', async () => {
    const page = await open(loginUrl);
    await signIn(page, HANAKO.email, HANAKO.password);
    await page.locator('#code-form:not([hidden])').waitFor();
    assert.equal(await page.textContent('#code-prompt'), EN.page.totpPrompt);
    await page.screenshot({ path: `${SCREENSHOTS}/code.png` });
    const code = totpCodeAt(base32Decode(hanakoSecret) as Buffer, totpStep(Date.now() / 1000));
    await page.fill('#code', String((Number(code) + 1) % 1_000_000).padStart(6, '0'));
    await page.click('#code-form button[type=submit]');
    assert.equal(await refusalOf(page), EN.messages.wrongCode);
    await page.fill('#code', code);
    await page.click('#code-form button[type=submit]');
    await expectBackAtTheSaas(page, HANAKO.email);
  });

  it('asks for the code mailed to the user when MFA is by e-mail', async () => {
    const SORA = { email: 'sora@example.com', password: 'Sora#Secret42' };
    const soraId = await setup.createUser(SORA.email, SORA.password);
    assert.equal((await admin.patch(`/users/${soraId}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    const page = await open(loginUrl);
    await signIn(page, SORA.email, SORA.password);
    await page.locator('#code-form:not([hidden])').waitFor();
    assert.equal(await page.textContent('#code-prompt'), EN.page.emailCodePrompt);
    const [mail] = await deliveredMail(h.sesUrl, saasId, SORA.email);
    const code = /(\d{6})/.exec(mail?.body.text ?? '')?.[1];
    assert.ok(code, mail?.body.text);
    await page.fill('#code', code);
    await page.click('#code-form button[type=submit]');
    await expectBackAtTheSaas(page, SORA.email);
  });

  it('shows the customize settings, and the SaaS’s HTML in a frame that runs no script', async () => {
    const settings = {
      title: 'Acme Cloud',
      icon: ICON,
      favicon: ICON,
      terms_of_service_url: 'https://acme.test/terms',
      privacy_policy_url: 'https://acme.test/privacy',
      tag_manager_container_id: '',
      is_sign_in_id_enabled: true,
    };
    assert.equal((await admin.patch('/customize-page-settings', settings)).status, 200);
    const html = '<p id="custom">Welcome to Acme</p><script>parent.document.title = "taken"; document.body.dataset.ran = "yes"</script>';
    assert.equal(
      (await admin.patch('/customize-pages', { sign_in_page: { html_contents: html, is_terms_of_service: false, is_privacy_policy: false } })).status,
      200,
    );
    try {
      // Settings are kept a few seconds per warm instance; the local server is one instance, told at once.
      const page = await open(loginUrl);
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/customized.png` });
      assert.equal(await page.title(), 'Acme Cloud');
      assert.equal(await page.textContent('h1'), 'Acme Cloud');
      assert.equal(await page.getAttribute('img.icon', 'src'), ICON);
      assert.equal(await page.getAttribute('link[rel=icon]', 'href'), ICON);
      assert.equal(await page.getAttribute('footer a:first-child', 'href'), 'https://acme.test/terms');
      assert.equal(await page.getAttribute('footer a:last-child', 'href'), 'https://acme.test/privacy');
      assert.equal(await page.textContent('label[for=username]'), EN.page.emailOrSignInId);
      const frame = page.frameLocator('iframe.custom');
      assert.equal(await frame.locator('#custom').textContent(), 'Welcome to Acme');
      assert.equal(await page.getAttribute('iframe.custom', 'sandbox'), '');
      assert.equal(await frame.locator('body').getAttribute('data-ran'), null, 'the script in the SaaS’s HTML did not run');
      assert.equal(await page.title(), 'Acme Cloud');
    } finally {
      await admin.patch('/customize-pages', { sign_in_page: { html_contents: '', is_terms_of_service: false, is_privacy_policy: false } });
    }
  });

  it('runs no script of the SaaS on the API’s shared origin: its tag manager is neither loaded nor allowed', async () => {
    const settings = { title: 'Acme', icon: '', favicon: '', terms_of_service_url: '', privacy_policy_url: '', is_sign_in_id_enabled: false };
    assert.equal((await admin.patch('/customize-page-settings', { ...settings, tag_manager_container_id: 'GTM-ABC123' })).status, 200);
    try {
      const page = await (await browser.newContext()).newPage();
      const answer = await page.goto(loginUrl);
      const csp = (await answer?.allHeaders())?.['content-security-policy'] ?? '';
      assert.doesNotMatch(csp, /googletagmanager|google-analytics/);
      assert.match(csp, /script-src 'self';/);
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      assert.equal(await page.locator('script[src*="googletagmanager"]').count(), 0);
      assert.equal(await page.evaluate(() => 'dataLayer' in globalThis), false);
    } finally {
      await admin.patch('/customize-page-settings', { ...settings, tag_manager_container_id: '' });
    }
  });

  it('sends the user only to the configured callback URL, whatever the address of the screen says', async () => {
    const page = await open(`${loginUrl}?redirect_uri=${encodeURIComponent('https://evil.example/')}&callback_url=https://evil.example/&state=x`);
    await signIn(page, TARO.email, TARO.password);
    await expectBackAtTheSaas(page, TARO.email);
    assert.equal(backend.callbacks.at(-1)?.state, 'x');
  });

  it('answers its pages with a strict Content-Security-Policy, refuses framing but by the console, and a step posted without the page’s token', async () => {
    const res = await fetch(loginUrl);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    // Framed only by the API's own origin: the operator console's theme preview (web/console).
    assert.match(csp, new RegExp(`frame-ancestors ${new URL(h.api.baseUrl).origin}(;|$)`));
    assert.equal(res.headers.get('x-frame-options'), null);
    assert.match(res.headers.get('set-cookie') ?? '', /^login_csrf=[A-Za-z0-9_-]{43}; Path=\/v1\/auth\/login\/[^/]+\/; HttpOnly; SameSite=Strict$/);

    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const post = (headers: Record<string, string>) =>
      fetch(`${loginUrl}api/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ username: TARO.email, srp_a: 'ab' }),
      });
    const noToken = await post({ cookie });
    assert.equal(noToken.status, 403);
    assert.equal(((await noToken.json()) as { type: string }).type, 'csrf_mismatch');
    const wrongToken = await post({ cookie, 'x-csrf-token': 'A'.repeat(43) });
    assert.equal(wrongToken.status, 403);
    // As many characters as the cookie's, but not as many bytes: still a plain refusal.
    const wideToken = await post({ cookie, 'x-csrf-token': 'é'.repeat(43) });
    assert.equal(wideToken.status, 403);
    const token = cookie.split('=')[1] as string;
    const badInput = await post({ cookie, 'x-csrf-token': token, 'content-type': 'text/plain' });
    assert.equal(badInput.status, 400);
  });

  it('refuses malformed steps with a 4xx in the error shape', async () => {
    const refusals: [string, object, number, string][] = [
      ['start', { username: TARO.email, srp_a: 'not hex' }, 400, 'invalid_parameter'],
      ['start', { username: '', srp_a: 'ab' }, 400, 'invalid_parameter'],
      ['answer', { challenge_name: 'CUSTOM_CHALLENGE', session: 's', responses: {} }, 400, 'invalid_parameter'],
      ['answer', { challenge_name: 'PASSWORD_VERIFIER', session: 's', responses: { lower: 'x' } }, 400, 'invalid_parameter'],
      ['device', { ticket: 'forged', salt: 'a', verifier: 'b', remember: true }, 400, 'invalid_parameter'],
      ['join', { invitation: { id: 'i', tenant_id: 't' }, code: 1, password: 'p' }, 400, 'invalid_parameter'],
      ['reset', { username: TARO.email, code: '', password: 'x' }, 400, 'invalid_parameter'],
      ['sign-up', { email: 'a@example.com' }, 400, 'invalid_parameter'],
      ['nothing-here', {}, 404, 'not_found'],
    ];
    for (const [step, body, status, type] of refusals) {
      const res = await postStep(step, body);
      assert.equal(res.status, status, `${step} ${JSON.stringify(body)}`);
      assert.equal(res.body.type, type, step);
      assert.equal(typeof res.body.message, 'string');
      assert.deepEqual(res.body.data, {});
    }
  });

  it('signs out back to a page of the SaaS, and to no other site', async () => {
    const signOut = (to: string) => fetch(`${loginUrl}sign-out?redirect_uri=${encodeURIComponent(to)}`, { redirect: 'manual' });
    const home = await signOut(`${backend.url}/goodbye`);
    assert.equal(home.status, 302);
    assert.equal(home.headers.get('location'), `${backend.url}/goodbye`);
    assert.match(home.headers.get('set-cookie') ?? '', /^login_csrf=; .*Max-Age=0$/);
    for (const elsewhere of ['https://evil.example/', '//evil.example/', 'javascript:alert(1)']) {
      assert.equal((await signOut(elsewhere)).headers.get('location'), `${new URL(loginUrl).pathname}sign-in`, elsewhere);
    }
  });

  it('says so when the SaaS has no callback URL, and answers 404 for an unknown SaaS', async () => {
    const other = await h.newSaas();
    const userId = await new ServiceSetup(other.client).createUser(TARO.email, TARO.password);
    assert.ok(userId);
    const page = await open(`${h.api.baseUrl}/login/${other.saasId}/`);
    await signIn(page, TARO.email, TARO.password);
    assert.equal(await refusalOf(page), EN.messages.noCallback);
    assert.equal((await fetch(`${h.api.baseUrl}/login/00000000-0000-4000-8000-000000000000/`)).status, 404);
  });

  describe('remembered devices', () => {
    const RIKU = { email: 'riku@example.com', password: 'Riku#Secret42' };

    it('keep the browser that answered the code once, and sign it in by its own SRP without the code after', async () => {
      const rikuId = await setup.createUser(RIKU.email, RIKU.password);
      const secret = await enableTotp(admin, rikuId, RIKU.email, RIKU.password);
      assert.equal((await admin.put('/sign-in-settings', { device_configuration: { device_remembering: 'always' } })).status, 200);
      try {
        const page = await open(loginUrl);
        await signIn(page, RIKU.email, RIKU.password);
        await page.locator('#code-form:not([hidden])').waitFor();
        await page.fill('#code', totpCodeAt(base32Decode(secret) as Buffer, totpStep(Date.now() / 1000)));
        await page.click('#code-form button[type=submit]');
        await expectBackAtTheSaas(page, RIKU.email);

        // Signed out of the screen (its session would answer at once), the device stays.
        await page.goto(`${loginUrl}sign-out`);
        await page.goto(loginUrl);
        // Kept in a sealed HttpOnly cookie that only the screen's steps receive, never in storage a script reads.
        const kept = (await page.context().cookies()).filter((c) => c.name === `login_device_${rikuId}`);
        assert.equal(kept.length, 1, 'the screen keeps the device in this browser');
        assert.equal(kept[0]?.httpOnly, true);
        assert.equal(kept[0]?.path, `${new URL(loginUrl).pathname}api/`);
        assert.equal(kept[0]?.sameSite, 'Strict');
        assert.doesNotMatch(kept[0]?.value ?? '', /password|group/);
        // Runs in the page: its storage and cookies, which Node's types do not know.
        const visible = await page.evaluate(() => {
          const scope = globalThis as unknown as { localStorage: { length: number }; document: { cookie: string } };
          return { storage: scope.localStorage.length, cookie: scope.document.cookie };
        });
        assert.deepEqual(visible, { storage: 0, cookie: '' }, 'no script of the page can read the device');
        // Straight back, no code form: the device answered DEVICE_SRP_AUTH and DEVICE_PASSWORD_VERIFIER itself.
        await signIn(page, RIKU.email, RIKU.password);
        await expectBackAtTheSaas(page, RIKU.email);

        const elsewhere = await open(loginUrl);
        await signIn(elsewhere, RIKU.email, RIKU.password);
        await elsewhere.locator('#code-form:not([hidden])').waitFor();
        assert.equal(await elsewhere.textContent('#code-prompt'), EN.page.totpPrompt, 'another browser still answers the code');
      } finally {
        await admin.put('/sign-in-settings', { device_configuration: { device_remembering: 'no' } });
      }
    });

    it('ask whether to remember the browser when the SaaS lets people choose', async () => {
      assert.equal((await admin.put('/sign-in-settings', { device_configuration: { device_remembering: 'userOptIn' } })).status, 200);
      try {
        const page = await open(loginUrl);
        await page.locator('#sign-in-form:not([hidden])').waitFor();
        // Only beside the code: a browser is remembered to skip the second factor.
        assert.equal(await page.locator('#sign-in-form #remember-device').count(), 0);
        assert.equal(await page.textContent('#code-form label.check'), ` ${EN.page.rememberDevice}`);
        assert.equal(await page.isChecked('#remember-device'), false);
      } finally {
        await admin.put('/sign-in-settings', { device_configuration: { device_remembering: 'no' } });
      }
    });
  });

  describe('sign-up', () => {
    it('is absent while self sign-up is off', async () => {
      const page = await open(`${loginUrl}sign-up`);
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      assert.equal(await page.locator('#sign-up-form').count(), 0);
      assert.equal(await page.locator('a[data-form=sign-up-form]').count(), 0);
      const res = await postStep('sign-up', { email: 'someone@example.com', accepted_terms: true, accepted_privacy: true });
      assert.equal(res.status, 400);
      assert.equal(res.body.message, EN.messages.selfSignUpOff);
    });

    it('mails a temporary password once the terms are accepted, then asks for a password of the person’s own', async () => {
      assert.equal((await admin.put('/sign-in-settings', { self_regist: { enable: true } })).status, 200);
      const terms = { html_contents: '<p>Join Acme</p>', is_terms_of_service: true, is_privacy_policy: false };
      assert.equal((await admin.patch('/customize-pages', { sign_up_page: terms })).status, 200);
      try {
        const refused = await postStep('sign-up', { email: 'newbie@example.com', accepted_terms: false, accepted_privacy: false });
        assert.equal(refused.status, 400, 'the terms are required by the server, not only by the form');
        assert.equal(refused.body.message, EN.messages.mustAccept);

        const page = await open(loginUrl);
        await page.click('a[data-form=sign-up-form]');
        await page.locator('#sign-up-form:not([hidden])').waitFor();
        assert.equal(await page.locator('#accept-privacy').count(), 0, 'only the consents the sign-up page asks for');
        assert.equal(await page.frameLocator('iframe.custom:not([hidden])').locator('p').textContent(), 'Join Acme');
        await page.screenshot({ path: `${SCREENSHOTS}/sign-up.png` });
        await page.fill('#sign-up-email', 'newbie@example.com');
        await page.check('#accept-terms');
        await page.click('#sign-up-form button[type=submit]');
        await page.locator('#sign-in-form:not([hidden])').waitFor();
        assert.equal(await page.textContent('#status'), EN.messages.signUpSent.replace('{email}', 'newbie@example.com'));
        const [mail] = await deliveredMail(h.sesUrl, saasId, 'newbie@example.com');
        const temporary = /temporary password is (\S+)/.exec(mail?.body.text ?? '')?.[1];
        assert.ok(temporary, mail?.body.text);
        assert.equal(await page.inputValue('#username'), 'newbie@example.com');
        await page.fill('#password', temporary);
        await page.click('#sign-in-form button[type=submit]');
        await page.locator('#new-password-form:not([hidden])').waitFor();
        await page.fill('#new-password', 'Newbie#Pass42');
        await page.click('#new-password-form button[type=submit]');
        await expectBackAtTheSaas(page, 'newbie@example.com');

        const again = await postStep('sign-up', { email: TARO.email, accepted_terms: true, accepted_privacy: false });
        assert.deepEqual([again.status, again.body], [200, { email: TARO.email }], 'an address with an account is answered as any other');
      } finally {
        await admin.put('/sign-in-settings', { self_regist: { enable: false } });
      }
    });
  });

  describe('a forgotten password', () => {
    const KEN = { email: 'ken@example.com', password: 'Ken#Secret42', chosen: 'Ken#Chosen77' };

    it('mails a code, refuses a wrong one, sets the new password and signs in with it', async () => {
      await setup.createUser(KEN.email, KEN.password);
      const page = await open(`${loginUrl}forgot-password`);
      await page.locator('#forgot-form:not([hidden])').waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/forgot-password.png` });
      await page.fill('#forgot-username', KEN.email);
      await page.click('#forgot-form button[type=submit]');
      await page.locator('#reset-form:not([hidden])').waitFor();
      const [mail] = await deliveredMail(h.sesUrl, saasId, KEN.email);
      assert.equal(mail?.subject, 'Setting a new password');
      const code = /use (\d{6})/.exec(mail?.body.text ?? '')?.[1] as string;
      assert.ok(code, mail?.body.text);

      await page.fill('#reset-code', code === '000000' ? '111111' : '000000');
      await page.fill('#reset-password', KEN.chosen);
      await page.click('#reset-form button[type=submit]');
      assert.equal(await refusalOf(page), EN.messages.wrongCode);
      await page.fill('#reset-password', 'short');
      await page.fill('#reset-code', code);
      await page.click('#reset-form button[type=submit]');
      await page.locator('#error:not([hidden])').filter({ hasText: 'The new password' }).waitFor();
      await page.fill('#reset-password', KEN.chosen);
      await page.click('#reset-form button[type=submit]');
      await expectBackAtTheSaas(page, KEN.email);
      assert.equal((await srpSignIn(admin, KEN.email, KEN.password).catch(() => undefined))?.status ?? 401, 401, 'the old password is gone');
    });

    it('answers an unknown name as a known one, and mails nothing', async () => {
      const known = await postStep('forgot', { username: TARO.email });
      const unknown = await postStep('forgot', { username: 'nobody-here@example.com' });
      assert.deepEqual([unknown.status, unknown.body], [known.status, known.body]);
      assert.deepEqual(await deliveredMail(h.sesUrl, saasId, 'nobody-here@example.com'), []);
      const wrong = await postStep('reset', { username: 'nobody-here@example.com', code: '123456', password: 'Whatever#1234' });
      assert.equal(wrong.body.message, EN.messages.wrongCode);
    });
  });

  describe('mail limits', () => {
    it('stop a page from mailing one address more than the limit allows, and answer as before', async () => {
      const TAKO = 'tako@example.com';
      await setup.createUser(TAKO, 'Tako#Secret42');
      const answers = [];
      for (let i = 0; i < config().mailLimits.perAddress + 3; i++) answers.push(await postStep('forgot', { username: TAKO }));
      assert.ok(
        answers.every((answer) => answer.status === 200),
        'the same answer throughout: nothing tells the limit is reached',
      );
      assert.equal((await deliveredMail(h.sesUrl, saasId, TAKO)).length, config().mailLimits.perAddress);
    });
  });

  describe('invitations', () => {
    async function invite(email: string): Promise<string> {
      const inviter = await srpSignIn(admin, TARO.email, TARO.password);
      const res = await admin.post<{ invitation_url: string }>(`/tenants/${tenantId}/invitations`, {
        email,
        access_token: inviter.body.credentials?.access_token,
        envs: [{ id: 1, role_names: ['admin'] }],
      });
      assert.equal(res.status, 201, res.text);
      assert.ok(res.body.invitation_url.startsWith(`${loginUrl}invitation?`), res.body.invitation_url);
      return res.body.invitation_url;
    }

    const memberEmails = async () =>
      (await admin.get<{ users: { email: string }[] }>(`/tenants/${tenantId}/users`)).body.users.map((user) => user.email).sort();

    it('lets a new person choose a password, joins them to the tenant and returns to the SaaS', async () => {
      const page = await open(await invite('invitee@example.com'));
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      assert.match(String(await page.textContent('#invitation-intro')), /invitee@example\.com/);
      await page.screenshot({ path: `${SCREENSHOTS}/invitation.png` });
      await page.click('#show-new-account');
      await page.locator('#new-account-form:not([hidden])').waitFor();
      const codeMail = (await deliveredMail(h.sesUrl, saasId, 'invitee@example.com')).find((m) => m.subject === 'Verify your e-mail address');
      const code = /code is (\d{6})/.exec(codeMail?.body.text ?? '')?.[1] as string;
      assert.ok(code, 'the invited address gets a code (verify_user_attribute)');
      // The password asked twice: a confirmation that differs holds the form back in the browser, nothing made.
      await page.fill('#account-code', code);
      await page.fill('#account-password', 'Invitee#Pass42');
      await page.fill('#account-password-confirm', 'Invitee#Pass43');
      assert.equal(await page.textContent('#account-password-match'), EN.messages.passwordsDiffer);
      await page.click('#new-account-form button[type=submit]');
      assert.equal(await page.isVisible('#new-account-form'), true);
      assert.equal(await page.$eval('#account-password-confirm', (el) => (el as HTMLInputElement).validity.valid), false);
      assert.ok(!(await memberEmails()).includes('invitee@example.com'));
      await page.fill('#account-password-confirm', 'Invitee#Pass42');
      assert.equal(await page.textContent('#account-password-match'), EN.messages.passwordsMatch);
      await page.fill('#account-code', code === '000000' ? '111111' : '000000');
      await page.click('#new-account-form button[type=submit]');
      assert.equal(await refusalOf(page), EN.messages.wrongCode, 'a forwarded link without the code makes no account');
      await page.fill('#account-code', code);
      await page.click('#new-account-form button[type=submit]');
      await expectBackAtTheSaas(page, 'invitee@example.com');
      assert.ok((await memberEmails()).includes('invitee@example.com'));
    });

    it('accepts the invitation for an existing user who signs in, and says when a link was used already', async () => {
      const url = await invite(HANAKO.email.replace('hanako', 'jiro'));
      await setup.createUser('jiro@example.com', 'Jiro#Secret42');
      const page = await open(url);
      await signIn(page, 'jiro@example.com', 'Jiro#Secret42');
      await expectBackAtTheSaas(page, 'jiro@example.com');
      assert.ok((await memberEmails()).includes('jiro@example.com'));

      const again = await open(url);
      assert.match(String(await again.textContent('#invitation-problem')), /accepted/);
    });
  });
});
