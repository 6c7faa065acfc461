import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import type { SavedCredentials, TempCodeStore } from '../domain/sign-in-credentials.js';
import type { LockoutState } from '../domain/sign-in-lockout.js';
import type {
  DeviceConfirmationRecord,
  DeviceRecord,
  FollowUpStep,
  OpenChallenge,
  RefreshTokenRecord,
  SignInStore,
} from '../domain/sign-in-state.js';
import type { OutboxMail } from '../domain/mail.js';
import { TOTP_STEP_SECONDS } from '../crypto/totp.js';
import { putIfAbsent, unlessConditionFails } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys, type EntityName, type ItemKey } from './keys.js';
import { mailWrites } from './outbox-repository.js';
import { check, conditionInput, EXISTS, LIVE, part, putNew, remove, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';

const item = (key: ItemKey, entity: EntityName, fields: object) => ({ ...key, entity, v: 1, ...fields });

/** The condition of a rehearsal (a sign-in attempt on a name nobody has): the store evaluates it and writes nothing. */
const CANNOT_HOLD: Condition = { expression: 'attribute_exists(pk) AND attribute_not_exists(pk)' };

/** `#name <op> :name` for each entry, joined with AND; the names and values go along. */
function conditionOn(clauses: Record<string, [op: string, value: unknown]>, base?: Condition): Condition {
  const names: Record<string, string> = { ...base?.names };
  const values: Record<string, unknown> = { ...base?.values };
  const parts = base ? [base.expression] : [];
  for (const [name, [op, value]] of Object.entries(clauses)) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    parts.push(`#${name} ${op} :${name}`);
  }
  return { expression: parts.join(' AND '), names, values };
}

