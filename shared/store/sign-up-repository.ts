/**
 * Pending sign-ups of the chosen password (shared/domain/sign-in/sign-up.ts): one code item per address in a
 * partition of its own (keys.pendingSignUp), since no user exists yet. The item's TTL is the code's expiry.
 */
import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { atomicWrite, type AtomicWrite } from '../domain/atomic.js';
import type { CountedMail } from '../domain/mail/mail.js';
import { SIGN_UP_RULE, type PendingSignUpRepository } from '../domain/sign-in/sign-up.js';
import type { VerificationCode } from '../domain/users/verification-codes.js';
import { unlessConditionFails } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE } from './keys.js';
import { decoyMailWrites, mailWrites } from './outbox-repository.js';
import { part, remove } from './transact.js';
import { sameCode, spendAttemptRequest, toCode } from './user-flow-repository.js';

/** The address as a digest: keys name no person's address. */
const digestOf = (email: string) => createHash('sha256').update(email.trim().toLowerCase(), 'utf8').digest('hex');
const keyOf = (saasId: string, email: string) => keys.pendingSignUp(saasId, digestOf(email));
/** The decoy of an address that has an account: its own, reused by each request for the address. */
const decoyIdOf = (email: string) => `signup-${digestOf(email).slice(0, 32)}`;

export class DynamoPendingSignUpRepository implements PendingSignUpRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  saveWrite(saasId: string, email: string, code: VerificationCode, mail: CountedMail): AtomicWrite {
    const item = { ...keyOf(saasId, email), entity: ENTITY.pendingSignUp, v: 1, ...code, [TTL_ATTRIBUTE]: code.expires_at };
    // No condition: a newer request replaces the code, so only the latest mail confirms.
    return atomicWrite(part('pending_sign_up', { Put: { TableName: this.table, Item: item } }), ...mailWrites(this.table, mail));
  }

  decoySaveWrite(saasId: string, email: string, code: VerificationCode, mail: CountedMail): AtomicWrite {
    const id = decoyIdOf(email);
    const item = { ...keys.decoy(saasId, id, 'SIGN_UP'), entity: ENTITY.decoy, v: 1, ...code, [TTL_ATTRIBUTE]: code.expires_at };
    // saveWrite's parts, one for one: the code, the mail (never delivered), its counters.
    return atomicWrite(
      part('pending_sign_up', { Put: { TableName: this.table, Item: item } }),
      ...decoyMailWrites(this.table, saasId, id, mail, code.expires_at),
    );
  }

  async code(saasId: string, email: string): Promise<VerificationCode | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keyOf(saasId, email), ConsistentRead: true }));
    return out.Item ? toCode(out.Item) : undefined;
  }

  spendAttempt(saasId: string, email: string, code: VerificationCode, maxAttempts: number): Promise<boolean> {
    return unlessConditionFails(() => this.db.send(new UpdateCommand(spendAttemptRequest(this.table, keyOf(saasId, email), code, maxAttempts))));
  }

  useWrite(saasId: string, email: string, code: VerificationCode): AtomicWrite {
    return atomicWrite(remove(this.table, keyOf(saasId, email), sameCode(code), SIGN_UP_RULE.codeUnused));
  }
}
