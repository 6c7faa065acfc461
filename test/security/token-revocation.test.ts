/**
 * Attack replay: an access token taken before the owner reset their password (or before the user was
 * deleted) is worth nothing. Before the fix, a stolen token still moved the account's e-mail address to the
 * attacker's (account takeover), read /userinfo, saved credentials and started authenticator registration.
 * Every route that takes a user's token is tried with the old token; each must answer 401 invalid_token and
 * change nothing, while a token from a sign-in after the reset still works.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import type { Credentials } from '../../shared/schemas/sign-in.js';
import { dynamo, tableName } from '../../shared/store/client.js';
import { keys } from '../../shared/store/keys.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../support/harness.js';
import { srpSignIn } from '../support/sign-in.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

const PASSWORD = 'Correct-horse-9';
const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;

async function signIn(email: string, password = PASSWORD): Promise<Credentials> {
  const res = await srpSignIn(api, email, password);
  assert.equal(res.status, 200, res.text);
  return res.body.credentials as Credentials;
}

async function victim() {
  const email = address('victim');
  const created = await api.post<{ id: string }>('/users', { email, password: PASSWORD });
  assert.equal(created.status, 201, created.text);
  return { id: created.body.id, email, stolen: await signIn(email) };
}

/** Every route that takes a user's token, called as an attacker holding `credentials` would. */
function userTokenCalls(userId: string, credentials: Credentials, attacker: string) {
  const access_token = credentials.access_token;
  return {
    'request an e-mail change': () => api.post(`/users/${userId}/email/request`, { email: attacker, access_token }),
    'confirm an e-mail change': () => api.post(`/users/${userId}/email/confirm`, { code: '123456', access_token }),
    'read /userinfo': () => api.get(`/userinfo?token=${encodeURIComponent(credentials.id_token)}`),
    'save credentials': () => api.post('/credentials', credentials),
    'start authenticator registration': () => api.post(`/users/${userId}/mfa/software-token/secret-code`, { access_token }),
    'register an authenticator': () => api.put(`/users/${userId}/mfa/software-token`, { access_token, verification_code: '123456' }),
    'request an account link': () => api.post('/external-users/request', { access_token }),
    'confirm an account link': () => api.post('/external-users/confirm', { access_token, code: '123456' }),
    'confirm a device': () =>
      api.post('/device/confirm', {
        access_token,
        device_key: 'us-east-1_x',
        device_name: 'x',
        device_secret_verifier_config: { password_verifier: 'Ag==', salt: 'AQID' },
      }),
    // The token is checked before the tenant is read, so no tenant is needed to see the refusal.
    'invite to a tenant': () => api.post(`/tenants/${randomUUID()}/invitations`, { email: attacker, access_token, envs: [] }),
  };
}

beforeAll(async () => {
  h = await startHarness();
  ({ client: api, saasId } = await h.newSaas());
});
afterAll(() => h.close());

describe('a token taken before a password reset', () => {
  it('is refused by every route that takes a user token, and the account stays the owner’s', async () => {
    const user = await victim();
    const attacker = address('attacker');
    assert.equal((await api.post(`/users/${user.id}/password/reset`, {})).status, 200);

    for (const [name, call] of Object.entries(userTokenCalls(user.id, user.stolen, attacker))) {
      const res = await call();
      assert.equal(res.status, 401, `${name}: ${res.status} ${res.text}`);
      assert.equal((res.body as { type: string }).type, 'invalid_token', name);
    }
    const stored = await api.get<{ email: string }>(`/users/${user.id}`);
    assert.equal(stored.body.email, user.email, 'the address is still the owner’s');
    const code = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.verificationCode(saasId, user.id, 'EMAIL_UPDATE') }));
    assert.equal(code.Item, undefined, 'no e-mail change is pending, so no code went to the attacker');
  });

  it('is refused after a password change too, while a token of the new session works', async () => {
    const user = await victim();
    assert.equal((await api.patch(`/users/${user.id}/password`, { password: 'Another-horse-7' })).status, 200);
    await expectError(api.get(`/userinfo?token=${encodeURIComponent(user.stolen.id_token)}`), 401, 'invalid_token');
    const fresh = await signIn(user.email, 'Another-horse-7');
    const info = await api.get<{ id: string }>(`/userinfo?token=${encodeURIComponent(fresh.id_token)}`);
    assert.equal(info.status, 200, info.text);
    assert.equal(info.body.id, user.id);
  });
});

describe('a token of a deleted user', () => {
  it('is refused, even though its signature and lifetime are still good', async () => {
    const user = await victim();
    assert.equal((await api.delete(`/users/${user.id}`)).status, 200);
    for (const [name, call] of Object.entries(userTokenCalls(user.id, user.stolen, address('attacker')))) {
      const res = await call();
      assert.equal(res.status, 401, `${name}: ${res.status} ${res.text}`);
      assert.match((res.body as { message: string }).message, /belongs to a user who no longer exists/, name);
    }
  });
});
