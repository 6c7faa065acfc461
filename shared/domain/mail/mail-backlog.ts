/**
 * The mails of a SaaS that are not final yet (GET /mail-backlog, our extension): how many wait, whether each is
 * due now, being sent or waiting for a later attempt, and how long the oldest has waited. A `due` that stays up
 * means the courier is not keeping up (or not running); `scheduled` means mails the provider refused for now.
 */
import { nowSeconds } from '../../clock.js';
import type { MailBacklog } from '../../schemas/overview.js';
import type { OutboxMail } from './mail.js';

/** What the backlog reads of each waiting mail. */
export type WaitingMail = Pick<OutboxMail, 'status' | 'nextAttemptAt' | 'claimedUntil' | 'createdAt'>;

/**
 * How many waiting mails one answer reads at most. A backlog is unbounded (a mail provider that refuses for a
 * day piles up every mail of that day), and reading all of it could outlast the API's 29 s; 10 000 index
 * entries are a few 1 MB pages, and a backlog that size already says all an operator needs to know.
 */
export const MAIL_BACKLOG_READ_MAX = 10_000;

export interface MailBacklogRepository {
  /**
   * The first `max` mails of the SaaS that are not final (pending or sending), in the order they come due (a
   * sending mail at its claim's end), and whether more wait past them.
   */
  waiting(saasId: string, max: number): Promise<{ mails: WaitingMail[]; more: boolean }>;
}

/**
 * The backlog at `now` (Unix seconds), as the courier would find it (claim() takes the same two conditions).
 * With `more`, the mails are the first that come due of a longer backlog: `waiting` is a lower bound and
 * `complete` is false.
 */
export function mailBacklog(mails: readonly WaitingMail[], now: number, more = false): MailBacklog {
  const backlog: MailBacklog = { waiting: mails.length, due: 0, sending: 0, scheduled: 0, complete: !more };
  for (const mail of mails) {
    if (mail.status === 'sending') {
      // A claim that lapsed is taken again by the next courier: due, not sending.
      if ((mail.claimedUntil ?? 0) < now) backlog.due++;
      else backlog.sending++;
    } else if (mail.nextAttemptAt <= now) backlog.due++;
    else backlog.scheduled++;
  }
  if (mails.length > 0) {
    // A loop, not Math.min(...): a backlog of many thousands would overflow the call's arguments.
    const oldest = mails.reduce((min, mail) => Math.min(min, mail.createdAt), Number.POSITIVE_INFINITY);
    backlog.oldest_created_at = oldest;
    backlog.oldest_age_seconds = Math.max(0, now - oldest);
  }
  return backlog;
}

export class MailBacklogService {
  constructor(
    private readonly outbox: MailBacklogRepository,
    private readonly readMax = MAIL_BACKLOG_READ_MAX,
  ) {}

  async backlog(saasId: string): Promise<MailBacklog> {
    const { mails, more } = await this.outbox.waiting(saasId, this.readMax);
    return mailBacklog(mails, nowSeconds(), more);
  }
}
