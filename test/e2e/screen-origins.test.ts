/**
 * One origin per SaaS login screen (shared/screen-hosts.ts), in headless Chromium, which resolves
 * `*.localhost` to the loopback address: the service hands out `http://<saas id>.localhost:<port>/…` for each
 * screen, and a page of SaaS A's origin (where A's own script, its tag manager, runs) reaches nothing of SaaS
 * B's screen: not B's remembered devices, not B's page with its CSRF token, not B's screen served on A's host.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { EN } from '../../web/login/texts/en.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { enableTotp } from '../support/example-app.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { requestOnHost } from '../support/host-request.js';
import { startSaasBackend, type SaasBackend } from '../support/saas-backend.js';

const skip = chromiumMissing();
const RIKU = { email: 'riku@example.com', password: 'Riku#Secret42' };

interface Screen {
  saasId: string;
  admin: SignedClient;
  /** As the service names it: `sign_in_page_url` without its `sign-in`. */
  url: string;
}

let h: Harness;
let browser: Browser;
let a: Screen;
let b: Screen;
let backend: SaasBackend;
let rikuSecret: string;
let rikuId: string;

const onHost = (host: string, method: string, path: string, headers: Record<string, string> = {}, body = '') =>
  requestOnHost(h.api.port, host, method, path, headers, body);

/** The screen the service links to: the `sign_in_page_url` of a refused token. */
async function screenOf(saasId: string, admin: SignedClient): Promise<Screen> {
  const refused = await admin.get<{ data: { sign_in_page_url: string } }>('/userinfo?token=not-a-token');
  assert.equal(refused.status, 401);
  const signIn = refused.body.data.sign_in_page_url;
  assert.ok(signIn.endsWith('/sign-in'), signIn);
  return { saasId, admin, url: signIn.slice(0, -'sign-in'.length) };
}

