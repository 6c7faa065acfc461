/**
 * A user's security activity (GET /users/{user_id}/activity, our extension) through the handlers on DynamoDB
 * Local: each kind of event appears after the action that makes it (the screen's and the API's sign-ins, a
 * refused password, the lockout, password change and reset, MFA on and off), paged newest first, another SaaS's
 * user is 404, Delete User takes the events along, and a sign-in still makes its three store requests.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { nowSeconds, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { FREE_ATTEMPTS } from '../../shared/domain/sign-in/sign-in-lockout.js';
import type { UserActivity } from '../../shared/schemas/users.js';
import { GetCommand, UpdateCommand } from '../../shared/store/dynamo-client.js';
import { activityAttribute, keys } from '../../shared/store/keys.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { saasWithScreen } from '../support/passkey-screen.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { openScreen, signInOnScreen } from '../support/screen-client.js';
import { deliveredMail } from '../support/mail.js';
import { BREACHED_PASSWORD } from '../support/passwords.js';
import { answerChallenge, srpSignIn } from '../../dev-support/sign-in.js';
import { countStoreRequests, type StoreRequestCounter } from '../support/store-requests.js';

const PASSWORD = 'Activity-pass-1';
let h: Harness;
let api: SignedClient;
let saasId: string;
let counter: StoreRequestCounter;

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, api } = await saasWithScreen(h));
  counter = countStoreRequests();
});
afterEach(() => resetClockForTests());
afterAll(() => h.close());

const email = () => `activity-${randomUUID().slice(0, 8)}@example.test`;

async function newUser(): Promise<{ id: string; email: string }> {
  const res = await api.post<{ id: string; email: string }>('/users', { email: email(), password: PASSWORD });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

interface ActivityPage {
  activities: UserActivity[];
  cursor?: string;
}

async function activityOf(userId: string, query = ''): Promise<ActivityPage> {
  const res = await api.get<ActivityPage>(`/users/${userId}/activity${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/**
 * A clock that ticks a millisecond per reading from the start of the current second: events keep their order,
 * and a busy machine moves it no further than the test's own readings, so a first lock (one second) and a kept
 * copy (SETTINGS_CACHE_SECONDS) outlast the test.
 */
function tickingClock(): void {
  let tick = Math.floor(Date.now() / 1000) * 1000;
  setClockForTests(() => tick++);
}

const kindsOf = async (userId: string) => (await activityOf(userId)).activities.map((event) => event.kind);

