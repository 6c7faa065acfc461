/**
 * Sign In and Respond to Sign In Challenge through the local HTTP API, driven by the unmodified
 * amazon-cognito-identity-js client (through ServiceAsCognito), cognito-srp-helper, and the fast test
 * client: the plain sign-in, every way a proof is refused, temporary passwords, MFA by app and by e-mail,
 * and the lockout.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '../../shared/store/dynamo-client.js';
import { createSrpSession, signSrpSession, wrapAuthChallenge, wrapInitiateAuth } from 'cognito-srp-helper';
import type { SignedClient } from '../../client/signed-fetch.js';
import { nowSeconds, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { N } from '../../shared/crypto/srp.js';
import { base32Decode, newTotpSecret, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { FREE_ATTEMPTS, type LockoutState } from '../../shared/domain/sign-in/sign-in-lockout.js';
import { totpSecretContext } from '../../shared/domain/users/users.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';
import { config } from '../../shared/config.js';
import { ENTITY, keys } from '../../shared/store/keys.js';
import { queryAll } from '../../shared/store/query.js';
import { PENDING_OFFERS } from '../../shared/store/sign-in-repository.js';
import { tokenVerifier, dynamo, secretBox, tableName } from '../../shared/wiring.js';
import {
  authenticate,
  cognitoUser,
  completeNewPassword,
  newBrowserStorage,
  sendMfaCode,
  setDeviceRemembered,
  signedInSubject,
  type Outcome,
} from '../../dev-support/cognito-client.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail, mailsTo } from '../support/mail.js';
import { answerChallenge, CognitoError, ServiceAsCognito, srpSignIn, startSignIn, type ErrorBody } from '../../dev-support/sign-in.js';
import { SrpTestClient } from '../../dev-support/srp-client.js';
import { assertBreachedRefusal, BREACHED_PASSWORD } from '../support/passwords.js';

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

/** The lockout state sign-in keeps on the user's profile. */
const lockoutOf = async (userId: string) => (await profile(userId))?.signin_lockout as LockoutState | undefined;

/** The unmodified client, signing in as `username` from a browser (its storage: what it remembers). */
function asCognito(username: string, storage = newBrowserStorage()) {
  const transport = new ServiceAsCognito(api);
  return { transport, storage, user: cognitoUser(transport, { poolId, clientId: saasId, username, storage }) };
}

const steps = (transport: ServiceAsCognito) => transport.exchanges.map((e) => `${e.challenge ?? e.operation} ${e.status}`);

async function refusedWith(promise: Promise<unknown>, status: number, type: string): Promise<CognitoError> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof CognitoError, `a refusal from the service, not ${String(caught)}`);
  assert.equal(caught.status, status, caught.message);
  assert.equal(caught.body.type, type, caught.message);
  return caught;
}

async function setDeviceRemembering(device_remembering: 'always' | 'userOptIn' | 'no') {
  assert.equal((await api.put('/sign-in-settings', { device_configuration: { device_remembering } })).status, 200);
}

/** The e-mailed MFA code: the courier delivers, the SES stand-in shows the mail. */
async function mailedCode(to: string): Promise<string> {
  const mails = await deliveredMail(h.sesUrl, saasId, to);
  const last = mails.at(-1);
  assert.ok(last, `a mail to ${to}`);
  assert.equal(last.subject, 'Your sign-in code');
  const code = /\b(\d{6})\b/.exec(last.body.text ?? last.body.html ?? '')?.[1];
  assert.ok(code, 'the mail carries a 6-digit code');
  return code;
}

/** An authenticator app registered for the user, as the MFA registration operations leave it. */
async function withAuthenticatorApp(userId: string): Promise<string> {
  const secret = newTotpSecret();
  const sealed = await secretBox().seal(secret, totpSecretContext(saasId, userId));
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.userProfile(saasId, userId),
      UpdateExpression: 'SET mfa = :mfa',
      ExpressionAttributeValues: { ':mfa': { enabled: true, method: 'softwareToken', software_token_registered: true, sealed_totp_secret: sealed } },
    }),
  );
  return secret;
}

