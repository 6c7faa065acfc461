/**
 * The scheduled worker, the only function that sends mail.
 * - DynamoDB stream (AWS): each new outbox mail is delivered as soon as it is written.
 * - Schedule (every minute on AWS, every few seconds under `npm start`): plan reservations that have come
 *   due, and mails that are due again (deferred retries, lapsed claims, anything the stream missed).
 * Both paths go through conditional writes, so running them side by side applies and sends once.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { log } from '../../shared/log.js';
import { metrics } from '../../shared/metrics.js';
import { observed } from '../../shared/observability.js';
import { ENTITY } from '../../shared/store/keys.js';
import { accountRepository, courier, tenantService } from '../../shared/wiring.js';

export interface ScheduledWorkResult {
  saasCount: number;
  reservationsApplied: number;
  mailsSent: number;
  /** Mails still not final after this run, over every SaaS. */
  mailBacklog: number;
}

export async function runScheduledWork(): Promise<ScheduledWorkResult> {
  const accounts = await accountRepository().listSaas();
  const tenants = tenantService();
  const mail = courier();
  let reservationsApplied = 0;
  let mailsSent = 0;
  let mailBacklog = 0;
  for (const saas of accounts) {
    reservationsApplied += await tenants.applyDueReservations(saas.id);
    mailsSent += (await mail.deliverDue(saas.id)).sent;
    mailBacklog += await mail.backlog(saas.id);
  }
  if (reservationsApplied > 0) log.info('plan reservations applied', { reservationsApplied, saasCount: accounts.length });
  metrics.count('PlanReservationsApplied', reservationsApplied);
  // A level, sent every run (zero too), so the dashboard shows a line rather than gaps.
  metrics.count('MailBacklog', mailBacklog);
  return { saasCount: accounts.length, reservationsApplied, mailsSent, mailBacklog };
}

/** New outbox items from the table's stream; a record whose delivery hit an error is handed back for retry. */
export async function deliverFromStream(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const failures: DynamoDBBatchResponse['batchItemFailures'] = [];
  const mail = courier();
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    const item = unmarshall(image as Record<string, AttributeValue>);
    if (item.entity !== ENTITY.outbox) continue;
    try {
      await mail.deliver(item.saasId as string, item.id as string);
    } catch (error) {
      log.error('mail delivery from the stream failed', error, { saasId: item.saasId, mailId: item.id });
      failures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
    }
  }
  return { batchItemFailures: failures };
}

export const handler = observed(async (event: unknown): Promise<unknown> => {
  if (event && typeof event === 'object' && 'Records' in event) return deliverFromStream(event as DynamoDBStreamEvent);
  return runScheduledWork();
});
