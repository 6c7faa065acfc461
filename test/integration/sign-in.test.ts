/**
 * Sign In and Respond to Sign In Challenge through the local HTTP API, driven by the unmodified
 * amazon-cognito-identity-js client (through ServiceAsCognito), cognito-srp-helper, and the fast test
 * client: the plain sign-in, every way a proof is refused, temporary passwords, MFA by app and by e-mail,
 * and the lockout.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createSrpSession, signSrpSession, wrapAuthChallenge, wrapInitiateAuth } from 'cognito-srp-helper';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests } from '../../shared/clock.js';
import { dynamo, tableName } from '../../shared/store/client.js';
import { keys } from '../../shared/store/keys.js';
import { tokenVerifier } from '../../shared/wiring.js';
import { authenticate, cognitoUser, signedInSubject, type Outcome } from '../support/cognito-client.js';
import { startHarness, type Harness } from '../support/harness.js';
import { answerChallenge, ServiceAsCognito, srpSignIn, startSignIn } from '../support/sign-in.js';
import { SrpTestClient } from '../support/srp-client.js';

let h: Harness;
let api: SignedClient;
let saasId: string;
let poolId: string;

const PASSWORD = 'Correct-horse-9';
const email = (name = 'user') => `${name}-${randomUUID().slice(0, 8)}@example.test`;

async function createUser(body: Record<string, unknown>): Promise<{ id: string; email: string; sign_in_id: string }> {
  const res = await api.post<{ id: string; email: string; sign_in_id: string }>('/users', body);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const profile = async (userId: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, userId), ConsistentRead: true }))).Item;

function asCognito(username: string, transport = new ServiceAsCognito(api)) {
  return { transport, user: cognitoUser(transport, { poolId, clientId: saasId, username }) };
}

before(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
  poolId = `us-east-1_${(await h.accounts.getSaas(saasId))!.poolName}`;
});
after(async () => {
  resetClockForTests();
  await h.close();
});
afterEach(() => resetClockForTests());

describe('a plain sign-in', () => {
  it('signs an e-mail user in with amazon-cognito-identity-js: PASSWORD_VERIFIER, then tokens of this SaaS', async () => {
    const user = await createUser({ email: email('Ann'), password: PASSWORD });
    const { user: cognito, transport } = asCognito(user.email.toUpperCase());
    const outcome = await authenticate(cognito, PASSWORD);
    assert.equal(signedInSubject(outcome), user.id);
    // Devices are remembered on the user's say-so by default (userOptIn): the client confirms the one offered.
    assert.deepEqual(
      transport.exchanges.map((e) => [e.operation, e.challenge ?? '', e.status]),
      [
        ['InitiateAuth', '', 200],
        ['RespondToAuthChallenge', 'PASSWORD_VERIFIER', 200],
        ['ConfirmDevice', '', 200],
      ],
    );
    const { session, userConfirmationNecessary } = outcome as Extract<Outcome, { kind: 'signedIn' }>;
    assert.equal(userConfirmationNecessary, true);
    const access = await tokenVerifier().verifyAccessToken(saasId, session.getAccessToken().getJwtToken(), { userId: user.id });
    const id = await tokenVerifier().verifyIdToken(saasId, session.getIdToken().getJwtToken());
    assert.equal(access.sub, user.id);
    assert.equal(id.email, user.email);
    assert.match(session.getRefreshToken().getToken(), new RegExp(`^${user.id}\\.[A-Za-z0-9_-]{43}$`));
    const stored = await profile(user.id);
    assert.ok((stored?.last_login_at as number) >= id.auth_time, 'last_login_at is the sign-in time');
  });

  it('signs a sign-in-ID user in, by any case of the ID', async () => {
    const user = await createUser({ sign_in_id: `Kei_${randomUUID().slice(0, 6)}`, password: PASSWORD });
    const res = await srpSignIn(api, user.sign_in_id.toLowerCase(), PASSWORD);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['challenge_parameters', 'credentials', 'new_device_metadata']);
    const claims = await tokenVerifier().verifyIdToken(saasId, res.body.credentials!.id_token);
    assert.equal(claims.sign_in_id, user.sign_in_id);
    assert.equal(claims.email, undefined);
  });

  it('answers the sign-in with the parameters SPEC.md names', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const res = await startSignIn(api, user.email, new SrpTestClient().srpA);
    assert.equal(res.status, 200);
    assert.equal(res.body.challenge_name, 'PASSWORD_VERIFIER');
    assert.deepEqual(Object.keys(res.body.challenge_parameters).sort(), ['POOL_NAME', 'SALT', 'SECRET_BLOCK', 'SRP_B', 'USERNAME', 'USER_ID_FOR_SRP']);
    assert.equal(res.body.challenge_parameters.USER_ID_FOR_SRP, user.id);
    assert.equal(`us-east-1_${res.body.challenge_parameters.POOL_NAME}`, poolId);
    assert.ok(res.body.session);
  });

  it('signs in with cognito-srp-helper, answering with the e-mail as USERNAME', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const srp = createSrpSession(user.email, PASSWORD, poolId, false);
    const initiate = wrapInitiateAuth(srp, { ClientId: saasId, AuthFlow: 'USER_SRP_AUTH', AuthParameters: { USERNAME: user.email } });
    const started = await startSignIn(api, user.email, (initiate.AuthParameters as Record<string, string>).SRP_A as string);
    const signed = signSrpSession(srp, { ChallengeParameters: started.body.challenge_parameters });
    const answer = wrapAuthChallenge(signed, { ClientId: saasId, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: { USERNAME: user.email } });
    const res = await answerChallenge(api, 'PASSWORD_VERIFIER', answer.ChallengeResponses as Record<string, string>, started.body.session);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.credentials?.access_token);
  });
});
