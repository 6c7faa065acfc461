/**
 * Lockout of a user after failed proofs (wrong passwords, wrong device proofs, wrong MFA codes): the first
 * FREE_ATTEMPTS failures in a row cost nothing; the one that reaches it locks the user for 1 s, and each
 * further failure doubles the lock, up to 15 minutes. While locked, every proof is refused unchecked, even a
 * right one. Only a completed sign-in resets the count, so MFA codes cannot be guessed by proving the
 * password again and again.
 *
 * Every outcome is settled with a write conditioned on the counter being what was read: parallel attempts are
 * serialised by the store, so no more answers are decided than the rule allows, however many arrive at once.
 * A code answer is charged before it is checked (Lockout.charge). An SRP proof is checked first and then
 * settled, failure or success, in one conditional write (sign-in.ts): a proof whose write lost the race is
 * decided again on a fresh read, so its answer never comes from a count that has changed. An attempt that
 * finds the user locked changes nothing of the user's (a refused attempt is not a failure: it must not lengthen
 * the lock a real user waits out); its write goes to a decoy, as a name nobody has does (sign-in.ts).
 */
import { nowSeconds } from '../../clock.js';

export const FREE_ATTEMPTS = 5;
export const MAX_LOCK_SECONDS = 15 * 60;
/** A counter left alone this long after its last failure (or lock) is forgotten. */
export const FORGET_AFTER_SECONDS = 24 * 60 * 60;
/** Rounds of read-and-write before a charge or a proof gives up (refused as if locked): only under heavy contention. */
export const CONTENDED_ROUNDS = 25;

/** Another attempt wrote between our read and our write: wait a little, longer each round, then read again. */
export const contendedPause = (round: number) => new Promise((r) => setTimeout(r, Math.random() * 10 * (round + 1)));

export interface LockoutState {
  /** Attempts charged since the last completed sign-in. */
  failures: number;
  /** Unix seconds until which every proof is refused. */
  lockedUntil?: number;
  /** Unix seconds when the counter is forgotten (the item's TTL, also checked on read). */
  expiresAt: number;
}

export interface LockoutRepository {
  /** The stored state, expired or not; undefined when there is none. */
  lockout(saasId: string, userId: string): Promise<LockoutState | undefined>;
  /** Writes `next` only if the stored state is still `expected` (undefined: none) and the user is live; false otherwise. */
  replaceLockout(saasId: string, userId: string, expected: LockoutState | undefined, next: LockoutState): Promise<boolean>;
}

/** How long the failure numbered `failures` locks for: 0 below the free attempts, then 1, 2, 4 ... 900 s. */
export function lockSeconds(failures: number): number {
  if (failures < FREE_ATTEMPTS) return 0;
  return Math.min(2 ** (failures - FREE_ATTEMPTS), MAX_LOCK_SECONDS);
}

export function isLocked(state: LockoutState | undefined, now: number): boolean {
  return state !== undefined && state.expiresAt > now && (state.lockedUntil ?? 0) > now;
}

/** The state after one more charged attempt. */
export function charged(state: LockoutState | undefined, now: number): LockoutState {
  const failures = (state && state.expiresAt > now ? state.failures : 0) + 1;
  const lock = lockSeconds(failures);
  const lockedUntil = lock > 0 ? now + lock : undefined;
  return { failures, ...(lockedUntil ? { lockedUntil } : {}), expiresAt: (lockedUntil ?? now) + FORGET_AFTER_SECONDS };
}

export class Lockout {
  constructor(private readonly store: LockoutRepository) {}

  /** Charges one attempt (a code answer); 'locked' when the user may not try now (nothing is charged then). */
  async charge(saasId: string, userId: string): Promise<'allowed' | 'locked'> {
    for (let round = 0; round < CONTENDED_ROUNDS; round++) {
      const now = nowSeconds();
      const state = await this.store.lockout(saasId, userId);
      if (isLocked(state, now)) return 'locked';
      if (await this.store.replaceLockout(saasId, userId, state, charged(state, now))) return 'allowed';
      await contendedPause(round);
    }
    return 'locked';
  }
}
