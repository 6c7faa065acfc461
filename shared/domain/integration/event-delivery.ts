/**
 * The events' way out (docs/events.md): the writer numbers each event in its subject's sequence and keeps it
 * (EventRecorder); a deliverer sends what is due to each of the SaaS's destinations, at once when the stream announces
 * a new event and again from the scheduled worker, with backoff, for RETRY_DELAYS_SECONDS' three days and more
 * (EventDeliverer). A destination is the SaaS's EventBridge bus (EventBridge settings, the Integration API) or one
 * of its signed webhooks (webhooks.ts).
 */
import { invalid, notFound } from '../../errors.js';
import { log } from '../../log.js';
import { metrics } from '../../metrics.js';
import type { ApiEvent } from './api-events.js';
import { eventDetail } from './api-events.js';
import type { EventBridgeSettings, EventRepository, StoredEvent, TargetState } from './kept-events.js';
import { WEBHOOK_TARGET, wants, webhookPayload, type WebhookRepository, type WebhookSecrets, type WebhookSenderPort } from './webhooks.js';

export type { EventBridgeSettings, EventRepository, StoredEvent, TargetState } from './kept-events.js';

/** One EventBridge entry (PutEvents' PutEventsRequestEntry, in our words). */
export interface BusEntry {
  source: string;
  detailType: string;
  detail: string;
  /** Unix milliseconds. */
  time: number;
}

/** A delivery given up after every retry, for the dead letters (docs/events.md, "Retries"). */
export interface GivenUpDelivery {
  saasId: string;
  eventId: string;
  eventType: string;
  /** `eventbridge` or `webhook:<id>`. */
  target: string;
  attempts: number;
  lastError: string;
  /** Unix seconds. */
  at: number;
}

/** Where given-up deliveries go: on AWS the stack's alarmed dead-letter queue; locally a list the console shows. */
export interface DeadLetterPort {
  put(delivery: GivenUpDelivery): Promise<void>;
}

/** Sends entries to a bus; answers each entry's error ('' when it was taken), in order. */
export interface EventBusPort {
  put(busArn: string, entries: readonly BusEntry[]): Promise<string[]>;
}

/**
 * Seconds to wait after each failed attempt: Standard Webhooks' schedule (5 s, 5 min, 30 min, 2 h, 5 h, then 10 h),
 * long enough that a destination down for three days still gets every event. The attempt after the last delay
 * is the last one; then the destination's state is `failed`.
 */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000, 36000, 36000, 36000, 36000, 36000] as const;
/** Events are kept past their last retry, then the store lets them go. */
export const EVENT_KEPT_SECONDS = 4 * 86400;
/** An event's source on EventBridge: `aws.` is reserved to AWS, so SaaSus's partner source cannot be ours. */
export const eventSource = (saasId: string) => `tenant-identity-service/${saasId}`;
export const busArn = (settings: EventBridgeSettings) => `arn:aws:events:${settings.aws_region}:${settings.aws_account_id}:event-bus/default`;

const EVENTBRIDGE = 'eventbridge';
const CLAIM_SECONDS = 60;
const DUE_AT_ONCE = 50;

/** The writer's side: numbers a batch's events per subject (one counter write per subject), for the writer to keep. */
export class EventRecorder {
  constructor(private readonly deps: { events: Pick<EventRepository, 'reserveSequence'> }) {}

  /**
   * The batch numbered, one sequence reservation per subject, not yet written: the API log writer puts them in
   * the same BatchWriteItem as its records (shared/domain/apilog/shipped-lines.ts).
   */
  async sequenced(batch: readonly ApiEvent[]): Promise<StoredEvent[]> {
    const byEntity = new Map<string, ApiEvent[]>();
    // In the order the calls came, ties by id (a UUIDv7: time, then random): the sequence follows that order.
    const ordered = [...batch].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
    for (const event of ordered) {
      const key = `${event.saasId}\n${event.subject}`;
      byEntity.set(key, [...(byEntity.get(key) ?? []), event]);
    }
    const stored: StoredEvent[] = [];
    for (const events of byEntity.values()) {
      const first = events[0] as ApiEvent;
      const last = await this.deps.events.reserveSequence(first.saasId, first.subject, events.length);
      events.forEach((event, i) =>
        stored.push({ ...event, sequence: last - events.length + 1 + i, expiresAt: Math.floor(event.at / 1000) + EVENT_KEPT_SECONDS }),
      );
    }
    return stored;
  }
}

/** The next state of a destination after an attempt that failed with `error`. */
export function afterFailure(state: TargetState, error: string, now: number): TargetState {
  const attempts = state.attempts + 1;
  const delay = RETRY_DELAYS_SECONDS[attempts - 1];
  if (delay === undefined) return { ...state, attempts, status: 'failed', lastError: error.slice(0, 500) };
  return { ...state, attempts, status: 'pending', nextAttemptAt: now + delay, lastError: error.slice(0, 500) };
}

