/**
 * The Integration API's events (shared/domain/integration, docs/events.md) and the Analysis API's reads of the API
 * log. What belongs here: where events go (the EventBridge bus, signed webhooks) and what sends them; the writer's
 * side, which numbers and keeps them, is the API log's (api-log.ts).
 */
import { nowMillis } from '../clock.js';
import { config } from '../config.js';
import { AwsEventBus, LocalEventBus } from '../adapters/events/event-bus.js';
import { StandardWebhookSender } from '../adapters/events/webhook-sender.js';
import { LocalDeadLetters, SqsDeadLetters } from '../adapters/events/dead-letters.js';
import { newApiLogId } from '../domain/apilog/api-log.js';
import { EventDeliverer, IntegrationService } from '../domain/integration/event-delivery.js';
import { WebhookService, type WebhookSecrets } from '../domain/integration/webhooks.js';
import { postChecked } from '../http/public-fetch.js';
import { tellEvent } from './api-log.js';
import { publicFetcher, secretBox } from './clients.js';
import { apiLogRepository, eventRepository } from './repositories.js';

const nowSeconds = () => Math.floor(nowMillis() / 1000);
let localEventBus: LocalEventBus | undefined;
/** Locally (DynamoDB Local), the stand-in bus of this process: the tests read it, the console shows the kept events. */
export const localBus = (): LocalEventBus => (localEventBus ??= new LocalEventBus());
const eventBus = () => (config().dynamoEndpoint ? localBus() : new AwsEventBus());
let localDeadLetterList: LocalDeadLetters | undefined;
/** Locally, the given-up deliveries of this process (the tests read them). */
export const localDeadLetters = (): LocalDeadLetters => (localDeadLetterList ??= new LocalDeadLetters());
/** On AWS, the stack's alarmed dead-letter queue (DEAD_LETTER_QUEUE_URL); locally, the list above. */
const deadLetters = () => {
  const { deadLetterQueueUrl, region } = config();
  return deadLetterQueueUrl ? new SqsDeadLetters(deadLetterQueueUrl, region) : localDeadLetters();
};

const WEBHOOK_TIMEOUT_MS = 10_000;
/** Webhook URLs: public addresses only on AWS; locally, plain http to this machine too (publicFetcher). */
const webhookFetcher = () => publicFetcher(WEBHOOK_TIMEOUT_MS, 0);
/** Webhook secrets sealed under their SaaS and endpoint, like every stored secret (decision 4). */
export const webhookSecrets = (): WebhookSecrets => ({
  seal: (saasId, id, secret) => secretBox().seal(secret, { saasId, purpose: 'webhook', webhookId: id }),
  open: (saasId, id, sealed) => secretBox().open(sealed, { saasId, purpose: 'webhook', webhookId: id }),
});

/** Sends what is due of a SaaS's events (the scheduled worker, and the stream's new events). */
export const eventDeliverer = () => {
  const events = eventRepository();
  const fetcher = webhookFetcher();
  return new EventDeliverer({
    events,
    bus: eventBus(),
    webhooks: events,
    secrets: webhookSecrets(),
    sender: new StandardWebhookSender((url, body, headers) => postChecked(fetcher, url, body, headers, WEBHOOK_TIMEOUT_MS)),
    deadLetters: deadLetters(),
    now: nowSeconds,
  });
};

/** The Integration API (/v1/integration). */
export const integrationService = () => new IntegrationService({ events: eventRepository(), tell: tellEvent, newId: newApiLogId, now: nowMillis });

/** Refuses (a 400) a webhook URL the service may not post to: as creating one does, and an import's webhook rows. */
export const checkWebhookUrl = async (url: string, field: string) => void (await webhookFetcher().check(url, field));

/** Signed webhooks (/v1/integration/webhooks, our extension). */
export const webhookService = () => {
  const events = eventRepository();
  return new WebhookService({
    webhooks: events,
    events,
    secrets: webhookSecrets(),
    checkUrl: checkWebhookUrl,
    now: nowSeconds,
  });
};

/** The API log's records, for the Analysis API's counts per day (shared/domain/analysis). */
export const apiLogReads = () => apiLogRepository();
