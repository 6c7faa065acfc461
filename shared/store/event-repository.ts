import { type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { EventBridgeSettings, EventRepository, StoredEvent } from '../domain/integration/kept-events.js';
import type { WebhookEndpoint, WebhookRepository } from '../domain/integration/webhooks.js';
import { ConditionalCheckFailedException, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { batchPut } from './batch.js';
import { deleteIfPresent } from './conditional.js';
import { ENTITY, eventKeys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { indexQuery, queryFirst } from './query.js';

const EVENT_MEMBERS = ['saasId', 'id', 'at', 'detailType', 'eventType', 'event', 'traceId', 'subject', 'sequence', 'targets', 'expiresAt'] as const;

function eventOf(item: Record<string, unknown>): StoredEvent {
  return Object.fromEntries(EVENT_MEMBERS.filter((m) => item[m] !== undefined).map((m) => [m, item[m]])) as unknown as StoredEvent;
}

/** An event's item: its own key and the due index's, kept until its expiry. */
export const eventItem = (event: StoredEvent): Record<string, unknown> => ({
  ...eventKeys.event(event.saasId, event.id),
  ...eventKeys.due(event.saasId, event.id, Math.floor(event.at / 1000)),
  entity: ENTITY.apiEvent,
  v: 1,
  ...event,
  [TTL_ATTRIBUTE]: event.expiresAt,
});

/** A SaaS's events, EventBridge settings and webhooks (keys.ts, eventKeys). */
export class DynamoEventRepository implements EventRepository, WebhookRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async eventBridgeSettings(saasId: string): Promise<EventBridgeSettings | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: eventKeys.settings(saasId) }));
    if (!out.Item) return undefined;
    return { aws_account_id: String(out.Item.aws_account_id), aws_region: String(out.Item.aws_region) };
  }

  async saveEventBridgeSettings(saasId: string, settings: EventBridgeSettings): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: { ...eventKeys.settings(saasId), entity: ENTITY.eventBridgeSettings, v: 1, ...settings } }),
    );
  }

  async deleteEventBridgeSettings(saasId: string): Promise<boolean> {
    return deleteIfPresent(this.db, this.table, eventKeys.settings(saasId));
  }

  async reserveSequence(saasId: string, subject: string, count: number): Promise<number> {
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: eventKeys.sequence(saasId, subject),
        UpdateExpression: 'ADD #seq :count SET entity = :entity, v = :v',
        ExpressionAttributeNames: { '#seq': 'sequence' },
        ExpressionAttributeValues: { ':count': count, ':entity': ENTITY.eventSequence, ':v': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.sequence);
  }

  putEvents(events: readonly StoredEvent[]): Promise<void> {
    return batchPut(this.db, this.table, events.map(eventItem));
  }

  async due(saasId: string, now: number, limit: number): Promise<StoredEvent[]> {
    const items = await queryFirst(this.db, indexQuery(this.table, eventKeys.dueBy(saasId, now)), limit);
    return items.map(eventOf);
  }

  async get(saasId: string, id: string): Promise<StoredEvent | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: eventKeys.event(saasId, id), ConsistentRead: true }));
    return out.Item ? eventOf(out.Item) : undefined;
  }

  async claim(saasId: string, id: string, now: number, seconds: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: eventKeys.event(saasId, id),
          UpdateExpression: 'SET claimedUntil = :until',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(claimedUntil) OR claimedUntil <= :now)',
          ExpressionAttributeValues: { ':until': now + seconds, ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async saveProgress(event: StoredEvent, nextDue: number | undefined): Promise<void> {
    const due = nextDue === undefined ? undefined : eventKeys.due(event.saasId, event.id, nextDue);
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: eventKeys.event(event.saasId, event.id),
        UpdateExpression: due
          ? 'SET targets = :targets, gsi1pk = :gpk, gsi1sk = :gsk REMOVE claimedUntil'
          : 'SET targets = :targets REMOVE claimedUntil, gsi1pk, gsi1sk',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':targets': event.targets ?? {}, ...(due ? { ':gpk': due.gsi1pk, ':gsk': due.gsi1sk } : {}) },
      }),
    );
  }

  async webhooks(saasId: string): Promise<WebhookEndpoint[]> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': eventKeys.partition(saasId), ':prefix': 'WEBHOOK#' },
        ConsistentRead: true,
      }),
    );
    return (out.Items ?? []).map((item) => withoutKeys<WebhookEndpoint>(item));
  }

  async webhook(saasId: string, id: string): Promise<WebhookEndpoint | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: eventKeys.webhook(saasId, id), ConsistentRead: true }));
    return out.Item ? withoutKeys<WebhookEndpoint>(out.Item) : undefined;
  }

  async putWebhook(endpoint: WebhookEndpoint): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...eventKeys.webhook(endpoint.saasId, endpoint.id), entity: ENTITY.webhook, v: 1, ...endpoint },
      }),
    );
  }

  async deleteWebhook(saasId: string, id: string): Promise<boolean> {
    // Conditional, so that a refused delete (no such webhook) writes nothing.
    return deleteIfPresent(this.db, this.table, eventKeys.webhook(saasId, id));
  }

  async recent(saasId: string, limit: number): Promise<StoredEvent[]> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': eventKeys.partition(saasId), ':prefix': 'E#' },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map(eventOf);
  }
}

/** The new events among a batch of the table's stream records (INSERTs of event items; the rest skipped). */
export function eventsFromStream(records: readonly DynamoDBRecord[]): { saasId: string; id: string; sequenceNumber: string }[] {
  return records.flatMap((record) => {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) return [];
    const item = unmarshall(image as Record<string, AttributeValue>);
    if (item.entity !== ENTITY.apiEvent) return [];
    return [{ saasId: item.saasId as string, id: item.id as string, sequenceNumber: record.dynamodb?.SequenceNumber ?? '' }];
  });
}
