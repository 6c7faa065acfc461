/**
 * Where event deliveries given up after every retry go (shared/domain/integration/event-delivery.ts, DeadLetterPort):
 * on AWS, a message in the stack's one dead-letter queue, whose alarm already watches it (lib/monitoring.ts), sent
 * with SQS's JSON protocol through the same signed client as DynamoDB and KMS; under `npm start` and in the tests, a
 * list this process keeps, for the tests to read. Either way the event keeps the delivery's state (`failed`, its
 * attempts and last error), which the console's events page lists while the event is kept.
 */
import { AwsJsonService } from '../aws/json-service.js';
import type { DeadLetterPort, GivenUpDelivery } from '../../domain/integration/event-delivery.js';

/** What the queue's message says: the delivery, and what kind of dead letter it is among the stack's others. */
export const deadLetterMessage = (delivery: GivenUpDelivery): string =>
  JSON.stringify({
    kind: 'event-delivery-given-up',
    saas_id: delivery.saasId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    target: delivery.target,
    attempts: delivery.attempts,
    last_error: delivery.lastError,
    at: delivery.at,
  });

export class SqsDeadLetters implements DeadLetterPort {
  private readonly sqs: AwsJsonService;

  constructor(
    private readonly queueUrl: string,
    region: string,
  ) {
    this.sqs = new AwsJsonService({ service: 'sqs', targetPrefix: 'AmazonSQS', jsonVersion: '1.0', region });
  }

  async put(delivery: GivenUpDelivery): Promise<void> {
    await this.sqs.call('SendMessage', { QueueUrl: this.queueUrl, MessageBody: deadLetterMessage(delivery) });
  }
}

/** The given-up deliveries of this process, newest last; the oldest go past MAX_KEPT. */
export class LocalDeadLetters implements DeadLetterPort {
  static readonly MAX_KEPT = 500;
  readonly given: GivenUpDelivery[] = [];

  async put(delivery: GivenUpDelivery): Promise<void> {
    this.given.push(delivery);
    if (this.given.length > LocalDeadLetters.MAX_KEPT) this.given.shift();
  }

  of(saasId: string): GivenUpDelivery[] {
    return this.given.filter((d) => d.saasId === saasId);
  }
}
