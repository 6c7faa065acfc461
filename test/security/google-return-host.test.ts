/**
 * Google's return bound to the host that started the flow (issue 36), replayed in headless Chromium with the
 * Google stand-in and every screen on a host of its own (`<saas id>.localhost`). The attack: the attacker starts
 * a Google sign-in to SaaS S in their own browser and keeps the flow's cookie and Google's answer (code and state)
 * without using them. SaaS O's own script, on O's host, plants that cookie there in a victim's browser and opens
 * the return address, with the attacker's code, on O's host. Before: `oauth2/idpresponse` named no SaaS, so it was
 * served on every host, and the victim's browser was signed in to S as the attacker (a 302 to S's callback with
 * a code). Now the providers' return addresses answer only on the host they are registered on (the API's), where
 * no SaaS script runs and none can set a cookie, and the flow's own host is checked against the request's.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { startGoogleStandIn, type GoogleStandIn } from '../../local/google-stand-in.js';
import { config, resetConfigForTests } from '../../shared/config.js';
import { FLOW_COOKIE } from '../../web/login/screen/federation.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { requestOnHost } from '../support/host-request.js';

const skip = chromiumMissing();
const ATTACKER = { sub: 'google-attacker', email: 'attacker.fed@gmail.test' };

let h: Harness;
let browser: Browser;
let google: GoogleStandIn;
let app: Server;
let appHits: string[];
let s: string;
let o: string;
let returnPath: string;

beforeAll(async () => {
  if (skip) return;
  [h, browser] = await Promise.all([startHarness({ issuerIsApi: true, perSaasHosts: true }), launchChromium()]);
  const returnUrl = `${config().publicBaseUrl}/oauth2/idpresponse`;
  returnPath = new URL(returnUrl).pathname;
  google = await startGoogleStandIn({ returnUrl, accounts: [{ ...ATTACKER, email_verified: true }] });
  process.env.GOOGLE_ISSUER = google.issuer;
  resetConfigForTests();
  appHits = [];
  app = createServer((req, res) => {
    appHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="app">back at S</p>');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const target = await h.newSaas();
  s = target.saasId;
  assert.equal(
    (await target.client.put('/auth-info', { callback_url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback` })).status,
    200,
  );
  assert.equal((await target.client.put('/sign-in-settings', { self_regist: { enable: true } })).status, 200);
  const googleClient = {
    application_id: google.clientId,
    application_secret: google.clientSecret,
    approval_scope: 'openid email',
    is_button_hidden: false,
  };
  assert.equal((await target.client.put('/identity-providers', { provider: 'Google', identity_provider_props: googleClient })).status, 200);
  o = (await h.newSaas()).saasId;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await google?.close();
  app?.closeAllConnections();
  await new Promise((resolve) => app?.close(resolve));
  await h?.close();
});

/**
 * The attacker's own sign-in to S with Google, stopped at the return: the flow's cookie is taken out of the
 * browser before Google answers, so the service refuses the return without spending the code.
 */
async function attackersFlow(): Promise<{ cookie: string; query: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`http://${s}.localhost:${h.api.port}/v1/auth/login/${s}/federated/google`);
  const cookie = (await context.cookies()).find((c) => c.name === FLOW_COOKIE);
  assert.ok(cookie, 'the flow cookie was set where the flow began');
  await context.clearCookies({ name: FLOW_COOKIE });
  await page.click(`#account-${ATTACKER.sub}`);
  await page.waitForURL((url) => url.pathname === returnPath);
  const query = new URL(page.url()).search;
  assert.match(query, /code=/);
  await context.close();
  return { cookie: cookie.value, query };
}

(skip ? describe.skip : describe)("Google's return on another SaaS's host", () => {
  it("SaaS O's script cannot replay the attacker's flow on O's host into a victim's sign-in to S", async () => {
    const { cookie, query } = await attackersFlow();
    const victim = await browser.newContext();
    const page = await victim.newPage();
    page.setDefaultTimeout(15_000);
    // The victim is on O's screen, where O's own script runs: it plants the cookie and opens the return here.
    await page.goto(`http://${o}.localhost:${h.api.port}/v1/auth/login/${o}/`);
    await page.evaluate(
      ([name, value, path]) => {
        document.cookie = `${name}=${value}; path=${path}`;
      },
      [FLOW_COOKIE, cookie, returnPath] as const,
    );
    const answer = await page.goto(`http://${o}.localhost:${h.api.port}${returnPath}${query}`);
    assert.equal(answer?.status(), 421, `${page.url()} ${answer?.status()}`);
    assert.ok(!page.url().includes('/callback'), page.url());
    assert.deepEqual(appHits, [], "the victim's browser never reached S's callback");
    await victim.close();
  });

  it('the return answers only on the host Google is registered with, for any SaaS, with or without a cookie', async () => {
    for (const host of [`${o}.localhost:${h.api.port}`, `${s}.localhost:${h.api.port}`, `localhost:${h.api.port}`]) {
      const res = await requestOnHost(h.api.port, host, 'GET', `${returnPath}?code=x&state=y`, { cookie: `${FLOW_COOKIE}=forged` });
      assert.equal(res.status, 421, host);
    }
    // On its own host it is served: a flow it cannot open is the page that says so, not a sign-in.
    const home = await requestOnHost(h.api.port, `127.0.0.1:${h.api.port}`, 'GET', `${returnPath}?code=x&state=y`, {
      cookie: `${FLOW_COOKIE}=forged`,
    });
    assert.equal(home.status, 400);
  });
});
