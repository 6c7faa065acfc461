/**
 * The hosted login screen in Japanese and English, in Chromium: the language chosen by `?lang=`, by the switch
 * on the page (its cookie), by Accept-Language, English otherwise; every page a browser can reach (the forms, an
 * unknown SaaS or page, an expired step, a provider that cannot be reached, the icon) answers a page in the
 * screen's look and the person's language; axe-core finds no serious or critical violation on any of them; the
 * sign-in works with the keyboard alone. (The pictures of docs/login-screen.md: `npm run screenshots`.)
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { LANG_COOKIE } from '../../web/login/language.js';
import { EN, type LoginTexts } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { resetConfigForTests } from '../../shared/config.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium, openPage } from '../support/chromium.js';
import { enableTotp } from '../support/example-app.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { startSaasBackend, type SaasBackend } from '../support/saas-backend.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

const skip = chromiumMissing();
const TARO = { email: 'taro@example.com', password: 'Taro#Secret42' };
/** One person with an authenticator per language: a code is accepted once, so two tests never share one. */
const HANAKO = (lang: string) => ({ email: `hanako-${lang}@example.com`, password: 'Hanako#Secret7' });
const LANGS: [string, LoginTexts][] = [
  ['en', EN],
  ['ja', JA],
];

let h: Harness;
let browser: Browser;
let admin: SignedClient;
let saasId: string;
let loginUrl: string;
let backend: SaasBackend;
let tenantId: string;
const hanakoSecret: Record<string, string> = {};
let invitationUrl: string;

