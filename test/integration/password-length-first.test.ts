/**
 * The length-first password policy (sign-in setting password_length_first, our extension beside SaaSus's
 * password_policy, which stays as the SDKs expect it) and NFKC: a long passphrase of spaces and Japanese
 * accepted with no composition, a short one refused by name, the verifier made of the NFKC form and marked,
 * and a verifier made before NFKC still signing in with the password as typed, as the screen's second try
 * sends it (web/login/srp.ts, passwordForms). Through the same handlers as the Lambdas, on DynamoDB Local.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { createPasswordVerifier } from '../../shared/crypto/srp.js';
import { DEFAULT_PASSWORD_POLICY } from '../../shared/domain/configuration/password-policy.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import { DynamoCommitter } from '../../shared/store/transact.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { passwordForms } from '../../web/login/srp.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { openScreen, signInOnScreen } from '../support/screen-client.js';
import { saasWithScreen } from '../support/passkey-screen.js';
import { assertStoredPassword } from '../support/passwords.js';

/** Ideographic spaces (NFKC: ASCII spaces), a leading one too, and Japanese: no letter case, digit or symbol. */
const PASSPHRASE = '　春はあけぼの　やうやう白くなりゆく　山ぎは';
/** Full-width letters and an ideographic space: its NFKC form differs from it. */
const WIDE = 'Ｃｏｒｒｅｃｔ　ｈｏｒｓｅ　ｂａｔｔｅｒｙ';

let h: Harness;
let admin: SignedClient;
let saasId: string;

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;

async function createUser(
  email: string,
  password: string,
): Promise<{ status: number; body: { id: string; type?: string; data?: { rule?: string } } }> {
  return admin.post('/users', { email, password });
}

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, api: admin } = await saasWithScreen(h));
});
afterAll(async () => {
  await h?.close();
});

describe('the length-first password policy', () => {
  it('is off by default, turned on as its own member, and leaves password_policy as SaaSus has it', async () => {
    const before = (await admin.get<Record<string, unknown>>('/sign-in-settings')).body;
    assert.deepEqual(before.password_length_first, { enable: false });
    assert.equal((await createUser(address('short'), 'Kyoto#Lantern8')).status, 201, 'the composition policy meanwhile');

    assert.equal((await admin.put('/sign-in-settings', { password_length_first: { enable: 'yes' } })).status, 400);
    assert.equal((await admin.put('/sign-in-settings', { password_length_first: { enable: true } })).status, 200);
    const after = (await admin.get<Record<string, unknown>>('/sign-in-settings')).body;
    assert.deepEqual(after.password_length_first, { enable: true });
    assert.deepEqual(after.password_policy, DEFAULT_PASSWORD_POLICY, 'the flags stay stored and answered as before');
  });

  it('refuses fewer than 15 characters by name and accepts a passphrase of spaces and Japanese', async () => {
    const short = await createUser(address('short'), 'Kyoto#Lantern8');
    assert.equal(short.status, 400);
    assert.equal(short.body.type, 'password_policy_violation');
    assert.equal(short.body.data?.rule, 'minimum_length');

    const created = await createUser(address('haiku'), PASSPHRASE);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await assertStoredPassword(h, saasId, created.body.id, PASSPHRASE);
    const signedIn = await srpSignIn(
      admin,
      (await admin.get<{ email: string }>(`/users/${created.body.id}`)).body.email,
      PASSPHRASE.normalize('NFKC'),
    );
    assert.equal(signedIn.status, 200, signedIn.text);
  });

  it('signs in with the NFKC form, as typed either way on the screen, and keeps verifiers made before NFKC', async () => {
    const email = address('wide');
    const created = await createUser(email, WIDE);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await assertStoredPassword(h, saasId, created.body.id, WIDE);

    // A client that proves the typed form of a marked verifier is refused: NFKC is the client's step too.
    assert.equal((await srpSignIn(admin, email, WIDE)).status, 401);
    const [normalized] = passwordForms(WIDE);
    assert.equal((await srpSignIn(admin, email, normalized!)).status, 200);
    assert.equal((await srpSignIn(admin, email, 'Correct horse battery')).status, 200, 'half-width, as another keyboard types it');

    // A verifier made before NFKC (of the typed form, unmarked) still signs in: the screen's second form.
    const users = new DynamoUserRepository(dynamo(), tableName());
    const { poolName } = (await h.accounts.getSaas(saasId))!;
    const old = { ...createPasswordVerifier(poolName, created.body.id, WIDE), temporary: false };
    await new DynamoCommitter(dynamo()).commit(users.passwordWrite(saasId, { id: created.body.id, email, sign_in_id: '' }, old));
    const url = `${h.api.baseUrl}/login/${saasId}/`;
    const refused: string[] = [];
    let answer: Record<string, unknown> | undefined;
    for (const form of passwordForms(WIDE)) {
      answer = await signInOnScreen(url, await openScreen(url), email, form).catch((error: Error) => {
        refused.push(error.message);
        return undefined;
      });
      if (answer) break;
    }
    assert.equal(refused.length, 1, 'the NFKC form first, refused');
    assert.match(refused[0]!, /not_authorized/);
    assert.ok(typeof answer?.redirect === 'string', JSON.stringify(answer));
  });
});
