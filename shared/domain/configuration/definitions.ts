/**
 * Definitions of a SaaS: user, SaaS-user and tenant attributes, roles and envs. Names (and env ids) are
 * unique per SaaS; the repository holds that rule with conditional writes, so two racing creates give one
 * success and one `*_already_exists`.
 */
import { alreadyExists, notFound } from '../../errors.js';
import type { Attribute, Env, Role } from '../../schemas/definitions.js';

export type AttributeKind = 'user' | 'saas_user' | 'tenant';

export type CreateOutcome = 'created' | 'exists';

export interface DefinitionRepository {
  listAttributes(saasId: string, kind: AttributeKind): Promise<Attribute[]>;
  createAttribute(saasId: string, kind: AttributeKind, attribute: Attribute): Promise<CreateOutcome>;
  /** false when there is no attribute of that kind and name. */
  deleteAttribute(saasId: string, kind: AttributeKind, name: string): Promise<boolean>;
  listRoles(saasId: string): Promise<Role[]>;
  createRole(saasId: string, role: Role): Promise<CreateOutcome>;
  updateRole(saasId: string, role: Role): Promise<boolean>;
  deleteRole(saasId: string, name: string): Promise<boolean>;
  listEnvs(saasId: string): Promise<Env[]>;
  getEnv(saasId: string, id: number): Promise<Env | undefined>;
  createEnv(saasId: string, env: Env): Promise<CreateOutcome>;
  updateEnv(saasId: string, env: Env): Promise<boolean>;
  deleteEnv(saasId: string, id: number): Promise<boolean>;
}

const KIND_LABEL: Record<AttributeKind, string> = {
  user: 'user attribute',
  saas_user: 'SaaS user attribute',
  tenant: 'tenant attribute',
};

export class DefinitionService {
  constructor(private readonly repo: DefinitionRepository) {}

  listAttributes(saasId: string, kind: AttributeKind): Promise<Attribute[]> {
    return this.repo.listAttributes(saasId, kind);
  }

  async createAttribute(saasId: string, kind: AttributeKind, attribute: Attribute): Promise<Attribute> {
    if ((await this.repo.createAttribute(saasId, kind, attribute)) === 'exists') {
      // User and SaaS-user attributes share one namespace, so the message does not guess which kind holds it.
      throw alreadyExists('attribute_already_exists', `an attribute named '${attribute.attribute_name}' already exists`);
    }
    return attribute;
  }

  /**
   * User and SaaS-user attributes share one namespace, and the SDKs have one delete for both
   * (DELETE /user-attributes/{name}): deleting a `user` attribute deletes a SaaS-user attribute of that name too.
   */
  async deleteAttribute(saasId: string, kind: AttributeKind, name: string): Promise<void> {
    const kinds: AttributeKind[] = kind === 'user' ? ['user', 'saas_user'] : [kind];
    for (const candidate of kinds) if (await this.repo.deleteAttribute(saasId, candidate, name)) return;
    throw notFound('attribute_not_found', `no ${KIND_LABEL[kind]} named '${name}'`);
  }

  listRoles(saasId: string): Promise<Role[]> {
    return this.repo.listRoles(saasId);
  }

  async createRole(saasId: string, role: Role): Promise<Role> {
    if ((await this.repo.createRole(saasId, role)) === 'exists') {
      throw alreadyExists('role_already_exists', `a role named '${role.role_name}' already exists`);
    }
    return role;
  }

  async updateRole(saasId: string, role: Role): Promise<void> {
    if (!(await this.repo.updateRole(saasId, role))) throw roleNotFound(role.role_name);
  }

  async deleteRole(saasId: string, name: string): Promise<void> {
    if (!(await this.repo.deleteRole(saasId, name))) throw roleNotFound(name);
  }

  listEnvs(saasId: string): Promise<Env[]> {
    return this.repo.listEnvs(saasId);
  }

  async getEnv(saasId: string, id: number): Promise<Env> {
    const env = await this.repo.getEnv(saasId, id);
    if (!env) throw envNotFound(id);
    return env;
  }

  async createEnv(saasId: string, env: Env): Promise<Env> {
    const stored = { ...env, display_name: env.display_name ?? '' };
    if ((await this.repo.createEnv(saasId, stored)) === 'exists') {
      throw alreadyExists('env_already_exists', `an env with id ${env.id} already exists`);
    }
    return stored;
  }

  async updateEnv(saasId: string, env: Env): Promise<void> {
    if (!(await this.repo.updateEnv(saasId, env))) throw envNotFound(env.id);
  }

  async deleteEnv(saasId: string, id: number): Promise<void> {
    if (!(await this.repo.deleteEnv(saasId, id))) throw envNotFound(id);
  }
}

const roleNotFound = (name: string) => notFound('role_not_found', `no role named '${name}'`);
const envNotFound = (id: number) => notFound('env_not_found', `no env with id ${id}`);
