import { GetCommand, PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import type { AccountRepository, ApiKeyRecord, SaasAccount } from '../domain/accounts/accounts.js';
import { unlessConditionFails } from './conditional.js';
import { ENTITY, keys, SAAS_REGISTRY, withoutKeys } from './keys.js';
import { queryAll, queryIndexAll } from './query.js';
import { Recent } from './recent.js';
import { LAYOUT_ATTRIBUTES, NEW_SAAS_DIRECTORY } from './directory-shards.js';

/** API keys read by this instance (recent.ts): revocation through any repository of this instance evicts. */
const recentKeys = new Recent<ApiKeyRecord | undefined>();

/** The account a SaaS item holds, without its keys and its directory's layout (directory-shards.ts). */
function accountOf(item: Record<string, unknown>): SaasAccount {
  const account: Record<string, unknown> = withoutKeys(item);
  for (const name of LAYOUT_ATTRIBUTES) delete account[name];
  return account as unknown as SaasAccount;
}

export class DynamoAccountRepository implements AccountRepository {
  /** `options.keyCacheSeconds`: how long getApiKey keeps a key it read (0, the default: never). */
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
    private readonly options: { keyCacheSeconds?: number } = {},
  ) {}

  async createSaas(account: SaasAccount): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...keys.saas(account.id), ...keys.saasRegistryEntry(account.id), entity: ENTITY.saas, v: 1, ...account, ...NEW_SAAS_DIRECTORY },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getSaas(saasId: string): Promise<SaasAccount | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.saas(saasId) }));
    return out.Item ? accountOf(out.Item) : undefined;
  }

  /** Through gsi1's registry partition: no scan, however large the table grows. */
  async listSaas(): Promise<SaasAccount[]> {
    const items = await queryIndexAll(this.db, this.table, { gsi1pk: SAAS_REGISTRY });
    return items.map(accountOf).sort((a, b) => a.createdAt - b.createdAt);
  }

  async putApiKey(record: ApiKeyRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...keys.apiKey(record.saasId, record.apiKey), entity: ENTITY.apiKey, v: 1, ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getApiKey(saasId: string, apiKey: string): Promise<ApiKeyRecord | undefined> {
    const read = async () => {
      const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.apiKey(saasId, apiKey) }));
      return out.Item ? (withoutKeys(out.Item) as ApiKeyRecord) : undefined;
    };
    return recentKeys.get(`${saasId}\n${apiKey}`, this.options.keyCacheSeconds ?? 0, read);
  }

  async listApiKeys(saasId: string): Promise<ApiKeyRecord[]> {
    const items = await queryAll(this.db, this.table, keys.apiKeys(saasId));
    return items.map((i) => withoutKeys<ApiKeyRecord>(i));
  }

  async revokeApiKey(saasId: string, apiKey: string, at: number): Promise<boolean> {
    const revoked = await unlessConditionFails(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.apiKey(saasId, apiKey),
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at },
        }),
      ),
    );
    recentKeys.forget(`${saasId}\n${apiKey}`);
    return revoked;
  }
}
