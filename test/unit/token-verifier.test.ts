/**
 * The token check's answers: a refused token is `invalid_token`, but a store that fails while the check
 * reads the user's session version is the service's failure, never a refusal (a client would sign its
 * user out on an outage). With the `session` option it takes the session version from the caller's read. A token
 * whose grant (`origin_jti`) the profile lists as revoked is refused; the logout's `id_token_hint` check takes
 * only tokens this deployment signed for the SaaS they name; claims follow an OpenID Connect client's scopes.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { DomainError } from '../../shared/errors.js';
import type { PublicJwk } from '../../shared/domain/tokens/key-store.js';
import { TokenService, TokenVerifier, type SessionRepository } from '../../shared/domain/tokens/tokens.js';

const ISSUER = 'https://auth.example.test';
const SAAS = 'saas-1';
const USER = '3f1c2b7e-6a55-4f7e-9a43-3d1c8e0a2b11';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' } as PublicJwk;
const tokens = new TokenService({ signingKey: async () => ({ kid: 'k1', privateKey }) }, { issuer: ISSUER, lifetimeSeconds: 3600 });
const verifier = (sessions: SessionRepository) =>
  new TokenVerifier({ publishedKeys: async () => [jwk] }, ISSUER, async () => 'https://sign-in.test', sessions);
const issued = () => tokens.issue({ saasId: SAAS, userId: USER, email: 'a@example.com', sessionVersion: 2 });

const codeOf = (error: unknown) => (error instanceof DomainError ? error.code : undefined);

describe('the token check', () => {
  it("accepts a token of the user's current session, refuses one of an older session or a user who is gone", async () => {
    const { idToken } = await issued();
    assert.equal((await verifier({ session: async () => ({ version: 2 }) }).verifyIdToken(SAAS, idToken)).sub, USER);
    assert.equal(
      codeOf(
        await verifier({ session: async () => ({ version: 3 }) })
          .verifyIdToken(SAAS, idToken)
          .catch((e: unknown) => e),
      ),
      'invalid_token',
    );
    assert.equal(
      codeOf(
        await verifier({ session: async () => undefined })
          .verifyIdToken(SAAS, idToken)
          .catch((e: unknown) => e),
      ),
      'invalid_token',
    );
  });

  it('lets a failing store read through as a failure, not as a refused token', async () => {
    const { idToken, accessToken } = await issued();
    const outage = new Error('store unreachable');
    const failing = verifier({ session: () => Promise.reject(outage) });
    assert.equal(await failing.verifyIdToken(SAAS, idToken).catch((e: unknown) => e), outage);
    assert.equal(await failing.verifyAccessToken(SAAS, accessToken).catch((e: unknown) => e), outage);
  });

  it("with the caller's read (the session option) checks the session version it answers, and reads nothing for a bad signature", async () => {
    const { idToken, accessToken } = await issued();
    const unused = verifier({ session: () => Promise.reject(new Error('the check must not read on its own')) });
    const reads: string[] = [];
    const read = (version: number | undefined) => ({
      session: async (userId: string) => {
        reads.push(userId);
        return version === undefined ? undefined : { version };
      },
    });
    assert.equal((await unused.verifyIdToken(SAAS, idToken, read(2))).sub, USER);
    assert.equal(codeOf(await unused.verifyIdToken(SAAS, idToken, read(1)).catch((e: unknown) => e)), 'invalid_token');
    assert.equal(codeOf(await unused.verifyAccessToken(SAAS, accessToken, read(undefined)).catch((e: unknown) => e)), 'invalid_token');
    const forged = `${idToken.slice(0, idToken.lastIndexOf('.'))}.${'A'.repeat(342)}`;
    assert.equal(codeOf(await unused.verifyIdToken(SAAS, forged, read(2)).catch((e: unknown) => e)), 'invalid_token');
    assert.deepEqual(reads, [USER, USER, USER]);
  });

  it('refuses a token whose grant the profile lists as revoked, and only that grant', async () => {
    const mine = await tokens.issue({ saasId: SAAS, userId: USER, sessionVersion: 2, grantId: 'grant-a' });
    const other = await tokens.issue({ saasId: SAAS, userId: USER, sessionVersion: 2, grantId: 'grant-b' });
    const listing = verifier({ session: async () => ({ version: 2, revokedGrants: { 'grant-a': 9_999_999_999 } }) });
    const refused = await listing.verifyAccessToken(SAAS, mine.accessToken).catch((e: unknown) => e);
    assert.equal(codeOf(refused), 'invalid_token');
    assert.match((refused as Error).message, /refresh token it was issued with was revoked/);
    assert.equal(codeOf(await listing.verifyIdToken(SAAS, mine.idToken).catch((e: unknown) => e)), 'invalid_token');
    assert.equal((await listing.verifyAccessToken(SAAS, other.accessToken)).sub, USER);
  });

  it('puts the e-mail in the tokens only when an OpenID Connect scope asks for it', async () => {
    const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;
    const subject = { saasId: SAAS, userId: USER, email: 'a@example.com', sessionVersion: 2 };
    const openidOnly = await tokens.issue({ ...subject, scope: 'openid' });
    assert.equal(claimsOf(openidOnly.idToken).email, undefined);
    assert.equal(claimsOf(openidOnly.accessToken).email, undefined);
    assert.equal(claimsOf(openidOnly.accessToken).scope, 'openid');
    assert.equal(claimsOf((await tokens.issue({ ...subject, scope: 'openid email' })).idToken).email, 'a@example.com');
    // SaaSus API tokens carry no scope and keep every claim.
    assert.equal(claimsOf((await issued()).idToken).email, 'a@example.com');
  });

  it('takes an id_token_hint of this issuer for the SaaS it names, expired or not, and nothing else', async () => {
    const check = verifier({ session: () => Promise.reject(new Error('a hint reads no session')) });
    const { idToken, accessToken } = await issued();
    assert.deepEqual(await check.idTokenHint(idToken), { saasId: SAAS, userId: USER });
    const expired = await new TokenService({ signingKey: async () => ({ kid: 'k1', privateKey }) }, { issuer: ISSUER, lifetimeSeconds: -60 }).issue({
      saasId: SAAS,
      userId: USER,
      sessionVersion: 2,
    });
    assert.deepEqual(await check.idTokenHint(expired.idToken), { saasId: SAAS, userId: USER });
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const forged = await new TokenService(
      { signingKey: async () => ({ kid: 'k1', privateKey: stranger }) },
      { issuer: ISSUER, lifetimeSeconds: 3600 },
    ).issue({
      saasId: SAAS,
      userId: USER,
      sessionVersion: 2,
    });
    const elsewhere = await new TokenService(
      { signingKey: async () => ({ kid: 'k1', privateKey }) },
      { issuer: 'https://other.test', lifetimeSeconds: 3600 },
    ).issue({
      saasId: SAAS,
      userId: USER,
      sessionVersion: 2,
    });
    for (const bad of [forged.idToken, elsewhere.idToken, accessToken, 'not-a-jwt', `${idToken}x`])
      assert.equal(await check.idTokenHint(bad), undefined);
  });
});
