/**
 * How many store requests the hot paths make, counted by a wrapper around the store client (no timing):
 * a full SRP sign-in without MFA makes at most 3 (both round trips; default settings or not), one on the hosted screen 7, a refresh 1, a management read 1, and
 * every refused proof (wrong password, a name nobody has, a replay, a locked user) exactly what the others
 * make, so counting cannot tell who has an account. A change that adds a request to these paths fails here.
 * The API log's record of each call and the sign-in counts are no request of the call's: they leave it as lines
 * for the API log writer (shared/domain/apilog/shipped-lines.ts), which this file collects instead of writing.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { FREE_ATTEMPTS } from '../../shared/domain/sign-in/sign-in-lockout.js';
import { dynamo, sendShippedLinesTo, tableName } from '../../shared/wiring.js';
import { readShippedLine, type ShippedLine } from '../../shared/domain/apilog/shipped-lines.js';
import { UpdateCommand } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { countStoreRequests, type StoreRequestCounter } from '../support/store-requests.js';
import { answerChallenge, srpSignIn, startSignIn } from '../../dev-support/sign-in.js';
import { SrpTestClient } from '../../dev-support/srp-client.js';
import { SrpClient, verifierResponses } from '../../client/srp.js';
import { openScreen, screenStep } from '../support/screen-client.js';
import { saasWithScreen } from '../support/passkey-screen.js';

const PASSWORD = 'Counted-pass-1';
let h: Harness;
let api: SignedClient;
/** The SaaS's screen (its callback set: saasWithScreen). */
let loginUrl: string;
let counter: StoreRequestCounter;
const requestsOf = (work: () => Promise<unknown>) => counter.requestsOf(work);
/** The lines told for the API log writer, in order (none is written: no writer runs in this file). */
let told: ShippedLine[] = [];

