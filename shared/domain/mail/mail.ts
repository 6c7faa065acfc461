/**
 * Mail as the domain sees it: a change that causes a mail writes an outbox item in the same transaction
 * (docs/decisions.md, decision 6), and the courier delivers it from there. The value that replaces `{####}` (a code,
 * a temporary password, a link) is sealed in the outbox and dropped once the mail is sent or given up.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { tooManyRequests } from '../../errors.js';
import type { TemplateName } from '../../schemas/configuration.js';

export type MailStatus = 'pending' | 'sending' | 'sent' | 'failed';

export interface OutboxMail {
  id: string;
  saasId: string;
  template: TemplateName;
  to: string;
  /** The user the mail is sent for (the one asking, or the one it concerns): counted by the per-user limit. */
  userId?: string;
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
  userId?: string,
): Promise<OutboxMail> {
  const id = randomUUID();
  const now = nowSeconds();
  return {
    id,
    saasId,
    template,
    to,
    ...(userId !== undefined ? { userId } : {}),
    sealedValue: await box.seal(value, { saasId, mailId: id }),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    createdAt: now,
  };
}

/**
 * Rate limits on the mail the API causes, so that no caller can turn the service into a mail cannon: per
 * recipient address (20 resends must not be 21 mails) and per user (20 e-mail change requests to a third
 * party must not be 20 mails). Each is a count per fixed window of our clock, kept in the SaaS's partition
 * and raised in the same transaction as the change that causes the mail, on condition that it is below the
 * limit: a refused mail refuses the change (nothing is written), and a change refused for another reason
 * spends no quota.
 */
export interface MailLimits {
  perAddress: number;
  addressWindowSeconds: number;
  perUser: number;
  userWindowSeconds: number;
}

/** One counter a mail raises: which, its limit, and the end of its window (when it may be raised again). */
export interface MailCounter {
  counter: string;
  limit: number;
  windowEnd: number;
}

export function mailCounters(mail: Pick<OutboxMail, 'to' | 'userId'>, limits: MailLimits, now: number): MailCounter[] {
  const counter = (name: string, limit: number, seconds: number): MailCounter => {
    const start = Math.floor(now / seconds) * seconds;
    return { counter: `${name}#${start}`, limit, windowEnd: start + seconds };
  };
  return [
    counter(`TO#${mail.to.trim().toLowerCase()}`, limits.perAddress, limits.addressWindowSeconds),
    ...(mail.userId !== undefined ? [counter(`USER#${mail.userId}`, limits.perUser, limits.userWindowSeconds)] : []),
  ];
}

/**
 * A mail a change causes, with the rate counters its transaction raises (mailCounters): the store writes the
 * mail and raises each counter on condition that it is below its limit, as given, and decides nothing.
 */
export interface CountedMail {
  mail: OutboxMail;
  counters: MailCounter[];
}

/** newOutboxMail, counted against the deployment's limits (the wiring passes them) at the mail's creation. */
export async function newCountedMail(
  deps: { box: SecretBox; mailLimits: MailLimits },
  saasId: string,
  template: TemplateName,
  to: string,
  value: string,
  userId?: string,
): Promise<CountedMail> {
  const mail = await newOutboxMail(deps.box, saasId, template, to, value, userId);
  return { mail, counters: mailCounters(mail, deps.mailLimits, mail.createdAt) };
}

/** The rule a counter's condition holds, carrying when to retry: `mail_rate:<unix seconds>`. */
export const MAIL_RATE_RULE = 'mail_rate';

export const tooManyMails = (retryAt: number) =>
  tooManyRequests(
    'too_many_mails',
    'too many mails to this address or for this user in a short time; try again later',
    Math.max(1, retryAt - nowSeconds()),
  );
