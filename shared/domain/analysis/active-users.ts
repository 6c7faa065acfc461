/**
 * Active users counted by the service itself: a user is active on a UTC day, and in its month, when they signed in
 * then (password, MFA, federation or passkey; a token refresh is no sign-in). The sign-in tells its success as a
 * line (shared/domain/apilog/shipped-lines.ts), so it stays at its three store requests; the API log writer marks
 * the user for the day and the month, and a mark that is new adds one to that period's count. A user who signs in
 * ten times a day counts once, and a batch delivered twice counts nobody twice (its marks are there already).
 * What it can miss: a batch that failed after a mark and before its count is delivered again and finds the mark.
 */
import { utcDay } from '../users/sign-in-counts.js';

export type ActivePeriod = 'daily' | 'monthly';

const DAY = 86_400;

export interface ActiveUserMarks {
  /**
   * Marks `userId` active in the period (`date`: YYYY-MM-DD or YYYY-MM) and, when the mark is new, adds one to the
   * period's count; the mark is kept until `markExpiresAt`, the count until `countExpiresAt` (Unix seconds).
   */
  mark(saasId: string, period: ActivePeriod, date: string, userId: string, markExpiresAt: number, countExpiresAt: number): Promise<boolean>;
  /** The counts of `period` with `from <= date <= to`, in date order. */
  counts(saasId: string, period: ActivePeriod, from: string, to: string): Promise<{ date: string; active_users: number }[]>;
}

/** The day and month a sign-in at `at` (Unix seconds) falls in, and when each ends. */
export function periodsOf(at: number): { period: ActivePeriod; date: string; endsAt: number }[] {
  const day = utcDay(at);
  const start = new Date(at * 1000);
  const nextMonth = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1) / 1000;
  return [
    { period: 'daily', date: day, endsAt: Math.floor(at / DAY) * DAY + DAY },
    { period: 'monthly', date: day.slice(0, 7), endsAt: nextMonth },
  ];
}

/**
 * The marks one process knows are in the store (it made them, or its write found them there): a user's next
 * sign-in in the same period then asks the store nothing, where each took two conditional writes that could only
 * fail. Knowing is safe: a mark is never removed before its period is over (it expires a day after). Bounded: past
 * `limit` marks it forgets them all and learns again from the store.
 */
export class KnownMarks {
  private readonly known = new Set<string>();

  constructor(private readonly limit = 100_000) {}

  has(key: string): boolean {
    return this.known.has(key);
  }

  add(key: string): void {
    if (this.known.size >= this.limit) this.known.clear();
    this.known.add(key);
  }
}

export class ActiveUserMarker {
  constructor(
    private readonly marks: Pick<ActiveUserMarks, 'mark'>,
    /** How long a count is kept past its period: the API log's retention, as the sign-in counts. */
    private readonly retentionSeconds: number,
    /** Kept across batches by the writer's process (shared/wiring/api-log.ts); a marker of its own by default. */
    private readonly known = new KnownMarks(),
  ) {}

  /** The user's sign-in at `at` (Unix seconds): active that day and that month. */
  async signedIn(saasId: string, userId: string, at: number): Promise<void> {
    for (const { period, date, endsAt } of periodsOf(at)) {
      const key = `${saasId}\n${period}\n${date}\n${userId}`;
      if (this.known.has(key)) continue;
      // A mark outlives its period by a day, so a batch delivered again late still finds it.
      await this.marks.mark(saasId, period, date, userId, endsAt + DAY, endsAt + this.retentionSeconds);
      // Made now with its count, or there already: either way there until its period ends.
      this.known.add(key);
    }
  }
}
