import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SettingsRepository } from '../domain/settings.js';
import { putIfAbsent } from './conditional.js';
import { ENTITY, keys } from './keys.js';

/** Settings documents of a SaaS, one item each, stored whole under `value`. */
export class DynamoSettingsRepository implements SettingsRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get<T>(saasId: string, name: string): Promise<T | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.setting(saasId, name), ConsistentRead: true }));
    return out.Item?.value as T | undefined;
  }

  async put<T>(saasId: string, name: string, value: T): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: { ...keys.setting(saasId, name), entity: ENTITY.setting, v: 1, name, value } }),
    );
  }

  async putIfAbsent<T>(saasId: string, name: string, value: T): Promise<T> {
    const outcome = await putIfAbsent(this.db, this.table, { ...keys.setting(saasId, name), entity: ENTITY.setting, v: 1, name, value });
    if (outcome === 'created') return value;
    return (await this.get<T>(saasId, name)) as T;
  }
}
