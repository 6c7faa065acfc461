/**
 * The scheduled worker, the only function that sends mail.
 * - DynamoDB stream (AWS): each new outbox mail, and each new event (docs/events.md), is delivered as soon as it is
 *   written.
 * - Schedule (every minute on AWS, every few seconds under `npm start`): the domain's scheduled work
 *   (shared/domain/scheduled-work.ts): due plan reservations, mails and events due again, the backlog.
 * Both paths go through conditional writes, so running them side by side applies and sends once.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { ScheduledWorkResult } from '../../shared/domain/scheduled-work.js';
import { log } from '../../shared/log.js';
import { observed } from '../../shared/observability.js';
import { mailsFromStream } from '../../shared/store/outbox-repository.js';
import { eventsFromStream } from '../../shared/store/event-repository.js';
import { courier, eventDeliverer, scheduledWork } from '../../shared/wiring.js';

export const runScheduledWork = (): Promise<ScheduledWorkResult> => scheduledWork().run();

/** New outbox items from the table's stream; a record whose delivery hit an error is handed back for retry. */
export async function deliverFromStream(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const failures: DynamoDBBatchResponse['batchItemFailures'] = [];
  const mail = courier();
  for (const streamed of mailsFromStream(event.Records)) {
    try {
      await mail.deliver(streamed.saasId, streamed.mailId);
    } catch (error) {
      log.error('mail delivery from the stream failed', error, { saasId: streamed.saasId, mailId: streamed.mailId });
      failures.push({ itemIdentifier: streamed.sequenceNumber });
    }
  }
  const events = eventDeliverer();
  for (const streamed of eventsFromStream(event.Records)) {
    try {
      await events.deliverNew(streamed.saasId, streamed.id);
    } catch (error) {
      log.error('event delivery from the stream failed', error, { saasId: streamed.saasId, id: streamed.id });
      failures.push({ itemIdentifier: streamed.sequenceNumber });
    }
  }
  return { batchItemFailures: failures };
}

export const handler = observed(async (event: unknown): Promise<unknown> => {
  if (event && typeof event === 'object' && 'Records' in event) return deliverFromStream(event as DynamoDBStreamEvent);
  return runScheduledWork();
});
