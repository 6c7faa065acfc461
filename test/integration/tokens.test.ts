/**
 * Tokens and the deployment's keys against DynamoDB Local: lazy, race-safe creation of the signing key and
 * the SRP secret, the JWKS and OpenID configuration through the local API, rotation with time moved, and
 * every way a token is refused.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { config } from '../../shared/config.js';
import { KEY_CACHE_SECONDS, KeyStore, type PublicJwk } from '../../shared/domain/tokens/key-store.js';
import { TokenService, TokenVerifier, type TokenSubject } from '../../shared/domain/tokens/tokens.js';
import { DomainError } from '../../shared/errors.js';
import { DynamoKeyRepository } from '../../shared/store/key-repository.js';
import { keys } from '../../shared/store/keys.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import { keyStore, tokenVerifier, dynamo, secretBox, tableName } from '../../shared/wiring.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { mintTokens } from '../support/tokens.js';

let h: Harness;
let saasId: string;
let client: SignedClient;

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, client } = await h.newSaas());
});
afterAll(async () => {
  resetClockForTests();
  await h.close();
});
afterEach(() => resetClockForTests());

/** Another cold start: its own caches over the same table. */
const coldStart = () =>
  new KeyStore(new DynamoKeyRepository(dynamo(), tableName()), secretBox(), { tokenLifetimeSeconds: config().tokenLifetimeSeconds });
const tokensFrom = (store: KeyStore, issuer = config().tokenIssuer) =>
  new TokenService(store, { issuer, lifetimeSeconds: config().tokenLifetimeSeconds });

async function publicGet<T>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${h.api.baseUrl}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}
const jwks = async () => (await publicGet<{ keys: PublicJwk[] }>('/.well-known/jwks.json')).body.keys;

/** A real user of the SaaS (the verifier reads its session version), as the subject of its tokens. */
async function user(over: Partial<TokenSubject> = {}): Promise<TokenSubject> {
  const login = over.signInId !== undefined ? { sign_in_id: over.signInId } : { email: `ann-${randomUUID()}@example.test` };
  const res = await client.post<{ id: string; email: string }>('/users', { ...login, password: 'Aa-0123456789', attributes: {} });
  assert.equal(res.status, 201, res.text);
  return { saasId, userId: res.body.id, ...(res.body.email ? { email: res.body.email } : {}), sessionVersion: 0, ...over };
}

/** Raises the user's session version as a password change does. */
async function changePassword(userId: string, password = `Bb-${randomUUID()}`) {
  const res = await client.patch(`/users/${userId}/password`, { password });
  assert.equal(res.status, 200, res.text);
}

async function refused(promise: Promise<unknown>, message: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.kind, 'unauthenticated');
    assert.equal(error.code, 'invalid_token');
    assert.match(error.message, message);
    assert.match(String(error.data.sign_in_page_url), /^https?:\/\/.+\/login\/[^/]+\/sign-in$/);
    return true;
  });
}

describe('the deployment keys', () => {
  it('publishes an empty key set until something signs, and the public route creates nothing', async () => {
    assert.deepEqual(await publicGet('/.well-known/jwks.json'), { status: 200, body: { keys: [] } });
    assert.deepEqual(await new DynamoKeyRepository(dynamo(), tableName()).signingKeys(), { currentKid: undefined, keys: [] });
  });

  it('makes one signing key and one SRP secret when cold starts race to make them', async () => {
    const stores = Array.from({ length: 8 }, coldStart);
    const [signers, srpSecrets] = await Promise.all([Promise.all(stores.map((s) => s.signingKey())), Promise.all(stores.map((s) => s.srpSecret()))]);
    assert.equal(new Set(signers.map((k) => k.kid)).size, 1);
    assert.equal(new Set(srpSecrets.map((s) => s.toString('hex'))).size, 1);
    assert.equal(srpSecrets[0]?.length, 32);
    const stored = await new DynamoKeyRepository(dynamo(), tableName()).signingKeys();
    assert.equal(stored.keys.length, 1);
    assert.equal(stored.currentKid, signers[0]?.kid);
  });

  it('stores private parts sealed and publishes only public ones', async () => {
    const { kid } = await coldStart().signingKey();
    const item = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.signingKey(kid) }))).Item ?? {};
    assert.doesNotMatch(JSON.stringify(item), /PRIVATE KEY/);
    assert.match(String(item.sealedPrivateKey), /^v1\.local\./);
    const published = await jwks();
    assert.deepEqual(Object.keys(published[0] ?? {}).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });
});

