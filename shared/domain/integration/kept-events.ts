/** What the Integration API keeps of a SaaS: its EventBridge settings and its events in delivery (event-delivery.ts). */
import type { ApiEvent } from './api-events.js';

/** The Integration API's EventBridgeSettings: the account and region of the bus events go to. */
export interface EventBridgeSettings {
  aws_account_id: string;
  aws_region: string;
}

export type TargetStatus = 'pending' | 'delivered' | 'failed';

export interface TargetState {
  status: TargetStatus;
  attempts: number;
  /** Unix seconds. */
  nextAttemptAt: number;
  lastError?: string;
  deliveredAt?: number;
}

/** An event as kept for delivery: its number in its subject's sequence, and each destination's progress. */
export interface StoredEvent extends ApiEvent {
  sequence: number;
  /** By destination (`eventbridge`); undefined until the first delivery looks up the SaaS's destinations. */
  targets?: Record<string, TargetState>;
  /** Unix seconds after which the store lets it go. */
  expiresAt: number;
}

export interface EventRepository {
  eventBridgeSettings(saasId: string): Promise<EventBridgeSettings | undefined>;
  saveEventBridgeSettings(saasId: string, settings: EventBridgeSettings): Promise<void>;
  /** Removes them; false when there were none. */
  deleteEventBridgeSettings(saasId: string): Promise<boolean>;
  /** Raises the subject's counter by `count` in one write and answers the new value (the last number taken). */
  reserveSequence(saasId: string, subject: string, count: number): Promise<number>;
  /** Keeps new events, due at once. */
  putEvents(events: readonly StoredEvent[]): Promise<void>;
  /** Events with a destination due at or before `now` (Unix seconds), at most `limit`. */
  due(saasId: string, now: number, limit: number): Promise<StoredEvent[]>;
  get(saasId: string, id: string): Promise<StoredEvent | undefined>;
  /** Takes the event for `seconds` so two deliverers do not send it side by side; false when another holds it. */
  claim(saasId: string, id: string, now: number, seconds: number): Promise<boolean>;
  /** Writes the destinations' progress, lets the claim go, and keeps the event due at `nextDue` (none: not due). */
  saveProgress(event: StoredEvent, nextDue: number | undefined): Promise<void>;
  /** The newest events first, at most `limit`. */
  recent(saasId: string, limit: number): Promise<StoredEvent[]>;
}
