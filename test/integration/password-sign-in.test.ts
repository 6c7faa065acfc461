/**
 * Sign-in with the password itself (USER_PASSWORD_AUTH, our extension, issue 39) through the handlers on DynamoDB
 * Local: an imported user's first sign-in checks the imported hash once and replaces it with an SRP verifier, so
 * the next sign-in is an ordinary SRP one; a user imported with no password is mailed a code to set one; a wrong
 * password, an unknown name and a user with no password get one answer; the setting is off until an import (or
 * the SaaS) turns it on; the unmodified amazon-cognito-identity-js signs in with authenticationFlowType
 * USER_PASSWORD_AUTH.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { FREE_ATTEMPTS, type LockoutState } from '../../shared/domain/sign-in/sign-in-lockout.js';
import { externalId } from '../../shared/domain/migration/external-id.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { authenticate, cognitoUser, signedInSubject } from '../../dev-support/cognito-client.js';
import { ServiceAsCognito, srpSignIn, type ErrorBody } from '../../dev-support/sign-in.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { hashVector } from '../support/hash-vectors.js';
import { enableTotp } from '../support/example-app.js';
import { deliveredMail } from '../support/mail.js';
import { openScreen, screenStep, signInOnScreen } from '../support/screen-client.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

const row = (value: object) => JSON.stringify(value);
const BCRYPT = { algorithm: 'bcrypt', hash: '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' };
const FILE = [
  row({ type: 'user', external_id: 'u-bcrypt', email: 'bcrypt@first.example.test', password_hash: BCRYPT }),
  row({ type: 'user', external_id: 'u-cognito', email: 'cognito@first.example.test', password_hash: BCRYPT }),
  row({ type: 'user', external_id: 'u-firebase', sign_in_id: 'fire', password_hash: hashVector('firebase_scrypt').hash }),
  row({ type: 'user', external_id: 'u-none', email: 'nopassword@first.example.test' }),
  row({ type: 'user', external_id: 'u-screen', email: 'screen@first.example.test', password_hash: BCRYPT }),
].join('\n');

const passwordSignIn = (client: SignedClient, USERNAME: string, PASSWORD: string) =>
  client.post<SignInResult & ErrorBody>('/sign-in', { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME, PASSWORD } });

const profile = async (userId: string, saas = saasId) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saas, userId) }))).Item;

/** The store requests made while `noted` is set, with the partition each names. */
let noted: { operation: string; pk: string }[] | undefined;

beforeAll(async () => {
  h = await startHarness();
  ({ saasId } = await h.newSaas());
  api = await h.newKey(saasId, ['*', 'migration:write']);
  dynamo().intercept((command, next) => {
    noted?.push({ operation: command.operation, pk: String((command.input as { Key?: { pk?: string } }).Key?.pk) });
    return next();
  });
});
afterAll(() => h.close());

