/** The pure rules of sign-in: the lockout's arithmetic, user-bound tokens, sealing under a code, masked addresses. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { codeHash, openWithCode, sealWithCode } from '../../shared/crypto/code-box.js';
import { newUserToken, readUserToken } from '../../shared/crypto/user-token.js';
import { maskEmail } from '../../shared/domain/sign-in/sign-in.js';
import {
  charged,
  FORGET_AFTER_SECONDS,
  FREE_ATTEMPTS,
  isLocked,
  Lockout,
  lockSeconds,
  MAX_LOCK_SECONDS,
  type LockoutState,
  type LockoutRepository,
} from '../../shared/domain/sign-in/sign-in-lockout.js';

describe('lockout', () => {
  it('locks from the fifth failure: 1 s, doubling, at most 15 minutes', () => {
    assert.deepEqual(
      Array.from({ length: 8 }, (_, i) => lockSeconds(i + 1)),
      [0, 0, 0, 0, 1, 2, 4, 8],
    );
    assert.equal(lockSeconds(14), 512);
    assert.equal(lockSeconds(15), MAX_LOCK_SECONDS);
    assert.equal(lockSeconds(1000), MAX_LOCK_SECONDS);
  });

  it('counts from a state, forgets an expired one, and is locked only until lockedUntil', () => {
    const now = 1_000_000;
    let state: LockoutState | undefined;
    for (let i = 0; i < FREE_ATTEMPTS - 1; i++) state = charged(state, now);
    assert.deepEqual(state, { failures: FREE_ATTEMPTS - 1, expiresAt: now + FORGET_AFTER_SECONDS });
    assert.equal(isLocked(state, now), false);
    state = charged(state, now);
    assert.deepEqual(state, { failures: FREE_ATTEMPTS, lockedUntil: now + 1, expiresAt: now + 1 + FORGET_AFTER_SECONDS });
    assert.equal(isLocked(state, now), true);
    assert.equal(isLocked(state, now + 1), false);
    assert.deepEqual(charged(state, state.expiresAt), { failures: 1, expiresAt: state.expiresAt + FORGET_AFTER_SECONDS }, 'forgotten');
  });

  it('charges exactly one attempt per call even when writes race, and none while locked', async () => {
    // A store whose every other write loses to a rival write, as under parallel attempts.
    let stored: LockoutState | undefined;
    let rounds = 0;
    const store: LockoutRepository = {
      lockout: async () => stored,
      replaceLockout: async (_s, _u, expected, next) => {
        rounds++;
        if (rounds % 2 === 1 || expected !== stored) return false;
        stored = next;
        return true;
      },
    };
    const lockout = new Lockout(store);
    const outcomes = [];
    for (let i = 0; i < FREE_ATTEMPTS + 2; i++) outcomes.push(await lockout.charge('saas', 'user'));
    assert.deepEqual(outcomes, [...Array(FREE_ATTEMPTS).fill('allowed'), 'locked', 'locked']);
    assert.equal(stored?.failures, FREE_ATTEMPTS);
  });
});

describe('user-bound tokens', () => {
  it('name their user, store only a hash, and read back only in their shape', () => {
    const userId = randomUUID();
    const token = newUserToken(userId);
    assert.match(token.token, new RegExp(`^${userId}\\.[A-Za-z0-9_-]{43}$`));
    assert.ok(!token.token.includes(token.hash));
    assert.deepEqual(readUserToken(token.token), token);
    for (const bad of ['', userId, `${userId}.short`, `${userId.toUpperCase()}.${token.secret}`, `x${token.token}`, `${token.token}.more`]) {
      assert.equal(readUserToken(bad), undefined, bad);
    }
  });
});

describe('sealing under a code', () => {
  it('opens with the code and the context it was sealed with, and nothing else', () => {
    const code = randomUUID();
    const sealed = sealWithCode(code, 'ctx', '{"id_token":"abc"}');
    assert.equal(openWithCode(code, 'ctx', sealed), '{"id_token":"abc"}');
    assert.equal(openWithCode(randomUUID(), 'ctx', sealed), undefined);
    assert.equal(openWithCode(code, 'other', sealed), undefined);
    const altered = Buffer.from(sealed, 'base64');
    altered[30] = (altered[30] as number) ^ 1;
    assert.equal(openWithCode(code, 'ctx', altered.toString('base64')), undefined);
    assert.notEqual(codeHash(code), code);
    assert.equal(codeHash(code), codeHash(code));
  });
});

describe('masked e-mail addresses', () => {
  it('keep the first letters and the top-level domain', () => {
    assert.equal(maskEmail('taro@example.com'), 't***@e***.com');
    assert.equal(maskEmail('a@b'), 'a***@b***');
  });
});
