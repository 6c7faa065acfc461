/**
 * The lazy migration's SRP path (issue 39): an old pool whose app client does not allow USER_PASSWORD_AUTH (a
 * SaaSus pool's may not). cognito-local speaks no SRP, so the old pool is one of this service's own SaaS, spoken to
 * as Cognito on the wire (test/support/service-as-cognito-pool.ts) through the same AWS SDK client with an endpoint
 * override: its real SRP engine checks the proof the migration computes from the password held in memory.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn, type ErrorBody } from '../../dev-support/sign-in.js';
import { resetConfigForTests } from '../../shared/config.js';
import { poolName } from '../../shared/wiring/accounts.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';
import { startServiceAsCognitoPool } from '../support/service-as-cognito-pool.js';

let h: Harness;
let api: SignedClient;
let oldPool: Awaited<ReturnType<typeof startServiceAsCognitoPool>>;
const PASSWORD = 'Old-pool-pass-1';
const EMAIL = 'srp@pool.example.test';

const passwordSignIn = (USERNAME: string, PASSWORD: string) =>
  api.post<SignInResult & ErrorBody>('/sign-in', { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME, PASSWORD } });
const usersHere = async () => (await api.get<{ users: { email: string }[] }>('/users')).body.users.map((u) => u.email).sort();
/** What the migration asked the old pool, since the last look. */
const asked = () => oldPool.operations.splice(0);

beforeAll(async () => {
  h = await startHarness();
  // The old pool: a SaaS with the user, and USER_PASSWORD_AUTH off (the default), as an SRP-only app client is.
  const old = await h.newSaas();
  assert.equal((await old.client.post('/users', { email: EMAIL, password: PASSWORD, attributes: {} })).status, 201);
  oldPool = await startServiceAsCognitoPool(old.client);
  process.env.COGNITO_ENDPOINT = oldPool.url;
  resetConfigForTests();

  const { saasId } = await h.newSaas();
  api = await h.newKey(saasId, ['*']);
  const cognito_pool = { region: 'ap-northeast-1', user_pool_id: `ap-northeast-1_${await poolName(old.saasId)}`, client_id: 'app' };
  const put = await api.put('/sign-in-settings', { password_sign_in: { user_password_auth: true, cognito_pool } });
  assert.equal(put.status, 200, put.text);
});

afterAll(async () => {
  delete process.env.COGNITO_ENDPOINT;
  resetConfigForTests();
  await oldPool?.close();
  await h.close();
});

describe('lazy migration by SRP, where the old pool does not allow USER_PASSWORD_AUTH', () => {
  it('refused by the old pool, or unknown to both: the answer of a wrong password, the same requests, nobody made', async () => {
    const refused = await passwordSignIn(EMAIL, 'not the password');
    const refusedAsked = asked();
    const unknown = await passwordSignIn('nobody@pool.example.test', PASSWORD);
    for (const answer of [refused, unknown]) {
      assert.equal(answer.status, 401, answer.text);
      assert.equal(answer.body.type, 'not_authorized');
      assert.equal(answer.body.message, refused.body.message);
    }
    // USER_PASSWORD_AUTH refused as not enabled, then SRP to the proof, for the wrong password and for nobody alike.
    assert.deepEqual(refusedAsked, ['InitiateAuth', 'InitiateAuth', 'RespondToAuthChallenge']);
    assert.deepEqual(asked(), refusedAsked);
    assert.deepEqual(await usersHere(), []);
  });

  it('accepted by the old pool through SRP: the user is made here with a verifier of the password, and signs in by SRP after', async () => {
    const first = await passwordSignIn(EMAIL, PASSWORD);
    assert.equal(first.status, 200, first.text);
    assert.ok(first.body.credentials?.id_token);
    assert.deepEqual(asked(), ['InitiateAuth', 'InitiateAuth', 'RespondToAuthChallenge', 'GetUser']);
    assert.deepEqual(await usersHere(), [EMAIL]);
    assert.equal((await srpSignIn(api, EMAIL, PASSWORD)).status, 200);
  });
});
