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

export interface MailBacklogRepository {
  /** Every mail of the SaaS that is not final (pending or sending), in no particular order. */
  waiting(saasId: string): Promise<WaitingMail[]>;
}

/** The backlog at `now` (Unix seconds), as the courier would find it (claim() takes the same two conditions). */
export function mailBacklog(mails: readonly WaitingMail[], now: number): MailBacklog {
  const backlog: MailBacklog = { waiting: mails.length, due: 0, sending: 0, scheduled: 0 };
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
  constructor(private readonly outbox: MailBacklogRepository) {}

  async backlog(saasId: string): Promise<MailBacklog> {
    return mailBacklog(await this.outbox.waiting(saasId), nowSeconds());
  }
}
