/**
 * How many store requests the hot paths make, counted by a wrapper around the store client (no timing):
 * a full SRP sign-in without MFA makes at most 3 (both round trips), a refresh 1, a management read 1, and
 * every refused proof (wrong password, a name nobody has, a replay, a locked user) exactly what the others
 * make, so counting cannot tell who has an account. A change that adds a request to these paths fails here.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { FREE_ATTEMPTS } from '../../shared/domain/sign-in/sign-in-lockout.js';
import { dynamo } from '../../shared/store/client.js';
import { startHarness, type Harness } from '../support/harness.js';
import { answerChallenge, srpSignIn, startSignIn } from '../support/sign-in.js';
import { SrpTestClient } from '../support/srp-client.js';

const PASSWORD = 'Counted-pass-1';
let h: Harness;
let api: SignedClient;
let counting: string[] | undefined;

beforeAll(async () => {
  h = await startHarness();
  ({ client: api } = await h.newSaas());
  // Devices are not offered, so a sign-in is the SRP exchange and its credentials.
  assert.equal((await api.put('/sign-in-settings', { device_configuration: { device_remembering: 'no' } })).status, 200);
  dynamo().intercept((command, next) => {
    counting?.push(command.operation);
    return next();
  });
});
afterAll(() => h.close());

/** The store requests `work` makes, by command name. */
async function requestsOf(work: () => Promise<unknown>): Promise<string[]> {
  counting = [];
  try {
    await work();
    return counting;
  } finally {
    counting = undefined;
  }
}

async function newUser(): Promise<string> {
  const email = `counted-${randomUUID()}@example.com`;
  assert.equal((await api.post('/users', { email, password: PASSWORD })).status, 201);
  return email;
}

/** The requests of each step of a sign-in: [POST /sign-in, PASSWORD_VERIFIER]. */
async function stepsOf(username: string, password: string, expected: number): Promise<[string[], string[]]> {
  const client = new SrpTestClient();
  let started: Awaited<ReturnType<typeof startSignIn>> | undefined;
  const start = await requestsOf(async () => (started = await startSignIn(api, username, client.srpA)));
  assert.equal(started?.status, 200);
  const answer = client.passwordAnswer(started.body.challenge_parameters, password);
  const respond = await requestsOf(async () =>
    assert.equal((await answerChallenge(api, 'PASSWORD_VERIFIER', answer, started?.body.session)).status, expected),
  );
  return [start, respond];
}

describe('store requests', () => {
  it('a full sign-in without MFA makes at most 3, warm', async () => {
    const email = await newUser();
    await srpSignIn(api, email, PASSWORD); // warms the per-instance keys and settings
    const [start, respond] = await stepsOf(email, PASSWORD, 200);
    assert.deepEqual(start, ['GetItem'], 'POST /sign-in: the name owner item, which carries the verifier');
    assert.deepEqual(respond, ['GetItem', 'UpdateItem'], 'PASSWORD_VERIFIER: the profile, then one conditional write');
    assert.ok(start.length + respond.length <= 3);
  });

  it('reads the sign-in settings once per sign-in, for the device offer and the refresh token’s lifetime, where none were saved', async () => {
    const { client } = await h.newSaas(); // no sign-in settings saved: nothing for the settings cache to keep
    const email = `counted-${randomUUID()}@example.com`;
    assert.equal((await client.post('/users', { email, password: PASSWORD })).status, 201);
    await srpSignIn(client, email, PASSWORD); // warms the per-instance keys
    const client2 = new SrpTestClient();
    let started: Awaited<ReturnType<typeof startSignIn>> | undefined;
    await requestsOf(async () => (started = await startSignIn(client, email, client2.srpA)));
    const answer = client2.passwordAnswer(started?.body.challenge_parameters ?? {}, PASSWORD);
    const respond = await requestsOf(async () =>
      assert.equal((await answerChallenge(client, 'PASSWORD_VERIFIER', answer, started?.body.session)).status, 200),
    );
    // The profile, the sign-in settings (once), and the write that settles the sign-in with its device offer.
    assert.deepEqual(respond, ['GetItem', 'GetItem', 'TransactWriteItems']);
  });

  it('a refresh makes 1, a management read 1', async () => {
    const email = await newUser();
    const signedIn = await srpSignIn(api, email, PASSWORD);
    const token = encodeURIComponent(signedIn.body.credentials?.refresh_token as string);
    const refresh = await requestsOf(async () =>
      assert.equal((await api.get(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${token}`)).status, 200),
    );
    // The profile and the grant's revocation record, in one request.
    assert.deepEqual(refresh, ['BatchGetItem']);
    const read = await requestsOf(async () => assert.equal((await api.get('/roles')).status, 200));
    assert.equal(read.length, 1, `GET /roles: ${read.join(', ')}`);
  });

  it('GET /userinfo reads the profile once: the token check takes the session version from the read of the user', async () => {
    const email = await newUser();
    const signedIn = await srpSignIn(api, email, PASSWORD);
    const token = encodeURIComponent(signedIn.body.credentials?.id_token as string);
    assert.equal((await api.get(`/userinfo?token=${token}`)).status, 200); // warms the per-instance keys
    const info = await requestsOf(async () => assert.equal((await api.get(`/userinfo?token=${token}`)).status, 200));
    // The profile, then the user's memberships; beside them the SaaS's envs and roles (6 requests before).
    assert.deepEqual([...info].sort(), ['GetItem', 'Query', 'Query', 'Query'], info.join(', '));
  });

  it('refuses a wrong password, a name nobody has, a replay and a locked user with the same requests', async () => {
    const email = await newUser();
    const wrong = await stepsOf(email, 'Wrong-pass-1', 401);
    const nobody = await stepsOf(`nobody-${randomUUID()}@example.com`, PASSWORD, 401);
    assert.deepEqual(nobody, wrong);

    const client = new SrpTestClient();
    const started = await startSignIn(api, email, client.srpA);
    const answer = client.passwordAnswer(started.body.challenge_parameters, PASSWORD);
    assert.equal((await answerChallenge(api, 'PASSWORD_VERIFIER', answer, started.body.session)).status, 200);
    const replay = await requestsOf(async () =>
      assert.equal((await answerChallenge(api, 'PASSWORD_VERIFIER', answer, started.body.session)).status, 401),
    );
    assert.deepEqual(replay, wrong[1]);

    // The clock stands still, so the first lock (one second) cannot run out on a slow machine before the last try.
    setClockForTests(Date.now());
    try {
      for (let i = 0; i < FREE_ATTEMPTS; i++) await stepsOf(email, 'Wrong-pass-1', 401);
      const locked = await stepsOf(email, PASSWORD, 401);
      assert.deepEqual(locked, wrong, 'a right password while locked is refused with the same requests');
    } finally {
      resetClockForTests();
    }
  });
});
