/**
 * Attack replay: the calls that send mail had no limit. 20 resends gave 21 mails to one address, and 20
 * e-mail change requests gave 20 mails to a third party's address. Now each address gets at most
 * MAIL_LIMIT_PER_ADDRESS mails per window and each user causes at most MAIL_LIMIT_PER_USER; the call past the
 * limit answers 429 in the error shape with retry-after, and changes nothing. With self sign-up off, resend
 * answers an unknown address and a confirmed user as it answers a real resend.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { config } from '../../shared/config.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail, unescapeHtml } from '../support/mail.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { mintAccessToken } from '../support/tokens.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;
const selfSignUp = (enable: boolean) => api.put('/sign-in-settings', { self_regist: { enable } });

beforeAll(async () => {
  h = await startHarness();
  ({ client: api, saasId } = await h.newSaas());
});
// The limits count in fixed windows (shared/domain/mail/mail.ts, mailCounters): a clock held for each test keeps
// its mails in one window however long a busy machine takes over them.
let held: number;
beforeEach(() => {
  held = Date.now();
  setClockForTests(held);
});
afterEach(() => resetClockForTests());
afterAll(() => h.close());

function assertTooMany(res: { status: number; body: unknown; headers: Headers }) {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  const body = res.body as { type: string; data: { retry_after_seconds: number } };
  assert.equal(body.type, 'too_many_mails');
  assert.ok(body.data.retry_after_seconds > 0);
  assert.equal(res.headers.get('retry-after'), String(body.data.retry_after_seconds));
}

describe('mail limits', () => {
  it('20 resends to one address send at most the per-address limit, and the rest answer 429', async () => {
    assert.equal((await selfSignUp(true)).status, 200);
    const email = address('flooded');
    assert.equal((await api.post('/sign-up', { email })).status, 201);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await api.post('/sign-up/resend', { email });
      statuses.push(res.status);
      if (res.status !== 200) assertTooMany(res);
    }
    const { perAddress } = config().mailLimits;
    assert.deepEqual(statuses, [...Array(perAddress - 1).fill(200), ...Array(20 - perAddress + 1).fill(429)]);
    assert.equal((await deliveredMail(h.sesUrl, saasId, email)).length, perAddress, 'the sign-up mail and the resends allowed');
    // A new window allows mail again.
    setClockForTests(held + config().mailLimits.addressWindowSeconds * 1000);
    assert.equal((await api.post('/sign-up/resend', { email })).status, 200);
  });

  it('20 e-mail change requests to a third party send at most the per-user limit', async () => {
    const user = await api.post<{ id: string; email: string }>('/users', { email: address('owner'), password: 'Correct-horse-9' });
    assert.equal(user.status, 201);
    const token = await mintAccessToken({ saasId, userId: user.body.id, email: user.body.email });
    const victims = Array.from({ length: 20 }, () => address('victim'));
    const statuses: number[] = [];
    for (const victim of victims) {
      const res = await api.post(`/users/${user.body.id}/email/request`, { email: victim, access_token: token });
      statuses.push(res.status);
      if (res.status !== 200) assertTooMany(res);
    }
    const { perUser } = config().mailLimits;
    assert.equal(statuses.filter((s) => s === 200).length, perUser);
    let delivered = 0;
    for (const victim of victims) delivered += (await deliveredMail(h.sesUrl, saasId, victim)).length;
    assert.equal(delivered, perUser);
  });

  it('a refused mail changes nothing: the password a resend would have replaced still signs in', async () => {
    assert.equal((await selfSignUp(true)).status, 200);
    assert.equal((await api.put('/notification-messages', { resend_code: { subject: 'Again', message: 'Password: <b>{####}</b>' } })).status, 200);
    const email = address('kept');
    assert.equal((await api.post('/sign-up', { email })).status, 201);
    for (let i = 1; i < config().mailLimits.perAddress; i++) {
      assert.equal((await api.post('/sign-up/resend', { email })).status, 200);
      // Delivered one at a time, so the stand-in holds them in the order they were sent.
      await deliveredMail(h.sesUrl, saasId, email);
    }
    const mails = await deliveredMail(h.sesUrl, saasId, email);
    const last = /<b>(.+)<\/b>/.exec(mails.at(-1)?.body.html ?? '')?.[1];
    assert.ok(last, 'the last mail holds a password');
    assertTooMany(await api.post('/sign-up/resend', { email }));
    const signedIn = await srpSignIn(api, email, unescapeHtml(last));
    assert.equal(signedIn.status, 200, signedIn.text);
  });
});

describe('resend with self sign-up off', () => {
  it('answers an unknown address, a confirmed user and a waiting one alike, and mails only the waiting one', async () => {
    assert.equal((await selfSignUp(false)).status, 200);
    const waiting = address('waiting');
    const confirmed = address('confirmed');
    assert.equal((await api.post('/users', { email: waiting })).status, 201);
    assert.equal((await api.post('/users', { email: confirmed, password: 'Correct-horse-9' })).status, 201);
    assert.equal((await srpSignIn(api, confirmed, 'Correct-horse-9')).status, 200);
    const answers = [];
    for (const email of [address('unknown'), confirmed, waiting]) {
      const res = await api.post('/sign-up/resend', { email });
      answers.push({ status: res.status, text: res.text });
    }
    assert.deepEqual(answers[0], answers[2]);
    assert.deepEqual(answers[1], answers[2]);
    assert.equal(answers[2]?.status, 200);
    assert.equal((await deliveredMail(h.sesUrl, saasId, confirmed)).length, 0);
  });
});
