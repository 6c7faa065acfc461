/**
 * The courier: takes one outbox mail at a time (a conditional claim, so two couriers never send the same
 * mail), renders the SaaS's template, sends it, and records the result. SES failures that mean "not taken"
 * (throttling, 5xx, no answer) are retried a few times at once, then later with growing delays; a mail
 * that keeps failing, or that SES rejects, is marked failed and logged, never dropped silently.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../clock.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { OutboxMail, OutboxRepository } from '../domain/mail.js';
import { log } from '../log.js';
import type { TemplateSet } from '../schemas/configuration.js';
import { renderMail } from './render.js';
import { RetryableSendError, type MailSender } from './ses-sender.js';

export interface CourierSettings {
  /** Delays before the in-process retries of one attempt, in ms. */
  immediateRetryDelaysMs: number[];
  /** Attempts (each with its immediate retries) before a mail is marked failed. */
  maxAttempts: number;
  /** How long a claim holds before another courier may take the mail over. */
  leaseSeconds: number;
}

export const DEFAULT_COURIER_SETTINGS: CourierSettings = {
  immediateRetryDelaysMs: [200, 1000],
  maxAttempts: 8,
  leaseSeconds: 120,
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
    private readonly sender: MailSender,
    private readonly settings: CourierSettings = DEFAULT_COURIER_SETTINGS,
  ) {}

  async deliver(saasId: string, mailId: string): Promise<DeliveryOutcome> {
    const mail = await this.outbox.claim(saasId, mailId, randomUUID(), nowSeconds(), this.settings.leaseSeconds);
    if (!mail) return 'skipped';
    const context = { saasId, mailId, template: mail.template, attempt: mail.attempts };
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
      // If this write fails the claim lapses and the mail is tried again: the one window for a duplicate.
      await this.outbox.markSent(mail, sent.messageId, nowSeconds());
      log.info('mail sent', context);
      return 'sent';
    }
    const reason = (failure as Error).message;
    if (permanent || mail.attempts >= this.settings.maxAttempts) {
      await this.outbox.markFailed(mail, reason, nowSeconds());
      log.error(permanent ? 'mail rejected; not retried' : 'mail failed after every attempt', failure, context);
      return 'failed';
    }
    await this.outbox.markRetry(mail, nowSeconds() + retryDelaySeconds(mail.attempts), reason);
    log.warn('mail deferred', { ...context, reason });
    return 'retry';
  }

  /** Everything due for one SaaS: new mails the stream missed, deferred retries, lapsed claims. */
  async deliverDue(saasId: string): Promise<Record<DeliveryOutcome, number>> {
    const counts: Record<DeliveryOutcome, number> = { sent: 0, retry: 0, failed: 0, skipped: 0 };
    for (const id of await this.outbox.due(saasId, nowSeconds())) counts[await this.deliver(saasId, id)]++;
    return counts;
  }

  private async compose(mail: OutboxMail) {
    if (!mail.sealedValue) throw new Error('the mail has no value to send');
    const [templates, addresses, value] = await Promise.all([
      this.saasSettings.templates(mail.saasId),
      this.saasSettings.senderAddresses(mail.saasId),
      this.box.open(mail.sealedValue, { saasId: mail.saasId, mailId: mail.id }),
    ]);
    return { ...renderMail(templates[mail.template], value), ...addresses, to: mail.to };
  }
}
