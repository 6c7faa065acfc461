/**
 * The current billing period of a tenant's plan: periods of the plan's recurring interval (a month, or a year
 * when every pricing unit of the plan is yearly) anchored at the moment the current plan was applied (its
 * latest plan_histories entry). A plan applied on Jan 31 10:00 UTC has periods starting on
 * Feb 28 (or 29), Mar 31, Apr 30 ... at 10:00 UTC: the anchor's day, clamped to the month's length.
 */

function addMonths(anchorSeconds: number, months: number): number {
  const anchor = new Date(anchorSeconds * 1000);
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDay);
  return Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds()) / 1000;
}

export interface PlanPeriod {
  start: number;
  end: number;
}

export type PlanInterval = 'month' | 'year';

/** The period containing `now`; the end is exclusive (the next period's start). */
export function currentPlanPeriod(appliedAt: number, now: number, interval: PlanInterval = 'month'): PlanPeriod {
  const step = interval === 'year' ? 12 : 1;
  if (now < appliedAt) return { start: appliedAt, end: addMonths(appliedAt, step) };
  const elapsed = new Date(now * 1000);
  const anchor = new Date(appliedAt * 1000);
  const monthsElapsed = (elapsed.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + elapsed.getUTCMonth() - anchor.getUTCMonth();
  // The period count is an estimate: step back or forward until start <= now < end.
  let periods = Math.floor(monthsElapsed / step);
  while (periods > 0 && addMonths(appliedAt, periods * step) > now) periods--;
  while (addMonths(appliedAt, (periods + 1) * step) <= now) periods++;
  return { start: addMonths(appliedAt, periods * step), end: addMonths(appliedAt, (periods + 1) * step) };
}
