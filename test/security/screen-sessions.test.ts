/**
 * Attacks on the hosted screen's session (web/login/screen/screen-session.ts, resume.ts): a session cookie
 * of SaaS A presented on SaaS B's screen, a session that would outlive a password reset, prompt=none asked
 * for an unregistered redirect URI, and session fixation (a cookie planted before the victim signs in). And
 * the "where you are signed in" view (web/login/screen/sessions-view.ts): a form posted from another site
 * (no CSRF token), a session id of another person, a view asked with another SaaS's cookie.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { Browser } from '../support/screen-browser.js';

const CALLBACK = 'https://app.acme.test/auth/callback';
const PASSWORD = 'Taro#Secret42';

let h: Harness;
let a: { saasId: string; admin: SignedClient; screen: string };
let b: { saasId: string; admin: SignedClient; screen: string };

async function saas() {
  const { saasId, client: admin } = await h.newSaas();
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  return { saasId, admin, screen: `${h.api.baseUrl}/login/${saasId}/` };
}

let n = 0;
async function user(of: typeof a) {
  const email = `victim${++n}.fixation@example.com`;
  const created = await of.admin.post<{ id: string }>('/users', { email, password: PASSWORD, attributes: {} });
  assert.equal(created.status, 201, created.text);
  return { email, id: created.body.id };
}

/** Who a code the screen sent to the callback signs in, traded as the SaaS's backend trades it. */
async function holderOf(of: typeof a, res: Response): Promise<string> {
  assert.equal(res.status, 302);
  const code = new URL(res.headers.get('location') ?? '').searchParams.get('code');
  const traded = await of.admin.get<{ id_token: string }>(`/credentials?code=${code}`);
  assert.equal(traded.status, 200, traded.text);
  return String(decodeJwt(traded.body.id_token).sub);
}

beforeAll(async () => {
  h = await startHarness({ issuerIsApi: true });
  [a, b] = [await saas(), await saas()];
});
afterAll(async () => {
  await h?.close();
});

