/**
 * Sign-in with the password itself (USER_PASSWORD_AUTH, our extension, issue 39) through the handlers on DynamoDB
 * Local: an imported user's first sign-in checks the imported hash once and replaces it with an SRP verifier, so
 * the next sign-in is an ordinary SRP one; a user imported with no password is mailed a code to set one; a wrong
 * password, an unknown name and a user with no password get one answer; the setting is off until an import (or
 * the SaaS) turns it on; the unmodified amazon-cognito-identity-js signs in with authenticationFlowType
 * USER_PASSWORD_AUTH.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { externalId } from '../../shared/domain/migration/imports.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { authenticate, cognitoUser, signedInSubject } from '../../dev-support/cognito-client.js';
import { ServiceAsCognito, srpSignIn, type ErrorBody } from '../../dev-support/sign-in.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { hashVector } from '../support/hash-vectors.js';
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

const profile = async (userId: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, userId) }))).Item;

beforeAll(async () => {
  h = await startHarness();
  ({ saasId } = await h.newSaas());
  api = await h.newKey(saasId, ['*', 'migration:write']);
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
