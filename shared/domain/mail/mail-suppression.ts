/**
 * Addresses we must not mail again. SES reports a permanent bounce or a complaint through the configuration
 * set's event destination; each sent mail carries its SaaS id and mail id as tags, so the report names the
 * SaaS it belongs to, and the address is remembered there. The courier refuses to mail it again, which
 * keeps the account's bounce and complaint rates under the limits at which SES pauses sending.
 */
import { log } from '../../log.js';
import { metrics } from '../../metrics.js';

export type SuppressionReason = 'bounce' | 'complaint';

export interface MailSuppression {
  saasId: string;
  /** Lower case: providers treat addresses without case, and so do we. */
  address: string;
  reason: SuppressionReason;
  /** What SES said: bounce type and subtype, or the complaint's feedback type. */
  detail: string;
  /** The mail that bounced or was complained about. */
  mailId: string;
  at: number;
}

export interface SuppressionRepository {
  /** Keeps the first report for an address; later ones change nothing. */
  remember(suppression: MailSuppression): Promise<void>;
  find(saasId: string, address: string): Promise<MailSuppression | undefined>;
}

/** The tags the courier puts on every mail (SES EmailTags), read back from SES's events. */
export const MAIL_TAGS = { saasId: 'saasId', mailId: 'mailId' } as const;

/** The part of an SES event-publishing record we read (EventBridge `detail`, or the SNS message body). */
export interface SesMailEvent {
  eventType?: string;
  mail?: { tags?: Record<string, string[] | undefined> };
  bounce?: { bounceType?: string; bounceSubType?: string; bouncedRecipients?: { emailAddress?: string }[] };
  complaint?: { complaintFeedbackType?: string; complainedRecipients?: { emailAddress?: string }[] };
}

function recipients(list: { emailAddress?: string }[] | undefined): string[] {
  return (list ?? []).map((r) => r.emailAddress?.trim().toLowerCase() ?? '').filter((a) => a !== '');
}

/**
 * The suppressions one SES event implies: every recipient of a permanent bounce or of a complaint.
 * Transient bounces (a full mailbox, a greylisting server) say nothing lasting about the address.
 */
export function suppressionsFrom(event: SesMailEvent, at: number): MailSuppression[] {
  const saasId = event.mail?.tags?.[MAIL_TAGS.saasId]?.[0];
  const mailId = event.mail?.tags?.[MAIL_TAGS.mailId]?.[0] ?? '';
  if (!saasId) return [];
  const make = (reason: SuppressionReason, detail: string) => (address: string) => ({ saasId, address, reason, detail, mailId, at });
  if (event.eventType === 'Bounce' && event.bounce?.bounceType === 'Permanent') {
    const detail = `${event.bounce.bounceType}/${event.bounce.bounceSubType ?? 'General'}`;
    return recipients(event.bounce.bouncedRecipients).map(make('bounce', detail));
  }
  if (event.eventType === 'Complaint') {
    return recipients(event.complaint?.complainedRecipients).map(make('complaint', event.complaint?.complaintFeedbackType ?? 'complaint'));
  }
  return [];
}

/** Remembers what one SES event reports; an event for mail we did not tag is logged and dropped. */
export async function recordMailEvent(repo: SuppressionRepository, event: SesMailEvent, at: number): Promise<MailSuppression[]> {
  const found = suppressionsFrom(event, at);
  if (found.length === 0) {
    log.info('mail event needs no suppression', { eventType: event.eventType, bounceType: event.bounce?.bounceType });
    return found;
  }
  for (const suppression of found) {
    await repo.remember(suppression);
    metrics.count(suppression.reason === 'bounce' ? 'MailBounced' : 'MailComplained');
    log.warn('address suppressed', {
      saasId: suppression.saasId,
      mailId: suppression.mailId,
      reason: suppression.reason,
      detail: suppression.detail,
    });
  }
  return found;
}

export function suppressionMessage(suppression: MailSuppression): string {
  const when = new Date(suppression.at * 1000).toISOString();
  const what = suppression.reason === 'bounce' ? `bounced (${suppression.detail})` : `complained (${suppression.detail})`;
  return `to: this address ${what} on ${when}; it is not mailed again`;
}
