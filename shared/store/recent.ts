/**
 * Items a warm instance keeps for a few seconds, for the reads every request on the hot path makes (the API
 * key a request is signed with, the settings sign-in consults): they are read at most once per that many
 * seconds per instance. Another instance's write reaches this one within that time; this instance's own
 * writes evict at once. Time is the domain clock, so tests move it instead of sleeping.
 */
import { nowMillis } from '../clock.js';

/** Entries past this many are dropped oldest first: a bound on what a flood of distinct keys can hold. */
const MAX_ENTRIES = 10_000;

export class Recent<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  /** The kept value of `key`, else what `load` answers, kept for `seconds` (0: not kept). */
  async get(key: string, seconds: number, load: () => Promise<T>): Promise<T> {
    const now = nowMillis();
    const kept = this.entries.get(key);
    if (kept && kept.until > now) return kept.value;
    const value = await load();
    // Only found items are kept: what is missing now may be written in a moment.
    if (seconds > 0 && value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, { value, until: now + seconds * 1000 });
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    }
    return value;
  }

  /** The value kept for `key`, however old (a caller for whom any copy is safe to act on), or undefined. */
  peek(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
