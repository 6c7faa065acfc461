/**
 * A SaaS's sign-ins, refused proofs and lockouts per UTC day (GET /sign-in-counts, our extension), read from
 * the counts the sign-in's sink adds up (sign-in-counts.ts). Every day asked for is answered, a day without
 * counts as zeros, so a chart of them has no gaps to guess at.
 */
import { nowSeconds } from '../../clock.js';
import { SIGN_IN_COUNT_DAYS_DEFAULT, type SignInCounts } from '../../schemas/overview.js';
import { COUNTED_KINDS, utcDay, type DayCounts, type SignInCountsRepository } from './sign-in-counts.js';

const DAY_SECONDS = 86_400;

/** The `days` UTC days ending today (today included), oldest first, as YYYY-MM-DD. */
export function utcDaysUpTo(now: number, days: number): string[] {
  return Array.from({ length: days }, (_, i) => utcDay(now - (days - 1 - i) * DAY_SECONDS));
}

const zeros = (day: string): DayCounts => ({ day, ...(Object.fromEntries(COUNTED_KINDS.map((kind) => [kind, 0])) as Omit<DayCounts, 'day'>) });

export class DailySignIns {
  constructor(private readonly counts: SignInCountsRepository) {}

  async lastDays(saasId: string, days = SIGN_IN_COUNT_DAYS_DEFAULT): Promise<SignInCounts> {
    const wanted = utcDaysUpTo(nowSeconds(), days);
    const stored = await this.counts.days(saasId, wanted[0] as string, wanted[wanted.length - 1] as string);
    const byDay = new Map(stored.map((counts) => [counts.day, counts]));
    return { days: wanted.map((day) => ({ ...zeros(day), ...byDay.get(day) })) };
  }
}
