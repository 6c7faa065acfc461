import { GetCommand, PutCommand, type DynamoClient } from './dynamo-client.js';
import type { SettingsRepository } from '../domain/configuration/settings.js';
import { atomicWrite, type AtomicWrite } from '../domain/atomic.js';
import { putIfAbsent } from './conditional.js';
import { domainClaimKey, ENTITY, keys } from './keys.js';
import { Recent } from './recent.js';
import { conditionInput, DynamoCommitter, part, type Condition } from './transact.js';

const DOMAIN_HELD = 'domain_held';
const DOMAIN_RELEASED = 'domain_released';
/** Nobody holds the domain, or this SaaS does. */
const freeOrHeldBy = (saasId: string): Condition => ({
  expression: 'attribute_not_exists(#pk) OR #saasId = :saasId',
  names: { '#pk': 'pk', '#saasId': 'saasId' },
  values: { ':saasId': saasId },
});

/**
 * Settings this instance read (recent.ts): a write through any repository of this instance evicts. A document
 * never saved is kept too (boxed, as recent.ts keeps only found values): it stands for the defaults, so a SaaS
 * on the default settings is read once per SETTINGS_CACHE_SECONDS like any other, not on every sign-in.
 */
const recentSettings = new Recent<{ value: unknown }>();
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
      return { value: out.Item?.value };
    };
    return (await recentSettings.get(recentKey(saasId, name), this.options.cacheSeconds ?? 0, read)).value as T | undefined;
  }

  async put<T>(saasId: string, name: string, value: T): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { ...keys.setting(saasId, name), entity: ENTITY.setting, v: 1, name, value } }));
    recentSettings.forget(recentKey(saasId, name));
  }

  async putIfAbsent<T>(saasId: string, name: string, value: T): Promise<T> {
    const outcome = await putIfAbsent(this.db, this.table, { ...keys.setting(saasId, name), entity: ENTITY.setting, v: 1, name, value });
    // What this instance kept as never saved is now saved.
    recentSettings.forget(recentKey(saasId, name));
    if (outcome === 'created') return value;
    return (await this.get<T>(saasId, name)) as T;
  }

  async domainHolder(domain: string): Promise<string | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: domainClaimKey(domain), ConsistentRead: true }));
    return out.Item?.saasId as string | undefined;
  }

  async putHoldingDomain<T>(saasId: string, name: string, value: T, domains: { hold?: string; release?: string }): Promise<boolean> {
    const { hold, release } = domains;
    const document = part(DOMAIN_HELD, {
      Put: { TableName: this.table, Item: { ...keys.setting(saasId, name), entity: ENTITY.setting, v: 1, name, value } },
    });
    const parts = [document];
    if (hold) {
      const claim = { ...domainClaimKey(hold), entity: ENTITY.domainClaim, v: 1, saasId, domain: hold.toLowerCase() };
      parts.push(part(DOMAIN_HELD, { Put: { TableName: this.table, Item: claim, ...conditionInput(freeOrHeldBy(saasId)) } }));
    }
    const releasing = release && release.toLowerCase() !== hold?.toLowerCase();
    const releasePart = releasing
      ? part(DOMAIN_RELEASED, { Delete: { TableName: this.table, Key: domainClaimKey(release), ...conditionInput(freeOrHeldBy(saasId)) } })
      : undefined;
    const committer = new DynamoCommitter(this.db);
    const commit = (...writes: AtomicWrite[]) => committer.commit(...writes);
    let outcome = await commit(atomicWrite(...parts, ...(releasePart ? [releasePart] : [])));
    // A domain this SaaS had but another holds (saved before domains were held) is not this SaaS's to let go.
    if (!outcome.committed && outcome.refusedBy === DOMAIN_RELEASED) outcome = await commit(atomicWrite(...parts));
    recentSettings.forget(recentKey(saasId, name));
    return outcome.committed;
  }
}
