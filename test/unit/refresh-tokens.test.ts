import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newRefreshToken, refreshTokenHash, refreshTokenMatches } from '../../shared/domain/tokens.js';

describe('refresh tokens', () => {
  it('are opaque random strings, stored as a hash that is not the token', () => {
    const { token, hash } = newRefreshToken();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/, '256 bits, base64url');
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.ok(!hash.includes(token));
    assert.equal(refreshTokenHash(token), hash, 'the hash is the lookup key: the same every time');
    assert.notEqual(newRefreshToken().token, token);
  });

  it('match only their own hash', () => {
    const { token, hash } = newRefreshToken();
    assert.ok(refreshTokenMatches(token, hash));
    assert.ok(!refreshTokenMatches(`${token}x`, hash));
    assert.ok(!refreshTokenMatches(newRefreshToken().token, hash));
    assert.ok(!refreshTokenMatches(token, token), 'the token is not its own stored form');
  });
});
