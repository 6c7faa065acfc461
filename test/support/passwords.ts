/** Passwords as the store keeps them: only a verifier, which a test can check against the password it expects. */
import assert from 'node:assert/strict';
import { createPasswordVerifier } from '../../shared/crypto/srp.js';
import type { UserRecord } from '../../shared/domain/users/users.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import type { Harness } from '../../dev-support/harness.js';

/** The stored verifier is the one this password gives: the password took effect, and only its verifier is kept. */
export async function assertStoredPassword(h: Harness, saasId: string, userId: string, password: string): Promise<UserRecord> {
  const { poolName } = (await h.accounts.getSaas(saasId))!;
  const user = await new DynamoUserRepository(dynamo(), tableName()).get(saasId, userId);
  assert.ok(user, `a stored user ${userId}`);
  const expected = createPasswordVerifier(poolName, userId, password, Buffer.from(user.password.salt, 'hex'));
  assert.equal(user.password.verifier, expected.verifier, 'the verifier belongs to the password');
  assert.ok(!JSON.stringify(user).includes(password), 'the password itself is not stored');
  return user;
}
