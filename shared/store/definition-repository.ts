import { GetCommand, type DynamoClient } from './dynamo-client.js';
import { nowMillis, nowSeconds } from '../clock.js';
import type { AttributeKind, CreateOutcome, DefinitionRepository } from '../domain/configuration/definitions.js';
import type { Attribute, Env, Role } from '../schemas/definitions.js';
import { deleteIfPresent, putIfAbsent, updateIfPresent } from './conditional.js';
import { ENTITY, keys } from './keys.js';
import { queryAll } from './query.js';

function attributeKey(saasId: string, kind: AttributeKind, name: string) {
  return kind === 'tenant' ? keys.tenantAttribute(saasId, name) : keys.userAttribute(saasId, name);
}

const toAttribute = (item: Record<string, unknown>): Attribute => ({
  attribute_name: item.attribute_name as string,
  display_name: item.display_name as string,
  attribute_type: item.attribute_type as Attribute['attribute_type'],
});

const toRole = (item: Record<string, unknown>): Role => ({
  role_name: item.role_name as string,
  display_name: item.display_name as string,
});

const toEnv = (item: Record<string, unknown>): Env => ({
  id: item.id as number,
  name: item.name as string,
  display_name: (item.display_name as string | undefined) ?? '',
});

export class DynamoDefinitionRepository implements DefinitionRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  /** In the order they were created: that is the order a SaaS shows its fields in. */
  async listAttributes(saasId: string, kind: AttributeKind): Promise<Attribute[]> {
    const where = kind === 'tenant' ? keys.tenantAttributes(saasId) : keys.userAttributes(saasId);
    const items = await queryAll(this.db, this.table, where);
    return items
      .filter((item) => item.kind === kind)
      .sort((a, b) => (a.createdAtMs as number) - (b.createdAtMs as number) || String(a.sk).localeCompare(String(b.sk)))
      .map(toAttribute);
  }

  createAttribute(saasId: string, kind: AttributeKind, attribute: Attribute): Promise<CreateOutcome> {
    return putIfAbsent(this.db, this.table, {
      ...attributeKey(saasId, kind, attribute.attribute_name),
      entity: ENTITY.attributeDefinition,
      v: 1,
      kind,
      ...attribute,
      createdAtMs: nowMillis(),
    });
  }

  deleteAttribute(saasId: string, kind: AttributeKind, name: string): Promise<boolean> {
    return deleteIfPresent(this.db, this.table, attributeKey(saasId, kind, name), { attribute: 'kind', value: kind });
  }

  async listRoles(saasId: string): Promise<Role[]> {
    return (await queryAll(this.db, this.table, keys.roles(saasId))).map(toRole);
  }

  createRole(saasId: string, role: Role): Promise<CreateOutcome> {
    return putIfAbsent(this.db, this.table, {
      ...keys.role(saasId, role.role_name),
      entity: ENTITY.role,
      v: 1,
      ...role,
      createdAt: nowSeconds(),
    });
  }

  updateRole(saasId: string, role: Role): Promise<boolean> {
    return updateIfPresent(this.db, this.table, keys.role(saasId, role.role_name), {
      display_name: role.display_name,
      updatedAt: nowSeconds(),
    });
  }

  deleteRole(saasId: string, name: string): Promise<boolean> {
    return deleteIfPresent(this.db, this.table, keys.role(saasId, name));
  }

  async listEnvs(saasId: string): Promise<Env[]> {
    return (await queryAll(this.db, this.table, keys.envs(saasId))).map(toEnv);
  }

  async getEnv(saasId: string, id: number): Promise<Env | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.env(saasId, id) }));
    return out.Item ? toEnv(out.Item) : undefined;
  }

  createEnv(saasId: string, env: Env): Promise<CreateOutcome> {
    return putIfAbsent(this.db, this.table, {
      ...keys.env(saasId, env.id),
      entity: ENTITY.env,
      v: 1,
      id: env.id,
      name: env.name,
      display_name: env.display_name,
      createdAt: nowSeconds(),
    });
  }

  updateEnv(saasId: string, env: Env): Promise<boolean> {
    return updateIfPresent(this.db, this.table, keys.env(saasId, env.id), {
      name: env.name,
      display_name: env.display_name,
      updatedAt: nowSeconds(),
    });
  }

  deleteEnv(saasId: string, id: number): Promise<boolean> {
    return deleteIfPresent(this.db, this.table, keys.env(saasId, id));
  }
}