(skip ? describe.skip : describe)('the hosted login screen in Japanese and English, with no dead ends, in Chromium', () => {
  beforeAll(async () => {
    // A Google whose address answers nothing: its settings are in place, the provider cannot be reached.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    process.env.GOOGLE_ISSUER = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((done) => closed.close(done));
    resetConfigForTests();
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    ({ saasId, client: admin } = await h.newSaas());
    loginUrl = `${h.api.baseUrl}/login/${saasId}/`;
    backend = await startSaasBackend(admin, loginUrl);
    assert.equal((await admin.put('/auth-info', { callback_url: backend.callbackUrl })).status, 200);
    const setup = new ServiceSetup(admin);
    await setup.ensureDefinitions();
    tenantId = await setup.createTenant('Tokyo Office');
    const taroId = await setup.createUser(TARO.email, TARO.password);
    await setup.addMember(tenantId, taroId, TARO.email);
    for (const [lang] of LANGS) {
      const { email, password } = HANAKO(lang);
      hanakoSecret[lang] = await enableTotp(admin, await setup.createUser(email, password), email, password);
    }
    const settings = await Promise.all([
      admin.put('/sign-in-settings', { self_regist: { enable: true }, device_configuration: { device_remembering: 'userOptIn' } }),
      admin.put('/identity-providers', {
        provider: 'Google',
        identity_provider_props: {
          application_id: 'client-of-a-google-out-of-reach',
          application_secret: 'secret',
          approval_scope: 'openid email',
          is_button_hidden: false,
        },
      }),
    ]);
    for (const res of settings) assert.equal(res.status, 200, res.text);
    const inviter = await srpSignIn(admin, TARO.email, TARO.password);
    const invited = await admin.post<{ invitation_url: string }>(`/tenants/${tenantId}/invitations`, {
      email: 'invitee@example.com',
      access_token: inviter.body.credentials?.access_token,
      envs: [{ id: 1, role_names: ['admin'] }],
    });
    assert.equal(invited.status, 201, invited.text);
    invitationUrl = invited.body.invitation_url;
  });
  afterAll(async () => {
    await browser?.close();
    await backend?.close();
    await h?.close();
  });

  const open = (url: string, options: BrowserContextOptions = {}) => openPage(browser, url, options);
  const withLang = (url: string, lang: string) => `${url}${url.includes('?') ? '&' : '?'}lang=${lang}`;
  const closeAll = (page: Page) => page.context().close();

  /** A page in the screen's look and the language: HTML, marked with the language, its style applied. */
  async function expectScreenPage(page: Page, texts: LoginTexts) {
    assert.equal(await page.getAttribute('html', 'lang'), texts.lang);
    const look = await page.evaluate(() => ({
      font: getComputedStyle(document.body).fontFamily,
      card: getComputedStyle(document.querySelector('main') as Element).backgroundColor,
    }));
    assert.match(look.font, /system-ui/, 'the screen’s stylesheet applies');
    assert.equal(look.card, 'rgb(255, 255, 255)');
  }

  describe('choosing the language', () => {
    it('follows ?lang= over the cookie and Accept-Language', async () => {
      const page = await open(withLang(loginUrl, 'ja'), { locale: 'en-US' });
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'ja');
      assert.equal(await page.textContent('h1'), 'ログイン');
      assert.equal(await page.textContent('#sign-in-form button[type=submit]'), 'ログイン');
      assert.equal(await page.textContent('a[data-form=forgot-form]'), 'パスワードをお忘れですか？');
      assert.equal(await page.textContent('a[data-form=sign-up-form]'), '新規登録');
      await page.context().addCookies([{ name: LANG_COOKIE, value: 'ja', url: h.api.baseUrl }]);
      await page.goto(withLang(loginUrl, 'en'));
      assert.equal(await page.getAttribute('html', 'lang'), 'en', '?lang= wins over the cookie');
      await closeAll(page);
    });

    it('follows Accept-Language, and English when no language matches', async () => {
      const ja = await open(loginUrl, { locale: 'ja-JP' });
      assert.equal(await ja.getAttribute('html', 'lang'), 'ja');
      assert.equal(await ja.textContent('label[for=password]'), 'パスワード');
      await closeAll(ja);
      const fr = await open(loginUrl, { locale: 'fr-FR' });
      assert.equal(await fr.getAttribute('html', 'lang'), 'en');
      assert.equal(await fr.textContent('label[for=password]'), EN.page.password);
      await closeAll(fr);
    });

    it('switches by the link on the page, by keyboard, keeps what the page was opened for, and remembers the choice', async () => {
      const page = await open(`${loginUrl}sign-up?state=keep-me`, { locale: 'en-US' });
      await page.locator('#sign-up-form:not([hidden])').waitFor();
      const toJapanese = page.locator('nav.languages a[lang=ja]');
      assert.equal(await toJapanese.textContent(), '日本語');
      await toJapanese.focus();
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname.endsWith('/sign-up') && url.searchParams.get('state') === 'keep-me');
      await page.locator('#sign-up-form:not([hidden])').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'ja');
      assert.equal(await page.textContent('#heading'), JA.page.signUpHeading);
      const data = JSON.parse((await page.textContent('#page-data')) ?? '{}') as { state?: string };
      assert.equal(data.state, 'keep-me', 'the sign-in still returns the state it was opened with');
      // The cookie, with the browser still asking for English.
      await page.goto(loginUrl);
      assert.equal(await page.getAttribute('html', 'lang'), 'ja');
      await page.click('nav.languages a[lang=en]');
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      await closeAll(page);
    });

    it('rejects a switch to a language it does not have or to another place', async () => {
      for (const query of ['to=fr&page=', 'to=ja&page=https://evil.test/', 'to=ja&page=../../x']) {
        const res = await fetch(`${loginUrl}language?${query}`, { redirect: 'manual' });
        assert.equal(res.status, 404, query);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        assert.equal(res.headers.get('set-cookie')?.includes(LANG_COOKIE) ?? false, false);
      }
    });
  });

  describe.each(LANGS)('in %s', (lang, texts) => {
    it('signs in with the keyboard alone, every control reached by Tab, in order', async () => {
      const page = await open(withLang(loginUrl, lang));
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      /** What a control is called in the tab order: its id, or its text. */
      const order = await page.evaluate(() => {
        const name = (el: Element) => el.id || (el.textContent ?? '').trim() || el.tagName;
        const focusable = [...document.querySelectorAll('a[href], button, input, select, textarea, iframe, [tabindex]')].filter(
          (el) => (el as HTMLElement).tabIndex >= 0 && el.getClientRects().length > 0 && !(el as HTMLButtonElement).disabled,
        );
        return focusable.map(name);
      });
      assert.ok(order.includes('username') && order.includes('password') && order.includes(texts.page.signIn), order.join());
      // The page opens with the name focused: Tab goes on through every control after it, Shift+Tab to those before.
      const focused = () =>
        page.evaluate(() => {
          const el = document.activeElement;
          return el ? el.id || (el.textContent ?? '').trim() || el.tagName : '';
        });
      assert.equal(await focused(), 'username');
      const at = order.indexOf('username');
      const after: string[] = [];
      for (let i = at + 1; i < order.length; i++) {
        await page.keyboard.press('Tab');
        after.push(await focused());
      }
      assert.deepEqual(after, order.slice(at + 1));
      await page.locator('#username').focus();
      const before: string[] = [];
      for (let i = 0; i < at; i++) {
        await page.keyboard.press('Shift+Tab');
        before.unshift(await focused());
      }
      assert.deepEqual(before, order.slice(0, at));
      // The sign-in itself: focus the name by Tab, type, Tab, type, Enter.
      await page.goto(withLang(loginUrl, lang));
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      await page.locator('#username').focus();
      await page.keyboard.type(TARO.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(TARO.password);
      await page.keyboard.press('Enter');
      await page.waitForURL(`${backend.url}/`);
      assert.equal(await page.textContent('#who'), TARO.email);
      await closeAll(page);
    });

    it('asks whether to remember the browser only with the second factor, in the language', async () => {
      const page = await open(withLang(loginUrl, lang));
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      assert.equal(await page.locator('#sign-in-form #remember-device').count(), 0);
      await page.fill('#username', HANAKO(lang).email);
      await page.fill('#password', HANAKO(lang).password);
      await page.click('#sign-in-form button[type=submit]');
      await page.locator('#code-form:not([hidden])').waitFor();
      assert.equal(await page.textContent('#code-prompt'), texts.page.totpPrompt);
      assert.equal((await page.textContent('#code-form label.check'))?.trim(), texts.page.rememberDevice);
      assert.deepEqual(await seriousViolations(page), [], 'the code step');
      await page.fill('#code', totpCodeAt(base32Decode(hanakoSecret[lang] as string) as Buffer, totpStep(Date.now() / 1000)));
      await page.keyboard.press('Enter');
      await page.waitForURL(`${backend.url}/`);
      await closeAll(page);
    });

    it('names the tenant and the SaaS on the invitation page', async () => {
      const page = await open(withLang(invitationUrl, lang));
      const intro = (await page.textContent('#invitation-intro')) ?? '';
      assert.match(intro, /Tokyo Office/);
      assert.match(intro, /invitee@example\.com/);
      assert.match(intro, /test [0-9a-f-]{36}/, 'the SaaS by its name (the harness names it "test <uuid>")');
      assert.ok(intro.includes(texts === JA ? '招待' : 'invited'), intro);
      await closeAll(page);
    });

    it.each([
      ['sign-in', ''],
      ['sign-up', 'sign-up'],
      ['forgot-password', 'forgot-password'],
    ])('the %s page has no serious accessibility violation', async (name, path) => {
      const page = await open(withLang(`${loginUrl}${path}`, lang));
      await page.locator('form:not([hidden])').first().waitFor();
      await expectScreenPage(page, texts);
      assert.deepEqual(await seriousViolations(page), []);
      await closeAll(page);
    });

    it('the invitation page has no serious accessibility violation, its new-account form neither', async () => {
      const page = await open(withLang(invitationUrl, lang));
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      await expectScreenPage(page, texts);
      assert.deepEqual(await seriousViolations(page), []);
      // The new account's password asked twice, as at sign-up, and told in the language whether both match.
      await page.click('#show-new-account');
      await page.locator('#new-account-form:not([hidden])').waitFor();
      assert.equal((await page.textContent('label[for=account-password-confirm]'))?.trim(), texts.page.confirmPassword);
      await page.fill('#account-password', 'Invitee#Pass42');
      await page.fill('#account-password-confirm', 'Invitee#Pass4');
      assert.equal(await page.textContent('#account-password-match'), texts.messages.passwordsDiffer);
      assert.deepEqual(await seriousViolations(page), [], 'the new-account form');
      await page.fill('#account-password-confirm', 'Invitee#Pass42');
      assert.equal(await page.textContent('#account-password-match'), texts.messages.passwordsMatch);
      await closeAll(page);
    });

    /** Pages where a sign-in cannot go on: each a page of the screen, in the language, with its status. */
    const deadEnds = (): [string, string, number, keyof LoginTexts['page']][] => [
      ['unknown SaaS', `${h.api.baseUrl}/login/00000000-0000-4000-8000-000000000000/`, 404, 'notFoundTitle'],
      ['unknown page', `${loginUrl}no-such-page`, 404, 'notFoundTitle'],
      ['unknown page under oauth2', `${h.api.baseUrl}/oauth2/no-such-page`, 404, 'notFoundTitle'],
      ['expired link step', `${loginUrl}link?ticket=not-a-ticket`, 400, 'stepExpiredTitle'],
      ['provider return without its flow', `${h.api.baseUrl}/oauth2/idpresponse?code=x&state=y`, 400, 'federationFailedTitle'],
      ['unknown SAML ticket', `${loginUrl}saml/continue?ticket=nothing`, 400, 'samlFailedTitle'],
    ];

    it('answers every dead end with a page of the screen, in the language, without serious violations', async () => {
      for (const [name, url, status, title] of deadEnds()) {
        const page = await (await browser.newContext()).newPage();
        const res = await page.goto(withLang(url, lang));
        assert.equal(res?.status(), status, name);
        assert.match(res?.headers()['content-type'] ?? '', /^text\/html/, name);
        assert.equal(await page.textContent('h1'), texts.page[title], name);
        await expectScreenPage(page, texts);
        assert.deepEqual(await seriousViolations(page), [], name);
        await closeAll(page);
      }
    });

    it('says a provider out of reach plainly and offers the other ways in, never a 500', async () => {
      const page = await open(withLang(`${loginUrl}?state=from-google`, lang));
      await page.locator('#sign-in-with-google').focus();
      const [answer] = await Promise.all([page.waitForResponse((r) => r.url().includes('/federated/google')), page.keyboard.press('Enter')]);
      assert.equal(answer.status(), 503);
      await page.locator('h1').waitFor();
      assert.equal(await page.textContent('h1'), texts.page.providerUnavailableTitle);
      assert.equal(await page.textContent('#message'), texts.page.providerUnavailable);
      await expectScreenPage(page, texts);
      assert.deepEqual(await seriousViolations(page), []);
      await page.locator('#action').focus();
      await page.keyboard.press('Enter');
      await page.locator('#sign-in-form:not([hidden])').waitFor();
      const data = JSON.parse((await page.textContent('#page-data')) ?? '{}') as { state?: string };
      assert.equal(data.state, 'from-google', 'the other ways in still return where the application asked');
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      await closeAll(page);
    });
  });

  it('titles the page once: "Sign in" is not said twice', async () => {
    const page = await open(loginUrl);
    await page.locator('#sign-in-form:not([hidden])').waitFor();
    assert.equal(await page.locator('h1').count(), 1);
    assert.equal(await page.locator('h2').count(), 0);
    await closeAll(page);
  });
  it('answers the icon browsers ask for: the default at the host and on a screen, the SaaS’s own when it set one', async () => {
    for (const url of [`${new URL(h.api.baseUrl).origin}/favicon.ico`, `${loginUrl}favicon.ico`]) {
      const res = await fetch(url);
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get('content-type'), 'image/svg+xml', url);
      assert.match(await res.text(), /^<svg /);
    }
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    // The last test: the settings stay (a title is required with them).
    const settings = (await admin.get<Record<string, unknown>>('/customize-page-settings')).body;
    const patched = await admin.patch('/customize-page-settings', { ...settings, title: 'Acme Cloud', favicon: `data:image/png;base64,${png}` });
    assert.equal(patched.status, 200, patched.text);
    const res = await fetch(`${loginUrl}favicon.ico`);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(Buffer.from(await res.arrayBuffer()).toString('base64'), png);
  });
});
