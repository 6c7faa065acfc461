import { GetCommand, PutCommand, type DynamoClient } from './dynamo-client.js';
import type { SettingsRepository } from '../domain/configuration/settings.js';
import { putIfAbsent } from './conditional.js';
import { ENTITY, keys } from './keys.js';
import { Recent } from './recent.js';

/** Settings this instance read (recent.ts): a write through any repository of this instance evicts. */
const recentSettings = new Recent<unknown>();
const recentKey = (saasId: string, name: string) => `${saasId}\n${name}`;

/**
 * Settings documents of a SaaS, one item each, stored whole under `value`. With `cacheSeconds`, reads are
 * kept that long per warm instance: the functions that only read settings (sign-in among them) use it.
 */
export class DynamoSettingsRepository implements SettingsRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
    private readonly options: { cacheSeconds?: number } = {},
  ) {}

  async get<T>(saasId: string, name: string): Promise<T | undefined> {
    const read = async () => {
      const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.setting(saasId, name), ConsistentRead: true }));
      return out.Item?.value as T | undefined;
    };
    return (await recentSettings.get(recentKey(saasId, name), this.options.cacheSeconds ?? 0, read)) as T | undefined;
  }

  async put<T>(saasId: string, name: string, value: T): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { ...keys.setting(saasId, name), entity: ENTITY.setting, v: 1, name, value } }));
    recentSettings.forget(recentKey(saasId, name));
  }

  async putIfAbsent<T>(saasId: string, name: string, value: T): Promise<T> {
    const outcome = await putIfAbsent(this.db, this.table, { ...keys.setting(saasId, name), entity: ENTITY.setting, v: 1, name, value });
    if (outcome === 'created') return value;
    return (await this.get<T>(saasId, name)) as T;
  }
}
