/**
 * What an application does with credentials after signing a user in, through the local HTTP API: refresh
 * (no rotation; ended by password change, reset and user deletion; living refresh_token_validity, as it was
 * when the token was issued), temporary codes (10 seconds, single
 * use, sealed), /userinfo, and that nothing of one SaaS is accepted by another.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { codeHash } from '../../shared/crypto/code-box.js';
import type { Credentials, SignedInUser } from '../../shared/schemas/sign-in.js';
import { keys } from '../../shared/store/keys.js';
import { tokenVerifier, dynamo, tableName } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { mintTokens } from '../support/tokens.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

const PASSWORD = 'Correct-horse-9';
const email = (name = 'user') => `${name}-${randomUUID().slice(0, 8)}@example.test`;

/** A new user, signed in: their id and credentials. */
async function signedInUser(client = api): Promise<{ id: string; email: string; credentials: Credentials }> {
  const created = await client.post<{ id: string; email: string }>('/users', { email: email(), password: PASSWORD });
  assert.equal(created.status, 201, created.text);
  const res = await srpSignIn(client, created.body.email, PASSWORD);
  assert.equal(res.status, 200, res.text);
  return { ...created.body, credentials: res.body.credentials as Credentials };
}

const refresh = (token: string, client = api) =>
  client.get<Credentials>(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${encodeURIComponent(token)}`);
const redeem = (code: string, client = api) => client.get<Credentials>(`/credentials?code=${code}`);

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
});
afterAll(async () => {
  resetClockForTests();
  await h.close();
});
afterEach(() => resetClockForTests());

describe('refresh (auth-flow refreshTokenAuth)', () => {
  it('issues new ID and access tokens and answers the same refresh token, again and again', async () => {
    const user = await signedInUser();
    const token = user.credentials.refresh_token as string;
    const first = await refresh(token);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.refresh_token, token, 'refresh tokens do not rotate');
    assert.notEqual(first.body.access_token, user.credentials.access_token);
    const claims = await tokenVerifier().verifyAccessToken(saasId, first.body.access_token, { userId: user.id });
    const original = await tokenVerifier().verifyAccessToken(saasId, user.credentials.access_token);
    assert.equal(claims.auth_time, original.auth_time, 'auth_time is when the user signed in');
    assert.equal((await tokenVerifier().verifyIdToken(saasId, first.body.id_token)).email, user.email);
    assert.equal((await refresh(token)).status, 200);
  });

  it('stores nothing: the token is sealed, names no user in clear, and is refused once expired', async () => {
    // Moves are measured from this held instant, not from a real clock that a busy machine runs on past them.
    const start = Date.now();
    setClockForTests(start);
    const user = await signedInUser();
    const token = user.credentials.refresh_token as string;
    assert.match(token, /^rt2\.[A-Za-z0-9_-]+$/);
    assert.ok(!token.includes(user.id) && !Buffer.from(token.slice(4), 'base64url').toString('latin1').includes(user.id), 'the user id is sealed');
    const partition = keys.userContents(saasId, user.id).pk;
    const items = await dynamo().send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partition } }),
    );
    assert.ok(items.Items?.some((item) => item.sk === 'PROFILE'));
    assert.ok(!JSON.stringify(items.Items).includes(token.slice(4, 40)), 'no item of the user holds the token');
    setClockForTests(start + (30 * 86400 - 60) * 1000);
    assert.equal((await refresh(token)).status, 200, 'live until its 30 days are up');
    setClockForTests(start + (30 * 86400 + 1) * 1000);
    await expectError(refresh(token), 401, 'invalid_token', 'refresh-token');
  });

  it('is ended by a password change, a password reset, and the deletion of the user', async () => {
    for (const end of [
      (id: string) => api.patch(`/users/${id}/password`, { password: 'Another-pass-9' }),
      (id: string) => api.post(`/users/${id}/password/reset`),
      (id: string) => api.delete(`/users/${id}`),
    ]) {
      const user = await signedInUser();
      assert.equal((await end(user.id)).status, 200);
      const res = await refresh(user.credentials.refresh_token as string);
      await expectError(Promise.resolve(res), 401, 'invalid_token', 'refresh-token');
      assert.match(
        String((res.body as unknown as { data: { sign_in_page_url: string } }).data.sign_in_page_url),
        /^https?:\/\/.+\/login\/[^/]+\/sign-in$/,
      );
    }
  });

  it('refuses a missing, malformed, altered or unknown token', async () => {
    const user = await signedInUser();
    const token = user.credentials.refresh_token as string;
    await expectError(api.get('/credentials?auth-flow=refreshTokenAuth'), 400, 'invalid_parameter', 'refresh-token');
    const other = await signedInUser();
    for (const bad of ['nonsense', `${other.id}.${token.split('.')[1]}`, `${user.id}.${'A'.repeat(43)}`]) {
      await expectError(refresh(bad), 401, 'invalid_token', 'refresh-token');
    }
  });
});

describe('refresh_token_validity (GET/PUT /sign-in-settings)', () => {
  type Validity = { value: number; unit: string };
  const validityOf = async (client: SignedClient) =>
    (await client.get<{ refresh_token_validity: Validity }>('/sign-in-settings')).body.refresh_token_validity;

  it('sets how long refresh tokens issued from then on live; those issued before keep their lifetime', async () => {
    const { client } = await h.newSaas();
    assert.deepEqual(await validityOf(client), { value: 30, unit: 'days' }, 'the deployment default');
    const before = await signedInUser(client);
    assert.equal((await client.put('/sign-in-settings', { refresh_token_validity: { value: 2, unit: 'hours' } })).status, 200);
    assert.deepEqual(await validityOf(client), { value: 2, unit: 'hours' });
    const after = await signedInUser(client);
    const start = Date.now();
    setClockForTests(start + (2 * 3600 - 60) * 1000);
    assert.equal((await refresh(after.credentials.refresh_token as string, client)).status, 200, 'live within its 2 hours');
    setClockForTests(start + (2 * 3600 + 1) * 1000);
    await expectError(refresh(after.credentials.refresh_token as string, client), 401, 'invalid_token', 'refresh-token');
    assert.equal((await refresh(before.credentials.refresh_token as string, client)).status, 200, 'issued before the change: 30 days');
    setClockForTests(start + (30 * 86_400 + 1) * 1000);
    await expectError(refresh(before.credentials.refresh_token as string, client), 401, 'invalid_token', 'refresh-token');
  });

  it('takes 60 minutes to 10 years in any unit, refuses the rest and changes nothing then', async () => {
    const { client } = await h.newSaas();
    for (const fine of [
      { value: 60, unit: 'minutes' },
      { value: 3600, unit: 'seconds' },
      { value: 3650, unit: 'days' },
      { value: 87_600, unit: 'hours' },
    ]) {
      assert.equal((await client.put('/sign-in-settings', { refresh_token_validity: fine })).status, 200, JSON.stringify(fine));
      assert.deepEqual(await validityOf(client), fine);
    }
    for (const bad of [
      { value: 59, unit: 'minutes' },
      { value: 3599, unit: 'seconds' },
      { value: 3651, unit: 'days' },
      { value: 0, unit: 'days' },
      { value: 1.5, unit: 'days' },
      { value: 1, unit: 'weeks' },
      { value: 30 },
    ]) {
      await expectError(client.put('/sign-in-settings', { refresh_token_validity: bad }), 400, 'invalid_parameter');
      assert.deepEqual(await validityOf(client), { value: 87_600, unit: 'hours' }, JSON.stringify(bad));
    }
  });
});

describe('temporary codes (Save, then Get with tempCodeAuth)', () => {
  it('hands the saved tokens back once, within 10 seconds; at second 11 the code is refused', async () => {
    const user = await signedInUser();
    const saved = await api.post<{ code: string }>('/credentials', user.credentials);
    assert.equal(saved.status, 201, saved.text);
    assert.match(saved.body.code, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const back = await redeem(saved.body.code);
    assert.equal(back.status, 200, back.text);
    assert.deepEqual(back.body, user.credentials);
    await expectError(redeem(saved.body.code), 404, 'code_not_found', 'code');

    const now = Date.now();
    setClockForTests(now);
    const second10 = (await api.post<{ code: string }>('/credentials', user.credentials)).body.code;
    const second11 = (await api.post<{ code: string }>('/credentials', user.credentials)).body.code;
    setClockForTests(now + 10_000);
    assert.equal((await redeem(second10)).status, 200, 'valid through second 10');
    setClockForTests(now + 11_000);
    await expectError(redeem(second11), 404, 'code_not_found', 'code');
  });

  it('stores the tokens sealed under the code, found by its hash', async () => {
    const user = await signedInUser();
    const { code } = (await api.post<{ code: string }>('/credentials', user.credentials)).body;
    const item = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.tempCode(saasId, codeHash(code)), ConsistentRead: true })))
      .Item;
    assert.ok(item, 'an item under the hash of the code');
    const text = JSON.stringify(item);
    for (const secret of [code, user.credentials.id_token, user.credentials.access_token, user.credentials.refresh_token as string]) {
      assert.ok(!text.includes(secret), 'nothing readable is stored');
    }
    assert.ok((item.expiresAt as number) <= Date.now() / 1000 + 10, 'the TTL attribute is set');
  });

  it('saves without a refresh token, and answers without one', async () => {
    const user = await signedInUser();
    const { code } = (
      await api.post<{ code: string }>('/credentials', {
        id_token: user.credentials.id_token,
        access_token: user.credentials.access_token,
        refresh_token: '',
      })
    ).body;
    assert.deepEqual((await redeem(code)).body, { id_token: user.credentials.id_token, access_token: user.credentials.access_token });
  });

  it('saves only tokens this service issued for this SaaS, all of one user', async () => {
    const user = await signedInUser();
    const other = await signedInUser();
    const save = (body: object) => api.post('/credentials', { ...user.credentials, ...body });
    await expectError(save({ id_token: 'not-a-token' }), 401, 'invalid_token', 'id_token');
    await expectError(save({ id_token: user.credentials.access_token }), 401, 'invalid_token', 'id_token');
    await expectError(save({ access_token: other.credentials.access_token }), 401, 'invalid_token', 'access_token');
    await expectError(save({ refresh_token: other.credentials.refresh_token }), 401, 'invalid_token', 'refresh_token');
    await expectError(save({ refresh_token: 'made-up' }), 401, 'invalid_token', 'refresh_token');
    // The same user's refresh token of another sign-in, revoked since: its grant is read with the profile.
    const again = await srpSignIn(api, user.email, PASSWORD);
    const revoked = again.body.credentials?.refresh_token as string;
    assert.equal((await api.post('/token/revoke', { refresh_token: revoked })).status, 200);
    await expectError(save({ refresh_token: revoked }), 401, 'invalid_token', 'refresh_token');
    assert.equal((await save({})).status, 201, 'the live grant alongside it is saved');
    const forged = await mintTokens({ saasId: randomUUID(), userId: user.id, email: user.email });
    await expectError(save({ id_token: forged.idToken, access_token: forged.accessToken }), 401, 'invalid_token', 'id_token');
  });

  it('answers 404 for an unknown code and 400 for one that is not a UUID or missing', async () => {
    await expectError(redeem(randomUUID()), 404, 'code_not_found', 'code');
    await expectError(redeem('12345'), 400, 'invalid_parameter', 'code');
    await expectError(api.get('/credentials'), 400, 'invalid_parameter', 'code');
  });
});

describe('GET /userinfo', () => {
  it('answers the user with tenants, envs and roles', async () => {
    const user = await signedInUser();
    assert.equal(
      (await api.post('/saas-user-attributes', { attribute_name: 'nickname', display_name: 'Nickname', attribute_type: 'string' })).status,
      201,
    );
    assert.equal((await api.patch(`/users/${user.id}/attributes`, { attributes: { nickname: 'Annie' } })).status, 200);
    assert.equal((await api.post('/envs', { id: 1, name: 'prod', display_name: 'Production' })).status, 201);
    assert.equal((await api.post('/roles', { role_name: 'admin', display_name: 'Administrator' })).status, 201);
    const tenant = await api.post<{ id: string }>('/tenants', { name: 'Acme', attributes: {}, back_office_staff_email: 'ops@acme.test' });
    assert.equal((await api.post(`/tenants/${tenant.body.id}/users`, { email: user.email, attributes: {} })).status, 201);
    assert.equal((await api.post(`/tenants/${tenant.body.id}/users/${user.id}/envs/1/roles`, { role_names: ['admin'] })).status, 201);

    const res = await api.get<SignedInUser>(`/userinfo?token=${user.credentials.id_token}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.id, user.id);
    assert.equal(res.body.email, user.email);
    assert.deepEqual(res.body.attributes, { nickname: 'Annie' });
    assert.equal(res.body.tenants.length, 1);
    assert.equal(res.body.tenants[0]?.name, 'Acme');
    assert.deepEqual(res.body.tenants[0]?.envs, [
      { id: 1, name: 'prod', display_name: 'Production', roles: [{ role_name: 'admin', display_name: 'Administrator' }] },
    ]);
  });

  it('refuses an access token, a bad token, and the token of a deleted user, with the sign-in page', async () => {
    const user = await signedInUser();
    await expectError(api.get(`/userinfo?token=${user.credentials.access_token}`), 401, 'invalid_token', 'token');
    await expectError(api.get('/userinfo?token=nonsense'), 401, 'invalid_token', 'token');
    await expectError(api.get('/userinfo'), 400, 'invalid_parameter', 'token');
    assert.equal((await api.delete(`/users/${user.id}`)).status, 200);
    const gone = await api.get<{ data: { sign_in_page_url: string } }>(`/userinfo?token=${user.credentials.id_token}`);
    await expectError(Promise.resolve(gone), 401, 'invalid_token', 'token');
    assert.ok(gone.body.data.sign_in_page_url);
  });
});