beforeAll(async () => {
  h = await startHarness();
  ({ api, loginUrl } = await saasWithScreen(h));
  // Devices are not offered, so a sign-in is the SRP exchange and its credentials.
  assert.equal((await api.put('/sign-in-settings', { device_configuration: { device_remembering: 'no' } })).status, 200);
  await h.flush(); // the settings call's record, before the counting starts
  counter = countStoreRequests();
  sendShippedLinesTo((line) => {
    const shipped = readShippedLine(line);
    assert.ok(shipped, `a line the writer reads: ${line}`);
    told.push(shipped);
  });
});
// The clock stands still in each test: a kept copy (keys, settings: SETTINGS_CACHE_SECONDS) stays warm and a lock
// (one second at first) stays on however long a busy machine takes, and a test moves it from `held` to age them.
let held: number;
beforeEach(() => {
  held = Date.now();
  setClockForTests(held);
});
afterEach(() => resetClockForTests());
afterAll(async () => {
  try {
    assert.equal(counter.logWrites, 0, 'no call wrote an API log record or a count itself');
  } finally {
    await h.close();
  }
});

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
    told = [];
    const [start, respond] = await stepsOf(email, PASSWORD, 200);
    assert.deepEqual(start, ['GetItem'], 'POST /sign-in: the name owner item, which carries the verifier');
    assert.deepEqual(respond, ['GetItem', 'UpdateItem'], 'PASSWORD_VERIFIER: the profile, then one conditional write');
    assert.ok(start.length + respond.length <= 3);
    // Each call's record and event and the counted success, as lines for the writer: no store request on the call's path.
    const said = (line: ShippedLine) =>
      line.kind === 'api-log'
        ? `${line.record.method} ${line.record.uri} ${line.record.status}`
        : line.kind === 'event'
          ? line.event.eventType
          : line.kind === 'sign-in'
            ? line.outcome
            : `page ${line.referer}`;
    assert.deepEqual(told.map(said), [
      'POST /v1/auth/sign-in 200',
      'sign_in',
      'sign_in_succeeded',
      'POST /v1/auth/sign-in/challenge 200',
      'respond_to_sign_in_challenge',
    ]);
  });

  it("with passkeys on, a password sign-in also reads the person's memberships and their tenants (a tenant may require passkeys)", async () => {
    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    try {
      const tenant = await api.post<{ id: string }>('/tenants', { name: 'Counted', attributes: {}, back_office_staff_email: 'ops@example.com' });
      const [alone, member] = [await newUser(), await newUser()];
      assert.equal((await api.post(`/tenants/${tenant.body.id}/users`, { email: member, attributes: {} })).status, 201);
      await srpSignIn(api, alone, PASSWORD); // warms the settings just changed
      assert.deepEqual((await stepsOf(alone, PASSWORD, 200))[1], ['GetItem', 'Query', 'UpdateItem'], 'a person of no tenant: one Query more');
      assert.deepEqual((await stepsOf(member, PASSWORD, 200))[1], ['GetItem', 'Query', 'GetItem', 'UpdateItem'], 'and a GetItem per tenant');
    } finally {
      assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: false } })).status, 200);
    }
  });

  it('with the default settings (none saved) a warm sign-in makes 3, and sees a change of the settings', async () => {
    const { saasId, client } = await h.newSaas(); // no sign-in settings saved: the defaults, devices at the user's choice
    const email = `counted-${randomUUID()}@example.com`;
    assert.equal((await client.post('/users', { email, password: PASSWORD })).status, 201);
    /** One sign-in's requests (both steps) and whether it offered a device. */
    const signIn = async (): Promise<{ requests: string[]; deviceOffered: boolean }> => {
      const srp = new SrpTestClient();
      let started: Awaited<ReturnType<typeof startSignIn>> | undefined;
      const start = await requestsOf(async () => (started = await startSignIn(client, email, srp.srpA)));
      const answer = srp.passwordAnswer(started?.body.challenge_parameters ?? {}, PASSWORD);
      let answered: Awaited<ReturnType<typeof answerChallenge>> | undefined;
      const respond = await requestsOf(async () => (answered = await answerChallenge(client, 'PASSWORD_VERIFIER', answer, started?.body.session)));
      assert.equal(answered?.status, 200);
      return { requests: [...start, ...respond], deviceOffered: 'new_device_metadata' in (answered?.body ?? {}) };
    };
    assert.ok((await signIn()).deviceOffered, 'the defaults offer a device'); // warms the keys and the settings
    // The name's owner item, the profile, and the write that settles the sign-in with its device offer (on the
    // profile: one conditional write, as without devices): the settings (never saved, so the defaults) come
    // from what this instance read.
    assert.deepEqual(await signIn(), { requests: ['GetItem', 'GetItem', 'UpdateItem'], deviceOffered: true });

    // A change through this instance is seen by its next sign-in at once.
    assert.equal((await client.put('/sign-in-settings', { device_configuration: { device_remembering: 'no' } })).status, 200);
    // (Its settings read once more, then kept again.)
    assert.deepEqual(await signIn(), { requests: ['GetItem', 'GetItem', 'GetItem', 'UpdateItem'], deviceOffered: false });
    assert.deepEqual(await signIn(), { requests: ['GetItem', 'GetItem', 'UpdateItem'], deviceOffered: false });

    // One made by another instance (straight to the store, this instance's copy untouched) within
    // SETTINGS_CACHE_SECONDS (10 s).
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.setting(saasId, 'sign-in-settings'),
        UpdateExpression: 'SET #value.device_remembering = :remembering',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':remembering': 'userOptIn' },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    setClockForTests(held + 9_000);
    assert.equal((await signIn()).deviceOffered, false, 'still the kept copy');
    setClockForTests(held + 11_000);
    assert.equal((await signIn()).deviceOffered, true, 'read again once the kept copy is 10 s old');
  });

  it('a sign-in on the hosted screen makes 7, warm: its two steps, the tokens checked with one read, the code and session in one write', async () => {
    const email = await newUser();
    const signIn = async () => {
      const visit = await openScreen(`${loginUrl}?state=counted`);
      const srp = new SrpClient();
      let challenge: Parameters<SrpClient['passwordClaim']>[0] | undefined;
      const start = await requestsOf(async () => {
        const res = await screenStep(loginUrl, visit, 'start', { username: email, srp_a: await srp.srpA() });
        assert.equal(res.status, 200);
        ({ challenge } = (await res.json()) as { challenge: typeof challenge });
      });
      const claim = await srp.passwordClaim(challenge as NonNullable<typeof challenge>, PASSWORD);
      const answer = await requestsOf(async () => {
        const res = await screenStep(loginUrl, visit, 'answer', {
          challenge_name: 'PASSWORD_VERIFIER',
          session: claim.session,
          responses: verifierResponses(claim),
          state: 'counted',
        });
        assert.equal(res.status, 200);
        assert.match(String(((await res.json()) as { redirect?: string }).redirect), /^https:\/\/app\.example\.test\/callback\?code=/);
      });
      return { start, answer };
    };
    await signIn(); // warms the keys, the SRP secret and the settings
    assert.deepEqual(await signIn(), {
      // The SaaS's account item (the screen answers 404 for none), then the name's owner item with the verifier.
      start: ['GetItem', 'GetItem'],
      // The account item, the profile and the write that settles the sign-in (as the API's); then the ID, access
      // and refresh tokens the sign-in issued, checked before they are saved, with one read of the profile and the
      // grant (they made three before); and the code with the screen session it opens, in one write.
      answer: ['GetItem', 'GetItem', 'UpdateItem', 'BatchGetItem', 'TransactWriteItems'],
    });
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
    told = [];
    let requestId: string | null = null;
    const read = await requestsOf(async () => {
      const res = await api.get('/roles');
      assert.equal(res.status, 200);
      requestId = res.headers.get('x-request-id');
    });
    assert.equal(read.length, 1, `GET /roles: ${read.join(', ')}`);
    assert.deepEqual(
      told.map((line) => line.kind === 'api-log' && line.record.requestId),
      [requestId],
      'and its API log record told as one line',
    );
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

    for (let i = 0; i < FREE_ATTEMPTS; i++) await stepsOf(email, 'Wrong-pass-1', 401);
    const locked = await stepsOf(email, PASSWORD, 401);
    assert.deepEqual(locked, wrong, 'a right password while locked is refused with the same requests');
  });
});