describe('the public discovery routes', () => {
  it('serve the JWKS and OpenID configuration unsigned; an outside verifier checks our tokens with them', async () => {
    const discovery = await publicGet<Record<string, unknown>>('/.well-known/openid-configuration');
    assert.equal(discovery.status, 200);
    assert.equal(discovery.body.issuer, config().tokenIssuer);
    assert.equal(discovery.body.jwks_uri, `${h.api.baseUrl}/.well-known/jwks.json`);
    assert.deepEqual(discovery.body.id_token_signing_alg_values_supported, ['RS256']);

    const subject = await user();
    const { idToken } = await mintTokens(subject);
    const keySet = (await publicGet<{ keys: PublicJwk[] }>(new URL(discovery.body.jwks_uri as string).pathname.replace('/v1/auth', ''))).body;
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(keySet), { issuer: config().tokenIssuer, audience: saasId });
    assert.equal(payload.sub, subject.userId);
  });
});

describe('tokens', () => {
  it('carry the claims of the user and the SaaS, one hour, RS256 with a published kid', async () => {
    const subject = await user({ authTime: 1_700_000_000 });
    for (let i = 0; i < 3; i++) await changePassword(subject.userId);
    subject.sessionVersion = 3;
    const { idToken, accessToken, expiresIn } = await mintTokens(subject);
    assert.equal(expiresIn, 3600);
    const header = decodeProtectedHeader(accessToken);
    assert.equal(header.alg, 'RS256');
    assert.ok((await jwks()).some((k) => k.kid === header.kid));

    const access = await tokenVerifier().verifyAccessToken(saasId, accessToken);
    const id = await tokenVerifier().verifyIdToken(saasId, idToken);
    for (const claims of [access, id]) {
      assert.equal(claims.sub, subject.userId);
      assert.equal(claims.iss, config().tokenIssuer);
      assert.equal(claims.aud, saasId);
      assert.equal(claims.client_id, saasId);
      assert.equal(claims.saas_id, saasId);
      assert.equal(claims.email, subject.email);
      assert.equal(claims.sign_in_id, undefined);
      assert.equal(claims.auth_time, 1_700_000_000);
      assert.equal(claims.session_version, 3);
      assert.equal(claims.exp - claims.iat, 3600);
    }
    assert.equal(access.token_use, 'access');
    assert.equal(access.username, subject.userId);
    assert.equal(id.token_use, 'id');
    assert.equal(id['cognito:username'], subject.userId);
    assert.notEqual(access.jti, id.jti);
  });

  it('name a sign-in-ID user by sign_in_id', async () => {
    const { accessToken } = await mintTokens(await user({ email: undefined, signInId: 'ann_01' }));
    const claims = await tokenVerifier().verifyAccessToken(saasId, accessToken);
    assert.equal(claims.sign_in_id, 'ann_01');
    assert.equal(claims.email, undefined);
  });

  it('are refused for another SaaS, another user, the other use, once expired, altered, or not ours', async () => {
    const subject = await user();
    const { idToken, accessToken } = await mintTokens(subject);
    const verifier = tokenVerifier();
    await refused(verifier.verifyAccessToken(randomUUID(), accessToken), /^access_token: was not issued for this SaaS$/);
    await refused(verifier.verifyAccessToken(saasId, accessToken, { userId: randomUUID() }), /belongs to another user/);
    assert.equal((await verifier.verifyAccessToken(saasId, accessToken, { userId: subject.userId })).sub, subject.userId);
    await refused(verifier.verifyAccessToken(saasId, idToken), /^access_token: is not an access token$/);
    await refused(verifier.verifyIdToken(saasId, accessToken, { field: 'token' }), /^token: is not an ID token$/);

    const [head, body, signature] = accessToken.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), sub: randomUUID() })).toString('base64url');
    await refused(verifier.verifyAccessToken(saasId, `${head}.${forged}.${signature}`), /is not a valid token/);
    await refused(verifier.verifyAccessToken(saasId, 'not-a-jwt'), /is not a JWT/);

    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const stranger = await new SignJWT({ token_use: 'access', saas_id: saasId, client_id: saasId })
      .setProtectedHeader({ alg: 'RS256', kid: 'unknown-kid' })
      .setIssuer(config().tokenIssuer)
      .setAudience(saasId)
      .setSubject(subject.userId)
      .setExpirationTime('1h')
      .sign(foreign);
    await refused(verifier.verifyAccessToken(saasId, stranger), /signed with a key this service does not know/);

    const otherIssuer = await tokensFrom(keyStore(), 'https://elsewhere.example/v1/auth').issue(subject);
    await refused(verifier.verifyAccessToken(saasId, otherIssuer.accessToken), /issued by someone else/);

    setClockForTests(Date.now() - 2 * 3600_000);
    const old = await mintTokens(subject);
    resetClockForTests();
    await refused(verifier.verifyAccessToken(saasId, old.accessToken), /has expired/);
    // The domain clock decides too, so tests (and a skewed library clock) cannot keep a token alive.
    setClockForTests(Date.now() + 3601_000);
    await refused(verifier.verifyAccessToken(saasId, accessToken), /has expired/);
  });

  it('are revoked by a password change, a reset and the deletion of the user', async () => {
    const verifier = tokenVerifier();
    const changed = await user();
    const before = await mintTokens(changed);
    await changePassword(changed.userId);
    await refused(verifier.verifyAccessToken(saasId, before.accessToken), /^access_token: was revoked/);
    await refused(verifier.verifyIdToken(saasId, before.idToken), /^id_token: was revoked/);
    const fresh = await mintTokens({ ...changed, sessionVersion: 1 });
    assert.equal((await verifier.verifyAccessToken(saasId, fresh.accessToken)).sub, changed.userId);

    const reset = await user();
    const beforeReset = await mintTokens(reset);
    assert.equal((await client.post(`/users/${reset.userId}/password/reset`, {})).status, 200);
    await refused(verifier.verifyAccessToken(saasId, beforeReset.accessToken), /was revoked/);

    const deleted = await user();
    const beforeDelete = await mintTokens(deleted);
    assert.equal((await client.delete(`/users/${deleted.userId}`)).status, 200);
    await refused(verifier.verifyAccessToken(saasId, beforeDelete.accessToken), /^access_token: belongs to a user who no longer exists$/);
  });

  it("send a refused user to the SaaS's login screen, which a domain_name that serves nothing does not move", async () => {
    const saas = await h.newSaas();
    const { accessToken } = await mintTokens(await user());
    const before = tokenVerifier().verifyAccessToken(saas.saasId, accessToken);
    await assert.rejects(before, (e: DomainError) => e.data.sign_in_page_url === `${h.api.baseUrl}/login/${saas.saasId}/sign-in`);
    const res = await saas.client.put('/basic-info', { domain_name: 'login.acme.test', from_email_address: 'no-reply@acme.test' });
    assert.equal(res.status, 200, res.text);
    const after = tokenVerifier().verifyAccessToken(saas.saasId, accessToken);
    await assert.rejects(after, (e: DomainError) => e.data.sign_in_page_url === `${h.api.baseUrl}/login/${saas.saasId}/sign-in`);
  });
});

