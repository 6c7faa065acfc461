import { DeleteCommand, GetCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import type { SavedCredentials, TempCodeRepository } from '../domain/sign-in/sign-in-credentials.js';
import { FORGET_AFTER_SECONDS, type LockoutState } from '../domain/sign-in/sign-in-lockout.js';
import type {
  DeviceConfirmationRecord,
  DeviceRecord,
  FollowUpStep,
  OpenChallenge,
  PendingOffer,
  ProofState,
  ProofStateOfName,
  SignedIn,
  SignInRepository,
  SpentSession,
} from '../domain/sign-in/sign-in-state.js';
import { answeredKey } from '../domain/sign-in/sign-in-state.js';
import type { CountedMail } from '../domain/mail/mail.js';
import { TOTP_STEP_SECONDS } from '../crypto/totp.js';
import { putIfAbsent, unlessConditionFails } from './conditional.js';
import { ENTITY, keys, loginKey, TTL_ATTRIBUTE, withoutKeys, type EntityName, type ItemKey } from './keys.js';
import { mailWrites } from './outbox-repository.js';
import { both, check, conditionInput, DynamoCommitter, EXISTS, LIVE, putNew, remove, update, updateRequest, type Condition } from './transact.js';
import { profilesIndexed } from './directory-shards.js';
import { onDirectoryShard, toUser } from './user-repository.js';
import { Update } from './update.js';
import { partitionQuery, queryFirst } from './query.js';
import { withActivity } from './activity-attributes.js';
import type { ActivityChange } from '../domain/users/activity.js';
import type { Login } from '../domain/users/users.js';

const item = (key: ItemKey, entity: EntityName, fields: object) => ({ ...key, entity, v: 1, ...fields });

/** How long a decoy item of a refused proof is kept (its TTL): as long as a lockout count is remembered. */
const DECOY_SECONDS = FORGET_AFTER_SECONDS;
/**
 * Filler that gives a decoy of a proof about the size of a user's profile (1.3–1.5 KB with its verifier): the
 * store's work for a write grows with the item (on DynamoDB, a write unit per KB), and the profile's write took
 * 0.4 ms longer than a small item's on DynamoDB Local.
 */
const PROFILE_SIZED = '0'.repeat(1100);

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

/** The profile's attributes that hold sign-in's state (toUser leaves them out of the user record). */
const LOCKOUT = 'signin_lockout';
const ANSWERED = 'srp_answered';
/**
 * The devices sign-ins offered that await Confirm Device, by device key. An offer lives on the profile so the
 * sign-in settles with the one conditional write that updates the profile anyway (a device item of its own
 * made that write a transaction: twice the write units, and the slowest of the sign-in's requests).
 */
const OFFERS = 'device_offers';
/**
 * How many offers a profile holds: a newer one drops the oldest (whose Confirm Device then answers
 * device_not_found), so the profile stays small (about 120 bytes an offer) however often its user signs in.
 */
export const PENDING_OFFERS = 5;

/** The lockout state is still `expected` (undefined: none). */
function lockoutIs(expected: LockoutState | undefined): Condition {
  if (!expected) return { expression: 'attribute_not_exists(#lockout)', names: { '#lockout': LOCKOUT } };
  return {
    expression: '#lockout.#failures = :failures AND #lockout.#expiresAt = :expiresAt',
    names: { '#lockout': LOCKOUT, '#failures': 'failures', '#expiresAt': 'expiresAt' },
    values: { ':failures': expected.failures, ':expiresAt': expected.expiresAt },
  };
}

/**
 * The user is live, its lockout count is what the proof read, and its session was not answered since: spends
 * the session in `change`, dropping the entries of sessions that have expired. The map is made whole the first
 * time (a nested SET needs it to exist), on condition that nobody made it meanwhile.
 */
function spendSession(spent: SpentSession, change: Update, now: number): Condition {
  const lockoutUnchanged = both(LIVE, lockoutIs(spent.seen.lockout));
  // A password checked here (USER_PASSWORD_AUTH) has no session: only the count it was decided on holds it.
  if (spent.sessionId === undefined) return lockoutUnchanged;
  const key = answeredKey(spent.sessionId);
  const names = { '#answered': ANSWERED, '#session': key };
  const { answered } = spent.seen;
  let unanswered: Condition;
  if (answered) {
    change.set([ANSWERED, key], spent.expiresAt);
    for (const [old, expiresAt] of Object.entries(answered)) if (expiresAt < now && old !== key) change.remove([ANSWERED, old]);
    unanswered = { expression: 'attribute_not_exists(#answered.#session)', names };
  } else {
    change.set(ANSWERED, { [key]: spent.expiresAt });
    unanswered = { expression: 'attribute_not_exists(#answered)', names: { '#answered': ANSWERED } };
  }
  return both(lockoutUnchanged, unanswered);
}

/**
 * Puts `device`'s offer on the profile in `change`, dropping the lapsed offers and, past PENDING_OFFERS, the
 * oldest. The map is made whole the first time (a nested SET needs it to exist), on condition that nobody
 * made it meanwhile; it is never removed after, but the condition says so for a nested SET all the same.
 */
function offerDevice(seen: Record<string, PendingOffer> | undefined, device: DeviceRecord, change: Update, now: number): Condition {
  const offer: PendingOffer = { device_group_key: device.device_group_key, created_at: device.created_at, expiresAt: device.expiresAt ?? now };
  const names = { '#offers': OFFERS };
  if (!seen) {
    change.set(OFFERS, { [device.device_key]: offer });
    return { expression: 'attribute_not_exists(#offers)', names };
  }
  const live = Object.entries(seen)
    .filter(([, o]) => o.expiresAt > now)
    .sort(([, a], [, b]) => a.created_at - b.created_at);
  const kept = new Set(live.slice(Math.max(0, live.length - (PENDING_OFFERS - 1))).map(([key]) => key));
  for (const key of Object.keys(seen)) if (!kept.has(key)) change.remove([OFFERS, key]);
  change.set([OFFERS, device.device_key], offer);
  return { expression: 'attribute_exists(#offers)', names };
}

/**
 * Sign-in state of users: the lockout count and the last answered SRP session on the profile item (so one
 * read and one conditional write settle a proof), follow-up challenges, devices and TOTP steps in the
 * user's partition (keys.ts).
 */
export class DynamoSignInRepository implements SignInRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  private async readItem(key: ItemKey): Promise<Record<string, unknown> | undefined> {
    return (await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }))).Item;
  }

  private async read<T>(key: ItemKey): Promise<T | undefined> {
    const item = await this.readItem(key);
    return item ? withoutKeys<T>(item) : undefined;
  }

  private conditionalUpdate(key: ItemKey, change: Update, condition: Condition, returnNew = false) {
    return this.db.send(
      new UpdateCommand({ ...updateRequest(this.table, key, change, condition), ...(returnNew ? { ReturnValues: 'ALL_NEW' as const } : {}) }),
    );
  }

  /** The lockout of the code answers (MFA): the profile's sign-in state, read alone. */
  async lockout(saasId: string, userId: string): Promise<LockoutState | undefined> {
    return (await this.proofState(saasId, userId)).lockout;
  }

  replaceLockout(
    saasId: string,
    userId: string,
    expected: LockoutState | undefined,
    next: LockoutState,
    activity?: ActivityChange,
  ): Promise<boolean> {
    const change = withActivity(onDirectoryShard(saasId, userId, new Update().set(LOCKOUT, next)), activity);
    return unlessConditionFails(() => this.conditionalUpdate(keys.userProfile(saasId, userId), change, both(LIVE, lockoutIs(expected))));
  }

  async proofState(saasId: string, userId: string, decoy = false): Promise<ProofState> {
    const item = await this.readItem(decoy ? keys.decoy(saasId, userId, 'PROOF') : keys.userProfile(saasId, userId));
    if (!item || decoy) return { user: undefined, lockout: undefined, answered: undefined };
    return this.stateOf(item);
  }

  private stateOf(item: Record<string, unknown>): ProofState {
    return {
      user: item.deleting ? undefined : toUser(item),
      lockout: item[LOCKOUT] as LockoutState | undefined,
      answered: item[ANSWERED] as Record<string, number> | undefined,
      offers: item[OFFERS] as Record<string, PendingOffer> | undefined,
    };
  }

  async proofStateByLogin(saasId: string, login: Login, nobodyId: string): Promise<ProofStateOfName> {
    const owner = (await this.db.send(new GetCommand({ TableName: this.table, Key: keys.loginOwner(saasId, login), ConsistentRead: true }))).Item;
    const userId = owner?.user_id as string | undefined;
    if (!userId) return { userId: nobodyId, nobody: true, seen: await this.proofState(saasId, nobodyId, true) };
    const item = await this.readItem(keys.userProfile(saasId, userId));
    // The name moved to someone else, or the user is being deleted, between the two reads: nobody's, as findByLogin says.
    const theirs = item !== undefined && !item.deleting && item.loginKey === loginKey(login);
    return { userId, nobody: false, seen: theirs ? this.stateOf(item) : { user: undefined, lockout: undefined, answered: undefined } };
  }

  proofWrite(saasId: string, userId: string, spent: SpentSession, now: number): AtomicWrite {
    const change = withActivity(onDirectoryShard(saasId, userId, new Update()), spent.activity);
    if (spent.charged) change.set(LOCKOUT, spent.charged);
    const condition = spendSession(spent, change, now);
    return atomicWrite(update(this.table, keys.userProfile(saasId, userId), change, condition, RULE.signInState));
  }

  decoyProofWrite(saasId: string, userId: string, now: number): AtomicWrite {
    // The shape of proofWrite's: the lockout and the answered sessions set, on a condition over both; indexed only
    // where a profile is (its SaaS's profiles are the directory), so its cost is a profile's either way.
    const { gsi1pk, gsi1sk } = keys.decoyIndexEntry(saasId, userId);
    const change = profilesIndexed(saasId)
      ? new Update().set('gsi1pk', gsi1pk).set('gsi1sk', gsi1sk)
      : new Update().remove('gsi1pk').remove('gsi1sk');
    change
      .set(LOCKOUT, { failures: 0, expiresAt: now + DECOY_SECONDS })
      .set(ANSWERED, {})
      .set('entity', ENTITY.decoy)
      .set('v', 1)
      .set('filler', PROFILE_SIZED)
      .set(TTL_ATTRIBUTE, now + DECOY_SECONDS);
    const anyState: Condition = {
      expression: 'attribute_not_exists(#deleting) AND (attribute_not_exists(#lockout) OR attribute_exists(#answered))',
      names: { '#deleting': 'deleting', '#lockout': LOCKOUT, '#answered': ANSWERED },
    };
    return atomicWrite(update(this.table, keys.decoy(saasId, userId, 'PROOF'), change, anyState, RULE.signInState));
  }

  openChallengeWrite(saasId: string, userId: string, challenge: OpenChallenge, mail?: CountedMail, spent?: SpentSession): AtomicWrite {
    return atomicWrite(
      ...(spent
        ? this.proofWrite(saasId, userId, spent, challenge.authTime).parts
        : [check(this.table, keys.userProfile(saasId, userId), LIVE, RULE.userLive)]),
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

  async hasPasskey(saasId: string, userId: string): Promise<boolean> {
    return (await queryFirst(this.db, { ...partitionQuery(this.table, keys.passkeys(saasId, userId)), ConsistentRead: true }, 1)).length > 0;
  }

  /**
   * An offer on the profile becomes a confirmed device item of its own, in one transaction with a check that
   * the user is live and the offer still there and live; the device item's own condition (new) makes it
   * happen once. The offer is left on the profile, where the next sign-ins' writes drop it when it lapses or
   * is the oldest: taking it off would rewrite the profile and its index entries in the transaction (16 write
   * units against 6 on DynamoDB Local). An offer stored as its own item (a sign-in's that answered a follow-up
   * challenge, or any from before offers moved to the profile) is confirmed where it is.
   */
  async confirmDevice(saasId: string, userId: string, deviceKey: string, confirmation: DeviceConfirmationRecord, now: number): Promise<boolean> {
    const profile = await this.readItem(keys.userProfile(saasId, userId));
    const offer = (profile?.[OFFERS] as Record<string, PendingOffer> | undefined)?.[deviceKey];
    if (offer) {
      const stillOffered = both(LIVE, {
        expression: '#offers.#device.#expiresAt > :now',
        names: { '#offers': OFFERS, '#device': deviceKey, '#expiresAt': TTL_ATTRIBUTE },
        values: { ':now': now },
      });
      const device: DeviceRecord = {
        device_key: deviceKey,
        device_group_key: offer.device_group_key,
        created_at: offer.created_at,
        ...confirmation,
        status: 'confirmed',
      };
      const outcome = await new DynamoCommitter(this.db).commit(
        atomicWrite(
          check(this.table, keys.userProfile(saasId, userId), stillOffered, RULE.userLive),
          putNew(this.table, item(keys.device(saasId, userId, deviceKey), ENTITY.device, device), RULE.newItem),
        ),
      );
      return outcome.committed;
    }
    const change = new Update().set('status', 'confirmed').remove(TTL_ATTRIBUTE);
    for (const [name, value] of Object.entries(confirmation)) change.set(name, value);
    const offered = conditionOn({ status: ['=', 'offered'], [TTL_ATTRIBUTE]: ['>', now] }, EXISTS);
    return unlessConditionFails(() => this.conditionalUpdate(keys.device(saasId, userId, deviceKey), change, offered));
  }

  rememberDevice(saasId: string, userId: string, deviceKey: string, remembered: boolean): Promise<boolean> {
    const confirmed = conditionOn({ status: ['=', 'confirmed'] }, EXISTS);
    return unlessConditionFails(() =>
      this.conditionalUpdate(keys.device(saasId, userId, deviceKey), new Update().set('remembered', remembered), confirmed),
    );
  }

  signedInWrite(saasId: string, userId: string, signedIn: SignedIn, offeredDevice?: DeviceRecord): AtomicWrite {
    const atVersion = conditionOn({ session_version: ['=', signedIn.sessionVersion] }, LIVE);
    const change = withActivity(onDirectoryShard(saasId, userId, new Update().set('last_login_at', signedIn.at).remove(LOCKOUT)), signedIn.activity);
    const { spent } = signedIn;
    let condition = spent ? both(atVersion, spendSession(spent, change, signedIn.at)) : atVersion;
    // The proof's read saw the profile's offers, so the offer joins them in the profile's write. Without it (a
    // follow-up challenge's answer), the sign-in is a transaction anyway (its challenge closes with it): the
    // offer is an item of its own there, as every offer was before they moved to the profile.
    const onProfile = offeredDevice && spent;
    if (onProfile) condition = both(condition, offerDevice(spent.seen.offers, offeredDevice, change, signedIn.at));
    return atomicWrite(
      update(this.table, keys.userProfile(saasId, userId), change, condition, RULE.sessionCurrent),
      ...(offeredDevice && !onProfile
        ? [putNew(this.table, item(keys.device(saasId, userId, offeredDevice.device_key), ENTITY.device, offeredDevice), RULE.newItem)]
        : []),
    );
  }
}

/** Temporary codes, one partition each (keys.tempCode). */
export class DynamoTempCodeRepository implements TempCodeRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async save(saasId: string, codeHash: string, saved: SavedCredentials): Promise<void> {
    if ((await putIfAbsent(this.db, this.table, item(keys.tempCode(saasId, codeHash), ENTITY.tempCode, saved))) === 'exists') {
      throw new Error('a temporary code collided');
    }
  }

  saveWrite(saasId: string, codeHash: string, saved: SavedCredentials): AtomicWrite {
    return atomicWrite(putNew(this.table, item(keys.tempCode(saasId, codeHash), ENTITY.tempCode, saved), RULE.newItem));
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