/** Sign-in state of users, in each user's partition (keys.ts). */
export class DynamoSignInRepository implements SignInStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  private async read<T>(key: ItemKey): Promise<T | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return out.Item ? withoutKeys<T>(out.Item) : undefined;
  }

  private conditionalUpdate(key: ItemKey, change: Update, condition: Condition, returnNew = false) {
    return this.db.send(
      new UpdateCommand({ ...updateRequest(this.table, key, change, condition), ...(returnNew ? { ReturnValues: 'ALL_NEW' as const } : {}) }),
    );
  }

  lockout(saasId: string, userId: string): Promise<LockoutState | undefined> {
    return this.read<LockoutState>(keys.signInLockout(saasId, userId));
  }

  replaceLockout(saasId: string, userId: string, expected: LockoutState | undefined, next: LockoutState, rehearsal = false): Promise<boolean> {
    const condition = rehearsal
      ? CANNOT_HOLD
      : expected
        ? conditionOn({ failures: ['=', expected.failures], [TTL_ATTRIBUTE]: ['=', expected.expiresAt] })
        : { expression: 'attribute_not_exists(pk)' };
    return unlessConditionFails(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: item(keys.signInLockout(saasId, userId), ENTITY.signInLockout, next),
          ...conditionInput(condition),
        }),
      ),
    );
  }

  async useSession(saasId: string, userId: string, sessionId: string, expiresAt: number, rehearsal = false): Promise<boolean> {
    const used = item(keys.usedSignInSession(saasId, userId, sessionId), ENTITY.usedSignInSession, { [TTL_ATTRIBUTE]: expiresAt });
    if (!rehearsal) return (await putIfAbsent(this.db, this.table, used)) === 'created';
    await unlessConditionFails(() => this.db.send(new PutCommand({ TableName: this.table, Item: used, ...conditionInput(CANNOT_HOLD) })));
    return false;
  }

  openChallengeWrite(saasId: string, userId: string, challenge: OpenChallenge, mail?: OutboxMail): AtomicWrite {
    return atomicWrite(
      check(this.table, keys.userProfile(saasId, userId), LIVE, RULE.userLive),
      putNew(this.table, item(keys.signInChallenge(saasId, userId, challenge.sessionHash), ENTITY.signInChallenge, challenge), RULE.newItem),
      ...(mail ? mailWrites(this.table, mail) : []),
    );
  }

  async takeChallengeAttempt(
    saasId: string,
    userId: string,
    sessionHash: string,
    step: FollowUpStep,
    now: number,
    maxAttempts: number,
  ): Promise<OpenChallenge | undefined> {
    const open = conditionOn({ step: ['=', step], [TTL_ATTRIBUTE]: ['>', now], attempts: ['<', maxAttempts] }, EXISTS);
    let taken: OpenChallenge | undefined;
    await unlessConditionFails(async () => {
      const out = await this.conditionalUpdate(keys.signInChallenge(saasId, userId, sessionHash), new Update().add('attempts', 1), open, true);
      taken = out.Attributes ? withoutKeys<OpenChallenge>(out.Attributes) : undefined;
    });
    return taken;
  }

  closeChallengeWrite(saasId: string, userId: string, sessionHash: string): AtomicWrite {
    return atomicWrite(remove(this.table, keys.signInChallenge(saasId, userId, sessionHash), EXISTS, RULE.challengeOpen));
  }

  useTotpStep(saasId: string, userId: string, step: number): Promise<boolean> {
    const change = new Update()
      .set('step', step)
      .set('entity', ENTITY.usedTotpStep)
      .set('v', 1)
      // Past this time the step is outside every code's window anyway (now ± 1 step).
      .set(TTL_ATTRIBUTE, (step + 2) * TOTP_STEP_SECONDS);
    const unused: Condition = { expression: 'attribute_not_exists(#step) OR #step < :step', names: { '#step': 'step' }, values: { ':step': step } };
    return unlessConditionFails(() => this.conditionalUpdate(keys.usedTotpStep(saasId, userId), change, unused));
  }

  device(saasId: string, userId: string, deviceKey: string): Promise<DeviceRecord | undefined> {
    return this.read<DeviceRecord>(keys.device(saasId, userId, deviceKey));
  }

  confirmDevice(saasId: string, userId: string, deviceKey: string, confirmation: DeviceConfirmationRecord, now: number): Promise<boolean> {
    const change = new Update().set('status', 'confirmed').remove(TTL_ATTRIBUTE);
    for (const [name, value] of Object.entries(confirmation)) change.set(name, value);
    const offered = conditionOn({ status: ['=', 'offered'], [TTL_ATTRIBUTE]: ['>', now] }, EXISTS);
    return unlessConditionFails(() => this.conditionalUpdate(keys.device(saasId, userId, deviceKey), change, offered));
  }

  rememberDevice(saasId: string, userId: string, deviceKey: string, remembered: boolean): Promise<boolean> {
    const confirmed = conditionOn({ status: ['=', 'confirmed'] }, EXISTS);
    return unlessConditionFails(() => this.conditionalUpdate(keys.device(saasId, userId, deviceKey), new Update().set('remembered', remembered), confirmed));
  }

  refreshToken(saasId: string, userId: string, hash: string): Promise<RefreshTokenRecord | undefined> {
    return this.read<RefreshTokenRecord>(keys.refreshToken(saasId, userId, hash));
  }

  signedInWrite(saasId: string, userId: string, refresh: RefreshTokenRecord, offeredDevice?: DeviceRecord): AtomicWrite {
    return atomicWrite(
      putNew(this.table, item(keys.refreshToken(saasId, userId, refresh.hash), ENTITY.refreshToken, refresh), RULE.newItem),
      ...(offeredDevice
        ? [putNew(this.table, item(keys.device(saasId, userId, offeredDevice.device_key), ENTITY.device, offeredDevice), RULE.newItem)]
        : []),
      // A completed sign-in starts the count of failed proofs afresh (no condition: nothing to refuse).
      part('lockout_reset', { Delete: { TableName: this.table, Key: keys.signInLockout(saasId, userId) } }),
    );
  }
}

/** Temporary codes, one partition each (keys.tempCode). */
export class DynamoTempCodeRepository implements TempCodeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async save(saasId: string, codeHash: string, saved: SavedCredentials): Promise<void> {
    if ((await putIfAbsent(this.db, this.table, item(keys.tempCode(saasId, codeHash), ENTITY.tempCode, saved))) === 'exists') {
      throw new Error('a temporary code collided');
    }
  }

  async take(saasId: string, codeHash: string, now: number): Promise<SavedCredentials | undefined> {
    let taken: SavedCredentials | undefined;
    const live = conditionOn({ [TTL_ATTRIBUTE]: ['>=', now] }, EXISTS);
    await unlessConditionFails(async () => {
      const out = await this.db.send(
        new DeleteCommand({ TableName: this.table, Key: keys.tempCode(saasId, codeHash), ReturnValues: 'ALL_OLD', ...conditionInput(live) }),
      );
      taken = out.Attributes ? withoutKeys<SavedCredentials>(out.Attributes) : undefined;
    });
    return taken;
  }
}
