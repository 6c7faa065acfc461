/**
 * Users' page histories fed by GetUserInfo, as SaaSus documents: a SaaS backend calls it with the page its user is on
 * (`X-SaaSus-Referer`, else `Referer`; the SDKs send both when given), and that page, its origin and path only,
 * joins the user's histories of the day, kept a month, beside what the SaaS saves with PUT /user-behavior-day. The
 * call makes no store request for it: it tells a line (shared/domain/apilog/shipped-lines.ts) and the API log
 * writer appends a batch's views per user and day. A day holds at most MAX_VIEWS_A_DAY views; later ones are
 * dropped, so one busy user cannot grow an item past what the store takes. A batch delivered again appends again.
 */
import { behaviorExpiresAt, dayStart, type BehaviorEntry } from './analysis.js';

/** About 80 B each: a day's item stays near 80 KB at most, well inside DynamoDB's 400 KB. */
export const MAX_VIEWS_A_DAY = 1_000;

export interface PageViewStore {
  /** Appends to one user's histories of one day unless it holds `max` already (then false); kept until `expiresAt`. */
  appendBehavior(saasId: string, userId: string, day: number, entries: readonly BehaviorEntry[], expiresAt: number, max: number): Promise<boolean>;
}

export class PageViews {
  constructor(private readonly store: PageViewStore) {}

  /** One user's views of a batch, per UTC day, in time order. */
  async viewed(saasId: string, userId: string, views: readonly BehaviorEntry[]): Promise<void> {
    const days = new Map<number, BehaviorEntry[]>();
    for (const view of [...views].sort((a, b) => a.timestamp - b.timestamp)) {
      const day = dayStart(view.timestamp);
      days.set(day, [...(days.get(day) ?? []), view]);
    }
    for (const [day, entries] of days) {
      await this.store.appendBehavior(saasId, userId.toLowerCase(), day, entries, behaviorExpiresAt(day), MAX_VIEWS_A_DAY);
    }
  }
}
