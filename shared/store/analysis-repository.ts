import type { ActiveUsersRow, ActiveUsersType, AnalysisRepository, BehaviorDay } from '../domain/analysis/analysis.js';
import { PutCommand, type DynamoClient } from './dynamo-client.js';
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

/** The Analysis API's figures and histories (keys.ts, analysisKeys). */
export class DynamoAnalysisRepository implements AnalysisRepository {
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