describe('key rotation', () => {
  it('signs with the new key at once, keeps the old one published until its tokens expired, then drops it', async () => {
    // Moves are measured from this held instant, not from a real clock that a busy machine runs on past them.
    const start = Date.now();
    setClockForTests(start);
    const store = coldStart();
    const subject = await user();
    const before = await tokensFrom(store).issue(subject);
    const oldKid = decodeProtectedHeader(before.accessToken).kid as string;

    const newKid = await store.rotate();
    assert.notEqual(newKid, oldKid);
    const afterRotation = await tokensFrom(store).issue(subject);
    assert.equal(decodeProtectedHeader(afterRotation.accessToken).kid, newKid);
    assert.deepEqual(new Set((await jwks()).map((k) => k.kid)), new Set([oldKid, newKid]));
    // A verifier that cached the keys before the rotation learns the new key from the store when it meets it.
    assert.equal((await tokenVerifier().verifyAccessToken(saasId, afterRotation.accessToken)).sub, subject.userId);
    assert.equal((await tokenVerifier().verifyAccessToken(saasId, before.accessToken)).sub, subject.userId);

    const lifetime = config().tokenLifetimeSeconds;
    setClockForTests(start + (lifetime + KEY_CACHE_SECONDS) * 1000);
    assert.ok(
      (await jwks()).some((k) => k.kid === oldKid),
      'still published while a token it signed may be valid',
    );
    setClockForTests(start + (lifetime + KEY_CACHE_SECONDS + 61) * 1000);
    const published = (await jwks()).map((k) => k.kid);
    assert.ok(!published.includes(oldKid), 'gone once no token it signed can be valid');
    assert.ok(published.includes(newKid));
  });

  it('makes one new key when two rotations race', async () => {
    const [a, b] = [coldStart(), coldStart()];
    const before = (await new DynamoKeyRepository(dynamo(), tableName()).signingKeys()).keys.length;
    await Promise.all([a.signingKey(), b.signingKey()]);
    const [kidA, kidB] = await Promise.all([a.rotate(), b.rotate()]);
    assert.equal(kidA, kidB);
    const stored = await new DynamoKeyRepository(dynamo(), tableName()).signingKeys();
    assert.equal(stored.keys.length, before + 1);
    assert.equal(stored.currentKid, kidA);
  });

  it('verifies across cold starts: a verifier built before the key existed finds it', async () => {
    const store = coldStart();
    const verifier = new TokenVerifier(store, config().tokenIssuer, async () => 'https://x/sign-in', new DynamoUserRepository(dynamo(), tableName()));
    const subject = await user();
    const { accessToken: stale } = await mintTokens(subject);
    assert.ok(await verifier.verifyAccessToken(saasId, stale));
    await coldStart().rotate();
    const { accessToken } = await tokensFrom(coldStart()).issue(subject);
    assert.ok(await verifier.verifyAccessToken(saasId, accessToken));
  });
});