const codeAt = (secret: string, seconds: number) => totpCodeAt(base32Decode(secret)!, totpStep(seconds));
const enableEmailMfa = async (userId: string) =>
  assert.equal((await api.patch(`/users/${userId}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
  poolId = `us-east-1_${(await h.accounts.getSaas(saasId))!.poolName}`;
});
afterAll(async () => {
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
    assert.match(session.getRefreshToken().getToken(), /^rt2\.[A-Za-z0-9_-]+$/);
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

  it('answers the sign-in with the parameters the spec names', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const res = await startSignIn(api, user.email, new SrpTestClient().srpA);
    assert.equal(res.status, 200);
    assert.equal(res.body.challenge_name, 'PASSWORD_VERIFIER');
    assert.deepEqual(Object.keys(res.body.challenge_parameters).sort(), [
      'POOL_NAME',
      'SALT',
      'SECRET_BLOCK',
      'SRP_B',
      'USERNAME',
      'USER_ID_FOR_SRP',
    ]);
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

describe('refused proofs', () => {
  it('answers a wrong password exactly as it answers a name nobody has', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const wrong = await srpSignIn(api, user.email, `${PASSWORD}x`);
    const nobody = await srpSignIn(api, email('nobody'), PASSWORD);
    for (const res of [wrong, nobody]) await expectError(Promise.resolve(res), 401, 'not_authorized', 'PASSWORD_CLAIM_SIGNATURE');
    assert.deepEqual(wrong.body, nobody.body);
    const { user: cognito } = asCognito(user.email);
    await refusedWith(authenticate(cognito, 'Not-the-password-1'), 401, 'not_authorized');
  });

  it('refuses a tampered signature', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const client = new SrpTestClient();
    const started = await startSignIn(api, user.email, client.srpA);
    const answer = client.passwordAnswer(started.body.challenge_parameters, PASSWORD);
    const signature = Buffer.from(answer.PASSWORD_CLAIM_SIGNATURE, 'base64');
    signature[0] = (signature[0] as number) ^ 1;
    const res = await answerChallenge(
      api,
      'PASSWORD_VERIFIER',
      { ...answer, PASSWORD_CLAIM_SIGNATURE: signature.toString('base64') },
      started.body.session,
    );
    await expectError(Promise.resolve(res), 401, 'not_authorized');
  });

  it('lets one user sign in from several places at once, in any order', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const clients = [new SrpTestClient(), new SrpTestClient(), new SrpTestClient()];
    const started = await Promise.all(clients.map((client) => startSignIn(api, user.email, client.srpA)));
    const answers = clients.map((client, i) => client.passwordAnswer(started[i]!.body.challenge_parameters, PASSWORD));
    // The newest challenge first, then the others at once: each session is its own.
    assert.equal((await answerChallenge(api, 'PASSWORD_VERIFIER', answers[2]!, started[2]!.body.session)).status, 200);
    const others = await Promise.all([0, 1].map((i) => answerChallenge(api, 'PASSWORD_VERIFIER', answers[i]!, started[i]!.body.session)));
    assert.deepEqual(
      others.map((res) => res.status),
      [200, 200],
    );
  });

  it('refuses a replayed answer, even a right one, as it refuses a wrong password', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const client = new SrpTestClient();
    const started = await startSignIn(api, user.email, client.srpA);
    const answer = client.passwordAnswer(started.body.challenge_parameters, PASSWORD);
    const first = await answerChallenge(api, 'PASSWORD_VERIFIER', answer, started.body.session);
    assert.equal(first.status, 200, first.text);
    const signedIn = await profile(user.id);
    const again = await answerChallenge(api, 'PASSWORD_VERIFIER', answer, started.body.session);
    await expectError(Promise.resolve(again), 401, 'not_authorized');
    assert.deepEqual(await profile(user.id), signedIn, 'the replay changed nothing: no second sign-in, no failure counted');
  });

  for (const [name, value] of [
    ['0', '0'],
    ['N', N.toString('hex')],
    ['2N', (2n * BigInt(`0x${N.toString('hex')}`)).toString(16)],
  ] as const) {
    it(`refuses SRP_A = ${name} at once`, async () => {
      const user = await createUser({ email: email(), password: PASSWORD });
      await expectError(startSignIn(api, user.email, value), 400, 'invalid_parameter', 'SRP_A');
    });
  }

  it('refuses a stale or malformed TIMESTAMP', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const stale = await srpSignIn(api, user.email, PASSWORD, { at: new Date(Date.now() - 6 * 60_000) });
    await expectError(Promise.resolve(stale), 400, 'invalid_parameter', 'TIMESTAMP');
    const client = new SrpTestClient();
    const started = await startSignIn(api, user.email, client.srpA);
    const answer = { ...client.passwordAnswer(started.body.challenge_parameters, PASSWORD), TIMESTAMP: new Date().toUTCString() };
    await expectError(answerChallenge(api, 'PASSWORD_VERIFIER', answer, started.body.session), 400, 'invalid_parameter', 'TIMESTAMP');
  });

  it('refuses an answer to another challenge session, and a secret block of another SaaS', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const client = new SrpTestClient();
    const started = await startSignIn(api, user.email, client.srpA);
    const answer = client.passwordAnswer(started.body.challenge_parameters, PASSWORD);
    const other = await startSignIn(api, user.email, new SrpTestClient().srpA);
    await expectError(answerChallenge(api, 'PASSWORD_VERIFIER', answer, other.body.session), 401, 'invalid_session', 'session');
    const elsewhere = (await h.newSaas()).client;
    await expectError(answerChallenge(elsewhere, 'PASSWORD_VERIFIER', answer, started.body.session), 401, 'invalid_session');
  });

  it('refuses the challenge names it does not offer with 400 unsupported_challenge, and names the spec does not know', async () => {
    for (const name of [
      'SMS_MFA',
      'SMS_OTP',
      'WEB_AUTHN',
      'CUSTOM_CHALLENGE',
      'SELECT_MFA_TYPE',
      'MFA_SETUP',
      'SELECT_CHALLENGE',
      'ADMIN_NO_SRP_AUTH',
      'PASSWORD',
      'PASSWORD_SRP',
    ]) {
      await expectError(answerChallenge(api, name, { USERNAME: 'x' }, 'session'), 400, 'unsupported_challenge', 'challenge_name');
    }
    await expectError(answerChallenge(api, 'MAGIC_LINK', {}), 400, 'invalid_parameter', 'challenge_name');
  });

  it('refuses other sign-in flows and missing parameters', async () => {
    const bad = (body: unknown) => api.post('/sign-in', body);
    await expectError(
      bad({ sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME: 'a', SRP_A: 'ab' } }),
      400,
      'invalid_parameter',
      'sign_in_flow',
    );
    await expectError(
      bad({ sign_in_flow: 'USER_SRP_AUTH', sign_in_parameters: { USERNAME: 'a' } }),
      400,
      'invalid_parameter',
      'sign_in_parameters.SRP_A',
    );
    await expectError(answerChallenge(api, 'PASSWORD_VERIFIER', { USERNAME: 'a' }), 400, 'invalid_parameter', 'PASSWORD_CLAIM_SECRET_BLOCK');
    await expectError(answerChallenge(api, 'SOFTWARE_TOKEN_MFA', { SOFTWARE_TOKEN_MFA_CODE: '123456' }), 400, 'invalid_parameter', 'session');
    await expectError(
      answerChallenge(api, 'SOFTWARE_TOKEN_MFA', { SOFTWARE_TOKEN_MFA_CODE: '123456' }, 'not-a-session'),
      401,
      'invalid_session',
      'session',
    );
  });
});

describe('temporary passwords', () => {
  it('asks for a new password (NEW_PASSWORD_REQUIRED), holds it to the policy, then signs in', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    assert.equal((await api.patch(`/users/${user.id}/password`, { password: 'Temporary-pass-1', temporary: true })).status, 200);
    const { user: cognito, transport } = asCognito(user.email);
    const asked = await authenticate(cognito, 'Temporary-pass-1');
    assert.equal(asked.kind, 'newPasswordRequired');
    assert.deepEqual((asked as Extract<Outcome, { kind: 'newPasswordRequired' }>).userAttributes, { email: user.email });
    const weak = await refusedWith(completeNewPassword(cognito, 'short'), 400, 'password_policy_violation');
    assert.equal(weak.body.data.rule, 'minimum_length');
    assert.equal(signedInSubject(await completeNewPassword(cognito, 'Chosen-pass-22')), user.id);
    assert.deepEqual(steps(transport).slice(0, 4), [
      'InitiateAuth 200',
      'PASSWORD_VERIFIER 200',
      'NEW_PASSWORD_REQUIRED 400',
      'NEW_PASSWORD_REQUIRED 200',
    ]);
    assert.equal((await profile(user.id))?.password.temporary, false);
    assert.equal((await srpSignIn(api, user.email, 'Temporary-pass-1')).status, 401);
    assert.equal((await srpSignIn(api, user.email, 'Chosen-pass-22')).status, 200);
  });

  it('goes on to MFA after the new password when the user has it', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    await enableEmailMfa(user.id);
    assert.equal((await api.patch(`/users/${user.id}/password`, { password: 'Temporary-pass-1', temporary: true })).status, 200);
    const { user: cognito } = asCognito(user.email);
    assert.equal((await authenticate(cognito, 'Temporary-pass-1')).kind, 'newPasswordRequired');
    assert.equal((await completeNewPassword(cognito, 'Chosen-pass-22')).kind, 'mfaRequired');
    assert.equal(signedInSubject(await sendMfaCode(cognito, await mailedCode(user.email), 'EMAIL_OTP')), user.id);
  });

  it('refuses an expired temporary password with a clear 400, and a session after its attempts', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    setClockForTests(Date.now() - 8 * 86_400_000);
    assert.equal((await api.patch(`/users/${user.id}/password`, { password: 'Temporary-pass-1', temporary: true })).status, 200);
    resetClockForTests();
    await expectError(srpSignIn(api, user.email, 'Temporary-pass-1'), 400, 'temporary_password_expired', 'PASSWORD_CLAIM_SIGNATURE');

    const other = await createUser({ email: email(), password: PASSWORD });
    assert.equal((await api.patch(`/users/${other.id}/password`, { password: 'Temporary-pass-1', temporary: true })).status, 200);
    const asked = await srpSignIn(api, other.email, 'Temporary-pass-1');
    assert.equal(asked.body.challenge_name, 'NEW_PASSWORD_REQUIRED');
    for (let i = 0; i < 2; i++) {
      await expectError(
        answerChallenge(api, 'NEW_PASSWORD_REQUIRED', { NEW_PASSWORD: 'weak' }, asked.body.session),
        400,
        'password_policy_violation',
      );
    }
    // The first sign-in with a temporary password sets one: it is screened like every other.
    await assertBreachedRefusal(answerChallenge(api, 'NEW_PASSWORD_REQUIRED', { NEW_PASSWORD: BREACHED_PASSWORD }, asked.body.session));
    const late = answerChallenge(api, 'NEW_PASSWORD_REQUIRED', { NEW_PASSWORD: 'Chosen-pass-22' }, asked.body.session);
    await expectError(late, 401, 'invalid_session', 'session');
  });
});

describe('MFA with an authenticator app (SOFTWARE_TOKEN_MFA)', () => {
  it('asks for the code, refuses a wrong one, signs in with the right one', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const secret = await withAuthenticatorApp(user.id);
    const { user: cognito, transport } = asCognito(user.email);
    assert.equal((await authenticate(cognito, PASSWORD)).kind, 'totpRequired');
    const right = codeAt(secret, nowSeconds());
    const wrong = right === '000000' ? '111111' : '000000';
    await refusedWith(sendMfaCode(cognito, wrong, 'SOFTWARE_TOKEN_MFA'), 400, 'code_mismatch');
    assert.equal(signedInSubject(await sendMfaCode(cognito, right, 'SOFTWARE_TOKEN_MFA')), user.id);
    assert.deepEqual(steps(transport).slice(0, 4), ['InitiateAuth 200', 'PASSWORD_VERIFIER 200', 'SOFTWARE_TOKEN_MFA 400', 'SOFTWARE_TOKEN_MFA 200']);
  });

  it('takes a code of the step before or after, and each step once only', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const secret = await withAuthenticatorApp(user.id);
    const answerWith = async (code: string) => {
      const asked = await srpSignIn(api, user.email, PASSWORD);
      assert.equal(asked.body.challenge_name, 'SOFTWARE_TOKEN_MFA');
      return answerChallenge(api, 'SOFTWARE_TOKEN_MFA', { USERNAME: user.id, SOFTWARE_TOKEN_MFA_CODE: code }, asked.body.session);
    };
    const previous = codeAt(secret, nowSeconds() - 30);
    assert.equal((await answerWith(previous)).status, 200);
    await expectError(answerWith(previous), 400, 'code_mismatch', 'SOFTWARE_TOKEN_MFA_CODE');
    assert.equal((await answerWith(codeAt(secret, nowSeconds() + 30))).status, 200);
    await expectError(answerWith(codeAt(secret, nowSeconds())), 400, 'code_mismatch', 'SOFTWARE_TOKEN_MFA_CODE');
  });

  it('refuses a session of another user, and a USERNAME that is not its user', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    await withAuthenticatorApp(user.id);
    const asked = await srpSignIn(api, user.email, PASSWORD);
    const other = await createUser({ email: email(), password: PASSWORD });
    const [, secretPart] = (asked.body.session as string).split('.');
    const code = { SOFTWARE_TOKEN_MFA_CODE: '123456' };
    await expectError(answerChallenge(api, 'SOFTWARE_TOKEN_MFA', code, `${other.id}.${secretPart}`), 401, 'invalid_session', 'session');
    await expectError(
      answerChallenge(api, 'SOFTWARE_TOKEN_MFA', { ...code, USERNAME: other.email }, asked.body.session),
      401,
      'invalid_session',
      'USERNAME',
    );
    await expectError(answerChallenge(api, 'EMAIL_OTP', { EMAIL_OTP_CODE: '123456' }, asked.body.session), 401, 'invalid_session', 'session');
  });
});

describe('MFA by e-mail (EMAIL_OTP)', () => {
  it('mails a code (stored only as a keyed hash) and signs in with it', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    await enableEmailMfa(user.id);
    const { user: cognito } = asCognito(user.email);
    const asked = (await authenticate(cognito, PASSWORD)) as Extract<Outcome, { kind: 'mfaRequired' }>;
    assert.equal(asked.kind, 'mfaRequired');
    assert.equal(asked.parameters.CODE_DELIVERY_DELIVERY_MEDIUM, 'EMAIL');
    assert.match(asked.parameters.CODE_DELIVERY_DESTINATION as string, /^u\*\*\*@e\*\*\*\.test$/);
    const code = await mailedCode(user.email);
    const challenges = await queryAll(dynamo(), tableName(), { pk: keys.userProfile(saasId, user.id).pk, skPrefix: 'SIGNIN#CHALLENGE#' });
    assert.equal(challenges.length, 1);
    assert.ok(!JSON.stringify(challenges).includes(code), 'the code is not stored');
    assert.ok((challenges[0]?.expiresAt as number) <= nowSeconds() + 180, 'valid 3 minutes');
    assert.equal(signedInSubject(await sendMfaCode(cognito, code, 'EMAIL_OTP')), user.id);
  });

  it('refuses a code after 3 minutes, a replay, and a right code after three wrong ones', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    await enableEmailMfa(user.id);
    const ask = async () => {
      const asked = await srpSignIn(api, user.email, PASSWORD);
      assert.equal(asked.body.challenge_name, 'EMAIL_OTP');
      return { session: asked.body.session as string, code: await mailedCode(user.email) };
    };
    const answer = (session: string, code: string) => answerChallenge(api, 'EMAIL_OTP', { EMAIL_OTP_CODE: code }, session);

    const late = await ask();
    setClockForTests(Date.now() + 181_000);
    await expectError(answer(late.session, late.code), 401, 'invalid_session', 'session');
    resetClockForTests();

    const once = await ask();
    assert.equal((await answer(once.session, once.code)).status, 200);
    await expectError(answer(once.session, once.code), 401, 'invalid_session', 'session');

    const guessed = await ask();
    const wrong = guessed.code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++) await expectError(answer(guessed.session, wrong), 400, 'code_mismatch', 'EMAIL_OTP_CODE');
    await expectError(answer(guessed.session, guessed.code), 401, 'invalid_session', 'session');
  });
});

describe('lockout', () => {
  /** Sign-ins at a frozen instant: a lock lasts until the test moves the clock. */
  function frozenAt(ms: number) {
    setClockForTests(ms);
    return (username: string, password: string) => srpSignIn(api, username, password, { at: new Date(ms) });
  }

  it('locks after 5 failed proofs, refuses the right password while locked, then lets it in and resets', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const start = Date.now();
    let signIn = frozenAt(start);
    const refusals: ErrorBody[] = [];
    for (let i = 0; i < FREE_ATTEMPTS; i++) {
      const res = await signIn(user.email, 'Wrong-password-1');
      assert.equal(res.status, 401);
      refusals.push(res.body as unknown as ErrorBody);
    }
    const locked = await lockoutOf(user.id);
    assert.equal(locked?.failures, FREE_ATTEMPTS);
    assert.equal(locked?.lockedUntil, Math.floor(start / 1000) + 1, 'locked for 1 s');
    const whileLocked = await signIn(user.email, PASSWORD);
    assert.equal(whileLocked.status, 401, 'the right password is refused while locked');
    assert.deepEqual(whileLocked.body, refusals[0], 'and answered as a wrong password is');
    assert.equal((await lockoutOf(user.id))?.failures, FREE_ATTEMPTS, 'a refused attempt is not a failure');

    signIn = frozenAt(start + 2000);
    assert.equal((await signIn(user.email, 'Wrong-password-1')).status, 401);
    assert.equal((await lockoutOf(user.id))?.lockedUntil, Math.floor((start + 2000) / 1000) + 2, 'each further failure doubles the lock');
    signIn = frozenAt(start + 5000);
    assert.equal((await signIn(user.email, PASSWORD)).status, 200);
    assert.equal(await lockoutOf(user.id), undefined, 'a completed sign-in resets the count');
  });

  it('checks no more proofs than allowed when wrong ones arrive all at once', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const signIn = frozenAt(Date.now());
    const answers = await Promise.all(Array.from({ length: 12 }, () => signIn(user.email, 'Wrong-password-1')));
    assert.ok(answers.every((res) => res.status === 401));
    const state = await lockoutOf(user.id);
    assert.equal(state?.failures, FREE_ATTEMPTS, 'exactly the free attempts were checked');
    assert.equal((await signIn(user.email, PASSWORD)).status, 401);
  });

  it('counts wrong MFA codes too, so a known password does not open the door to guessing codes', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    await withAuthenticatorApp(user.id);
    const signIn = frozenAt(Date.now());
    const wrongCode = (session: string) => answerChallenge(api, 'SOFTWARE_TOKEN_MFA', { SOFTWARE_TOKEN_MFA_CODE: '000000' }, session);
    const first = await signIn(user.email, PASSWORD);
    assert.equal(first.body.challenge_name, 'SOFTWARE_TOKEN_MFA');
    await wrongCode(first.body.session as string);
    await wrongCode(first.body.session as string);
    const second = await signIn(user.email, PASSWORD);
    assert.equal(second.body.challenge_name, 'SOFTWARE_TOKEN_MFA', 'a right password does not reset the count');
    await wrongCode(second.body.session as string);
    // Two proofs of the password and three codes: the fifth charge locks.
    assert.equal((await lockoutOf(user.id))?.failures, FREE_ATTEMPTS);
    assert.equal((await signIn(user.email, PASSWORD)).status, 401);
  });

  it('keeps no state for a name nobody has', async () => {
    const nobody = email('nobody');
    const signIn = frozenAt(Date.now());
    for (let i = 0; i < FREE_ATTEMPTS + 2; i++) await expectError(signIn(nobody, PASSWORD), 401, 'not_authorized');
    const started = await startSignIn(api, nobody, new SrpTestClient().srpA);
    const fakeId = started.body.challenge_parameters.USER_ID_FOR_SRP as string;
    assert.deepEqual(await queryAll(dynamo(), tableName(), { pk: keys.userProfile(saasId, fakeId).pk, skPrefix: '' }), []);
  });
});

describe('remembered devices', () => {
  afterEach(() => setDeviceRemembering('userOptIn'));

  /** A user signed in once from a browser that now holds a remembered device (device_remembering: always). */
  async function userWithRememberedDevice() {
    await setDeviceRemembering('always');
    const user = await createUser({ email: email(), password: PASSWORD });
    const first = asCognito(user.email);
    const { session } = (await authenticate(first.user, PASSWORD)) as Extract<Outcome, { kind: 'signedIn' }>;
    const deviceKey = first.storage.getItem(`CognitoIdentityServiceProvider.${saasId}.${user.id}.deviceKey`) as string;
    assert.ok(deviceKey, 'the browser keeps the device');
    return { user, first, session, deviceKey };
  }

  it('userOptIn: confirms the device, remembers it on the user’s word, then signs in with it and skips MFA', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const first = asCognito(user.email);
    const signedIn = (await authenticate(first.user, PASSWORD)) as Extract<Outcome, { kind: 'signedIn' }>;
    assert.equal(signedIn.userConfirmationNecessary, true);
    await setDeviceRemembered(first.user);
    await enableEmailMfa(user.id);
    const mailsBefore = (await mailsTo(h.sesUrl, user.email)).length;

    const again = asCognito(user.email, first.storage);
    assert.equal(signedInSubject(await authenticate(again.user, PASSWORD)), user.id);
    assert.deepEqual(steps(again.transport), ['InitiateAuth 200', 'PASSWORD_VERIFIER 200', 'DEVICE_SRP_AUTH 200', 'DEVICE_PASSWORD_VERIFIER 200']);
    assert.equal((await deliveredMail(h.sesUrl, saasId, user.email)).length, mailsBefore, 'no MFA code was mailed');
  });

  it('always: remembers a confirmed device at once; no: offers none', async () => {
    await setDeviceRemembering('always');
    const user = await createUser({ email: email(), password: PASSWORD });
    const first = asCognito(user.email);
    assert.equal(((await authenticate(first.user, PASSWORD)) as Extract<Outcome, { kind: 'signedIn' }>).userConfirmationNecessary, false);
    const again = asCognito(user.email, first.storage);
    await authenticate(again.user, PASSWORD);
    assert.ok(steps(again.transport).includes('DEVICE_PASSWORD_VERIFIER 200'));

    await setDeviceRemembering('no');
    const other = await createUser({ email: email(), password: PASSWORD });
    const res = await srpSignIn(api, other.email, PASSWORD);
    assert.equal(res.status, 200);
    assert.equal(res.body.new_device_metadata, undefined);
  });

  it('not_remembered: the device is known but signs in like any other (MFA again)', async () => {
    const { user, first, session, deviceKey } = await userWithRememberedDevice();
    const status = { access_token: session.getAccessToken().getJwtToken(), device_key: deviceKey, device_remembered_status: 'not_remembered' };
    assert.equal((await api.post('/device/status', status)).status, 200);
    await enableEmailMfa(user.id);
    const again = asCognito(user.email, first.storage);
    assert.equal((await authenticate(again.user, PASSWORD)).kind, 'mfaRequired');
    assert.deepEqual(steps(again.transport), ['InitiateAuth 200', 'PASSWORD_VERIFIER 200']);
  });

  it('an unknown DEVICE_KEY does not spend the session: the client answers again without it and signs in', async () => {
    const { user, first, deviceKey } = await userWithRememberedDevice();
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.device(saasId, user.id, deviceKey) }));

    const again = asCognito(user.email, first.storage);
    assert.equal(signedInSubject(await authenticate(again.user, PASSWORD)), user.id);
    const verifiers = again.transport.exchanges.filter((e) => e.challenge === 'PASSWORD_VERIFIER');
    assert.deepEqual(
      verifiers.map((e) => [e.status, e.type ?? '', e.responses?.DEVICE_KEY ?? 'none']),
      [
        [400, 'device_not_found', deviceKey],
        [200, '', 'none'],
      ],
    );
    assert.equal(verifiers[0]?.session, verifiers[1]?.session, 'the same session, answered again');
  });

  it('refuses a device proof made with another device secret', async () => {
    const { user, first, deviceKey } = await userWithRememberedDevice();
    // Another verifier in its place: the secret the browser remembers no longer proves anything.
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.device(saasId, user.id, deviceKey),
        UpdateExpression: 'SET verifier = :v',
        ExpressionAttributeValues: { ':v': (2n ** 1000n).toString(16) },
      }),
    );
    const again = asCognito(user.email, first.storage);
    await refusedWith(authenticate(again.user, PASSWORD), 401, 'not_authorized');
    assert.deepEqual(steps(again.transport).slice(-1), ['DEVICE_PASSWORD_VERIFIER 401']);
  });

  it("refuses device operations with another user's token, an unknown device, or a bad token", async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const offered = (await srpSignIn(api, user.email, PASSWORD)).body as SignInResult;
    const device_key = offered.new_device_metadata?.device_key as string;
    const other = await createUser({ email: email(), password: PASSWORD });
    const otherToken = ((await srpSignIn(api, other.email, PASSWORD)).body as SignInResult).credentials?.access_token as string;
    const config = { password_verifier: Buffer.from('0abc', 'hex').toString('base64'), salt: 'AQI=' };
    const confirm = (access_token: string, key = device_key) =>
      api.post('/device/confirm', { access_token, device_key: key, device_secret_verifier_config: config });
    await expectError(confirm(otherToken), 400, 'device_not_found', 'device_key');
    await expectError(confirm('not.a.token'), 401, 'invalid_token', 'access_token');
    const own = offered.credentials?.access_token as string;
    await expectError(api.post('/device/confirm', { access_token: own, device_key }), 400, 'invalid_parameter', 'device_secret_verifier_config');
    assert.equal((await confirm(own)).status, 200);
    await expectError(confirm(own), 400, 'device_not_found', 'device_key');
    const status = (access_token: string, key: string) =>
      api.post('/device/status', { access_token, device_key: key, device_remembered_status: 'remembered' });
    await expectError(status(otherToken, device_key), 400, 'device_not_found', 'device_key');
    await expectError(status(own, 'us-east-1_unknown'), 400, 'device_not_found', 'device_key');
    assert.equal((await status(own, device_key)).status, 200);
  });
});

describe('offered devices (kept on the profile until confirmed)', () => {
  const config_ = { password_verifier: Buffer.from('0abc', 'hex').toString('base64'), salt: 'AQI=' };
  const confirm = (access_token: string, device_key: string) =>
    api.post('/device/confirm', { access_token, device_key, device_secret_verifier_config: config_ });
  const remember = (access_token: string, device_key: string) =>
    api.post('/device/status', { access_token, device_key, device_remembered_status: 'remembered' });
  const deviceItem = async (userId: string, deviceKey: string) =>
    (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.device(saasId, userId, deviceKey), ConsistentRead: true }))).Item;
  const offersOf = async (userId: string) => (await profile(userId))?.device_offers as Record<string, { expiresAt: number }> | undefined;
  const deviceItems = async (userId: string) =>
    (await queryAll(dynamo(), tableName(), { pk: keys.userProfile(saasId, userId).pk, skPrefix: keys.device(saasId, userId, '').sk })).length;

  async function offered(username: string) {
    const res = await srpSignIn(api, username, PASSWORD, { at: new Date(nowSeconds() * 1000) });
    assert.equal(res.status, 200, res.text);
    const body = res.body as SignInResult;
    return {
      deviceKey: body.new_device_metadata?.device_key as string,
      groupKey: body.new_device_metadata?.device_group_key as string,
      token: body.credentials?.access_token as string,
    };
  }

  it('a sign-in keeps its offer on the profile; Confirm Device makes it a device item of its own, once', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const { deviceKey, groupKey, token } = await offered(user.email);
    assert.deepEqual(Object.keys((await offersOf(user.id)) ?? {}), [deviceKey]);
    assert.equal(await deviceItems(user.id), 0, 'no device item before the confirmation');

    assert.equal((await confirm(token, deviceKey)).status, 200);
    const device = await deviceItem(user.id, deviceKey);
    assert.equal(device?.status, 'confirmed');
    assert.equal(device?.device_group_key, groupKey);
    assert.equal(device?.expiresAt, undefined, 'a confirmed device does not lapse');
    await expectError(confirm(token, deviceKey), 400, 'device_not_found', 'device_key');
    assert.equal((await remember(token, deviceKey)).status, 200);
    assert.equal((await deviceItem(user.id, deviceKey))?.remembered, true);
    // The user record does not show sign-in's state.
    const read = await api.get<Record<string, unknown>>(`/users/${user.id}`);
    assert.equal(read.status, 200);
    assert.equal('device_offers' in read.body, false);
  });

  it('an unconfirmed offer is no device: Update Device Status and a proof with its key are refused', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const { deviceKey, token } = await offered(user.email);
    await expectError(remember(token, deviceKey), 400, 'device_not_found', 'device_key');
    const res = await srpSignIn(api, user.email, PASSWORD, { deviceKey });
    assert.equal(res.status, 400);
    assert.equal((res.body as unknown as ErrorBody).type, 'device_not_found');
    assert.ok((await offersOf(user.id))?.[deviceKey], 'still offered');

    // A lapsed offer (its lifetime is the access token's, so only a stored one can show it) is not confirmed.
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.userProfile(saasId, user.id),
        UpdateExpression: 'SET device_offers.#key.expiresAt = :past',
        ExpressionAttributeNames: { '#key': deviceKey },
        ExpressionAttributeValues: { ':past': nowSeconds() - 1 },
      }),
    );
    await expectError(confirm(token, deviceKey), 400, 'device_not_found', 'device_key');
    assert.equal(await deviceItems(user.id), 0);
  });

  it('an offer stored as its own item (before offers moved to the profile) is still confirmed', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const { token } = await offered(user.email);
    const deviceKey = `us-east-1_${randomUUID()}`;
    const now = nowSeconds();
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.device(saasId, user.id, deviceKey),
          entity: ENTITY.device,
          v: 1,
          device_key: deviceKey,
          device_group_key: '-old-group',
          status: 'offered',
          remembered: false,
          created_at: now,
          expiresAt: now + 3600,
        },
      }),
    );
    assert.equal((await confirm(token, deviceKey)).status, 200);
    const device = await deviceItem(user.id, deviceKey);
    assert.equal(device?.status, 'confirmed');
    assert.equal(device?.expiresAt, undefined);
    await expectError(confirm(token, deviceKey), 400, 'device_not_found', 'device_key');
    assert.equal((await remember(token, deviceKey)).status, 200);
  });

  it(`keeps at most ${PENDING_OFFERS} offers, the newest, and drops lapsed ones`, async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const start = nowSeconds();
    const offers = [];
    for (let i = 0; i <= PENDING_OFFERS; i++) {
      setClockForTests((start + i) * 1000);
      offers.push(await offered(user.email));
    }
    const held = Object.keys((await offersOf(user.id)) ?? {}).sort();
    assert.deepEqual(
      held,
      offers
        .slice(1)
        .map((o) => o.deviceKey)
        .sort(),
      'the oldest dropped',
    );
    const [oldest, newest] = [offers[0]!, offers.at(-1)!];
    await expectError(confirm(newest.token, oldest.deviceKey), 400, 'device_not_found', 'device_key');
    assert.equal((await confirm(newest.token, newest.deviceKey)).status, 200);
    assert.equal((await deviceItem(user.id, newest.deviceKey))?.status, 'confirmed');

    // Past their lifetime the offers lapse: the next sign-in's write drops them.
    setClockForTests((start + PENDING_OFFERS + config().tokenLifetimeSeconds + 1) * 1000);
    const last = await offered(user.email);
    assert.deepEqual(Object.keys((await offersOf(user.id)) ?? {}), [last.deviceKey]);
  });

  it('two first sign-ins at once both keep their offer', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    const both = await Promise.all([offered(user.email), offered(user.email)]);
    assert.deepEqual(Object.keys((await offersOf(user.id)) ?? {}).sort(), both.map((o) => o.deviceKey).sort());
    for (const o of both) assert.equal((await confirm(o.token, o.deviceKey)).status, 200);
  });

  it('a sign-in that answered a follow-up challenge stores its offer as its own item, confirmed as before', async () => {
    const user = await createUser({ email: email(), password: PASSWORD });
    await enableEmailMfa(user.id);
    const started = await srpSignIn(api, user.email, PASSWORD);
    assert.equal(started.status, 200, started.text);
    const challenge = started.body as SignInResult;
    assert.equal(challenge.challenge_name, 'EMAIL_OTP');
    const res = await answerChallenge(
      api,
      'EMAIL_OTP',
      { USERNAME: user.email, EMAIL_OTP_CODE: await mailedCode(user.email) },
      challenge.session as string,
    );
    assert.equal(res.status, 200, res.text);
    const body = res.body as SignInResult;
    const deviceKey = body.new_device_metadata?.device_key as string;
    assert.equal((await deviceItem(user.id, deviceKey))?.status, 'offered');
    assert.equal((await offersOf(user.id))?.[deviceKey], undefined);
    assert.equal((await confirm(body.credentials?.access_token as string, deviceKey)).status, 200);
    assert.equal((await deviceItem(user.id, deviceKey))?.status, 'confirmed');
  });
});
