/**
 * The lazy migration's group mapping (issue 39, docs/migration.md, shared/domain/migration/lazy-cognito.ts): the
 * old Cognito pool's groups as memberships here. A file of its own because the settings check it on every save,
 * in every function that saves them, and need none of the migration's other code.
 */
import { invalid } from '../../errors.js';
import type { GroupMapping } from '../../schemas/configuration.js';
import type { DefinitionRepository } from '../configuration/definitions.js';
import type { TenantRepository } from '../tenants/tenants.js';

/**
 * The parts a mapping may add to the user's write: each tenant's check and membership (two items), each env's and
 * role's check once (the committer sends a shared check once). A user's own parts (at most 3) and these stay
 * within one transaction (100 items).
 */
const MAPPING_PARTS = 90;

/** The memberships the mapping gives these groups: one a tenant, its envs' roles merged. */
export function membershipsOf(
  mapping: readonly GroupMapping[],
  groups: readonly string[],
): { tenantId: string; envs: { id: number; role_names: string[] }[] }[] {
  const held = new Set(groups);
  const byTenant = new Map<string, Map<number, Set<string>>>();
  for (const entry of mapping) {
    if (!held.has(entry.group)) continue;
    const envs = byTenant.get(entry.tenant_id) ?? new Map<number, Set<string>>();
    byTenant.set(entry.tenant_id, envs);
    const roles = envs.get(entry.env_id) ?? new Set<string>();
    envs.set(entry.env_id, roles);
    for (const name of entry.role_names) roles.add(name);
  }
  return [...byTenant].map(([tenantId, envs]) => ({
    tenantId,
    envs: [...envs].filter(([, roles]) => roles.size > 0).map(([id, roles]) => ({ id, role_names: [...roles] })),
  }));
}

/**
 * A group mapping as it is saved (PUT /sign-in-settings, or a setting row of an import): every tenant, env and
 * role it names must be this SaaS's now, so that a mistake is refused here rather than at someone's first sign-in.
 */
export async function checkGroupMapping(
  deps: { tenants: Pick<TenantRepository, 'liveIds'>; definitions: Pick<DefinitionRepository, 'listEnvs' | 'listRoles'> },
  saasId: string,
  mapping: readonly GroupMapping[],
): Promise<void> {
  if (mapping.length === 0) return;
  const field = (at: number, member: string) => `password_sign_in.cognito_pool.groups[${at}].${member}`;
  const refuse = (at: number, member: string, message: string) =>
    invalid('invalid_parameter', `${field(at, member)}: ${message}`, { field: field(at, member) });
  const [live, envs, roles] = await Promise.all([
    deps.tenants.liveIds(saasId, [...new Set(mapping.map((m) => m.tenant_id))]),
    deps.definitions.listEnvs(saasId),
    deps.definitions.listRoles(saasId),
  ]);
  const envIds = new Set(envs.map((e) => e.id));
  const roleNames = new Set(roles.map((r) => r.role_name));
  for (const [at, entry] of mapping.entries()) {
    if (!live.has(entry.tenant_id)) throw refuse(at, 'tenant_id', `no tenant ${entry.tenant_id} in this SaaS`);
    if (!envIds.has(entry.env_id)) throw refuse(at, 'env_id', `no env with id ${entry.env_id}`);
    const unknown = entry.role_names.find((name) => !roleNames.has(name));
    if (unknown !== undefined) throw refuse(at, 'role_names', `no role named '${unknown}'`);
  }
  const parts = 3 * live.size + new Set(mapping.map((m) => m.env_id)).size + new Set(mapping.flatMap((m) => m.role_names)).size;
  if (parts > MAPPING_PARTS) {
    throw invalid(
      'invalid_parameter',
      'password_sign_in.cognito_pool.groups: names too many tenants, envs and roles for one write (fewer tenants or roles)',
      {
        field: 'password_sign_in.cognito_pool.groups',
      },
    );
  }
}
