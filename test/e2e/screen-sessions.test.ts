/**
 * The hosted screen's session in headless Chromium, in English and Japanese, with axe on every page it shows
 * (docs/login-screen.md, "Signed in once"): one sign-in, and a second application (an OpenID Connect client,
 * openid-client) and a second tab sign in without a prompt; prompt=login and max_age ask again (the clock
 * moved, shared/clock.ts); prompt=none answers a code or login_required; a second factor turned on since asks
 * again (step-up); a session ended through the API asks again; "not you? use another account" signs another
 * person in. The integration file (test/integration/screen-sessions.test.ts) checks the same over HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { EN, type LoginTexts } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { enableTotp } from '../support/example-app.js';
import { authorizationAttempt, type AuthorizationAttempt } from '../support/oidc-request.js';

const skip = chromiumMissing();
const PASSWORD = 'Taro#Secret42';

let h: Harness;
let chromium: Browser;
let admin: SignedClient;
let screen: string;
let apps: Apps;

interface Apps {
  url: string;
  close(): Promise<void>;
}

/**
 * Two applications of one SaaS sharing its callback URL: `/one` sends a visitor to the screen as the SaaSus
 * samples do (`?state=…`, the code traded at GET /credentials), `/two?prompt=…&max_age=…` is an OpenID Connect
 * client (openid-client: authorization code with PKCE, the ID token checked). The callback answers a page
 * naming the application, who signed in, or the error the authorization server sent back.
 */
