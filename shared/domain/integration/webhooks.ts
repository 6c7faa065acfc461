/**
 * Signed webhooks, our extension (docs/events.md): a SaaS names endpoints (a URL and the event types it wants), each
 * with a secret shown once; every event goes to each enabled endpoint that wants it, signed per the Standard
 * Webhooks specification, through the same deliveries as EventBridge's (event-delivery.ts): retries with backoff
 * for three days and more, each attempt recorded, and an endpoint whose delivery was given up is disabled until the
 * SaaS enables it again.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { invalid, notFound } from '../../errors.js';
import type { EventRepository, StoredEvent, TargetState } from './kept-events.js';

export interface WebhookEndpoint {
  saasId: string;
  id: string;
  url: string;
  /** The `event_type`s it wants; [] for every event. */
  eventTypes: string[];
  description: string;
  /** The signing secret, sealed (secret box). */
  sealedSecret: string;
  disabled: boolean;
  disabledReason?: string;
  /** Failed attempts since the last that went through. */
  failures: number;
  /** Unix seconds. */
  createdAt: number;
}

export interface WebhookRepository {
  webhooks(saasId: string): Promise<WebhookEndpoint[]>;
  webhook(saasId: string, id: string): Promise<WebhookEndpoint | undefined>;
  putWebhook(endpoint: WebhookEndpoint): Promise<void>;
  /** False when there was none. */
  deleteWebhook(saasId: string, id: string): Promise<boolean>;
}

/** Posts a signed payload; '' when the endpoint answered 2xx, else why not. */
export interface WebhookSenderPort {
  send(url: string, secret: string, messageId: string, payload: string, at: Date): Promise<string>;
}

/** Seals and opens the endpoints' secrets (a SecretBox, bound to the SaaS and endpoint). */
export interface WebhookSecrets {
  seal(saasId: string, id: string, secret: string): Promise<string>;
  open(saasId: string, id: string, sealed: string): Promise<string>;
}

export const WEBHOOK_TARGET = 'webhook:';
export const MAX_WEBHOOKS = 20;

/** Standard Webhooks' secret format: `whsec_` and the base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** The payload as Standard Webhooks suggests it: the type, the time, and the data (EventBridge's detail). */
export const webhookPayload = (event: StoredEvent, detail: string): string =>
  JSON.stringify({ type: event.eventType, timestamp: new Date(event.at).toISOString(), data: JSON.parse(detail) as unknown });

export const wants = (endpoint: WebhookEndpoint, eventType: string) =>
  !endpoint.disabled && (endpoint.eventTypes.length === 0 || endpoint.eventTypes.includes(eventType));

export interface WebhookInput {
  url: string;
  event_types?: string[];
  description?: string;
}

export const webhookNotFound = (id: string) => notFound('webhook_not_found', `no webhook ${id}`);

/** The console's and the API's view of an endpoint: never its secret. */
export function webhookAnswer(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    event_types: endpoint.eventTypes,
    description: endpoint.description,
    disabled: endpoint.disabled,
    ...(endpoint.disabledReason ? { disabled_reason: endpoint.disabledReason } : {}),
    failures: endpoint.failures,
    created_at: endpoint.createdAt,
  };
}

export class WebhookService {
  constructor(
    private readonly deps: {
      webhooks: WebhookRepository;
      events: Pick<EventRepository, 'recent' | 'get' | 'saveProgress'>;
      secrets: WebhookSecrets;
      /** Refuses (a 400) a URL the service may not post to: not public on AWS; loopback is allowed locally. */
      checkUrl: (url: string, field: string) => Promise<void>;
      now: () => number;
    },
  ) {}

