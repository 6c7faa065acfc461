import { ConditionalCheckFailedException, GetCommand, PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { RULE, type WritePart } from '../domain/atomic.js';
import { MAIL_RATE_RULE, type CountedMail, type OutboxMail, type OutboxRepository } from '../domain/mail/mail.js';
import type { MailBacklogRepository, WaitingMail } from '../domain/mail/mail-backlog.js';
import { part, updateRequest } from './transact.js';
import { Update } from './update.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { countIndex, indexQuery, queryFirst, queryIndexAll } from './query.js';

/** Final mails (sent or failed) stay this long for support questions, then TTL removes them. */
const KEEP_FINAL_SECONDS = 30 * 86400;

/**
 * What a mail adds to the transaction of the change that causes it: its outbox item, and a raise of each
 * rate counter the domain counted it against (shared/domain/mail/mail.ts), conditioned on the counter being
 * below its limit.
 */
export function mailWrites(table: string, { mail, counters: counted }: CountedMail): WritePart[] {
  const counters = counted.map(({ counter, limit, windowEnd }) =>
    part(`${MAIL_RATE_RULE}:${windowEnd}`, {
      Update: updateRequest(
        table,
        keys.mailCounter(mail.saasId, counter),
        new Update().add('count', 1).set('entity', ENTITY.mailCounter).set('v', 1).set(TTL_ATTRIBUTE, windowEnd),
        { expression: 'attribute_not_exists(#count) OR #count < :limit', names: { '#count': 'count' }, values: { ':limit': limit } },
      ),
    }),
  );
  return [part(RULE.newItem, outboxItem(table, mail)), ...counters];
}

/**
 * mailWrites' parts, one for one, written to decoy items of `decoyId` (a step for a name nobody has, or an
 * address that must not be told apart): the mail, sealed alike but never delivered (not an outbox item), and its
 * rate counters with the limits and windows of a real mail's, so past them the decoy is refused as a real
 * request is, at the same count.
 */
export function decoyMailWrites(table: string, saasId: string, decoyId: string, { mail, counters: counted }: CountedMail, ttl: number): WritePart[] {
  const counters = counted.map(({ limit, windowEnd }, i) =>
    part(`${MAIL_RATE_RULE}:${windowEnd}`, {
      Update: updateRequest(
        table,
        keys.decoy(saasId, decoyId, `COUNTER#${i}#${windowEnd}`),
        new Update().add('count', 1).set('entity', ENTITY.decoy).set('v', 1).set(TTL_ATTRIBUTE, windowEnd),
        { expression: 'attribute_not_exists(#count) OR #count < :limit', names: { '#count': 'count' }, values: { ':limit': limit } },
      ),
    }),
  );
  return [
    part(RULE.newItem, {
      Put: {
        TableName: table,
        // In the index as the outbox item is (the mails due), under the decoys' own index partition.
        Item: {
          ...keys.decoy(saasId, decoyId, 'MAIL'),
          entity: ENTITY.decoy,
          v: 1,
          ...keys.decoyIndexEntry(saasId, decoyId),
          ...mail,
          [TTL_ATTRIBUTE]: ttl,
        },
        // The outbox item's condition is on a fresh key; the decoy's key is reused, and its condition holds too.
        ConditionExpression: 'attribute_not_exists(#claim)',
        ExpressionAttributeNames: { '#claim': 'claim' },
      },
    }),
    ...counters,
  ];
}

/** An outbox mail a stream record announces, and the record's sequence number (to hand it back on failure). */
export interface StreamedMail {
  saasId: string;
  mailId: string;
  sequenceNumber: string;
}

/** The new outbox mails among a batch of the table's stream records (INSERTs of outbox items; the rest skipped). */
export function mailsFromStream(records: readonly DynamoDBRecord[]): StreamedMail[] {
  return records.flatMap((record) => {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) return [];
    const item = unmarshall(image as Record<string, AttributeValue>);
    if (item.entity !== ENTITY.outbox) return [];
    return [{ saasId: item.saasId as string, mailId: item.id as string, sequenceNumber: record.dynamodb?.SequenceNumber ?? '' }];
  });
}