describe('USER_PASSWORD_AUTH', () => {
  it('is off until the SaaS or an import turns it on: a clear 400, nothing checked', async () => {
    const off = await passwordSignIn(api, 'bcrypt@first.example.test', 'U*U');
    assert.equal(off.status, 400, off.text);
    assert.equal(off.body.type, 'invalid_parameter');
    assert.match(off.body.message, /^sign_in_flow: USER_PASSWORD_AUTH is not enabled/);
    const settings = await api.get<{ password_sign_in: { user_password_auth: boolean } }>('/sign-in-settings');
    assert.deepEqual(settings.body.password_sign_in, { user_password_auth: false });

    const started = await api.post<ImportJob>('/migration/imports', { jsonl: FILE });
    assert.equal(started.status, 201, started.text);
    await runScheduledWork();
    assert.equal((await api.get<ImportJob>(`/migration/imports/${started.body.job_id}`)).body.imported, 5);
    const on = await api.get<{ password_sign_in: { user_password_auth: boolean } }>('/sign-in-settings');
    assert.deepEqual(on.body.password_sign_in, { user_password_auth: true });
  });

  it("an imported user's first sign-in checks the hash once, replaces it with a verifier, and SRP signs in after", async () => {
    const userId = externalId(saasId, 'user', 'u-bcrypt');
    const first = await passwordSignIn(api, 'bcrypt@first.example.test', 'U*U');
    assert.equal(first.status, 200, first.text);
    assert.ok(first.body.credentials?.id_token);
    const item = await profile(userId);
    assert.equal(item?.imported_password, undefined);
    assert.notEqual((item?.password as { verifier: string }).verifier, '');
    const srp = await srpSignIn(api, 'bcrypt@first.example.test', 'U*U');
    assert.equal(srp.status, 200, srp.text);
    // And through the API's flow, now against the verifier.
    assert.equal((await passwordSignIn(api, 'bcrypt@first.example.test', 'U*U')).status, 200);
  });

  it('a sign-in ID and a Firebase scrypt hash', async () => {
    const signedIn = await passwordSignIn(api, 'fire', hashVector('firebase_scrypt').password);
    assert.equal(signedIn.status, 200, signedIn.text);
  });

  it('a wrong password, a name nobody has and a user with no password get the one answer, and the hash stays', async () => {
    const answers = await Promise.all([
      passwordSignIn(api, 'cognito@first.example.test', 'not it'),
      passwordSignIn(api, 'nobody@first.example.test', 'U*U'),
      passwordSignIn(api, 'nopassword@first.example.test', 'U*U'),
    ]);
    for (const answer of answers) {
      assert.equal(answer.status, 401, answer.text);
      assert.equal(answer.body.type, 'not_authorized');
      assert.equal(answer.body.message, answers[0]?.body.message);
    }
    assert.equal(((await profile(externalId(saasId, 'user', 'u-cognito')))?.imported_password as { algorithm: string }).algorithm, 'bcrypt');
  });

  it('a user imported with no password is mailed a code to set one, and signs in with it', async () => {
    const mail = await deliveredMail(h.sesUrl, saasId, 'nopassword@first.example.test');
    assert.equal(mail.length, 1);
    const code = /\b(\d{6})\b/.exec(mail[0]?.body.text ?? '')?.[1];
    assert.ok(code, mail[0]?.body.text);
    const screen = `${h.api.baseUrl}/login/${saasId}/`;
    const reset = await screenStep(screen, await openScreen(screen), 'reset', {
      username: 'nopassword@first.example.test',
      code,
      password: 'Chosen-pass-1',
    });
    assert.equal(reset.status, 200, await reset.text());
    assert.equal((await srpSignIn(api, 'nopassword@first.example.test', 'Chosen-pass-1')).status, 200);
  });

  it('the unmodified amazon-cognito-identity-js signs in with authenticationFlowType USER_PASSWORD_AUTH', async () => {
    const user = cognitoUser(new ServiceAsCognito(api), {
      poolId: `ap-northeast-1_${saasId.replaceAll('-', '')}`,
      clientId: saasId,
      username: 'cognito@first.example.test',
    });
    user.setAuthenticationFlowType('USER_PASSWORD_AUTH');
    const outcome = await authenticate(user, 'U*U');
    assert.equal(signedInSubject(outcome), externalId(saasId, 'user', 'u-cognito'));
    assert.equal((await profile(externalId(saasId, 'user', 'u-cognito')))?.imported_password, undefined);
  });

  it('on the hosted screen: SRP refuses, the password step signs in once, then SRP alone signs in', async () => {
    assert.equal((await api.put('/auth-info', { callback_url: 'https://app.example.test/callback' })).status, 200);
    const screen = `${h.api.baseUrl}/login/${saasId}/`;
    const visit = await openScreen(screen);
    assert.equal(visit.data?.passwordSignIn, true);
    await assert.rejects(signInOnScreen(screen, visit, 'screen@first.example.test', 'U*U'), /not_authorized/);
    const wrong = await screenStep(screen, visit, 'password', { username: 'screen@first.example.test', password: 'not it' });
    assert.equal(wrong.status, 401);
    assert.match(((await wrong.json()) as ErrorBody).message, /moved here without a password/);
    const first = await screenStep(screen, visit, 'password', { username: 'screen@first.example.test', password: 'U*U' });
    assert.equal(first.status, 200);
    assert.match(((await first.json()) as { redirect: string }).redirect, /^https:\/\/app\.example\.test\/callback\?code=/);
    const again = await signInOnScreen(screen, await openScreen(screen), 'screen@first.example.test', 'U*U');
    assert.match(String(again.redirect), /^https:\/\/app\.example\.test\/callback/);
    // A user SRP can prove is never signed in by the step, even with the right password.
    const proven = await screenStep(screen, visit, 'password', { username: 'screen@first.example.test', password: 'U*U' });
    assert.equal(proven.status, 401);
  });

  it('the SaaS turns it off: refused again, for every user', async () => {
    const put = await api.put('/sign-in-settings', { password_sign_in: { user_password_auth: false } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await passwordSignIn(api, 'bcrypt@first.example.test', 'U*U')).status, 400);
  });
});

