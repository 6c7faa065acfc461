/**
 * The courier: takes one outbox mail at a time (a conditional claim, so two couriers never send the same
 * mail), renders the SaaS's template, sends it, and records the result. SES failures that mean "not taken"
 * (throttling, 5xx, no answer) are retried a few times at once, then later with growing delays; a mail
 * that keeps failing, or that SES rejects, is marked failed and logged, never dropped silently.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { OutboxMail, OutboxRepository } from '../../domain/mail/mail.js';
import { MAIL_TAGS, suppressionMessage, type SuppressionRepository } from '../../domain/mail/mail-suppression.js';
import { log } from '../../log.js';
import { metrics } from '../../metrics.js';
import type { TemplateSet } from '../../schemas/configuration.js';
import { renderMail } from './render.js';
import { RetryableSendError, type MailSenderPort } from './ses-sender.js';

export interface CourierSettings {
  /** Delays before the in-process retries of one attempt, in ms. */
  immediateRetryDelaysMs: number[];
  /** Attempts (each with its immediate retries) before a mail is marked failed. */
  maxAttempts: number;
  /** How long a claim holds before another courier may take the mail over. */
  leaseSeconds: number;
  /**
   * Delays before the retries of recording a sent mail, in ms: together they outlast a store outage of
   * about half a minute, within the lease and the scheduled function's minute.
   */
  recordRetryDelaysMs: number[];
}

export const DEFAULT_COURIER_SETTINGS: CourierSettings = {
  immediateRetryDelaysMs: [200, 1000],
  maxAttempts: 8,
  leaseSeconds: 120,
  recordRetryDelaysMs: [200, 1000, 3000, 8000, 15000],
};

/** 30 s, 1 min, 2 min ... up to an hour between attempts. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(30 * 2 ** Math.max(0, attempts - 1), 3600);
}

export interface SaasMailSettings {
  templates(saasId: string): Promise<TemplateSet>;
  senderAddresses(saasId: string): Promise<{ from: string; replyTo?: string }>;
}

export type DeliveryOutcome = 'sent' | 'retry' | 'failed' | 'skipped';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Courier {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly saasSettings: SaasMailSettings,
    private readonly box: SecretBox,
    private readonly sender: MailSenderPort,
    private readonly suppressions: SuppressionRepository,
    private readonly settings: CourierSettings = DEFAULT_COURIER_SETTINGS,
  ) {}

  async deliver(saasId: string, mailId: string): Promise<DeliveryOutcome> {
    const mail = await this.outbox.claim(saasId, mailId, randomUUID(), nowSeconds(), this.settings.leaseSeconds);
    if (!mail) return 'skipped';
    const context = { saasId, mailId, template: mail.template, attempt: mail.attempts };
    const suppressed = await this.suppressions.find(saasId, mail.to);
    if (suppressed) {
      await this.outbox.markFailed(mail, suppressionMessage(suppressed), nowSeconds());
      metrics.count('MailSuppressed');
      metrics.count('MailFailed');
      log.warn('mail not sent: the address is suppressed', { ...context, reason: suppressed.reason });
      return 'failed';
    }
    let failure: unknown;
    let permanent = false;
    let sent: { messageId: string } | undefined;
    try {
      const message = await this.compose(mail);
      for (const delay of [0, ...this.settings.immediateRetryDelaysMs]) {
        if (delay) await sleep(delay);
        try {
          sent = await this.sender.send(message);
          break;
        } catch (error) {
          failure = error;
          if (!(error instanceof RetryableSendError)) {
            permanent = true;
            break;
          }
        }
      }
    } catch (error) {
      failure = error;
      permanent = true;
    }
    if (sent) {
      await this.recordSent(mail, sent.messageId);
      metrics.count('MailSent');
      log.info('mail sent', context);
      return 'sent';
    }
    const reason = (failure as Error).message;
    if (permanent || mail.attempts >= this.settings.maxAttempts) {
      await this.outbox.markFailed(mail, reason, nowSeconds());
      metrics.count('MailFailed');
      log.error(permanent ? 'mail rejected; not retried' : 'mail failed after every attempt', failure, context);
      return 'failed';
    }
    await this.outbox.markRetry(mail, nowSeconds() + retryDelaySeconds(mail.attempts), reason);
    metrics.count('MailRetried');
    log.warn('mail deferred', { ...context, reason });
    return 'retry';
  }

  /**
   * The mail is out: a record that fails leaves the claim to lapse and the mail to go out again, so a store
   * outage is retried through (a record already made is a no-op, as the claim is gone). Only a store away
   * for longer than the retries (or a crash right after the send) leaves the window for a duplicate.
   */
  private async recordSent(mail: OutboxMail, messageId: string): Promise<void> {
    for (const delay of this.settings.recordRetryDelaysMs) {
      try {
        return await this.outbox.markSent(mail, messageId, nowSeconds());
      } catch (error) {
        log.warn('recording a sent mail failed; trying again', { saasId: mail.saasId, mailId: mail.id, error: (error as Error).message });
        await sleep(delay);
      }
    }
    await this.outbox.markSent(mail, messageId, nowSeconds());
  }

  /** Everything due for one SaaS: new mails the stream missed, deferred retries, lapsed claims. */
  async deliverDue(saasId: string): Promise<Record<DeliveryOutcome, number>> {
    const counts: Record<DeliveryOutcome, number> = { sent: 0, retry: 0, failed: 0, skipped: 0 };
    for (const id of await this.outbox.due(saasId, nowSeconds())) counts[await this.deliver(saasId, id)]++;
    return counts;
  }

  /** Mails of one SaaS that are not final yet: the backlog the scheduled worker reports. */
  backlog(saasId: string): Promise<number> {
    return this.outbox.countNotFinal(saasId);
  }

  private async compose(mail: OutboxMail) {
    if (!mail.sealedValue) throw new Error('the mail has no value to send');
    const [templates, addresses, value] = await Promise.all([
      this.saasSettings.templates(mail.saasId),
      this.saasSettings.senderAddresses(mail.saasId),
      this.box.open(mail.sealedValue, { saasId: mail.saasId, mailId: mail.id }),
    ]);
    const tags = { [MAIL_TAGS.saasId]: mail.saasId, [MAIL_TAGS.mailId]: mail.id };
    return { ...renderMail(templates[mail.template], value), ...addresses, to: mail.to, tags };
  }
}