describe('user activity', () => {
  it('records a sign-in through the API with its method, source IP and user agent, and never a secret', async () => {
    const user = await newUser();
    assert.deepEqual(await kindsOf(user.id), [], 'a new user has none');
    assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200);
    const [event, ...rest] = (await activityOf(user.id)).activities;
    assert.equal(rest.length, 0);
    assert.equal(event?.kind, 'sign_in_succeeded');
    assert.equal(event.method, 'srp');
    assert.match(event.source_ip ?? '', /127\.0\.0\.1|::1/);
    assert.ok(event.user_agent, 'the request named its user agent');
    assert.ok(Math.abs(event.created_at - Date.now() / 1000) < 600);
    assert.doesNotMatch(JSON.stringify(event), new RegExp(PASSWORD), 'no password');
    const got = await api.get<Record<string, unknown>>(`/users/${user.id}`);
    assert.deepEqual(Object.keys(got.body).sort(), ['attributes', 'email', 'id', 'last_login_at', 'sign_in_id'], 'Get User does not carry it');
  });

  it('stores each event as its JSON text, and still reads an event stored as a map before', async () => {
    const user = await newUser();
    // An event as profiles held them before: a map attribute.
    const at = nowSeconds() - 60;
    const legacyId = `${String(at * 1000).padStart(14, '0')}abcdef`;
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.userProfile(saasId, user.id),
        UpdateExpression: 'SET #event = :event',
        ExpressionAttributeNames: { '#event': activityAttribute(legacyId) },
        ExpressionAttributeValues: { ':event': { kind: 'password_changed', at, expires_at: at + 86_400 } },
      }),
    );
    assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200);
    assert.deepEqual(await kindsOf(user.id), ['sign_in_succeeded', 'password_changed'], 'both, newest first');
    const profile = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, user.id), ConsistentRead: true })))
      .Item as Record<string, unknown>;
    const stored = Object.entries(profile).filter(([name]) => name.startsWith(activityAttribute('')));
    assert.equal(stored.length, 2);
    const written = stored.find(([name]) => name !== activityAttribute(legacyId))?.[1];
    assert.equal(typeof written, 'string', 'the new event is one string');
    assert.equal((JSON.parse(written as string) as { kind: string }).kind, 'sign_in_succeeded');
  });

  it('records a sign-in on the hosted screen', async () => {
    const user = await newUser();
    const screen = `${h.api.baseUrl}/login/${saasId}/`;
    const signedIn = await signInOnScreen(screen, await openScreen(screen), user.email, PASSWORD);
    assert.ok(signedIn.redirect);
    const [event] = (await activityOf(user.id)).activities;
    assert.equal(event?.kind, 'sign_in_succeeded');
    assert.equal(event.method, 'srp');
    assert.ok(event.source_ip);
  });

  it("records a forgotten password reset on the screen with the mailed code as the reset's completion", async () => {
    const user = await newUser();
    const screen = `${h.api.baseUrl}/login/${saasId}/`;
    const visit = await openScreen(screen);
    const step = (name: string, body: object) =>
      fetch(`${screen}api/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: visit.cookie, 'x-csrf-token': String(visit.data?.csrf) },
        body: JSON.stringify(body),
      });
    assert.equal((await step('forgot', { username: user.email })).status, 200);
    const code = /\b(\d{6})\b/.exec((await deliveredMail(h.sesUrl, saasId, user.email)).at(-1)?.body.text ?? '')?.[1] as string;
    assert.ok(code);
    const breached = await step('reset', { username: user.email, code, password: BREACHED_PASSWORD });
    assert.equal(breached.status, 400, 'a reset is screened against breached passwords');
    assert.equal(((await breached.json()) as { type: string }).type, 'password_policy_violation');
    const reset = await step('reset', { username: user.email, code, password: 'Activity-pass-9' });
    assert.equal(reset.status, 200, await reset.text());
    const [event] = (await activityOf(user.id)).activities;
    assert.equal(event?.kind, 'password_reset_completed');
    assert.ok(event.source_ip, "the screen request's address");
  });

  it('records refused passwords, then the failure that locked the user out; refusals while locked add nothing', async () => {
    const user = await newUser();
    tickingClock();
    for (let i = 0; i < FREE_ATTEMPTS; i++) assert.equal((await srpSignIn(api, user.email, 'Wrong-password-1')).status, 401);
    assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 401, 'locked');
    const kinds = await kindsOf(user.id);
    assert.deepEqual(kinds, ['locked_out', ...Array<string>(FREE_ATTEMPTS - 1).fill('sign_in_failed')]);
  });

  it('records password changes, resets and MFA turned on and off', async () => {
    const user = await newUser();
    assert.equal((await api.patch(`/users/${user.id}/password`, { password: 'Activity-pass-2' })).status, 200);
    assert.equal((await api.post(`/users/${user.id}/password/reset`, {})).status, 200);
    assert.equal((await api.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    assert.equal((await api.patch(`/users/${user.id}/mfa/preference`, { enabled: false })).status, 200);
    assert.deepEqual(await kindsOf(user.id), ['mfa_disabled', 'mfa_enabled', 'password_reset', 'password_changed']);
  });

  it('records a wrong MFA code as a failure in the charge it makes anyway, and a right one only as the sign-in', async () => {
    const user = await newUser();
    assert.equal((await api.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    const asked = await srpSignIn(api, user.email, PASSWORD);
    assert.equal(asked.body.challenge_name, 'EMAIL_OTP');
    const mails = await deliveredMail(h.sesUrl, saasId, user.email);
    const code = /\b(\d{6})\b/.exec(mails.at(-1)?.body.text ?? '')?.[1] as string;
    assert.ok(code);
    const wrong = code === '000000' ? '111111' : '000000';
    const answer = (EMAIL_OTP_CODE: string) => answerChallenge(api, 'EMAIL_OTP', { EMAIL_OTP_CODE }, asked.body.session);
    await expectError(answer(wrong), 400, 'code_mismatch', 'EMAIL_OTP_CODE');
    assert.equal((await answer(code)).status, 200);
    const events = (await activityOf(user.id)).activities;
    assert.deepEqual(
      events.map(({ kind, challenge }) => [kind, challenge]),
      [
        ['sign_in_succeeded', undefined],
        ['sign_in_failed', 'EMAIL_OTP'],
        ['mfa_enabled', undefined],
      ],
    );
    // Ids and times are digits too: the rest of each event is what must not hold a code.
    const rest = events.map(({ activity_id: _id, created_at: _at, ...other }) => other);
    assert.doesNotMatch(JSON.stringify(rest), new RegExp(`${code}|${wrong}`), 'no code');
  });

  it('records an authenticator app registered', async () => {
    const user = await newUser();
    const signedIn = await srpSignIn(api, user.email, PASSWORD);
    const token = signedIn.body.credentials?.access_token as string;
    const created = await api.post<{ secret_code: string }>(`/users/${user.id}/mfa/software-token/secret-code`, { access_token: token });
    assert.equal(created.status, 201, created.text);
    const verification_code = totpCodeAt(base32Decode(created.body.secret_code)!, totpStep(nowSeconds()));
    assert.equal((await api.put(`/users/${user.id}/mfa/software-token`, { access_token: token, verification_code })).status, 200);
    assert.deepEqual(await kindsOf(user.id), ['authenticator_registered', 'sign_in_succeeded']);
  });

  it('pages newest first with a cursor bound to the user', async () => {
    const user = await newUser();
    for (let i = 0; i < 4; i++) assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200);
    assert.equal((await api.patch(`/users/${user.id}/password`, { password: PASSWORD })).status, 200);
    const all = (await activityOf(user.id)).activities;
    assert.equal(all.length, 5);
    assert.equal(all[0]?.kind, 'password_changed', 'newest first');
    const ids = all.map((event) => event.activity_id);
    assert.deepEqual([...ids].sort().reverse(), ids);

    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page: ActivityPage = await activityOf(user.id, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.ok(page.activities.length <= 2);
      pages.push(...page.activities.map((event) => event.activity_id));
      cursor = page.cursor;
    } while (cursor);
    assert.deepEqual(pages, ids, 'the pages together are the whole list, once each');

    const first = await activityOf(user.id, '?limit=2');
    const other = await newUser();
    await expectError(api.get(`/users/${other.id}/activity?cursor=${encodeURIComponent(first.cursor ?? '')}`), 400, 'invalid_cursor', 'cursor');
    await expectError(api.get(`/users/${user.id}/activity?limit=0`), 400, 'invalid_parameter');
  });

  it("answers 404 for another SaaS's user and for a user who is not there", async () => {
    const user = await newUser();
    assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200);
    const { client: stranger } = await h.newSaas();
    const res = await stranger.get<{ type: string; message: string; data: object }>(`/users/${user.id}/activity`);
    assert.equal(res.status, 404, res.text);
    assert.equal(typeof res.body.type, 'string');
    assert.equal(typeof res.body.data, 'object');
    assert.equal((await api.get(`/users/${randomUUID()}/activity`)).status, 404);
  });

  it('a key without user:read is refused', async () => {
    const reader = await h.newKey(saasId, ['config:read']);
    const user = await newUser();
    assert.equal((await reader.get(`/users/${user.id}/activity`)).status, 403);
  });

  it('goes with Delete User', async () => {
    const user = await newUser();
    assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200);
    assert.equal((await kindsOf(user.id)).length, 1);
    assert.equal((await api.delete(`/users/${user.id}`)).status, 200);
    assert.equal((await api.get(`/users/${user.id}/activity`)).status, 404);
    const left = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, user.id), ConsistentRead: true }));
    assert.equal(left.Item, undefined, 'the profile, which held the events, is gone');
  });

  it('a warm sign-in with the default settings still makes 3 store requests, and records itself in them', async () => {
    const user = await newUser();
    tickingClock();
    assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200); // warms keys and settings
    const requests = await counter.requestsOf(async () => assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200));
    assert.deepEqual(requests, ['GetItem', 'GetItem', 'UpdateItem'], 'the offered device rides on the profile write');
    assert.deepEqual(await kindsOf(user.id), ['sign_in_succeeded', 'sign_in_succeeded']);
    const refused = await counter.requestsOf(async () => assert.equal((await srpSignIn(api, user.email, 'Wrong-password-1')).status, 401));
    assert.deepEqual(refused, ['GetItem', 'GetItem', 'UpdateItem'], 'a refused proof: its one lockout write, which records the failure');
    assert.equal((await kindsOf(user.id))[0], 'sign_in_failed');
  });
});
