/**
 * The sign-in setting sign_up.password (our extension) and the hosted screen's sign-up with a chosen password:
 * the setting stored and validated like the others; the password checked against the policy before any mail;
 * the account made only when the mailed code comes back; a code nobody confirms expires and blocks nothing.
 * Through the same handlers as the Lambdas, DynamoDB Local and the local SES.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { UpdateCommand } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';
import { SYMBOLS } from '../../shared/domain/configuration/password-policy.js';
import { dynamo, tableName, userService } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { openScreen, signInOnScreen, type ScreenVisit } from '../support/screen-client.js';
import { BREACHED_PASSWORD } from '../support/passwords.js';

const CALLBACK = 'https://app.acme.test/callback';
const POLICY = {
  minimum_length: 10,
  is_require_lowercase: true,
  is_require_numbers: true,
  is_require_symbols: false,
  is_require_uppercase: true,
  temporary_password_validity_days: 7,
};
const GOOD = 'Chosen4Password';

let h: Harness;
let admin: SignedClient;
let saasId: string;
let screen: string;

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;
const delivered = (to: string) => deliveredMail(h.sesUrl, saasId, to);
const userOf = (email: string) => userService().findByUsername(saasId, email);

/** A step of the screen posted as its page posts it: with the page's CSRF cookie and header. */
async function post(visit: ScreenVisit, step: string, body: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${screen}api/${step}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: visit.cookie, 'x-csrf-token': String(visit.data?.csrf) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const signUp = (visit: ScreenVisit, email: string, password?: string) =>
  post(visit, 'sign-up', { email, ...(password !== undefined ? { password } : {}), accepted_terms: false, accepted_privacy: false });

function assertRefusal(answer: { status: number; body: Record<string, unknown> }, status: number, type: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.type, type, JSON.stringify(answer.body));
  assert.equal(typeof answer.body.message, 'string');
  assert.deepEqual(answer.body.data, {});
}

/** The six-digit code of the verify_user_attribute mail, the newest one to the address. */
async function mailedCode(email: string): Promise<string> {
  const mails = await delivered(email);
  const code = /code is (\d{6})/.exec(mails.at(-1)?.body.text ?? '')?.[1];
  assert.ok(code, JSON.stringify(mails.at(-1)));
  return code;
}

const setChoice = async (password: unknown) => admin.put('/sign-in-settings', { sign_up: { password } });

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, client: admin } = await h.newSaas());
  screen = `${h.api.baseUrl}/login/${saasId}/`;
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  assert.equal((await admin.put('/sign-in-settings', { self_regist: { enable: true }, password_policy: POLICY })).status, 200);
});
afterAll(async () => {
  await h?.close();
});

describe('the sign-in setting sign_up.password', () => {
  it("is SaaSus's temporary password by default, set to chosen and back, the other settings untouched", async () => {
    const before = (await admin.get<Record<string, unknown>>('/sign-in-settings')).body;
    assert.deepEqual(before.sign_up, { password: 'temporary' });
    assert.equal((await setChoice('chosen')).status, 200);
    const after = (await admin.get<Record<string, unknown>>('/sign-in-settings')).body;
    assert.deepEqual(after, { ...before, sign_up: { password: 'chosen' } });
    // Another member's update keeps the choice.
    assert.equal((await admin.put('/sign-in-settings', { self_regist: { enable: true } })).status, 200);
    assert.deepEqual((await admin.get<Record<string, unknown>>('/sign-in-settings')).body.sign_up, { password: 'chosen' });
    assert.equal((await setChoice('temporary')).status, 200);
    assert.deepEqual((await admin.get<Record<string, unknown>>('/sign-in-settings')).body.sign_up, { password: 'temporary' });
  });

  it('refuses anything else in the error shape, naming the field, and changes nothing', async () => {
    assert.equal((await setChoice('chosen')).status, 200);
    const before = (await admin.get('/sign-in-settings')).body;
    await expectError(setChoice('plain'), 400, 'invalid_parameter', 'sign_up.password');
    await expectError(setChoice(true), 400, 'invalid_parameter', 'sign_up.password');
    await expectError(admin.put('/sign-in-settings', { sign_up: {} }), 400, 'invalid_parameter', 'sign_up.password');
    await expectError(admin.put('/sign-in-settings', { sign_up: { password: 'chosen', mail: false } }), 400, 'invalid_parameter', 'sign_up.mail');
    assert.deepEqual((await admin.get('/sign-in-settings')).body, before);
  });

  it('is per SaaS: another one keeps the default', async () => {
    const other = (await h.newSaas()).client;
    assert.deepEqual((await other.get<Record<string, unknown>>('/sign-in-settings')).body.sign_up, { password: 'temporary' });
  });
});

