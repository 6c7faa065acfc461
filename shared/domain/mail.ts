/**
 * Mail as the domain sees it: a change that causes a mail writes an outbox item in the same transaction
 * (DESIGN.md decision 6), and the courier delivers it from there. The value that replaces `{####}` (a code,
 * a temporary password, a link) is sealed in the outbox and dropped once the mail is sent or given up.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../clock.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { TemplateName } from '../schemas/configuration.js';

export type MailStatus = 'pending' | 'sending' | 'sent' | 'failed';

export interface OutboxMail {
  id: string;
  saasId: string;
  template: TemplateName;
  to: string;
  /** The `{####}` value, sealed with {saasId, mailId}; gone once the mail is final. */
  sealedValue?: string;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  claimedUntil?: number;
  claim?: string;
  sentAt?: number;
  messageId?: string;
  lastError?: string;
}

export interface OutboxRepository {
  /** For tests and flows that cause nothing else: the mail on its own. */
  enqueue(mail: OutboxMail): Promise<void>;
  get(saasId: string, mailId: string): Promise<OutboxMail | undefined>;
  /**
   * Takes the mail for one delivery attempt if it is pending and due, or its last claim has lapsed. The
   * attempt count goes up at once, so a crash mid-send still counts.
   */
  claim(saasId: string, mailId: string, claim: string, now: number, leaseSeconds: number): Promise<OutboxMail | undefined>;
  markSent(mail: OutboxMail, messageId: string, at: number): Promise<void>;
  markRetry(mail: OutboxMail, nextAttemptAt: number, error: string): Promise<void>;
  markFailed(mail: OutboxMail, error: string, at: number): Promise<void>;
  /** Ids of mails that are pending and due, or whose claim has lapsed. */
  due(saasId: string, now: number): Promise<string[]>;
  /** How many mails are not final yet (pending, deferred or being sent), due or not. */
  countNotFinal(saasId: string): Promise<number>;
}

export async function newOutboxMail(
  box: SecretBox,
  saasId: string,
  template: TemplateName,
  to: string,
  value: string,
): Promise<OutboxMail> {
  const id = randomUUID();
  const now = nowSeconds();
  return {
    id,
    saasId,
    template,
    to,
    sealedValue: await box.seal(value, { saasId, mailId: id }),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    createdAt: now,
  };
}