async function startApps(client: oidc.Configuration): Promise<Apps> {
  const attempts = new Map<string, AuthorizationAttempt & { maxAge?: number }>();
  let base = '';
  const page = (body: Record<string, string>) =>
    `<!doctype html><html lang="en"><title>app</title><main>${Object.entries(body)
      .map(([id, text]) => `<p id="${id}">${String(text).replace(/[&<>"]/g, '')}</p>`)
      .join('')}</main></html>`;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      const callback = `${base}/callback`;
      if (url.pathname === '/one') {
        res.writeHead(302, { location: `${screen}?state=one-${randomUUID()}` }).end();
        return;
      }
      if (url.pathname === '/two') {
        const attempt = await authorizationAttempt(client, callback);
        for (const name of ['prompt', 'max_age']) {
          const value = url.searchParams.get(name);
          if (value !== null) attempt.url.searchParams.set(name, value);
        }
        const maxAge = url.searchParams.get('max_age');
        attempts.set(attempt.state, { ...attempt, ...(maxAge !== null ? { maxAge: Number(maxAge) } : {}) });
        res.writeHead(302, { location: attempt.url.toString() }).end();
        return;
      }
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const state = url.searchParams.get('state') ?? '';
      const attempt = attempts.get(state);
      let answer: Record<string, string>;
      if (url.searchParams.has('error')) answer = { app: attempt ? 'two' : 'one', error: url.searchParams.get('error') ?? '' };
      else if (attempt) {
        const tokens = await oidc.authorizationCodeGrant(client, url, {
          pkceCodeVerifier: attempt.verifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
          ...(attempt.maxAge !== undefined ? { maxAge: attempt.maxAge } : {}),
        });
        answer = { app: 'two', who: String(tokens.claims()?.email) };
      } else {
        const traded = await admin.get<{ id_token: string }>(`/credentials?code=${url.searchParams.get('code')}`);
        const me = await admin.get<{ email: string }>(`/userinfo?token=${traded.body.id_token}`);
        answer = { app: 'one', who: me.body.email };
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(answer));
    })().catch((error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let n = 0;
async function newUser() {
  const email = `person${++n}.e2e-sessions@example.com`;
  const created = await admin.post<{ id: string }>('/users', { email, password: PASSWORD, attributes: {} });
  assert.equal(created.status, 201, created.text);
  return { email, id: created.body.id };
}

(skip ? describe.skip : describe)('signed in once, in Chromium', () => {
  beforeAll(async () => {
    [h, chromium] = await Promise.all([startHarness({ issuerIsApi: true }), launchChromium()]);
    const saas = await h.newSaas();
    admin = saas.client;
    screen = `${h.api.baseUrl}/login/${saas.saasId}/`;
    const client = await oidc.discovery(new URL(h.api.baseUrl), saas.saasId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    apps = await startApps(client);
    assert.equal((await admin.put('/auth-info', { callback_url: `${apps.url}/callback` })).status, 200);
  });
  afterAll(async () => {
    await chromium?.close();
    await apps?.close();
    await h?.close();
  });
  afterEach(() => resetClockForTests());

  for (const [locale, texts] of [
    ['en-US', EN],
    ['ja-JP', JA],
  ] as [string, LoginTexts][]) {
    describe(texts.languageName, () => {
      const t = texts.page;

      /** A new tab of `context` at `url`, with the tests' patience. */
      async function tab(context: BrowserContext, url: string): Promise<Page> {
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        await page.goto(url);
        return page;
      }

      /** The application's page the tab ended at: which application, who, or the error. */
      async function landed(page: Page, app: 'one' | 'two') {
        await page.waitForURL((url) => url.href.startsWith(`${apps.url}/callback`));
        await page.locator('#app').waitFor();
        assert.equal(await page.textContent('#app'), app);
        const text = async (id: string) => ((await page.locator(id).count()) > 0 ? page.textContent(id) : null);
        return { who: await text('#who'), error: await text('#error') };
      }

      async function signIn(page: Page, email: string, password = PASSWORD) {
        await page.locator('#sign-in-form:not([hidden])').waitFor();
        if ((await page.inputValue('#username')) !== email) await page.fill('#username', email);
        await page.fill('#password', password);
        await page.click('#sign-in-form button[type=submit]');
      }

      /** The sign-in page, in this language, axe clean; `why` the notice of who is signed in (or none). */
      async function askedAgain(page: Page, why: string | undefined, name?: string) {
        await page.locator('#sign-in-form:not([hidden])').waitFor();
        assert.ok(page.url().startsWith(screen), page.url());
        assert.equal(await page.getAttribute('html', 'lang'), texts.lang);
        if (why === undefined) assert.equal(await page.locator('#signed-in-as').count(), 0, 'no one is signed in');
        else {
          const notice = String(await page.textContent('#signed-in-as'));
          assert.ok(notice.includes(why), notice);
          assert.ok(notice.includes(String(name)), notice);
          assert.equal(await page.inputValue('#username'), name, 'the name is filled in');
        }
        assert.deepEqual(await seriousViolations(page), []);
      }

      /** A browser (its own cookies) signed in once through application one. */
      async function signedIn() {
        const user = await newUser();
        const context = await chromium.newContext({ locale });
        const first = await tab(context, `${apps.url}/one`);
        await askedAgain(first, undefined);
        await signIn(first, user.email);
        assert.equal((await landed(first, 'one')).who, user.email);
        return { user, context };
      }

      it('a second application and a second tab sign in without a prompt', async () => {
        const { user, context } = await signedIn();
        assert.equal((await landed(await tab(context, `${apps.url}/two`), 'two')).who, user.email);
        assert.equal((await landed(await tab(context, `${apps.url}/one`), 'one')).who, user.email);
        await context.close();
      });

      it('prompt=login asks again, saying who is signed in; signing in answers the application', async () => {
        const { user, context } = await signedIn();
        const page = await tab(context, `${apps.url}/two?prompt=login`);
        await askedAgain(page, t.signInAgainLoginAsked, user.email);
        await signIn(page, user.email);
        assert.equal((await landed(page, 'two')).who, user.email);
        await context.close();
      });

      it('max_age asks again when the sign-in is older, and answers when it is younger', async () => {
        const { user, context } = await signedIn();
        setClockForTests(Date.now() + 120_000);
        await askedAgain(await tab(context, `${apps.url}/two?max_age=60`), t.signInAgainTooOld, user.email);
        resetClockForTests();
        assert.equal((await landed(await tab(context, `${apps.url}/two?max_age=600`), 'two')).who, user.email);
        await context.close();
      });

      it('prompt=none answers a code with a session, and login_required without one', async () => {
        const { user, context } = await signedIn();
        assert.equal((await landed(await tab(context, `${apps.url}/two?prompt=none`), 'two')).who, user.email);
        const stranger = await chromium.newContext({ locale });
        assert.equal((await landed(await tab(stranger, `${apps.url}/two?prompt=none`), 'two')).error, 'login_required');
        await Promise.all([context.close(), stranger.close()]);
      });

      it('a second factor turned on since: the password alone no longer answers (step-up), the new sign-in with it does', async () => {
        const { user, context } = await signedIn();
        const secret = await enableTotp(admin, user.id, user.email, PASSWORD);
        const page = await tab(context, `${apps.url}/one`);
        await askedAgain(page, t.signInAgainSecondFactor, user.email);
        await signIn(page, user.email);
        await page.locator('#code-form:not([hidden])').waitFor();
        assert.deepEqual(await seriousViolations(page), []);
        // The next time step: the one enableTotp registered with is not taken twice.
        const later = Date.now() + 30_000;
        setClockForTests(later);
        await page.fill('#code', totpCodeAt(base32Decode(secret) as Buffer, totpStep(later / 1000)));
        await page.click('#code-form button[type=submit]');
        assert.equal((await landed(page, 'one')).who, user.email);
        resetClockForTests();
        assert.equal((await landed(await tab(context, `${apps.url}/two`), 'two')).who, user.email);
        await context.close();
      });

      it('a session ended through the API asks again, as if there had been none', async () => {
        const { user, context } = await signedIn();
        const listed = await admin.get<{ sessions: { id: string }[] }>(`/users/${user.id}/sessions`);
        assert.equal(listed.body.sessions.length, 1, listed.text);
        assert.equal((await admin.delete(`/users/${user.id}/sessions/${listed.body.sessions[0]?.id}`)).status, 200);
        await askedAgain(await tab(context, `${apps.url}/one`), undefined);
        assert.ok(!(await context.cookies()).some((c) => c.name === 'login_session'), 'the ended session is forgotten');
        await context.close();
      });

      it('"where you are signed in": each browser listed, signed out of one, then everywhere else, by keyboard', async () => {
        const { user, context } = await signedIn();
        const second = await chromium.newContext({ locale, userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36' });
        const third = await chromium.newContext({ locale });
        for (const other of [second, third]) {
          const page = await tab(other, `${apps.url}/one`);
          await signIn(page, user.email);
          await landed(page, 'one');
        }
        const page = await tab(context, `${screen}sessions`);
        assert.equal(await page.getAttribute('html', 'lang'), texts.lang);
        assert.equal(await page.textContent('h1'), t.sessionsTitle);
        assert.ok(String(await page.textContent('#sessions-intro')).includes(user.email));
        const entries = page.locator('#sessions > li');
        assert.equal(await entries.count(), 3);
        assert.ok(String(await page.textContent('#sessions li.current h2')).includes(t.sessionThisBrowser));
        assert.deepEqual(await seriousViolations(page), []);
        // The newest first: the third browser, then the second (Chrome on Windows), then this one.
        assert.equal(await entries.nth(1).locator('h2').textContent(), t.sessionDevice.replace('{browser}', 'Chrome').replace('{os}', 'Windows'));
        await entries.nth(1).locator('button').focus();
        await page.keyboard.press('Enter');
        await page.waitForURL((url) => url.search === '?done=one');
        assert.equal(await page.textContent('#status'), t.sessionsEnded);
        assert.equal(await entries.count(), 2);
        await askedAgain(await tab(second, `${apps.url}/one`), undefined);

        await page.focus('#sign-out-others button');
        await page.keyboard.press('Enter');
        await page.waitForURL((url) => url.search === '?done=others');
        assert.equal(await page.textContent('#status'), t.sessionsOthersEnded);
        assert.equal(await entries.count(), 1);
        assert.equal(await page.textContent('#no-others'), t.noOtherSessions);
        assert.deepEqual(await seriousViolations(page), []);
        await askedAgain(await tab(third, `${apps.url}/one`), undefined);
        assert.equal((await landed(await tab(context, `${apps.url}/two`), 'two')).who, user.email, 'this browser stays signed in');

        await entries.first().locator('button').focus();
        await page.keyboard.press('Enter');
        await page.locator('#sign-in-form:not([hidden])').waitFor();
        assert.ok(!(await context.cookies()).some((c) => c.name === 'login_session'), 'signed out here');
        const away = await tab(context, `${screen}sessions`);
        assert.equal(await away.textContent('#message'), t.sessionsNotSignedIn);
        assert.deepEqual(await seriousViolations(away), []);
        await Promise.all([context.close(), second.close(), third.close()]);
      });

      it('"not you? use another account" (by keyboard) ends the session and signs another person in', async () => {
        const { user, context } = await signedIn();
        const other = await newUser();
        const page = await tab(context, `${apps.url}/two?prompt=login`);
        await askedAgain(page, t.signInAgainLoginAsked, user.email);
        assert.equal(await page.textContent('#not-you'), t.notYou);
        await page.focus('#not-you');
        await page.keyboard.press('Enter');
        await page.locator('#signed-in-as').waitFor({ state: 'detached' });
        await askedAgain(page, undefined);
        assert.equal(await page.inputValue('#username'), '');
        await signIn(page, other.email);
        assert.equal((await landed(page, 'two')).who, other.email);
        const sessions = await admin.get<{ sessions: unknown[] }>(`/users/${user.id}/sessions`);
        assert.deepEqual(sessions.body.sessions, [], "the first person's session ended");
        await context.close();
      });
    });
  }
});