describe('USER_PASSWORD_AUTH for a user with a verifier (the steady state)', () => {
  let client: SignedClient;
  let saas: string;
  let n = 0;
  const PASSWORD = 'Verifier-pass-1';
  const newUser = async () => {
    const created = await client.post<{ id: string; email: string }>('/users', { email: `verifier-${n++}@first.example.test`, password: PASSWORD });
    assert.equal(created.status, 201, created.text);
    return created.body;
  };
  const lockoutOf = async (userId: string) => (await profile(userId, saas))?.signin_lockout as LockoutState | undefined;

  beforeAll(async () => {
    ({ saasId: saas, client } = await h.newSaas());
    const on = await client.put('/sign-in-settings', { password_sign_in: { user_password_auth: true } });
    assert.equal(on.status, 200, on.text);
  });
  afterEach(() => resetClockForTests());

  it('locks after 5 wrong passwords, refuses the right one while locked with the same answer, then signs in and resets', async () => {
    const user = await newUser();
    const start = Date.now();
    setClockForTests(start);
    const wrong = [];
    for (let i = 0; i < FREE_ATTEMPTS; i++) wrong.push(await passwordSignIn(client, user.email, 'Wrong-pass-1'));
    assert.ok(wrong.every((res) => res.status === 401));
    assert.equal((await lockoutOf(user.id))?.failures, FREE_ATTEMPTS);
    const whileLocked = await passwordSignIn(client, user.email, PASSWORD);
    assert.equal(whileLocked.status, 401, 'the right password is refused while locked');
    assert.deepEqual(whileLocked.body, wrong[0]?.body, 'and answered as a wrong password is');
    assert.equal((await lockoutOf(user.id))?.failures, FREE_ATTEMPTS, 'a refused attempt is not a failure');
    setClockForTests(start + 2000);
    const after = await passwordSignIn(client, user.email, PASSWORD);
    assert.equal(after.status, 200, after.text);
    assert.ok(after.body.credentials?.id_token);
    assert.equal(await lockoutOf(user.id), undefined, 'a completed sign-in resets the count');
  });

  it('checks no more passwords than allowed when wrong ones arrive all at once', async () => {
    const user = await newUser();
    setClockForTests(Date.now());
    const answers = await Promise.all(Array.from({ length: 12 }, () => passwordSignIn(client, user.email, 'Wrong-pass-1')));
    assert.ok(answers.every((res) => res.status === 401));
    assert.equal((await lockoutOf(user.id))?.failures, FREE_ATTEMPTS, 'exactly the free attempts were checked');
    assert.equal((await passwordSignIn(client, user.email, PASSWORD)).status, 401);
  });

  it('asks for the second factor of a user with MFA, and the code completes the sign-in', async () => {
    const user = await newUser();
    const secret = await enableTotp(client, user.id, user.email, PASSWORD);
    const asked = await passwordSignIn(client, user.email, PASSWORD);
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.body.challenge_name, 'SOFTWARE_TOKEN_MFA');
    assert.equal(asked.body.credentials, undefined);
    // The step after the one the registration used: each step signs in once.
    const code = totpCodeAt(base32Decode(secret) as Buffer, totpStep(Date.now() / 1000) + 1);
    const answered = await client.post<SignInResult>('/sign-in/challenge', {
      challenge_name: 'SOFTWARE_TOKEN_MFA',
      challenge_responses: { USERNAME: user.id, SOFTWARE_TOKEN_MFA_CODE: code },
      session: asked.body.session,
    });
    assert.equal(answered.status, 200, answered.text);
    assert.ok(answered.body.credentials?.id_token);
  });

  it('a name nobody has makes the requests of a wrong password, and gets its answer', async () => {
    const user = await newUser();
    // The requests on the name, and on the profile or the decoy behind it (not the API log's, nor other tests' late writes).
    const requestsOf = async (username: string) => {
      noted = [];
      try {
        const res = await passwordSignIn(client, username, 'Wrong-pass-1');
        assert.equal(res.status, 401, res.text);
        const ours = noted.filter(({ pk }) => pk.includes(`#LOGIN#E#${username}`) || pk.includes(`#USER#${user.id}`) || pk.includes('#DECOY#'));
        return { requests: ours.map(({ operation, pk }) => `${operation} ${pk.includes('#LOGIN#') ? 'name' : 'behind it'}`), body: res.body };
      } finally {
        noted = undefined;
      }
    };
    const wrong = await requestsOf(user.email);
    const nobody = await requestsOf('nobody-verifier@first.example.test');
    assert.deepEqual(wrong.requests, ['GetItem name', 'GetItem behind it', 'UpdateItem behind it']);
    assert.deepEqual(nobody.requests, wrong.requests);
    assert.deepEqual(nobody.body, wrong.body);
    assert.equal((await lockoutOf(user.id))?.failures, 1, "the wrong password's write was its charge");
  });
});