export class EventDeliverer {
  constructor(
    private readonly deps: {
      events: EventRepository;
      bus: EventBusPort;
      webhooks: WebhookRepository;
      sender: WebhookSenderPort;
      secrets: WebhookSecrets;
      deadLetters: DeadLetterPort;
      /** Unix seconds. */
      now: () => number;
    },
  ) {}

  /** Delivers what is due of the SaaS's events (the scheduled worker); answers the deliveries made. */
  async deliverDue(saasId: string): Promise<number> {
    const due = await this.deps.events.due(saasId, this.deps.now(), DUE_AT_ONCE);
    let delivered = 0;
    for (const event of due) delivered += await this.deliver(event);
    return delivered;
  }

  /** Delivers one new event (the stream announced it). */
  async deliverNew(saasId: string, id: string): Promise<number> {
    const event = await this.deps.events.get(saasId, id);
    return event ? this.deliver(event) : 0;
  }

  private async deliver(event: StoredEvent): Promise<number> {
    const now = this.deps.now();
    if (!(await this.deps.events.claim(event.saasId, event.id, now, CLAIM_SECONDS))) return 0;
    const targets = event.targets ?? (await this.destinations(event, now));
    let delivered = 0;
    for (const [name, state] of Object.entries(targets)) {
      if (state.status !== 'pending' || state.nextAttemptAt > now) continue;
      const error = await this.attempt(event, name);
      if (error === '') {
        targets[name] = { ...state, attempts: state.attempts + 1, status: 'delivered', deliveredAt: now };
        delivered += 1;
        if (name.startsWith(WEBHOOK_TARGET)) await this.countWebhook(event.saasId, name.slice(WEBHOOK_TARGET.length), true, false);
        continue;
      }
      targets[name] = afterFailure(state, error, now);
      const gaveUp = targets[name].status === 'failed';
      metrics.count(gaveUp ? 'EventDeliveryFailed' : 'EventDeliveryRetried');
      if (gaveUp) await this.giveUp(event, name, targets[name]);
      if (name.startsWith(WEBHOOK_TARGET)) await this.countWebhook(event.saasId, name.slice(WEBHOOK_TARGET.length), false, gaveUp);
    }
    const pending = Object.values(targets).filter((t) => t.status === 'pending');
    const nextDue = pending.length > 0 ? Math.min(...pending.map((t) => t.nextAttemptAt)) : undefined;
    await this.deps.events.saveProgress({ ...event, targets }, nextDue);
    return delivered;
  }

  /**
   * Hands a given-up delivery to the dead letters (EventDeliveryFailed counted it). Their failure is logged, never the delivery's: the
   * event's state (failed) is saved all the same, and the console lists it while the event is kept.
   */
  private async giveUp(event: StoredEvent, target: string, state: TargetState): Promise<void> {
    const delivery: GivenUpDelivery = {
      saasId: event.saasId,
      eventId: event.id,
      eventType: event.eventType,
      target,
      attempts: state.attempts,
      lastError: state.lastError ?? '',
      at: this.deps.now(),
    };
    log.error('event delivery: given up after every retry', undefined, { ...delivery });
    try {
      await this.deps.deadLetters.put(delivery);
    } catch (error) {
      log.error('event delivery: the given-up delivery could not be put in the dead letters', error, { saasId: event.saasId, id: event.id, target });
    }
  }

