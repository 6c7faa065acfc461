/**
 * Failed sign-ins to the operator console (web/console), counted per source address and per API key in fixed
 * windows: once either count reaches its limit, every sign-in from that address or with that key is refused
 * unchecked until the window ends. A right secret does not get through a full window either, so guessing
 * cannot be confirmed by a success. The counts are stored (not per warm instance), so every function
 * instance and the local server agree.
 */
import { createHash } from 'node:crypto';
import { nowSeconds } from '../../clock.js';

export interface ThrottleLimits {
  /** Failures per source address in one window. */
  perAddress: number;
  /** Failures per SaaS id + API key in one window. */
  perKey: number;
  windowSeconds: number;
}

export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = { perAddress: 20, perKey: 10, windowSeconds: 15 * 60 };

/** Where the counts live (shared/store/throttle-repository.ts). */
export interface ThrottleRepository {
  /** The counts of `counters` (0 for one never written or expired). */
  counts(counters: readonly string[]): Promise<number[]>;
  /** Adds one to each counter, kept until `expiresAt` (Unix seconds). */
  add(counters: readonly string[], expiresAt: number): Promise<void>;
}

export interface SignInAttempt {
  sourceIp: string;
  saasId: string;
  apiKey: string;
}

/** The key's counter name: a hash, so what a stranger typed is never stored as typed, and its length is bounded. */
const keyDigest = (saasId: string, apiKey: string) => createHash('sha256').update(`${saasId}\n${apiKey}`).digest('base64url').slice(0, 32);

export class ConsoleSignInThrottle {
  constructor(
    private readonly counters: ThrottleRepository,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE_LIMITS,
  ) {}

  private window(now: number) {
    const start = Math.floor(now / this.limits.windowSeconds) * this.limits.windowSeconds;
    return { start, end: start + this.limits.windowSeconds };
  }

  private names(attempt: SignInAttempt, now: number): [string, string] {
    const { start } = this.window(now);
    return [`ADDR#${attempt.sourceIp.slice(0, 64)}#${start}`, `KEY#${keyDigest(attempt.saasId, attempt.apiKey)}#${start}`];
  }

  /** Whether this attempt may be checked at all: false while its address or its key used up the window. */
  async allows(attempt: SignInAttempt): Promise<boolean> {
    const [address, key] = await this.counters.counts(this.names(attempt, nowSeconds()));
    return (address ?? 0) < this.limits.perAddress && (key ?? 0) < this.limits.perKey;
  }

  /** Counts one failure against the address and the key. */
  async failed(attempt: SignInAttempt): Promise<void> {
    const now = nowSeconds();
    await this.counters.add(this.names(attempt, now), this.window(now).end);
  }
}
