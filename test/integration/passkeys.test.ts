/**
 * Passkeys (our extension) over DynamoDB Local, through the hosted screen's steps and the API, with a software
 * authenticator (test/support/soft-authenticator.ts) that can be told to break each rule: a challenge serves
 * once and for two minutes, the origin and relying party are the screen's own, a credential of one SaaS is
 * nothing at another, a SaaS that has not turned passkeys on refuses them, and a passkey signs in with the same
 * tokens as a password.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import type { Credentials } from '../../shared/schemas/sign-in.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { openScreen, signInOnScreen, type ScreenVisit } from '../support/screen-client.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { saasWithScreen } from '../support/passkey-screen.js';

let h: Harness;
const PASSWORD = 'Correct-horse-9';

interface Saas {
  id: string;
  api: SignedClient;
  loginUrl: string;
  /** The page's origin as a browser has it: the host the test's requests name. */
  origin: string;
  rpId: string;
}

async function newSaas(passkeys: boolean): Promise<Saas> {
  const { saasId, api, loginUrl } = await saasWithScreen(h);
  if (passkeys) assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
  const origin = new URL(loginUrl).origin;
  return { id: saasId, api, loginUrl, origin, rpId: new URL(loginUrl).hostname };
}

/** A screen visit's steps, posted as the page posts them. */
function stepsOf(saas: Saas, visit: ScreenVisit) {
  return async (step: string, body: object): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${saas.loginUrl}api/${step}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: visit.cookie, 'x-csrf-token': String(visit.data?.csrf) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

/** A user of the SaaS signed in on its screen with a password: what the page holds then. */
async function passwordSignIn(saas: Saas) {
  const email = `p-${randomUUID().slice(0, 8)}@example.test`;
  const created = await saas.api.post<{ id: string }>('/users', { email, password: PASSWORD });
  assert.equal(created.status, 201, created.text);
  const visit = await openScreen(saas.loginUrl);
  const answer = await signInOnScreen(saas.loginUrl, visit, email, PASSWORD);
  return { userId: created.body.id, email, visit, answer, post: stepsOf(saas, visit) };
}

/** A user with a passkey registered on the screen: the authenticator holds it. */
async function userWithPasskey(saas: Saas) {
  const signedIn = await passwordSignIn(saas);
  const { ticket } = signedIn.answer.passkeys as { ticket: string };
  const authenticator = new SoftAuthenticator();
  const options = await signedIn.post('passkey/register-options', { ticket });
  assert.equal(options.status, 200, JSON.stringify(options.body));
  const { challenge_id, options: creation } = options.body as { challenge_id: string; options: Parameters<SoftAuthenticator['register']>[0] };
  const registered = await signedIn.post('passkey/register', {
    ticket,
    challenge_id,
    response: authenticator.register(creation, { origin: saas.origin }),
  });
  assert.equal(registered.status, 200, JSON.stringify(registered.body));
  return { ...signedIn, ticket, authenticator };
}

/** Sign-in options on a fresh visit of the screen. */
async function signInOptions(saas: Saas) {
  const post = stepsOf(saas, await openScreen(saas.loginUrl));
  const res = await post('passkey/sign-in-options', {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { challenge_id, options } = res.body as { challenge_id: string; options: { challenge: string; rpId: string } };
  return { post, challenge_id, options };
}

type Post = ReturnType<typeof stepsOf>;

/** The page leaving the passkey offer: the code its sign-in held back is saved now. */
async function leaveOffer(post: Post, answer: Record<string, unknown>) {
  return post('passkey/continue', { hold: (answer.passkeys as { hold: string }).hold });
}

const codeOf = (redirect: unknown) => new URL(String(redirect)).searchParams.get('code');

/** The credentials a sign-in's temporary code stands for, once the page has left the offer. */
async function redeemed(saas: Saas, answer: Record<string, unknown>, post: Post): Promise<Credentials> {
  const left = await leaveOffer(post, answer);
  assert.equal(left.status, 200, JSON.stringify(left.body));
  const res = await saas.api.get<Credentials>(`/credentials?code=${codeOf(answer.redirect)}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const subjectOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { sub: string }).sub;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => resetClockForTests());

describe('the sign-in setting passkeys.enable (our extension)', () => {
  it('is off by default, validated, and kept', async () => {
    const { client: api } = await h.newSaas();
    const before = await api.get<{ passkeys: { enable: boolean } }>('/sign-in-settings');
    assert.deepEqual(before.body.passkeys, { enable: false });
    await expectError(api.put('/sign-in-settings', { passkeys: { enable: 'yes' } }), 400, 'invalid_parameter');
    await expectError(api.put('/sign-in-settings', { passkeys: { enable: true, extra: 1 } }), 400, 'invalid_parameter');
    assert.deepEqual((await api.get<{ passkeys: unknown }>('/sign-in-settings')).body.passkeys, { enable: false }, 'a refusal changes nothing');
    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    // Another member's update leaves it as it is.
    assert.equal((await api.put('/sign-in-settings', { self_regist: { enable: true } })).status, 200);
    assert.deepEqual((await api.get<{ passkeys: unknown }>('/sign-in-settings')).body.passkeys, { enable: true });
  });

  it('while off, the screen offers no passkey and refuses every passkey step', async () => {
    const saas = await newSaas(false);
    const { answer, post } = await passwordSignIn(saas);
    assert.ok(answer.redirect);
    assert.equal(answer.passkeys, undefined, 'no ticket to manage passkeys');
    const visit = await openScreen(saas.loginUrl);
    assert.doesNotMatch(visit.html, /sign-in-with-passkey/);
    const refused = await post('passkey/sign-in-options', {});
    assert.equal(refused.status, 400);
    assert.equal(refused.body.type, 'passkeys_disabled');
  });
});

describe('registering a passkey and signing in with it', () => {
  let saas: Saas;
  beforeAll(async () => {
    saas = await newSaas(true);
  });

  it('after a password sign-in the page gets a ticket; the passkey it registers signs in alone, with the same tokens', async () => {
    const { userId, answer, authenticator, post, ticket } = await userWithPasskey(saas);
    assert.equal((answer.passkeys as { count: number }).count, 0, 'the offer said there was none yet');
    const listed = await post('passkey/list', { ticket });
    assert.equal((listed.body.passkeys as unknown[]).length, 1);

    const { post: fresh, challenge_id, options } = await signInOptions(saas);
    assert.equal(options.rpId, saas.rpId, 'the relying party is the host that served the screen');
    const signedIn = await fresh('passkey/sign-in', {
      challenge_id,
      response: authenticator.authenticate(options, { origin: saas.origin }),
      state: 's-1',
    });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    assert.equal(new URL(String(signedIn.body.redirect)).searchParams.get('state'), 's-1');
    const credentials = await redeemed(saas, signedIn.body, fresh);
    assert.equal(subjectOf(credentials.id_token), userId);
    const me = await saas.api.get<{ id: string }>(`/userinfo?token=${credentials.id_token}`);
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.id, userId);

    const api = await saas.api.get<{ passkeys: { id: string; last_used_at: number; backed_up: boolean; rp_id: string }[] }>(
      `/users/${userId}/passkeys`,
    );
    assert.equal(api.status, 200, api.text);
    assert.equal(api.body.passkeys.length, 1);
    assert.ok((api.body.passkeys[0]?.last_used_at ?? 0) > 0, 'its use is recorded');
    assert.equal(api.body.passkeys[0]?.rp_id, saas.rpId);
    assert.doesNotMatch(api.text, /public_key|credential_id/, 'no key material leaves the service');

    const activity = await saas.api.get<{ activities: { kind: string; method?: string }[] }>(`/users/${userId}/activity`);
    assert.deepEqual(
      activity.body.activities.map(({ kind, method }) => [kind, method]),
      [
        ['sign_in_succeeded', 'passkey'],
        ['passkey_added', undefined],
        ['sign_in_succeeded', 'srp'],
      ],
      "the user's activity (GET /users/{user_id}/activity)",
    );
  });

  it('refuses a challenge used once already (a replayed answer)', async () => {
    const { authenticator } = await userWithPasskey(saas);
    const { post, challenge_id, options } = await signInOptions(saas);
    const response = authenticator.authenticate(options, { origin: saas.origin });
    assert.equal((await post('passkey/sign-in', { challenge_id, response })).status, 200);
    const replay = await post('passkey/sign-in', { challenge_id, response });
    assert.equal(replay.status, 401);
    assert.equal(replay.body.type, 'passkey_refused');
  });

  it('refuses an expired challenge (two minutes, checked by the service, not the TTL)', async () => {
    const { authenticator } = await userWithPasskey(saas);
    const { post, challenge_id, options } = await signInOptions(saas);
    const later = Date.now() + 121_000;
    setClockForTests(later);
    const late = await post('passkey/sign-in', { challenge_id, response: authenticator.authenticate(options, { origin: saas.origin }) });
    assert.equal(late.status, 401);
    assert.equal(late.body.type, 'passkey_refused');
    assert.match(String(late.body.message), /.+/);
  });

  it('refuses an answer signed for another origin or another relying party', async () => {
    const { authenticator } = await userWithPasskey(saas);
    for (const signing of [{ origin: 'https://evil.example.test' }, { origin: saas.origin, rpId: 'evil.example.test' }]) {
      const { post, challenge_id, options } = await signInOptions(saas);
      const refused = await post('passkey/sign-in', { challenge_id, response: authenticator.authenticate(options, signing) });
      assert.equal(refused.status, 401, JSON.stringify(signing));
      assert.equal(refused.body.type, 'passkey_refused');
    }
  });

  it('refuses a registration without user verification, or for another origin', async () => {
    const { post, ticket } = await passwordSignIn(saas).then((s) => ({ ...s, ticket: (s.answer.passkeys as { ticket: string }).ticket }));
    for (const signing of [{ origin: saas.origin, userVerified: false }, { origin: 'https://evil.example.test' }]) {
      const options = await post('passkey/register-options', { ticket });
      const { challenge_id, options: creation } = options.body as { challenge_id: string; options: Parameters<SoftAuthenticator['register']>[0] };
      const refused = await post('passkey/register', { ticket, challenge_id, response: new SoftAuthenticator().register(creation, signing) });
      assert.equal(refused.status, 401, JSON.stringify(signing));
    }
    assert.deepEqual((await post('passkey/list', { ticket })).body.passkeys, [], 'nothing was kept');
  });

  it('refuses a cloned authenticator (its counter went back)', async () => {
    const { authenticator } = await userWithPasskey(saas);
    const first = await signInOptions(saas);
    assert.equal(
      (
        await first.post('passkey/sign-in', {
          challenge_id: first.challenge_id,
          response: authenticator.authenticate(first.options, { origin: saas.origin }),
        })
      ).status,
      200,
    );
    authenticator.counter = 0;
    const again = await signInOptions(saas);
    const refused = await again.post('passkey/sign-in', {
      challenge_id: again.challenge_id,
      response: authenticator.authenticate(again.options, { origin: saas.origin }),
    });
    assert.equal(refused.status, 401);
  });

  it('refuses a ticket that is not this screen’s, and one of another SaaS', async () => {
    const other = await newSaas(true);
    const { ticket } = await userWithPasskey(other);
    const { post } = await passwordSignIn(saas);
    const foreign = await post('passkey/list', { ticket });
    assert.equal(foreign.status, 400);
    assert.equal((await post('passkey/list', { ticket: 'forged' })).status, 400);
  });
});

describe('the code of a sign-in that offers passkeys', () => {
  let saas: Saas;
  beforeAll(async () => {
    saas = await newSaas(true);
  });

  it('is saved when the page leaves the offer: its 10 seconds start then, however long the person stayed', async () => {
    const { answer, post } = await passwordSignIn(saas);
    assert.equal((answer.passkeys as { count: number }).count, 0, 'the page offers a passkey');
    await expectError(saas.api.get(`/credentials?code=${codeOf(answer.redirect)}`), 404, 'code_not_found');
    // A minute reading the offer (and registering a passkey, which the first test does).
    const start = Date.now();
    setClockForTests(start + 60_000);
    const credentials = await redeemed(saas, answer, post);
    assert.ok(credentials.id_token);
    // Then the code lives its usual 10 seconds from the moment the person left.
    const again = await passwordSignIn(saas);
    setClockForTests(start + 120_000);
    assert.equal((await leaveOffer(again.post, again.answer)).status, 200);
    setClockForTests(start + 131_000);
    await expectError(saas.api.get(`/credentials?code=${codeOf(again.answer.redirect)}`), 404, 'code_not_found');
  });

  it('is saved once: a replayed Continue issues no second code, and the code serves once', async () => {
    const { answer, post } = await passwordSignIn(saas);
    await redeemed(saas, answer, post);
    const replayed = await leaveOffer(post, answer);
    assert.equal(replayed.status, 400, JSON.stringify(replayed.body));
    assert.equal(replayed.body.type, 'sign_in_expired');
    await expectError(saas.api.get(`/credentials?code=${codeOf(answer.redirect)}`), 404, 'code_not_found');
  });

  it('is held for 15 minutes at most; a hold is no code, and a forged or foreign one saves nothing', async () => {
    const late = await passwordSignIn(saas);
    setClockForTests(Date.now() + 15 * 60_000 + 1000);
    assert.equal((await leaveOffer(late.post, late.answer)).body.type, 'sign_in_expired');
    resetClockForTests();

    const { answer, post } = await passwordSignIn(saas);
    const { hold } = answer.passkeys as { hold: string };
    const forged = await post('passkey/continue', { hold: randomUUID() });
    assert.equal(forged.status, 400);
    assert.equal(forged.body.type, 'sign_in_expired');
    const malformed = await post('passkey/continue', { hold: 'x'.repeat(36) });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.type, 'invalid_parameter');
    // Another SaaS's screen knows no hold of this one.
    const other = await newSaas(true);
    const elsewhere = await stepsOf(other, await openScreen(other.loginUrl))('passkey/continue', { hold });
    assert.equal(elsewhere.body.type, 'sign_in_expired');
    assert.equal((await leaveOffer(post, answer)).status, 200, 'the refusals changed nothing');
    // The hold's id opens no credentials where a code is traded.
    const second = await passwordSignIn(saas);
    await expectError(saas.api.get(`/credentials?code=${(second.answer.passkeys as { hold: string }).hold}`), 404, 'code_not_found');
  });
});

describe('one credential belongs to one user of one SaaS', () => {
  it('a passkey of SaaS A signs in nobody at SaaS B, and B cannot see or remove it', async () => {
    const a = await newSaas(true);
    const b = await newSaas(true);
    const { authenticator, userId } = await userWithPasskey(a);
    const { post, challenge_id, options } = await signInOptions(b);
    const refused = await post('passkey/sign-in', { challenge_id, response: authenticator.authenticate(options, { origin: b.origin }) });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.type, 'passkey_refused');
    const [passkey] = (await a.api.get<{ passkeys: { id: string }[] }>(`/users/${userId}/passkeys`)).body.passkeys;
    await expectError(b.api.get(`/users/${userId}/passkeys`), 404, 'user_not_found');
    await expectError(b.api.delete(`/users/${userId}/passkeys/${passkey?.id}`), 404, 'passkey_not_found');
    assert.equal((await a.api.get<{ passkeys: unknown[] }>(`/users/${userId}/passkeys`)).body.passkeys.length, 1, 'still there');
  });
});

describe('GET and DELETE /users/{user_id}/passkeys (our extension)', () => {
  it('lists and removes, with user:read and user:write; a removed passkey signs in no more', async () => {
    const saas = await newSaas(true);
    const { userId, authenticator } = await userWithPasskey(saas);
    const reader = await h.newKey(saas.id, ['user:read']);
    const listed = await reader.get<{ passkeys: { id: string }[] }>(`/users/${userId}/passkeys`);
    assert.equal(listed.status, 200, listed.text);
    const id = listed.body.passkeys[0]?.id as string;
    await expectError(reader.delete(`/users/${userId}/passkeys/${id}`), 403, 'permission_denied');
    await expectError(saas.api.delete(`/users/${userId}/passkeys/not-a-passkey-id`), 400, 'invalid_parameter');
    const writer = await h.newKey(saas.id, ['user:write']);
    assert.equal((await writer.delete(`/users/${userId}/passkeys/${id}`)).status, 200);
    await expectError(writer.delete(`/users/${userId}/passkeys/${id}`), 404, 'passkey_not_found');
    assert.deepEqual((await reader.get<{ passkeys: unknown[] }>(`/users/${userId}/passkeys`)).body.passkeys, []);
    const activity = await reader.get<{ activities: { kind: string }[] }>(`/users/${userId}/activity`);
    assert.equal(activity.body.activities[0]?.kind, 'passkey_removed');
    const { post, challenge_id, options } = await signInOptions(saas);
    assert.equal(
      (await post('passkey/sign-in', { challenge_id, response: authenticator.authenticate(options, { origin: saas.origin }) })).status,
      401,
    );
  });

  it('Delete User takes the passkeys along, freeing the credential', async () => {
    const saas = await newSaas(true);
    const { userId, authenticator } = await userWithPasskey(saas);
    assert.equal((await saas.api.delete(`/users/${userId}`)).status, 200);
    await expectError(saas.api.get(`/users/${userId}/passkeys`), 404, 'user_not_found');
    const { post, challenge_id, options } = await signInOptions(saas);
    assert.equal(
      (await post('passkey/sign-in', { challenge_id, response: authenticator.authenticate(options, { origin: saas.origin }) })).status,
      401,
    );
  });
});
