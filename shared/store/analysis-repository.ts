import type { ActivePeriod, ActiveUserMarks } from '../domain/analysis/active-users.js';
import type { ActiveUsersRow, ActiveUsersType, AnalysisRepository, BehaviorDay, BehaviorEntry } from '../domain/analysis/analysis.js';
import type { PageViewStore } from '../domain/analysis/page-views.js';
import { unlessConditionFails } from './conditional.js';
import { PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { analysisKeys, ENTITY, INDEX_NAME, TTL_ATTRIBUTE } from './keys.js';
import { collect, queryPages } from './query.js';

const rowOf = (item: Record<string, unknown>): ActiveUsersRow => ({
  type: item.type as ActiveUsersType,
  date: String(item.date),
  tenant_id: String(item.tenant_id),
  env_id: Number(item.env_id),
  active_users: Number(item.active_users),
});
const dayOf = (item: Record<string, unknown>): BehaviorDay => ({
  userId: String(item.userId),
  day: Number(item.day),
  histories: (item.histories ?? []) as BehaviorDay['histories'],
});

/** The Analysis API's figures and histories, and the active users the service counts (keys.ts, analysisKeys). */
export class DynamoAnalysisRepository implements AnalysisRepository, ActiveUserMarks, PageViewStore {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async putActiveUsers(saasId: string, row: ActiveUsersRow): Promise<void> {
    const key = analysisKeys.activeUsers(saasId, row.type, row.date, row.tenant_id, row.env_id);
    await this.db.send(new PutCommand({ TableName: this.table, Item: { ...key, entity: ENTITY.activeUsers, v: 1, ...row } }));
  }

  async activeUsers(saasId: string, type: ActiveUsersType, from: string, to: string): Promise<ActiveUsersRow[]> {
    const { pk, low, high } = analysisKeys.activeUsersRange(saasId, type, from, to);
    return (await this.between(pk, low, high)).map(rowOf);
  }

  async mark(saasId: string, period: ActivePeriod, date: string, userId: string, markExpiresAt: number, countExpiresAt: number): Promise<boolean> {
    // UpdateItem, not PutItem: the API log writer may only update (lib/service-stack.ts); the condition makes it a create.
    const marked = await unlessConditionFails(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: analysisKeys.activeUserMark(saasId, period, date, userId),
          UpdateExpression: 'SET entity = :entity, v = :v, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(pk)',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':entity': ENTITY.activeUserMark, ':v': 1, ':ttl': markExpiresAt },
        }),
      ),
    );
    if (!marked) return false;
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: analysisKeys.activeUsersCount(saasId, period, date),
        UpdateExpression: 'SET entity = :entity, v = :v, #date = :date, #ttl = :ttl ADD active_users :one',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE, '#date': 'date' },
        ExpressionAttributeValues: { ':entity': ENTITY.activeUsersCount, ':v': 1, ':date': date, ':ttl': countExpiresAt, ':one': 1 },
      }),
    );
    return true;
  }

  async counts(saasId: string, period: ActivePeriod, from: string, to: string): Promise<{ date: string; active_users: number }[]> {
    const { pk, low, high } = analysisKeys.activeUsersCountRange(saasId, period, from, to);
    return (await this.between(pk, low, high)).map((item) => ({ date: String(item.date), active_users: Number(item.active_users) }));
  }

  async putBehaviorDay(saasId: string, day: BehaviorDay, expiresAt: number): Promise<void> {
    const item = {
      ...analysisKeys.behaviorDay(saasId, day.day, day.userId),
      ...analysisKeys.behaviorOfUser(saasId, day.userId, day.day),
      entity: ENTITY.behaviorDay,
      v: 1,
      ...day,
      [TTL_ATTRIBUTE]: expiresAt,
    };
    await this.db.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  async appendBehavior(
    saasId: string,
    userId: string,
    day: number,
    entries: readonly BehaviorEntry[],
    expiresAt: number,
    max: number,
  ): Promise<boolean> {
    const { gsi1pk, gsi1sk } = analysisKeys.behaviorOfUser(saasId, userId, day);
    // UpdateItem, as the API log writer may only update (lib/service-stack.ts); the same item PUT /user-behavior-day writes.
    return unlessConditionFails(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: analysisKeys.behaviorDay(saasId, day, userId),
          UpdateExpression:
            'SET histories = list_append(if_not_exists(histories, :none), :new), entity = :entity, v = :v, userId = :user, #day = :day, gsi1pk = :gpk, gsi1sk = :gsk, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(histories) OR size(histories) < :max',
          ExpressionAttributeNames: { '#day': 'day', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':none': [],
            ':new': entries.map(({ timestamp, referer }) => ({ timestamp, referer })),
            ':entity': ENTITY.behaviorDay,
            ':v': 1,
            ':user': userId,
            ':day': day,
            ':gpk': gsi1pk,
            ':gsk': gsi1sk,
            ':ttl': expiresAt,
            ':max': max,
          },
        }),
      ),
    );
  }

  async behaviorOfUser(saasId: string, userId: string, fromDay: number): Promise<BehaviorDay[]> {
    const { gsi1pk, gsi1sk } = analysisKeys.behaviorOfUser(saasId, userId, fromDay);
    const items = await collect(
      queryPages(this.db, {
        TableName: this.table,
        IndexName: INDEX_NAME,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk >= :from',
        ExpressionAttributeValues: { ':pk': gsi1pk, ':from': gsi1sk },
      }),
    );
    return items.map(dayOf);
  }

  async behaviorBetween(saasId: string, fromDay: number, toDay: number): Promise<BehaviorDay[]> {
    const { pk, low, high } = analysisKeys.behaviorRange(saasId, fromDay, toDay);
    return (await this.between(pk, low, high)).map(dayOf);
  }

  private between(pk: string, low: string, high: string) {
    return collect(
      queryPages(this.db, {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':pk': pk, ':low': low, ':high': high },
      }),
    );
  }
}
