/**
 * Attack replay: an access token taken before the owner reset their password (or before the user was
 * deleted) is worth nothing. Before the fix, a stolen token still moved the account's e-mail address to the
 * attacker's (account takeover), read /userinfo, saved credentials and started authenticator registration.
 * Every route that takes a user's token is tried with the old token; each must answer 401 invalid_token and
 * change nothing, while a token from a sign-in after the reset still works.
 *
 * Revoke Token (POST /token/revoke): a refresh token revoked by the application (a sign-out, a lost device)
 * is worth nothing, and neither is any ID or access token issued with it or refreshed from it, at every
 * route that takes a user's token, while the user's other sign-ins keep working. Unknown, foreign and
 * already revoked tokens answer 200 and change nothing (RFC 7009).
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import type { Credentials } from '../../shared/schemas/sign-in.js';
import { config } from '../../shared/config.js';
import { nowSeconds, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { sealWithKey } from '../../shared/crypto/code-box.js';
import { RefreshTokens } from '../../shared/domain/sign-in/refresh-tokens.js';
import { MAX_LISTED_REVOCATIONS, REVOKED_GRANTS } from '../../shared/store/grant-repository.js';
import { keys } from '../../shared/store/keys.js';
import { keyStore, dynamo, tableName } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

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
afterEach(() => resetClockForTests());

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

const refresh = (token: string) => api.get<Credentials>(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${encodeURIComponent(token)}`);
const revoke = (token: string, client = api) => client.post('/token/revoke', { refresh_token: token });

async function profileItem(userId: string) {
  return (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, userId), ConsistentRead: true }))).Item ?? {};
}

describe('Revoke Token', () => {
  it('ends the refresh token and every token issued with it or refreshed from it, at every route, and nothing else', async () => {
    const user = await victim();
    const other = await signIn(user.email); // another device of the same user
    const refreshed = await refresh(user.stolen.refresh_token as string);
    assert.equal(refreshed.status, 200, refreshed.text);

    const revoked = await revoke(user.stolen.refresh_token as string);
    assert.equal(revoked.status, 200, revoked.text);
    await expectError(refresh(user.stolen.refresh_token as string), 401, 'invalid_token', 'refresh-token');
    for (const credentials of [user.stolen, { ...refreshed.body, refresh_token: '' }]) {
      for (const [name, call] of Object.entries(userTokenCalls(user.id, credentials, address('attacker')))) {
        const res = await call();
        assert.equal(res.status, 401, `${name}: ${res.status} ${res.text}`);
        assert.match((res.body as { message: string }).message, /revoked/, name);
      }
    }
    const stored = await api.get<{ email: string }>(`/users/${user.id}`);
    assert.equal(stored.body.email, user.email, 'the address is still the owner’s');

    // The other sign-in is another grant: untouched.
    assert.equal((await refresh(other.refresh_token as string)).status, 200);
    const info = await api.get<{ id: string }>(`/userinfo?token=${encodeURIComponent(other.id_token)}`);
    assert.equal(info.status, 200, info.text);
  });

  it('answers 200 and changes nothing for an unknown, revoked, expired or foreign token; refuses an empty one', async () => {
    const user = await victim();
    const token = user.stolen.refresh_token as string;
    for (const unknown of ['not-a-token', `rt2.${'A'.repeat(120)}`, `${token.slice(0, -4)}AAAA`]) {
      const res = await revoke(unknown);
      assert.equal(res.status, 200, `${unknown}: ${res.text}`);
    }
    // Another SaaS's call with this SaaS's token: 200, and the token still works here.
    const other = await h.newSaas();
    assert.equal((await revoke(token, other.client)).status, 200);
    assert.equal((await refresh(token)).status, 200, 'a token of another SaaS changes nothing there');
    assert.equal((await revoke(token)).status, 200);
    assert.equal((await revoke(token)).status, 200, 'revoked twice');
    await expectError(refresh(token), 401, 'invalid_token', 'refresh-token');
    await expectError(api.post('/token/revoke', { refresh_token: '' }), 400, 'invalid_parameter');
    await expectError(api.post('/token/revoke', {}), 400, 'invalid_parameter');
  });

  it('revokes a refresh token sealed before grants had ids (rt1), and the tokens refreshed from it', async () => {
    const user = await victim();
    const now = nowSeconds();
    const sealed = [user.id, 0, now, now + 86_400];
    const legacy = `rt1.${sealWithKey(await keyStore().srpSecret(), `refresh token v1\n${saasId}`, JSON.stringify(sealed)).toString('base64url')}`;
    const refreshed = await refresh(legacy);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.refresh_token, legacy);
    assert.equal((await revoke(legacy)).status, 200);
    await expectError(refresh(legacy), 401, 'invalid_token', 'refresh-token');
    await expectError(api.get(`/userinfo?token=${encodeURIComponent(refreshed.body.id_token)}`), 401, 'invalid_token');
    assert.equal((await refresh(user.stolen.refresh_token as string)).status, 200, 'the sign-in’s own grant is another');
  });

  it('keeps a revoked grant on the profile only while its tokens can live, and a flood of revocations ends every session', async () => {
    const user = await victim();
    const minted = new RefreshTokens(keyStore(), async () => 86_400);
    const mint = async () => (await minted.issue(saasId, { userId: user.id, sessionVersion: 0, authTime: nowSeconds() })).token;
    for (let i = 0; i < 3; i++) assert.equal((await revoke(await mint())).status, 200);
    assert.equal(Object.keys((await profileItem(user.id))[REVOKED_GRANTS] ?? {}).length, 3);
    // Once their ID and access tokens have expired, the next revocation drops them from the profile.
    setClockForTests(Date.now() + (config().tokenLifetimeSeconds + 61) * 1000);
    assert.equal((await revoke(await mint())).status, 200);
    assert.equal(Object.keys((await profileItem(user.id))[REVOKED_GRANTS] ?? {}).length, 1);
    assert.equal((await refresh(user.stolen.refresh_token as string)).status, 200);

    // At most MAX_LISTED_REVOCATIONS at once: one more ends every session of the user instead of growing the item.
    for (let i = 1; i < MAX_LISTED_REVOCATIONS; i++) assert.equal((await revoke(await mint())).status, 200);
    assert.equal(Object.keys((await profileItem(user.id))[REVOKED_GRANTS] ?? {}).length, MAX_LISTED_REVOCATIONS);
    assert.equal((await refresh(user.stolen.refresh_token as string)).status, 200, 'other grants live while the list holds');
    assert.equal((await revoke(await mint())).status, 200);
    const profile = await profileItem(user.id);
    assert.equal(profile[REVOKED_GRANTS], undefined);
    assert.equal(profile.session_version, 1);
    await expectError(refresh(user.stolen.refresh_token as string), 401, 'invalid_token', 'refresh-token');
  });
});