(skip ? describe.skip : describe)('one origin per SaaS login screen, in Chromium', () => {
  beforeAll(async () => {
    [h, browser] = await Promise.all([startHarness({ perSaasHosts: true }), launchChromium()]);
    const [first, second] = [await h.newSaas(), await h.newSaas()];
    [a, b] = [await screenOf(first.saasId, first.client), await screenOf(second.saasId, second.client)];
    backend = await startSaasBackend(b.admin, b.url);
    for (const screen of [a, b]) assert.equal((await screen.admin.put('/auth-info', { callback_url: backend.callbackUrl })).status, 200);
    // A's own script: its tag manager, which runs on A's screen.
    const look = { title: 'A', icon: '', favicon: '', terms_of_service_url: '', privacy_policy_url: '', is_sign_in_id_enabled: false };
    assert.equal((await a.admin.patch('/customize-page-settings', { ...look, tag_manager_container_id: 'GTM-AOWN1' })).status, 200);
    // B remembers devices; Riku answers an authenticator code once per browser.
    const setup = new ServiceSetup(b.admin);
    await setup.ensureDefinitions();
    rikuId = await setup.createUser(RIKU.email, RIKU.password);
    rikuSecret = await enableTotp(b.admin, rikuId, RIKU.email, RIKU.password);
    assert.equal((await b.admin.put('/sign-in-settings', { device_configuration: { device_remembering: 'always' } })).status, 200);
  });
  afterAll(async () => {
    await browser?.close();
    await backend?.close();
    await h?.close();
  });

  async function open(context: BrowserContext, url: string): Promise<Page> {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(url);
    return page;
  }

  async function signInOnB(page: Page, withCode: boolean) {
    await page.locator('#sign-in-form:not([hidden])').waitFor();
    await page.fill('#username', RIKU.email);
    await page.fill('#password', RIKU.password);
    await page.click('#sign-in-form button[type=submit]');
    if (withCode) {
      await page.locator('#code-form:not([hidden])').waitFor();
      await page.fill('#code', totpCodeAt(base32Decode(rikuSecret) as Buffer, totpStep(Date.now() / 1000)));
      await page.click('#code-form button[type=submit]');
    }
    // Without the code, the code form showing means the device did not answer for it.
    const refused = withCode ? '#error:not([hidden])' : '#error:not([hidden]), #code-form:not([hidden])';
    await Promise.race([page.waitForURL(`${backend.url}/`), page.locator(refused).waitFor()]);
    if (page.url() !== `${backend.url}/`) assert.fail(`not back at the SaaS: ${await page.textContent('#error')}`);
  }

  it('links each SaaS to a screen on a host of its own, and sends the OpenID Connect request there', async () => {
    for (const screen of [a, b]) {
      assert.equal(screen.url, `http://${screen.saasId}.localhost:${h.api.port}/v1/auth/login/${screen.saasId}/`);
    }
    const authorize = new URLSearchParams({
      client_id: a.saasId,
      redirect_uri: backend.callbackUrl,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'A'.repeat(43),
      code_challenge_method: 'S256',
    });
    const sent = await onHost(`127.0.0.1:${h.api.port}`, 'GET', `/v1/auth/oauth2/authorize?${authorize.toString()}`);
    assert.equal(sent.status, 302, sent.text);
    assert.ok(String(sent.headers.location).startsWith(`${a.url}?authorization=`), String(sent.headers.location));
  });

  it('keeps B’s remembered device and B’s page with its CSRF token out of reach of a page on A’s origin', async () => {
    const context = await browser.newContext();
    try {
      await signInOnB(await open(context, b.url), true);
      const onA = await open(context, a.url);
      await onA.locator('#sign-in-form:not([hidden])').waitFor();
      // Runs in A's page, as A's tag manager would: every way a script reaches another screen's secrets.
      const reached = await onA.evaluate(async (bScreen: string) => {
        const scope = globalThis as unknown as {
          localStorage: { length: number; key(i: number): string | null; getItem(k: string): string | null };
          document: { cookie: string };
          location: { origin: string };
          fetch: typeof fetch;
        };
        const storage: string[] = [];
        for (let i = 0; i < scope.localStorage.length; i++)
          storage.push(`${scope.localStorage.key(i)}=${scope.localStorage.getItem(scope.localStorage.key(i) ?? '')}`);
        let crossOrigin: string;
        try {
          crossOrigin = await (await scope.fetch(bScreen, { credentials: 'include' })).text();
        } catch {
          crossOrigin = 'blocked';
        }
        const onThisHost = await scope.fetch(`${scope.location.origin}${new URL(bScreen).pathname}`, { credentials: 'include' });
        return { storage, cookie: scope.document.cookie, crossOrigin, onThisHost: { status: onThisHost.status, text: await onThisHost.text() } };
      }, b.url);
      assert.deepEqual(reached.storage, [], 'nothing of B in the storage A’s page sees');
      assert.equal(reached.cookie, '', 'no cookie a script reads');
      assert.equal(reached.crossOrigin, 'blocked', 'B’s page, with its CSRF token, is another origin’s');
      assert.equal(reached.onThisHost.status, 421, 'B’s screen is not served on A’s host');
      assert.doesNotMatch(reached.onThisHost.text, /page-data|csrf/);

      // B's real screen in a window A's page opens: another origin's document, which A's script cannot touch.
      // Signed out of B's screen first, or its session would answer the window at once (the device stays).
      await (await open(context, `${b.url}sign-out`)).close();
      const [popup] = await Promise.all([
        context.waitForEvent('page'),
        onA.evaluate((bScreen: string) => {
          const scope = globalThis as unknown as { opened?: unknown; open(url: string): unknown };
          scope.opened = scope.open(bScreen);
        }, b.url),
      ]);
      await popup.locator('#sign-in-form:not([hidden])').waitFor();
      await popup.fill('#password', 'typed-by-the-person');
      const scripted = await onA.evaluate(() => {
        const { opened } = globalThis as unknown as { opened: { document: { querySelector(s: string): { value: string } | null } } };
        try {
          return opened.document.querySelector('#password')?.value ?? 'no field';
        } catch {
          return 'blocked';
        }
      });
      assert.equal(scripted, 'blocked', 'A’s script reads nothing typed on B’s screen');
      // A step of B posted from A's page with B's cookies: the browser asks B first, and B allows no other origin.
      const posted = await onA.evaluate(async (bScreen: string) => {
        try {
          const res = await fetch(`${bScreen}api/start`, {
            method: 'POST',
            credentials: 'include',
            headers: { 'content-type': 'application/json', 'x-csrf-token': 'x'.repeat(43) },
            body: JSON.stringify({ username: 'riku@example.com', srp_a: 'ab' }),
          });
          return String(res.status);
        } catch {
          return 'blocked';
        }
      }, b.url);
      assert.equal(posted, 'blocked');

      // Where B keeps it: a sealed HttpOnly cookie of B's host and B's steps.
      const device = (await context.cookies()).find((c) => c.name === `login_device_${rikuId}`);
      assert.ok(device, 'B keeps the device in this browser');
      assert.equal(device.domain, `${b.saasId}.localhost`);
      assert.equal(device.path, `/v1/auth/login/${b.saasId}/api/`);
      assert.equal(device.httpOnly, true);

      // The device still signs Riku in on B, without the code.
      await signInOnB(await open(context, b.url), false);
    } finally {
      await context.close();
    }
  });

  it('refuses B’s screen on A’s host and on a host nobody set up, and sends it from the API’s host to B’s own', async () => {
    const context = await browser.newContext();
    try {
      const misdirected = await context.newPage();
      const answer = await misdirected.goto(`http://${a.saasId}.localhost:${h.api.port}/v1/auth/login/${b.saasId}/`);
      assert.equal(answer?.status(), 421);
      assert.equal(await misdirected.textContent('h1'), EN.page.wrongHostTitle);
      assert.equal(await misdirected.locator('form').count(), 0);

      const fromApi = await open(context, `${h.api.baseUrl}/login/${b.saasId}/forgot-password?state=s1`);
      assert.equal(fromApi.url(), `${b.url}forgot-password?state=s1`);
      await fromApi.locator('#forgot-form:not([hidden])').waitFor();
    } finally {
      await context.close();
    }
    const step = await onHost(
      `${a.saasId}.localhost:${h.api.port}`,
      'POST',
      `/v1/auth/login/${b.saasId}/api/start`,
      { 'content-type': 'application/json' },
      JSON.stringify({ username: RIKU.email, srp_a: 'ab' }),
    );
    assert.equal(step.status, 421);
    assert.equal((JSON.parse(step.text) as { type: string }).type, 'wrong_host');
    const sharedStep = await onHost(
      `127.0.0.1:${h.api.port}`,
      'POST',
      `/v1/auth/login/${b.saasId}/api/start`,
      { 'content-type': 'application/json' },
      '{}',
    );
    assert.equal(sharedStep.status, 421, 'a step is posted from the page, on B’s host');
    for (const host of ['evil.example', `nobody.localhost:${h.api.port}`, `${a.saasId}.localhost.evil.example`]) {
      assert.equal((await onHost(host, 'GET', `/v1/auth/login/${b.saasId}/`)).status, 421, host);
    }
    // The SAML endpoints of B too: on B's host and the API's, never on A's.
    const metadata = `/v1/auth/saml2/metadata/${b.saasId}`;
    assert.equal((await onHost(`${b.saasId}.localhost:${h.api.port}`, 'GET', metadata)).status, 200);
    assert.equal((await onHost(`127.0.0.1:${h.api.port}`, 'GET', metadata)).status, 200);
    assert.equal((await onHost(`${a.saasId}.localhost:${h.api.port}`, 'GET', metadata)).status, 421);
  });

  it('runs A’s tag manager on A’s own origin', async () => {
    const page = await onHost(`${a.saasId}.localhost:${h.api.port}`, 'GET', `/v1/auth/login/${a.saasId}/`);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self' https:\/\/www\.googletagmanager\.com/);
    assert.match(page.text, /gtm\.js\?id=GTM-AOWN1/);
  });
});