  async create(saasId: string, input: WebhookInput) {
    await this.deps.checkUrl(input.url, 'url');
    if ((await this.deps.webhooks.webhooks(saasId)).length >= MAX_WEBHOOKS) {
      throw invalid('too_many_webhooks', `a SaaS has at most ${MAX_WEBHOOKS} webhooks`, { field: 'url' });
    }
    const id = randomUUID();
    const secret = newWebhookSecret();
    const endpoint: WebhookEndpoint = {
      saasId,
      id,
      url: input.url,
      eventTypes: [...new Set(input.event_types ?? [])],
      description: input.description ?? '',
      sealedSecret: await this.deps.secrets.seal(saasId, id, secret),
      disabled: false,
      failures: 0,
      createdAt: this.deps.now(),
    };
    await this.deps.webhooks.putWebhook(endpoint);
    // The only time the secret is shown: it is stored sealed and never answered again.
    return { ...webhookAnswer(endpoint), secret };
  }

  async list(saasId: string) {
    return { webhooks: (await this.deps.webhooks.webhooks(saasId)).map(webhookAnswer) };
  }

  async get(saasId: string, id: string) {
    return webhookAnswer(await this.endpoint(saasId, id));
  }

  /** Changes the URL, the event types, the description, or enables or disables it (enabling clears its failures). */
  async update(saasId: string, id: string, changes: Partial<WebhookInput> & { disabled?: boolean }): Promise<void> {
    const endpoint = await this.endpoint(saasId, id);
    if (changes.url !== undefined) await this.deps.checkUrl(changes.url, 'url');
    const enabling = changes.disabled === false && endpoint.disabled;
    const { disabledReason: _reason, ...rest } = endpoint;
    await this.deps.webhooks.putWebhook({
      ...(changes.disabled === false ? rest : endpoint),
      ...(changes.url !== undefined ? { url: changes.url } : {}),
      ...(changes.event_types !== undefined ? { eventTypes: [...new Set(changes.event_types)] } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.disabled !== undefined ? { disabled: changes.disabled } : {}),
      ...(changes.disabled === true ? { disabledReason: 'disabled by the SaaS' } : {}),
      ...(enabling ? { failures: 0 } : {}),
    });
  }

  async delete(saasId: string, id: string): Promise<void> {
    if (!(await this.deps.webhooks.deleteWebhook(saasId, id))) throw webhookNotFound(id);
  }

  /** A new secret, shown once; the old one signs nothing from now on. */
  async rotateSecret(saasId: string, id: string) {
    const endpoint = await this.endpoint(saasId, id);
    const secret = newWebhookSecret();
    await this.deps.webhooks.putWebhook({ ...endpoint, sealedSecret: await this.deps.secrets.seal(saasId, id, secret) });
    return { secret };
  }

  /** The endpoint's deliveries among the newest events: each with its attempts so far. */
  async deliveries(saasId: string, id: string, limit: number) {
    await this.endpoint(saasId, id);
    const events = await this.deps.events.recent(saasId, Math.min(500, limit * 5));
    const target = `${WEBHOOK_TARGET}${id}`;
    return {
      deliveries: events
        .filter((e) => e.targets?.[target])
        .slice(0, limit)
        .map((e) => deliveryAnswer(e, e.targets?.[target] as TargetState)),
    };
  }

  /** Sends an event to the endpoint again, now, whatever became of its earlier delivery. */
  async replay(saasId: string, id: string, eventId: string): Promise<void> {
    await this.endpoint(saasId, id);
    const event = await this.deps.events.get(saasId, eventId);
    const target = `${WEBHOOK_TARGET}${id}`;
    if (!event?.targets?.[target]) throw notFound('delivery_not_found', `no delivery of event ${eventId} to webhook ${id}`);
    const now = this.deps.now();
    const targets = { ...event.targets, [target]: { ...event.targets[target], status: 'pending' as const, nextAttemptAt: now } };
    await this.deps.events.saveProgress({ ...event, targets }, now);
  }

  private async endpoint(saasId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.deps.webhooks.webhook(saasId, id);
    if (!endpoint) throw webhookNotFound(id);
    return endpoint;
  }
}

const deliveryAnswer = (event: StoredEvent, state: TargetState) => ({
  event_id: event.id,
  event_type: event.eventType,
  status: state.status,
  attempts: state.attempts,
  next_attempt_at: state.nextAttemptAt,
  ...(state.lastError ? { last_error: state.lastError } : {}),
  ...(state.deliveredAt ? { delivered_at: state.deliveredAt } : {}),
});
