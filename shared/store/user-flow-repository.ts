/**
 * The store side of the user flows: verification codes in the user's partition (Delete User takes them
 * with the user), and the profile writes of MFA registration and account links. Every write is a part of
 * a transaction the domain composes; only spending a code's attempt stands alone.
 */
import type { ActivityChange } from '../domain/users/activity.js';
import { withActivity } from './activity-attributes.js';
import { GetCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import type { CountedMail } from '../domain/mail/mail.js';
import { FLOW_RULE, type UserFlowRepository } from '../domain/users/user-flows.js';
import type { LinkedProvider, Login } from '../domain/users/users.js';
import type { CodePurpose, VerificationCode } from '../domain/users/verification-codes.js';
import { unlessConditionFails } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE, type ItemKey } from './keys.js';
import { decoyMailWrites, mailWrites } from './outbox-repository.js';
import { both, check, LIVE, part, putNew, remove, update, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';
import { onDirectoryShard } from './user-repository.js';

/** The code item is still the one read: same digest. */
export const sameCode = (code: VerificationCode): Condition => ({
  expression: '#digest = :digest',
  names: { '#digest': 'digest' },
  values: { ':digest': code.digest },
});

/** One answer spent on the code at `key`, only while it is the one read and has attempts left. */
export function spendAttemptRequest(table: string, key: ItemKey, code: VerificationCode, maxAttempts: number) {
  const left: Condition = { expression: '#attempts < :max', names: { '#attempts': 'attempts' }, values: { ':max': maxAttempts } };
  return updateRequest(table, key, new Update().add('attempts', 1), both(sameCode(code), left));
}

/** Where a code is kept: in the user's partition, or a decoy's. */
const codeKey = (saasId: string, userId: string, purpose: CodePurpose, slot: string | undefined, decoy: boolean) =>
  decoy ? keys.decoy(saasId, userId, `CODE#${purpose}`) : keys.verificationCode(saasId, userId, purpose, slot);

/** A code item as the domain reads it; the pending sign-ups keep theirs in the same attributes (sign-up-repository.ts). */
export function toCode(item: Record<string, unknown>): VerificationCode {
  return {
    purpose: item.purpose as CodePurpose,
    digest: item.digest as string,
    salt: item.salt as string,
    expires_at: item.expires_at as number,
    attempts: item.attempts as number,
    payload: (item.payload as Record<string, string> | undefined) ?? {},
    ...(typeof item.slot === 'string' ? { slot: item.slot } : {}),
  };
}

export class DynamoUserFlowRepository implements UserFlowRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  saveCodeWrite(saasId: string, userId: string, code: VerificationCode, mail: CountedMail): AtomicWrite {
    const key = keys.verificationCode(saasId, userId, code.purpose, code.slot);
    const item = { ...key, entity: ENTITY.verificationCode, v: 1, ...code, [TTL_ATTRIBUTE]: code.expires_at };
    return atomicWrite(
      check(this.table, keys.userProfile(saasId, userId), LIVE, RULE.userLive),
      // Replaces an earlier code of the same purpose and slot: only the latest one confirms.
      part(RULE.userLive, { Put: { TableName: this.table, Item: item } }),
      ...mailWrites(this.table, mail),
    );
  }

  decoySaveCodeWrite(saasId: string, decoyId: string, code: VerificationCode, mail: CountedMail): AtomicWrite {
    const decoy = (what: string) => ({ ...keys.decoy(saasId, decoyId, what), entity: ENTITY.decoy, v: 1 });
    // saveCodeWrite's parts, one for one: the user's check, the code, the mail (never delivered: not an outbox item), its counters.
    return atomicWrite(
      check(
        this.table,
        keys.decoy(saasId, decoyId, 'USER'),
        { expression: 'attribute_not_exists(#deleting)', names: { '#deleting': 'deleting' } },
        RULE.userLive,
      ),
      part(RULE.userLive, { Put: { TableName: this.table, Item: { ...decoy(`CODE#${code.purpose}`), ...code, [TTL_ATTRIBUTE]: code.expires_at } } }),
      ...decoyMailWrites(this.table, saasId, decoyId, mail, code.expires_at),
    );
  }

  loginFreeCheck(saasId: string, login: Login, userId: string): AtomicWrite {
    const freeOrOwn: Condition = {
      expression: 'attribute_not_exists(#pk) OR #user = :user',
      names: { '#pk': 'pk', '#user': 'user_id' },
      values: { ':user': userId },
    };
    return atomicWrite(check(this.table, keys.loginOwner(saasId, login), freeOrOwn, RULE.loginFree));
  }

  async code(saasId: string, userId: string, purpose: CodePurpose, slot?: string, decoy = false): Promise<VerificationCode | undefined> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: codeKey(saasId, userId, purpose, slot, decoy), ConsistentRead: true }),
    );
    return out.Item ? toCode(out.Item) : undefined;
  }

  spendAttempt(saasId: string, userId: string, code: VerificationCode, maxAttempts: number, decoy = false): Promise<boolean> {
    const key = codeKey(saasId, userId, code.purpose, code.slot, decoy);
    return unlessConditionFails(() => this.db.send(new UpdateCommand(spendAttemptRequest(this.table, key, code, maxAttempts))));
  }

  async spendDecoyAttempt(saasId: string, decoyId: string, purpose: CodePurpose, expiresAt: number): Promise<void> {
    // spendAttemptRequest's one conditional update, to an item that holds no one's data and goes with its TTL.
    const change = new Update().add('attempts', 1).set('entity', ENTITY.decoy).set('v', 1).set(TTL_ATTRIBUTE, expiresAt);
    const live: Condition = { expression: 'attribute_not_exists(#deleting)', names: { '#deleting': 'deleting' } };
    await this.db.send(new UpdateCommand(updateRequest(this.table, keys.decoy(saasId, decoyId, `ATTEMPT#${purpose}`), change, live)));
  }

  useCodeWrite(saasId: string, userId: string, code: VerificationCode): AtomicWrite {
    return atomicWrite(remove(this.table, keys.verificationCode(saasId, userId, code.purpose, code.slot), sameCode(code), FLOW_RULE.codeUnused));
  }

  pendingTotpSecretWrite(saasId: string, userId: string, sealedSecret: string): AtomicWrite {
    const change = new Update().set(['mfa', 'pending_sealed_totp_secret'], sealedSecret);
    return atomicWrite(update(this.table, keys.userProfile(saasId, userId), onDirectoryShard(saasId, userId, change), LIVE, RULE.userLive));
  }

  registerTotpSecretWrite(saasId: string, userId: string, sealedSecret: string, activity?: ActivityChange): AtomicWrite {
    const change = withActivity(
      new Update()
        .set(['mfa', 'sealed_totp_secret'], sealedSecret)
        .set(['mfa', 'software_token_registered'], true)
        .remove(['mfa', 'pending_sealed_totp_secret']),
      activity,
    );
    const stillPending: Condition = {
      expression: '#mfa.#pending = :pending',
      names: { '#mfa': 'mfa', '#pending': 'pending_sealed_totp_secret' },
      values: { ':pending': sealedSecret },
    };
    return atomicWrite(
      update(this.table, keys.userProfile(saasId, userId), onDirectoryShard(saasId, userId, change), both(LIVE, stillPending), FLOW_RULE.totpPending),
    );
  }

  linkProviderWrite(saasId: string, userId: string, provider: string, link: LinkedProvider): AtomicWrite {
    const change = new Update().set(['providers', provider], link);
    const unlinked: Condition = {
      expression: 'attribute_not_exists(#providers.#provider)',
      names: { '#providers': 'providers', '#provider': provider },
    };
    return atomicWrite(
      // One part per item: a user who is gone is told apart from one already linked by the service.
      update(
        this.table,
        keys.userProfile(saasId, userId),
        onDirectoryShard(saasId, userId, change),
        both(LIVE, unlinked),
        FLOW_RULE.providerUnlinked,
      ),
      ...this.identityClaimWrite(saasId, userId, provider, link.subject).parts,
    );
  }

  identityClaimWrite(saasId: string, userId: string, provider: string, subject: string): AtomicWrite {
    const owner = keys.externalIdentity(saasId, provider, subject);
    return atomicWrite(
      putNew(this.table, { ...owner, entity: ENTITY.externalIdentity, v: 1, user_id: userId, provider }, FLOW_RULE.identityFree),
      part(FLOW_RULE.identityFree, {
        Put: {
          TableName: this.table,
          Item: { ...keys.userExternalIdentity(saasId, userId, provider), entity: ENTITY.userExternalIdentity, v: 1, mirror: owner },
        },
      }),
    );
  }
}
