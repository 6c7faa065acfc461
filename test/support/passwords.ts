/** Passwords as the store keeps them: only a verifier, which a test can check against the password it expects. */
import assert from 'node:assert/strict';
import { createPasswordVerifier } from '../../shared/crypto/srp.js';
import type { UserRecord } from '../../shared/domain/users/users.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import type { Harness } from '../../dev-support/harness.js';

/** The stored verifier is the one this password's NFKC form gives: the password took effect, and only its verifier is kept. */
export async function assertStoredPassword(h: Harness, saasId: string, userId: string, password: string): Promise<UserRecord> {
  const { poolName } = (await h.accounts.getSaas(saasId))!;
  const user = await new DynamoUserRepository(dynamo(), tableName()).get(saasId, userId);
  assert.ok(user, `a stored user ${userId}`);
  const expected = createPasswordVerifier(poolName, userId, password.normalize('NFKC'), Buffer.from(user.password.salt, 'hex'));
  assert.equal(user.password.verifier, expected.verifier, "the verifier belongs to the password's NFKC form");
  assert.equal(user.password.normalization, 'NFKC', 'marked as made from the NFKC form');
  assert.ok(!JSON.stringify(user).includes(password), 'the password itself is not stored');
  return user;
}

/**
 * A password that meets the default composition rules and is still refused: the lists hold `Password123`, and
 * a trailing symbol does not make it new (shared/domain/configuration/breached-passwords.ts).
 */
export const BREACHED_PASSWORD = 'Password123!';

/** A 400 that names the breached-password rule, as the API answers it. */
export async function assertBreachedRefusal(answer: Promise<{ status: number; body: unknown }>): Promise<void> {
  const { status, body } = await answer;
  assert.equal(status, 400, JSON.stringify(body));
  const error = body as { type: string; message: string; data: { rule?: string; field?: string } };
  assert.equal(error.type, 'password_policy_violation', error.message);
  assert.equal(error.data.rule, 'breached');
  assert.match(error.message, /^password: .*data breaches/);
}
