/**
 * Inputs of the hosted screen that answered 500 or reached the wrong account (issue 24, item 5): control
 * characters in `sign-out?redirect_uri=` are a 400 page, characters outside Latin-1 go out percent-encoded;
 * a user name spelled with the Kelvin sign (U+212A, which lower-cases into `k`) names nobody, so it neither
 * signs in as, nor mails a reset code to, the user whose name has a `k` there.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { openScreen, signInOnScreen } from '../support/screen-client.js';

const CALLBACK = 'https://app.acme.test/callback';
const KIM = { email: 'kim.screen@acme.test', password: 'Kim#Secret42' };
const KELVIN_KIM = '\u212Aim.screen@acme.test';

let h: Harness;
let admin: SignedClient;
let saasId: string;
let screen: string;

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, client: admin } = await h.newSaas());
  screen = `${h.api.baseUrl}/login/${saasId}/`;
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  assert.equal((await admin.post('/users', { email: KIM.email, password: KIM.password, attributes: {} })).status, 201);
});
afterAll(async () => {
  await h?.close();
});

describe('sign-out redirect_uri', () => {
  const signOut = (redirectUri: string) => fetch(`${screen}sign-out?${new URLSearchParams({ redirect_uri: redirectUri })}`, { redirect: 'manual' });

  it('answers a 400 page for CR, LF and every other control character', async () => {
    for (const control of ['\r\n', '\n', '\r', '\t', '\u0000', '\u001b', '\u007f', '\u0085']) {
      const res = await signOut(`https://app.acme.test/after${control}set-cookie: x=1`);
      const page = await res.text();
      assert.equal(res.status, 400, `${JSON.stringify(control)}: ${res.status} ${page}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(res.headers.get('set-cookie'), null);
    }
  });

  it('sends the browser back on the callback origin, characters outside ASCII percent-encoded', async () => {
    const plain = await signOut('https://app.acme.test/after?x=1');
    assert.equal(plain.status, 302);
    assert.equal(plain.headers.get('location'), 'https://app.acme.test/after?x=1');
    const wide = await signOut('https://app.acme.test/\u4e2d?q=\u00e9');
    assert.equal(wide.status, 302, await wide.text());
    assert.equal(wide.headers.get('location'), 'https://app.acme.test/%E4%B8%AD?q=%C3%A9');
    const elsewhere = await signOut('https://evil.test/');
    assert.equal(elsewhere.headers.get('location'), `${new URL(screen).pathname}sign-in`);
  });
});

describe('user names with the Kelvin sign', () => {
  it('name nobody: no sign-in with the right password, no reset code mailed', async () => {
    const visit = await openScreen(screen);
    await assert.rejects(signInOnScreen(screen, visit, KELVIN_KIM, KIM.password), /not_authorized|user_not_found/);
    const forgot = (username: string) =>
      fetch(`${screen}api/forgot`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: visit.cookie, 'x-csrf-token': String(visit.data?.csrf) },
        body: JSON.stringify({ username }),
      });
    assert.equal((await forgot(KELVIN_KIM)).status, 200, 'the same answer as for any name');
    assert.equal((await deliveredMail(h.sesUrl, saasId, KIM.email)).length, 0);
    // The name as stored, in another ASCII case, still is the user.
    assert.equal((await forgot('KIM.screen@acme.test')).status, 200);
    assert.equal((await deliveredMail(h.sesUrl, saasId, KIM.email)).length, 1);
    const signedIn = await signInOnScreen(screen, await openScreen(screen), 'Kim.Screen@acme.test', KIM.password);
    assert.ok(String(signedIn.redirect).startsWith(`${CALLBACK}?code=`));
  });
});