describe('the screen session', () => {
  it("of SaaS A is nothing on SaaS B's screen, even under B's path and with a user of the same id", async () => {
    const browser = new Browser(a.screen);
    await browser.signIn(`${a.screen}?state=s`, (await user(a)).email, PASSWORD);
    const sealed = browser.cookies.get('login_session');
    assert.ok(sealed);
    const onB = await fetch(`${b.screen}?state=s`, { redirect: 'manual', headers: { cookie: `login_session=${sealed}` } });
    assert.equal(onB.status, 200, 'B shows its sign-in page; no code leaves');
    assert.equal(onB.headers.get('location'), null);
    assert.doesNotMatch(await onB.text(), /Signed in as/);
    // Its own screen still answers from it: the cookie was good, only not for B.
    assert.equal((await fetch(`${a.screen}?state=s`, { redirect: 'manual', headers: { cookie: `login_session=${sealed}` } })).status, 302);
  });

  it('does not survive a password reset or change, even replayed from a copy of its cookie', async () => {
    for (const end of ['reset', 'change'] as const) {
      const victim = await user(a);
      const browser = new Browser(a.screen);
      await browser.signIn(`${a.screen}?state=s`, victim.email, PASSWORD);
      const copy = browser.header();
      const ended =
        end === 'reset'
          ? await a.admin.post(`/users/${victim.id}/password/reset`, {})
          : await a.admin.patch(`/users/${victim.id}/password`, { password: 'Changed#Secret42' });
      assert.equal(ended.status, 200);
      const replay = await fetch(`${a.screen}?state=s`, { redirect: 'manual', headers: { cookie: copy } });
      assert.equal(replay.status, 200, `${end}: the sign-in page, not a code`);
      const silent = await new Browser(a.screen).get(`${a.screen}?state=s`);
      assert.equal(silent.status, 200);
    }
  });

  it('never answers prompt=none to an unregistered redirect URI: a page, no redirect, whatever the session', async () => {
    const client = await oidc.discovery(new URL(h.api.baseUrl), a.saasId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const browser = new Browser(a.screen, client, CALLBACK);
    await browser.signIn(`${a.screen}?state=s`, (await user(a)).email, PASSWORD);
    for (const redirectUri of ['https://evil.test/callback', `${CALLBACK}/more`, 'https://app.acme.test/auth/callback?x=1']) {
      const url = oidc.buildAuthorizationUrl(client, {
        redirect_uri: redirectUri,
        scope: 'openid',
        prompt: 'none',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      const res = await browser.get(url.toString());
      assert.equal(res.status, 400, redirectUri);
      assert.equal(res.headers.get('location'), null);
    }
  });

  it('planted before a sign-in is never adopted: the victim gets a new session, the planted one stays its owner’s', async () => {
    const attacker = await user(a);
    const victim = await user(a);
    const mallory = new Browser(a.screen);
    await mallory.signIn(`${a.screen}?state=s`, attacker.email, PASSWORD);
    const planted = mallory.cookies.get('login_session') as string;

    // While the victim signs in, their browser gets Mallory's cookie (set through a sibling host, say), or a forged one.
    for (const plant of [planted, 'forged-value']) {
      const browser = new Browser(a.screen);
      await browser.signIn(`${a.screen}?state=s`, victim.email, PASSWORD, () => browser.cookies.set('login_session', plant));
      const own = browser.cookies.get('login_session');
      assert.ok(own && own !== plant, 'a new session cookie');
      assert.equal(await holderOf(a, await browser.get(`${a.screen}?state=s`)), victim.id);
    }
    // Mallory's cookie still signs in Mallory only: the victim's sign-in did not move into it.
    const withPlanted = await fetch(`${a.screen}?state=s`, { redirect: 'manual', headers: { cookie: `login_session=${planted}` } });
    assert.equal(await holderOf(a, withPlanted), attacker.id);
  });

  it('"where you are signed in" ends only the signed-in person\'s own sessions, and only from its own page', async () => {
    const victim = await user(a);
    const mallory = await user(a);
    const victimBrowser = new Browser(a.screen);
    await victimBrowser.signIn(`${a.screen}?state=s`, victim.email, PASSWORD);
    const malloryBrowser = new Browser(a.screen);
    await malloryBrowser.signIn(`${a.screen}?state=s`, mallory.email, PASSWORD);
    const victimSessions = async () => (await a.admin.get<{ sessions: { id: string }[] }>(`/users/${victim.id}/sessions`)).body.sessions;
    const [victimSession] = await victimSessions();
    assert.ok(victimSession);
    const page = await malloryBrowser.get(`${a.screen}sessions`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(await page.text(), new RegExp(victimSession.id), "Mallory's view lists Mallory's sessions only");
    const csrf = malloryBrowser.cookies.get('login_csrf') as string;
    const post = (browser: Browser, body: string, cookie = browser.header()) =>
      fetch(`${a.screen}sessions`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body,
      });

    // A form on another site posting into the victim's browser: its cookies go (Strict aside), the token cannot.
    const victimPage = await victimBrowser.get(`${a.screen}sessions`);
    assert.equal(victimPage.status, 200);
    for (const body of ['others=1', `others=1&csrf=${csrf}`, 'others=1&csrf=']) {
      assert.equal((await post(victimBrowser, body)).status, 403, body);
    }
    // Mallory, with a good token, names the victim's session: not Mallory's, so nothing of the victim's ends.
    const foreign = await post(malloryBrowser, `csrf=${csrf}&session_id=${victimSession.id}`);
    assert.equal(foreign.status, 404);
    assert.equal((await post(malloryBrowser, `csrf=${csrf}&session_id=../x`)).status, 400);
    // A JSON body is no form: refused before anything runs.
    const json = await fetch(`${a.screen}sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: malloryBrowser.header() },
      body: JSON.stringify({ csrf, others: '1' }),
    });
    assert.equal(json.status, 400);
    assert.deepEqual(await victimSessions(), [victimSession]);

    // SaaS A's session cookie shows nobody on SaaS B's view.
    const onB = await fetch(`${b.screen}sessions`, { headers: { cookie: victimBrowser.header() } });
    assert.doesNotMatch(await onB.text(), new RegExp(victim.email.replace(/\./g, '\\.')));
  });
});