describe('sign-up on the screen with a chosen password', () => {
  beforeAll(async () => {
    assert.equal((await setChoice('chosen')).status, 200);
  });

  it("shows the SaaS's password rules and a confirmation field on the sign-up page", async () => {
    const visit = await openScreen(`${screen}sign-up`);
    assert.equal(visit.status, 200);
    assert.deepEqual(visit.data?.passwordRules, {
      minimum_length: 10,
      is_require_lowercase: true,
      is_require_uppercase: true,
      is_require_numbers: true,
      is_require_symbols: false,
      symbols: SYMBOLS,
    });
    const form = /<form id="sign-up-form".*?<\/form>/s.exec(visit.html)?.[0] ?? '';
    assert.match(form, /id="sign-up-password"[^>]*autocomplete="new-password"/);
    assert.match(form, /id="sign-up-password-confirm"/);
    assert.match(form, /at least 10 characters/);
    assert.doesNotMatch(form, /a symbol/, 'the policy asks for no symbol');
    assert.match(
      form,
      /<button type="button" class="reveal secondary" aria-pressed="false" aria-controls="sign-up-password sign-up-password-confirm">/,
    );
  });

  it('mails a code, makes the account only with it, and the person signs in with the password they chose', async () => {
    const email = address('Chooser');
    const visit = await openScreen(`${screen}sign-up`);
    const asked = await signUp(visit, email, GOOD);
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.deepEqual(asked.body, { email, code_sent: true });
    const code = await mailedCode(email);
    assert.equal((await delivered(email))[0]?.subject, 'Verify your e-mail address');
    assert.equal(await userOf(email), undefined, 'no account before the code');

    const wrong = code === '000000' ? '111111' : '000000';
    assertRefusal(await post(visit, 'sign-up-confirm', { email, code: wrong, password: GOOD }), 400, 'invalid_code');
    assert.equal(await userOf(email), undefined);

    const confirmed = await post(visit, 'sign-up-confirm', { email, code, password: GOOD });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    const user = await userOf(email);
    assert.ok(user);
    assert.equal(user.password.temporary, false, 'their own password, not a temporary one');
    const signedIn = await signInOnScreen(screen, await openScreen(screen), email, GOOD);
    assert.match(String(signedIn.redirect), /^https:\/\/app\.acme\.test\/callback\?code=/);

    // The code is used up: it makes no second account, and the same address cannot sign up again.
    assertRefusal(await post(visit, 'sign-up-confirm', { email, code, password: GOOD }), 400, 'invalid_code');
    const again = await signUp(visit, email, GOOD);
    assert.equal(again.status, 200, 'the same answer as for a new address');
    assert.equal((await delivered(email)).length, 1, 'but no mail');
  });

  it('refuses a password against the policy before any mail, in the error shape', async () => {
    const email = address('weak');
    const visit = await openScreen(`${screen}sign-up`);
    // The last meets every composition rule here but is on the breached list.
    for (const weak of ['Short4Pw', 'nouppercase42', 'NoNumbersHere', ' Spaced4Password ', BREACHED_PASSWORD]) {
      assertRefusal(await signUp(visit, email, weak), 400, 'password_policy_violation');
    }
    assert.equal((await delivered(email)).length, 0);
    assert.equal(await userOf(email), undefined);
  });

  it('refuses a sign-up without the password, or a code step while the setting is temporary (the page is out of date)', async () => {
    const email = address('stale');
    const visit = await openScreen(`${screen}sign-up`);
    assertRefusal(await signUp(visit, email), 400, 'sign_up_changed');
    assert.equal((await delivered(email)).length, 0);
    assert.equal((await setChoice('temporary')).status, 200);
    try {
      assertRefusal(await signUp(visit, email, GOOD), 400, 'sign_up_changed');
      assertRefusal(await post(visit, 'sign-up-confirm', { email, code: '123456', password: GOOD }), 400, 'sign_up_changed');
      assert.equal((await delivered(email)).length, 0);
      assert.equal(await userOf(email), undefined);
      // The default flow still mails a temporary password.
      assert.equal((await signUp(visit, email)).status, 200);
      assert.match((await delivered(email))[0]?.body.text ?? '', /temporary password is/);
    } finally {
      assert.equal((await setChoice('chosen')).status, 200);
    }
  });

  it('lets a code that nobody confirms expire, and the address sign up again (it blocks nothing)', async () => {
    const email = address('Late');
    const visit = await openScreen(`${screen}sign-up`);
    assert.equal((await signUp(visit, email, GOOD)).status, 200);
    const stale = await mailedCode(email);
    // The hour is over: the stored code's expiry moved to the past (the TTL removes the item later).
    const key = keys.pendingSignUp(saasId, createHash('sha256').update(email.toLowerCase()).digest('hex'));
    await dynamo().send(
      new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET expires_at = :past', ExpressionAttributeValues: { ':past': 1 } }),
    );
    assertRefusal(await post(visit, 'sign-up-confirm', { email, code: stale, password: GOOD }), 400, 'code_expired');
    assert.equal(await userOf(email), undefined);
    assert.equal((await signUp(visit, email, GOOD)).status, 200);
    const fresh = await mailedCode(email);
    assert.equal((await post(visit, 'sign-up-confirm', { email, code: fresh, password: GOOD })).status, 200);
    assert.ok(await userOf(email));
  });

  it('uses a code up after five wrong answers, and a newer request replaces the code', async () => {
    const email = address('guess');
    const visit = await openScreen(`${screen}sign-up`);
    assert.equal((await signUp(visit, email, GOOD)).status, 200);
    const first = await mailedCode(email);
    assert.equal((await signUp(visit, email, GOOD)).status, 200);
    const second = await mailedCode(email);
    if (first !== second) assertRefusal(await post(visit, 'sign-up-confirm', { email, code: first, password: GOOD }), 400, 'invalid_code');
    const wrong = second === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await post(visit, 'sign-up-confirm', { email, code: wrong, password: GOOD });
    assertRefusal(await post(visit, 'sign-up-confirm', { email, code: second, password: GOOD }), 400, 'invalid_code');
    assert.equal(await userOf(email), undefined);
  });

  it('still asks for the consents the sign-up page requires', async () => {
    assert.equal(
      (await admin.patch('/customize-pages', { sign_up_page: { html_contents: '', is_terms_of_service: true, is_privacy_policy: false } })).status,
      200,
    );
    try {
      const email = address('consent');
      const visit = await openScreen(`${screen}sign-up`);
      assertRefusal(await signUp(visit, email, GOOD), 400, 'must_accept');
      assert.equal((await delivered(email)).length, 0);
    } finally {
      await admin.patch('/customize-pages', { sign_up_page: { html_contents: '', is_terms_of_service: false, is_privacy_policy: false } });
    }
  });

  it('refuses while self sign-up is off', async () => {
    assert.equal((await admin.put('/sign-in-settings', { self_regist: { enable: false } })).status, 200);
    try {
      const email = address('closed');
      const visit = await openScreen(screen);
      assertRefusal(await signUp(visit, email, GOOD), 400, 'self_sign_up_disabled');
      assert.equal((await delivered(email)).length, 0);
    } finally {
      await admin.put('/sign-in-settings', { self_regist: { enable: true } });
    }
  });
});