/** The item of a new mail; other repositories put it in the transaction of the change that causes it. */
export function outboxItem(table: string, mail: OutboxMail) {
  return {
    Put: {
      TableName: table,
      Item: {
        ...keys.outboxMail(mail.saasId, mail.id),
        ...keys.outboxDue(mail.saasId, mail.id, mail.nextAttemptAt),
        entity: ENTITY.outbox,
        v: 1,
        ...mail,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export class DynamoOutboxRepository implements OutboxRepository, MailBacklogRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async enqueue(mail: OutboxMail): Promise<void> {
    await this.db.send(new PutCommand(outboxItem(this.table, mail).Put));
  }

  async get(saasId: string, mailId: string): Promise<OutboxMail | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.outboxMail(saasId, mailId), ConsistentRead: true }));
    return out.Item ? withoutKeys<OutboxMail>(out.Item) : undefined;
  }

  async claim(saasId: string, mailId: string, claim: string, now: number, leaseSeconds: number): Promise<OutboxMail | undefined> {
    const until = now + leaseSeconds;
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.outboxMail(saasId, mailId),
          UpdateExpression: 'SET #status = :sending, claimedUntil = :until, #claim = :claim, attempts = attempts + :one, gsi1sk = :due',
          ConditionExpression: '(#status = :pending AND nextAttemptAt <= :now) OR (#status = :sending AND claimedUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status', '#claim': 'claim' },
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':pending': 'pending',
            ':now': now,
            ':until': until,
            ':claim': claim,
            ':one': 1,
            ':due': keys.outboxDue(saasId, mailId, until).gsi1sk,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return withoutKeys<OutboxMail>(out.Attributes as Record<string, unknown>);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /** Only the holder of the claim records the result; a courier whose claim lapsed changes nothing. */
  private async settle(mail: OutboxMail, update: string, values: Record<string, unknown>): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.outboxMail(mail.saasId, mail.id),
          UpdateExpression: update,
          ConditionExpression: '#status = :sending AND #claim = :claim',
          ExpressionAttributeNames: { '#status': 'status', '#claim': 'claim', ...(update.includes('#ttl') ? { '#ttl': TTL_ATTRIBUTE } : {}) },
          ExpressionAttributeValues: { ':sending': 'sending', ':claim': mail.claim, ...values },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  markSent(mail: OutboxMail, messageId: string, at: number): Promise<void> {
    return this.settle(
      mail,
      'SET #status = :sent, sentAt = :at, messageId = :messageId, #ttl = :ttl REMOVE sealedValue, claimedUntil, #claim, gsi1pk, gsi1sk',
      { ':sent': 'sent', ':at': at, ':messageId': messageId, ':ttl': at + KEEP_FINAL_SECONDS },
    );
  }

  markRetry(mail: OutboxMail, nextAttemptAt: number, error: string): Promise<void> {
    return this.settle(mail, 'SET #status = :pending, nextAttemptAt = :next, lastError = :error, gsi1sk = :due REMOVE claimedUntil, #claim', {
      ':pending': 'pending',
      ':next': nextAttemptAt,
      ':error': error.slice(0, 500),
      ':due': keys.outboxDue(mail.saasId, mail.id, nextAttemptAt).gsi1sk,
    });
  }

  markFailed(mail: OutboxMail, error: string, at: number): Promise<void> {
    return this.settle(
      mail,
      'SET #status = :failed, lastError = :error, failedAt = :at, #ttl = :ttl REMOVE sealedValue, claimedUntil, #claim, gsi1pk, gsi1sk',
      { ':failed': 'failed', ':error': error.slice(0, 500), ':at': at, ':ttl': at + KEEP_FINAL_SECONDS },
    );
  }

  async due(saasId: string, now: number): Promise<string[]> {
    const items = await queryIndexAll(this.db, this.table, keys.outboxDueBy(saasId, now));
    return items.map((item) => item.id as string);
  }

  countNotFinal(saasId: string): Promise<number> {
    return countIndex(this.db, this.table, keys.outboxNotFinal(saasId));
  }

  /**
   * The index holds only mails that are not final (markSent and markFailed drop its keys), ordered by when each
   * comes due: read the first of those, one more than asked to tell whether more wait.
   */
  async waiting(saasId: string, max: number): Promise<{ mails: WaitingMail[]; more: boolean }> {
    const items = await queryFirst(
      this.db,
      {
        ...indexQuery(this.table, keys.outboxNotFinal(saasId)),
        ProjectionExpression: '#status, nextAttemptAt, claimedUntil, createdAt',
        ExpressionAttributeNames: { '#status': 'status' },
      },
      max + 1,
    );
    const mails = items.slice(0, max).map((item) => ({
      status: item.status as WaitingMail['status'],
      nextAttemptAt: Number(item.nextAttemptAt),
      ...(item.claimedUntil !== undefined ? { claimedUntil: Number(item.claimedUntil) } : {}),
      createdAt: Number(item.createdAt),
    }));
    return { mails, more: items.length > max };
  }
}
