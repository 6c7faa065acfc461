/**
 * The token check's answers: a refused token is `invalid_token`, but a store that fails while the check
 * reads the user's session version is the service's failure, never a refusal (a client would sign its
 * user out on an outage). `verifyIdTokenReading` takes the session version from the caller's read.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { DomainError } from '../../shared/errors.js';
import type { PublicJwk } from '../../shared/domain/tokens/key-store.js';
import { TokenService, TokenVerifier, type SessionVersionSource } from '../../shared/domain/tokens/tokens.js';

const ISSUER = 'https://auth.example.test';
const SAAS = 'saas-1';
const USER = '3f1c2b7e-6a55-4f7e-9a43-3d1c8e0a2b11';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' } as PublicJwk;
const tokens = new TokenService({ signingKey: async () => ({ kid: 'k1', privateKey }) }, { issuer: ISSUER, lifetimeSeconds: 3600 });
const verifier = (sessions: SessionVersionSource) =>
  new TokenVerifier({ publishedKeys: async () => [jwk] }, ISSUER, async () => 'https://sign-in.test', sessions);
const issued = () => tokens.issue({ saasId: SAAS, userId: USER, email: 'a@example.com', sessionVersion: 2 });

const codeOf = (error: unknown) => (error instanceof DomainError ? error.code : undefined);

describe('the token check', () => {
  it("accepts a token of the user's current session, refuses one of an older session or a user who is gone", async () => {
    const { idToken } = await issued();
    assert.equal((await verifier({ sessionVersion: async () => 2 }).verifyIdToken(SAAS, idToken)).sub, USER);
    assert.equal(
      codeOf(
        await verifier({ sessionVersion: async () => 3 })
          .verifyIdToken(SAAS, idToken)
          .catch((e: unknown) => e),
      ),
      'invalid_token',
    );
    assert.equal(
      codeOf(
        await verifier({ sessionVersion: async () => undefined })
          .verifyIdToken(SAAS, idToken)
          .catch((e: unknown) => e),
      ),
      'invalid_token',
    );
  });

  it('lets a failing store read through as a failure, not as a refused token', async () => {
    const { idToken, accessToken } = await issued();
    const outage = new Error('store unreachable');
    const failing = verifier({ sessionVersion: () => Promise.reject(outage) });
    assert.equal(await failing.verifyIdToken(SAAS, idToken).catch((e: unknown) => e), outage);
    assert.equal(await failing.verifyAccessToken(SAAS, accessToken).catch((e: unknown) => e), outage);
  });

  it("verifyIdTokenReading checks the session version the caller's read answers, and reads nothing for a bad signature", async () => {
    const { idToken } = await issued();
    const unused = verifier({ sessionVersion: () => Promise.reject(new Error('the check must not read on its own')) });
    const reads: string[] = [];
    const read = (version: number | undefined) => async (userId: string) => {
      reads.push(userId);
      return { sessionVersion: version, value: `profile of ${userId}` };
    };
    assert.deepEqual((await unused.verifyIdTokenReading(SAAS, idToken, read(2))).value, `profile of ${USER}`);
    assert.equal(codeOf(await unused.verifyIdTokenReading(SAAS, idToken, read(1)).catch((e: unknown) => e)), 'invalid_token');
    const forged = `${idToken.slice(0, idToken.lastIndexOf('.'))}.${'A'.repeat(342)}`;
    assert.equal(codeOf(await unused.verifyIdTokenReading(SAAS, forged, read(2)).catch((e: unknown) => e)), 'invalid_token');
    assert.deepEqual(reads, [USER, USER]);
  });
});