  /** '' when the destination took the event, else why not. */
  private async attempt(event: StoredEvent, target: string): Promise<string> {
    try {
      if (target === EVENTBRIDGE) {
        // Read again at each attempt: settings changed or removed since apply from the next attempt on.
        const settings = await this.deps.events.eventBridgeSettings(event.saasId);
        if (!settings) return 'no EventBridge settings';
        const [error] = await this.deps.bus.put(busArn(settings), [entryOf(event)]);
        return error ?? 'no answer';
      }
      if (target.startsWith(WEBHOOK_TARGET)) {
        const endpoint = await this.deps.webhooks.webhook(event.saasId, target.slice(WEBHOOK_TARGET.length));
        if (!endpoint) return 'the webhook was deleted';
        if (endpoint.disabled) return `the webhook is disabled (${endpoint.disabledReason ?? ''})`;
        const secret = await this.deps.secrets.open(event.saasId, endpoint.id, endpoint.sealedSecret);
        const payload = webhookPayload(event, eventDetail(event, event.sequence));
        return await this.deps.sender.send(endpoint.url, secret, event.id, payload, new Date(this.deps.now() * 1000));
      }
      return `unknown destination ${target}`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** Where a new event goes: the SaaS's bus, and each enabled webhook that wants its type, as they are now. */
  private async destinations(event: StoredEvent, now: number): Promise<Record<string, TargetState>> {
    const [settings, endpoints] = await Promise.all([this.deps.events.eventBridgeSettings(event.saasId), this.deps.webhooks.webhooks(event.saasId)]);
    const fresh = (): TargetState => ({ status: 'pending', attempts: 0, nextAttemptAt: now });
    return Object.fromEntries([
      ...(settings ? [[EVENTBRIDGE, fresh()]] : []),
      ...endpoints.filter((e) => wants(e, event.eventType)).map((e) => [`${WEBHOOK_TARGET}${e.id}`, fresh()]),
    ]) as Record<string, TargetState>;
  }

  /**
   * An endpoint's failures since its last success; one whose delivery was given up (three days of failing) is
   * disabled, so it stops piling up deliveries until the SaaS enables it again.
   */
  private async countWebhook(saasId: string, id: string, ok: boolean, gaveUp: boolean): Promise<void> {
    const endpoint = await this.deps.webhooks.webhook(saasId, id);
    if (!endpoint || (ok && endpoint.failures === 0)) return;
    await this.deps.webhooks.putWebhook({
      ...endpoint,
      failures: ok ? 0 : endpoint.failures + 1,
      ...(gaveUp ? { disabled: true, disabledReason: 'a delivery failed for three days: enable it again once it answers' } : {}),
    });
  }
}

export const entryOf = (event: StoredEvent): BusEntry => ({
  source: eventSource(event.saasId),
  detailType: event.detailType,
  detail: eventDetail(event, event.sequence),
  time: event.at,
});

/** The Integration API's reads and writes of a SaaS's settings, and the events a SaaS sends itself. */
export class IntegrationService {
  constructor(
    private readonly deps: {
      events: EventRepository;
      /** Tells an event as the calls' events are told (a line for the writer). */
      tell: (event: ApiEvent) => void | Promise<void>;
      newId: (at: number) => string;
      now: () => number;
    },
  ) {}

  async eventBridgeSettings(saasId: string): Promise<EventBridgeSettings> {
    const settings = await this.deps.events.eventBridgeSettings(saasId);
    if (!settings) throw notFound('eventbridge_settings_not_found', 'no EventBridge settings: save them with PUT /eventbridge/info');
    return settings;
  }

  saveEventBridgeSettings(saasId: string, settings: EventBridgeSettings): Promise<void> {
    if (!/^\d{12}$/.test(settings.aws_account_id)) {
      throw invalid('invalid_parameter', 'aws_account_id: must be an AWS account id of 12 digits', { field: 'aws_account_id' });
    }
    return this.deps.events.saveEventBridgeSettings(saasId, { aws_account_id: settings.aws_account_id, aws_region: settings.aws_region });
  }

  async deleteEventBridgeSettings(saasId: string): Promise<void> {
    await this.deps.events.deleteEventBridgeSettings(saasId);
  }

  /** CreateEventBridgeTestEvent: one event of type `test_event`, delivered as every other. */
  async sendTestEvent(saasId: string, traceId: string): Promise<void> {
    await this.eventBridgeSettings(saasId);
    const at = this.deps.now();
    const id = this.deps.newId(at);
    const event = JSON.stringify({
      log_id: id,
      date_time: new Date(Math.floor(at / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
      message: 'test event',
    });
    await this.deps.tell({ saasId, id, at, detailType: 'test_event', eventType: 'test_event', event, traceId, subject: 'test_event' });
  }

  /**
   * CreateEventBridgeEvent: the SaaS's own events, each with `event_type` as EventBridge's detail type and
   * `event_detail_type` and `message` as the detail's `event_type` and `event`, the shape of the calls' events.
   */
  async sendEvents(saasId: string, messages: readonly { event_type: string; event_detail_type: string; message: string }[], traceId: string) {
    const at = this.deps.now();
    for (const message of messages) {
      const id = this.deps.newId(at);
      await this.deps.tell({
        saasId,
        id,
        at,
        detailType: message.event_type,
        eventType: message.event_detail_type,
        event: message.message,
        traceId,
        subject: `custom/${message.event_type}`,
      });
    }
  }

  /** Extension: the newest events with each destination's progress (the console's page). */
  async recentEvents(saasId: string, limit: number) {
    const events = await this.deps.events.recent(saasId, limit);
    return {
      events: events.map((e) => ({
        id: e.id,
        at: Math.floor(e.at / 1000),
        detail_type: e.detailType,
        event_type: e.eventType,
        subject: e.subject,
        sequence: e.sequence,
        detail: eventDetail(e, e.sequence),
        targets: Object.entries(e.targets ?? {}).map(([name, t]) => ({
          target: name,
          status: t.status,
          attempts: t.attempts,
          next_attempt_at: t.nextAttemptAt,
          ...(t.lastError ? { last_error: t.lastError } : {}),
        })),
      })),
    };
  }
}
