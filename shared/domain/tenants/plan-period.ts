/**
 * The current billing period of a tenant's plan: monthly periods anchored at the moment the current plan
 * was applied (its latest plan_histories entry). A plan applied on Jan 31 10:00 UTC has periods starting on
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

/** The period containing `now`; the end is exclusive (the next period's start). */
export function currentPlanPeriod(appliedAt: number, now: number): PlanPeriod {
  if (now < appliedAt) return { start: appliedAt, end: addMonths(appliedAt, 1) };
  const elapsed = new Date(now * 1000);
  const anchor = new Date(appliedAt * 1000);
  let months = (elapsed.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + elapsed.getUTCMonth() - anchor.getUTCMonth();
  // The month count is an estimate: step back or forward until start <= now < end.
  while (months > 0 && addMonths(appliedAt, months) > now) months--;
  while (addMonths(appliedAt, months + 1) <= now) months++;
  return { start: addMonths(appliedAt, months), end: addMonths(appliedAt, months + 1) };
}