describe('isolation between SaaS accounts', () => {
  it("refuses one SaaS's tokens, refresh tokens and codes at another's key", async () => {
    const user = await signedInUser();
    const { code } = (await api.post<{ code: string }>('/credentials', user.credentials)).body;
    const other = (await h.newSaas()).client;
    await expectError(other.get(`/userinfo?token=${user.credentials.id_token}`), 401, 'invalid_token', 'token');
    await expectError(refresh(user.credentials.refresh_token as string, other), 401, 'invalid_token', 'refresh-token');
    await expectError(other.post('/credentials', user.credentials), 401, 'invalid_token', 'id_token');
    await expectError(redeem(code, other), 404, 'code_not_found', 'code');
    const config = { password_verifier: Buffer.from('0abc', 'hex').toString('base64'), salt: 'AQI=' };
    const confirm = { access_token: user.credentials.access_token, device_key: 'us-east-1_x', device_secret_verifier_config: config };
    await expectError(other.post('/device/confirm', confirm), 401, 'invalid_token', 'access_token');
    // The code still works where it belongs: the other SaaS's attempt took nothing.
    assert.equal((await redeem(code)).status, 200);
  });

  it("answers another SaaS's user name as a name nobody has", async () => {
    const user = await signedInUser();
    const other = (await h.newSaas()).client;
    await expectError(srpSignIn(other, user.email, PASSWORD), 401, 'not_authorized');
  });
});
