/**
 * Tenant users: a SaaS user's membership of a tenant, holding per-tenant user attributes and roles per env.
 * A membership lives in the tenant's partition with a copy in the user's partition (each names the other as
 * its `mirror`), so deleting either the tenant or the user takes it away; every write of one conditions on
 * the tenant being live, in the same transaction.
 *
 * Attributes: a tenant user's `attributes` show the membership's user-attribute values together with the
 * user's SaaS-user attribute values (one value across all tenants; the two kinds share one namespace of
 * names, so they never clash). Writes through a tenant user route each value by its kind: user attributes
 * to the membership, SaaS-user attributes to the user, in one transaction.
 */
import { nowSeconds } from '../../clock.js';
import { alreadyExists, concurrentUpdate, invalid, notFound, type DomainError } from '../../errors.js';
import type { Env, Role } from '../../schemas/definitions.js';
import type { EnvWithRoles, TenantUser, TenantUserCount, TenantUserSearch, UserInfo } from '../../schemas/tenant-users.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import type { DefinitionRepository } from '../configuration/definitions.js';
import { collect, MAX_PAGE_SIZE, readPage, type Cursors, type OrderedSource } from '../paging.js';
import { tenantNotFound, type TenantRecord, type TenantRepository } from './tenants.js';
import { sessionOf, type UserSession } from '../tokens/tokens.js';
import {
  checkAttributeChanges,
  loginFromRequest,
  loginFromUsername,
  matchesUserFilter,
  userFilter,
  userNotFound,
  type AttributeChanges,
  type AttributeValues,
  type UserFilter,
  type UserRecord,
  type UserRepository,
  type UserSummary,
} from '../users/users.js';

export interface EnvRole {
  env_id: number;
  role_name: string;
}

export interface MembershipRecord {
  tenant_id: string;
  user_id: string;
  /** Values of user attributes (the per-tenant kind). */
  attributes: AttributeValues;
  roles: EnvRole[];
  created_at: number;
  /** The SCIM resource a tenant's directory provisioned this member with (shared/domain/scim), as last written. */
  scim?: Record<string, unknown>;
  /** SCIM's `active: false`: on both sides, so a user's other memberships tell whether any is still live. */
  suspended?: true;
}

/** A membership with what the unpaged list answers of its user (MembershipRepository.everyMember). */
export interface ListedMember {
  membership: MembershipRecord;
  user: UserSummary;
}

/** A membership with its user, as reads hand them out. */
export interface Member {
  membership: MembershipRecord;
  user: UserRecord;
}

export interface MemberFilter extends UserFilter {
  tenantId?: string;
}

export interface StoredUserCount extends TenantUserCount {
  updated_at: number;
}

export interface MembershipRepository {
  /**
   * The membership and its mirror, with its roles. Rules, in order: `tenant_live`, `user_live` (each left out
   * when the same commit writes the tenant or the user, which then holds that rule itself), `not_member`,
   * `env_exists:<id>`, `role_exists:<name>`.
   */
  addWrite(saasId: string, membership: MembershipRecord, options: { userWrittenAlongside: boolean; tenantWrittenAlongside?: boolean }): AtomicWrite;
  get(saasId: string, tenantId: string, userId: string): Promise<Member | undefined>;
  /**
   * For each pair, whether it is a membership of a live tenant and a live user already: what addWrite would be
   * refused for by `not_member`. Strongly consistent, 100 items to a read.
   */
  present(saasId: string, pairs: readonly { tenantId: string; userId: string }[]): Promise<boolean[]>;
  /**
   * Every membership of the SaaS in the directory's order (user id, then tenant id), each with its user as
   * the lists answer it; those whose user is gone are left out. Eventually consistent: Get Users' read path.
   */
  everyMember(saasId: string): Promise<ListedMember[]>;
  /**
   * Memberships in a fixed order, read from the narrowest key the filter has (user, tenant, name prefix, all): by the
   * user directory's order when the filter names no narrower key, each with its user as the lists answer them.
   */
  directory(saasId: string, filter: MemberFilter): OrderedSource<ListedMember>;
  /** Every membership of the tenant, without their users: one query of the tenant's partition. */
  ofTenant(saasId: string, tenantId: string): Promise<MembershipRecord[]>;
  /**
   * The role to each of these members in one transaction (at most ROLE_BATCH): rules `tenant_live`, `env_exists:<id>`,
   * `role_exists:<name>`, then `member` for any of them (which one is not said).
   */
  addRoleToMembersWrite(saasId: string, tenantId: string, userIds: readonly string[], role: EnvRole): AtomicWrite;
  /** Every membership of a user already read, by tenant id (their partition alone: the profile is not read again). */
  ofUser(saasId: string, user: UserRecord): Promise<Member[]>;
  /** Rules: `tenant_live`, `member`. */
  attributesWrite(saasId: string, tenantId: string, userId: string, changes: AttributeChanges): AtomicWrite;
  /** Rules: `tenant_live`, `member`, `env_exists:<id>`, `role_exists:<name>`. */
  addRolesWrite(saasId: string, tenantId: string, userId: string, envId: number, roleNames: readonly string[]): AtomicWrite;
  /** Rules: `tenant_live`, `member`, `role_assigned`. */
  removeRoleWrite(saasId: string, tenantId: string, userId: string, role: EnvRole): AtomicWrite;
  /** Sets the membership's SCIM resource, and `suspended` when it is not active (rules `tenant_live`, `member`). */
  scimWrite(saasId: string, tenantId: string, userId: string, resource: Record<string, unknown>): AtomicWrite;
  /** Rules: `tenant_live`, `member`. */
  removeWrite(saasId: string, tenantId: string, userId: string): AtomicWrite;
  saveUserCounts(saasId: string, counts: readonly TenantUserCount[], at: number): Promise<void>;
  userCounts(saasId: string): Promise<StoredUserCount[]>;
}

interface UserMemberships {
  user: UserRecord;
  members: { member: Member; tenant: TenantRecord }[];
}

/** The SaaS's envs and roles, to name the roles a membership or an invitation holds. */
export interface Catalog {
  envs: Map<number, Env>;
  roles: Map<string, Role>;
}

export async function loadCatalog(definitions: DefinitionRepository, saasId: string): Promise<Catalog> {
  const [envs, roles] = await Promise.all([definitions.listEnvs(saasId), definitions.listRoles(saasId)]);
  return { envs: new Map(envs.map((e) => [e.id, e])), roles: new Map(roles.map((r) => [r.role_name, r])) };
}

/** The error for a membership write refused by `rule`. */
export function membershipRefusal(rule: string, ids: { tenantId: string; userId: string }): DomainError {
  const [name, detail] = rule.split(/:(.*)/s) as [string, string | undefined];
  switch (name) {
    case RULE.tenantLive:
      return tenantNotFound(ids.tenantId);
    case RULE.userLive:
      return userNotFound(ids.userId);
    case RULE.notMember:
      return alreadyExists('user_already_member', `user ${ids.userId} already belongs to tenant ${ids.tenantId}`);
    case RULE.member:
      return notFound('user_not_found', `user ${ids.userId} is not a member of tenant ${ids.tenantId}`);
    case RULE.roleAssigned:
      return notFound('role_not_assigned', `user ${ids.userId} does not hold that role in that env of tenant ${ids.tenantId}`);
    case RULE.envExists:
      return notFound('env_not_found', `no env with id ${detail}`);
    case RULE.roleExists:
      return invalid('role_not_found', `role_names: no role named '${detail}'`, { field: 'role_names' });
    default:
      return concurrentUpdate('membership');
  }
}

/** The roles of a membership, by env, as far as their definitions still exist. */
export function envsWithRoles(roles: readonly EnvRole[], catalog: Catalog): EnvWithRoles[] {
  const byEnv = new Map<number, Role[]>();
  for (const { env_id, role_name } of roles) {
    const role = catalog.roles.get(role_name);
    if (!catalog.envs.has(env_id) || !role) continue;
    byEnv.set(env_id, [...(byEnv.get(env_id) ?? []), role]);
  }
  return [...byEnv.entries()]
    .sort(([a], [b]) => a - b)
    .map(([id, envRoles]) => {
      const env = catalog.envs.get(id) as Env;
      return {
        id,
        name: env.name,
        display_name: env.display_name ?? '',
        roles: envRoles.sort((a, b) => a.role_name.localeCompare(b.role_name)).map((r) => ({ role_name: r.role_name, display_name: r.display_name })),
      };
    });
}

const memberAttributes = ({ user, membership }: ListedMember): AttributeValues => ({ ...user.attributes, ...membership.attributes });

function toTenantUser(member: ListedMember, tenant: TenantRecord, catalog: Catalog): TenantUser {
  return {
    id: member.user.id,
    tenant_id: tenant.id,
    tenant_name: tenant.name,
    email: member.user.email,
    sign_in_id: member.user.sign_in_id,
    attributes: memberAttributes(member),
    envs: envsWithRoles(member.membership.roles, catalog),
  };
}

function applyChanges(values: AttributeValues, changes: AttributeChanges): AttributeValues {
  const next = { ...values };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete next[name];
    else next[name] = value;
  }
  return next;
}

/** Whether the member holds a role (of that name) in an env (of that id), as far as their definitions still exist. */
function holdsRole(member: ListedMember, catalog: Catalog, envId: number | undefined, roleName: string | undefined): boolean {
  if (envId === undefined && roleName === undefined) return true;
  return member.membership.roles.some(
    (role) =>
      (envId === undefined || role.env_id === envId) &&
      (roleName === undefined || role.role_name === roleName) &&
      catalog.envs.has(role.env_id) &&
      catalog.roles.has(role.role_name),
  );
}

/** The members whose tenant is live, each with it. */
function withLiveTenant<M extends ListedMember>(members: readonly M[], tenants: Map<string, TenantRecord>): { member: M; tenant: TenantRecord }[] {
  return members.flatMap((member) => {
    const tenant = tenants.get(member.membership.tenant_id);
    return tenant ? [{ member, tenant }] : [];
  });
}

/** Create Tenant User's input: the user by one of their sign-in names, and the membership's attributes. */
export interface NewTenantUser {
  email?: string | null;
  sign_in_id?: string;
  attributes: AttributeValues;
}

export interface NewMembership {
  tenantId: string;
  userId: string;
  attributes?: AttributeValues;
  envs?: { id: number; role_names: readonly string[] }[];
  /** The same commit creates the user: SaaS-user attribute values then belong in the new user, not here. */
  userIsNew?: boolean;
  /** The same commit creates the tenant (marketplace sign-up). */
  tenantIsNew?: boolean;
}

export interface PreparedMembership {
  membership: MembershipRecord;
  /** The SaaS-user attribute values the membership's attributes carried, written to the user. */
  userAttributeChanges: AttributeChanges;
  /** Commit them together, alone (Create Tenant User) or with other writes (invitations, marketplace). */
  writes: AtomicWrite[];
}

export class TenantUserService {
  constructor(
    private readonly memberships: MembershipRepository,
    private readonly users: UserRepository,
    private readonly tenants: TenantRepository,
    private readonly definitions: DefinitionRepository,
    private readonly committer: Committer,
    private readonly cursors: Cursors,
  ) {}

  private catalog(saasId: string): Promise<Catalog> {
    return loadCatalog(this.definitions, saasId);
  }

  private async tenant(saasId: string, tenantId: string): Promise<TenantRecord> {
    const tenant = await this.tenants.get(saasId, tenantId);
    if (!tenant) throw tenantNotFound(tenantId);
    return tenant;
  }

  private async liveTenants(saasId: string): Promise<Map<string, TenantRecord>> {
    return new Map((await this.tenants.list(saasId)).map((t) => [t.id, t]));
  }

  /** The live tenants of these members, read one by one: a page names few, a SaaS may have many. */
  private async tenantsOf(saasId: string, members: readonly ListedMember[]): Promise<Map<string, TenantRecord>> {
    const ids = [...new Set(members.map((m) => m.membership.tenant_id))];
    const found = await Promise.all(ids.map((id) => this.tenants.get(saasId, id)));
    return new Map(found.flatMap((tenant) => (tenant ? [[tenant.id, tenant] as const] : [])));
  }

  /** Tenant users of the members whose tenant is live. */
  private render(members: readonly ListedMember[], tenants: Map<string, TenantRecord>, catalog: Catalog): TenantUser[] {
    return withLiveTenant(members, tenants).map(({ member, tenant }) => toTenantUser(member, tenant, catalog));
  }

  /** Checks the values against both kinds of user attribute and splits them: membership, user. */
  private async splitAttributes(saasId: string, changes: AttributeChanges): Promise<{ membership: AttributeChanges; user: AttributeChanges }> {
    if (Object.keys(changes).length === 0) return { membership: {}, user: {} };
    const [userKind, saasUserKind] = await Promise.all([
      this.definitions.listAttributes(saasId, 'user'),
      this.definitions.listAttributes(saasId, 'saas_user'),
    ]);
    checkAttributeChanges(changes, [...userKind, ...saasUserKind], 'user attribute');
    const saasUserNames = new Set(saasUserKind.map((d) => d.attribute_name));
    const entries = Object.entries(changes);
    return {
      membership: Object.fromEntries(entries.filter(([name]) => !saasUserNames.has(name))),
      user: Object.fromEntries(entries.filter(([name]) => saasUserNames.has(name))),
    };
  }

  private async commit(ids: { tenantId: string; userId: string }, writes: AtomicWrite[]): Promise<void> {
    const outcome = await this.committer.commit(...writes);
    if (!outcome.committed) throw membershipRefusal(outcome.refusedBy, ids);
  }

  /** A membership ready to commit, for Create Tenant User and for the flows that add members in their own commits. */
  async prepareMembership(saasId: string, input: NewMembership): Promise<PreparedMembership> {
    const split = await this.splitAttributes(saasId, input.attributes ?? {});
    const userChanges = Object.keys(split.user).length > 0;
    if (userChanges && input.userIsNew) {
      throw invalid('invalid_attribute', 'attributes: SaaS user attributes of a new user are set on the user, not the membership', {
        field: 'attributes',
      });
    }
    const roles = (input.envs ?? []).flatMap((env) => [...new Set(env.role_names)].map((role_name) => ({ env_id: env.id, role_name })));
    const membership: MembershipRecord = {
      tenant_id: input.tenantId,
      user_id: input.userId,
      attributes: split.membership as AttributeValues,
      roles,
      created_at: nowSeconds(),
    };
    const add = this.memberships.addWrite(saasId, membership, {
      userWrittenAlongside: Boolean(input.userIsNew) || userChanges,
      tenantWrittenAlongside: Boolean(input.tenantIsNew),
    });
    return {
      membership,
      userAttributeChanges: split.user,
      writes: userChanges ? [add, await this.users.attributesWrite(saasId, input.userId, split.user)] : [add],
    };
  }

  /** Adds a user to a tenant with roles, in a commit of its own. */
  async addMember(saasId: string, input: NewMembership): Promise<MembershipRecord> {
    const prepared = await this.prepareMembership(saasId, input);
    await this.commit({ tenantId: input.tenantId, userId: input.userId }, prepared.writes);
    return prepared.membership;
  }

  /** Adds an existing SaaS user, named by e-mail address or sign-in ID, to the tenant. */
  async create(saasId: string, tenantId: string, input: NewTenantUser): Promise<TenantUser> {
    const login = loginFromRequest(input);
    const [tenant, user, catalog] = await Promise.all([this.tenant(saasId, tenantId), this.users.findByLogin(saasId, login), this.catalog(saasId)]);
    if (!user) {
      throw notFound('user_not_found', `no user with ${login.kind === 'email' ? 'e-mail address' : 'sign-in ID'} ${login.value}`);
    }
    const prepared = await this.prepareMembership(saasId, { tenantId, userId: user.id, attributes: input.attributes });
    await this.commit({ tenantId, userId: user.id }, prepared.writes);
    const updatedUser = { ...user, attributes: applyChanges(user.attributes, prepared.userAttributeChanges) };
    const member = { membership: prepared.membership, user: updatedUser };
    return toTenantUser(member, tenant, catalog);
  }

  async get(saasId: string, tenantId: string, userId: string): Promise<TenantUser> {
    const [tenant, member, catalog] = await Promise.all([
      this.tenant(saasId, tenantId),
      this.memberships.get(saasId, tenantId, userId),
      this.catalog(saasId),
    ]);
    if (!member) throw membershipRefusal(RULE.member, { tenantId, userId });
    return toTenantUser(member, tenant, catalog);
  }

  /**
   * Every membership of the SaaS: a user in two tenants appears twice. Grouped by tenant (in the tenant list's
   * order, each tenant's members as the directory reads them), so that a compressed answer finds a tenant's id
   * and name within gzip's window: about 30 bytes a membership instead of 51 in user order, which is what lets
   * 100 000 memberships pass Lambda's 6 MB (docs/deployment-shape.md, "Unpaged lists").
   */
  async list(saasId: string): Promise<TenantUser[]> {
    const [members, tenants, catalog] = await Promise.all([this.memberships.everyMember(saasId), this.liveTenants(saasId), this.catalog(saasId)]);
    const byTenant = new Map<string, ListedMember[]>();
    for (const member of members) {
      const tenantId = member.membership.tenant_id;
      const group = byTenant.get(tenantId);
      if (group) group.push(member);
      else byTenant.set(tenantId, [member]);
    }
    return [...tenants.values()].flatMap((tenant) => (byTenant.get(tenant.id) ?? []).map((member) => toTenantUser(member, tenant, catalog)));
  }

  async listTenant(saasId: string, tenantId: string): Promise<TenantUser[]> {
    const [tenant, members, catalog] = await Promise.all([
      this.tenant(saasId, tenantId),
      collect(this.memberships.directory(saasId, { tenantId })),
      this.catalog(saasId),
    ]);
    return members.map((m) => toTenantUser(m, tenant, catalog));
  }

  /** The user's memberships with their tenants, or undefined when there is no such user. */
  private async membershipsOf(saasId: string, userId: string): Promise<UserMemberships | undefined> {
    const user = await this.users.get(saasId, userId);
    if (!user) return undefined;
    const members = await this.memberships.ofUser(saasId, user);
    return { user, members: withLiveTenant(members, await this.tenantsOf(saasId, members)) };
  }

  /**
   * Whether a tenant the user belongs to requires passkeys (the tenant's `passkeys_required`, issue 43): the
   * user's memberships and their tenants, read at a password sign-in of a SaaS that has passkeys on.
   */
  async requiresPasskey(saasId: string, user: UserRecord): Promise<boolean> {
    const members = await this.memberships.ofUser(saasId, user);
    if (members.length === 0) return false;
    return withLiveTenant(members, await this.tenantsOf(saasId, members)).some(({ tenant }) => tenant.passkeys_required === true);
  }

  /** Get User Info: every membership of one user. */
  async userTenants(saasId: string, userId: string): Promise<TenantUser[]> {
    const [found, catalog] = await Promise.all([this.membershipsOf(saasId, userId), this.catalog(saasId)]);
    if (!found) throw userNotFound(userId);
    return found.members.map(({ member, tenant }) => toTenantUser(member, tenant, catalog));
  }

  /** Get User Info by E-mail: the e-mail user with that address (any case), with every tenant they belong to. */
  async userInfoByEmail(saasId: string, email: string): Promise<UserInfo> {
    const login = loginFromUsername(email);
    const user = login?.kind === 'email' ? await this.users.findByLogin(saasId, login) : undefined;
    const info = user && (await this.userInfo(saasId, user.id));
    if (!info) throw notFound('user_not_found', 'email: no user signs in with this e-mail address');
    return info;
  }

  /** Get User Info by Sign-In ID: the twin of the e-mail lookup (an e-mail address here finds nobody). */
  async userInfoBySignInId(saasId: string, signInId: string): Promise<UserInfo> {
    const login = loginFromUsername(signInId);
    const user = login?.kind === 'sign_in_id' ? await this.users.findByLogin(saasId, login) : undefined;
    const info = user && (await this.userInfo(saasId, user.id));
    if (!info) throw notFound('user_not_found', 'sign_in_id: no user signs in with this sign-in ID');
    return info;
  }

  /** The user with every tenant they belong to (Delete User's answer). */
  async userInfo(saasId: string, userId: string): Promise<UserInfo | undefined> {
    return (await this.userInfoAndSession(saasId, userId)).info;
  }

  /**
   * The same with the user's current session (undefined for both when the user is gone): sign-in's `/userinfo`,
   * which checks its token against it, passes `liveOnly`: a membership a tenant's directory suspended (SCIM's
   * `active: false`) is then left out, so the application no longer lets them into that tenant.
   */
  async userInfoAndSession(saasId: string, userId: string, liveOnly = false): Promise<{ info?: UserInfo; session?: UserSession }> {
    const [found, catalog] = await Promise.all([this.membershipsOf(saasId, userId), this.catalog(saasId)]);
    if (!found) return {};
    const { user } = found;
    const members = liveOnly ? found.members.filter(({ member }) => !member.membership.suspended) : found.members;
    return {
      session: sessionOf(user),
      info: {
        id: user.id,
        email: user.email,
        sign_in_id: user.sign_in_id,
        user_attribute: user.attributes,
        tenants: members.map(({ member, tenant }) => ({
          id: tenant.id,
          name: tenant.name,
          // Tenants are created through the API, complete from the start.
          completed_sign_up: true,
          envs: envsWithRoles(member.membership.roles, catalog),
          user_attribute: memberAttributes(member),
          back_office_staff_email: tenant.back_office_staff_email,
          // Left out without a plan, as the SaaSus schema has it: an empty id would be taken for a plan to look up.
          ...(tenant.plan_id ? { plan_id: tenant.plan_id } : {}),
          is_paid: Boolean(tenant.plan_id && tenant.payment_customer),
        })),
      },
    };
  }

  async search(saasId: string, query: TenantUserSearch): Promise<{ users: TenantUser[]; cursor?: string }> {
    const filter: MemberFilter = { ...userFilter(query), ...(query.tenant_id ? { tenantId: query.tenant_id.toLowerCase() } : {}) };
    const roleName = query.role_name || undefined;
    const catalog = await this.catalog(saasId);
    const wanted = (m: ListedMember) =>
      (filter.tenantId === undefined || m.membership.tenant_id === filter.tenantId) &&
      matchesUserFilter(m.user, filter) &&
      holdsRole(m, catalog, query.env_id, roleName);
    const source = this.memberships.directory(saasId, filter);
    const scope = `${saasId}\ntenant-users\n${JSON.stringify({ filter, env: query.env_id ?? null, roleName: roleName ?? null })}`;
    const page = await readPage(source, { cursors: this.cursors, scope }, query.cursor || undefined, query.limit ?? MAX_PAGE_SIZE, wanted);
    // A tenant being deleted still has memberships until its deletion ends; its members are left out.
    const users = this.render(page.items, await this.tenantsOf(saasId, page.items), catalog);
    return { users, ...(page.cursor ? { cursor: page.cursor } : {}) };
  }

  async updateAttributes(saasId: string, tenantId: string, userId: string, changes: AttributeChanges): Promise<void> {
    const split = await this.splitAttributes(saasId, changes);
    const writes = [this.memberships.attributesWrite(saasId, tenantId, userId, split.membership)];
    if (Object.keys(split.user).length > 0) writes.push(await this.users.attributesWrite(saasId, userId, split.user));
    await this.commit({ tenantId, userId }, writes);
  }

  /** Ends the membership, and with it every role the user held in the tenant. */
  async remove(saasId: string, tenantId: string, userId: string): Promise<void> {
    await this.commit({ tenantId, userId }, [this.memberships.removeWrite(saasId, tenantId, userId)]);
  }

  /** Assigning a role the member already holds changes nothing. */
  async addRoles(saasId: string, tenantId: string, userId: string, envId: number, roleNames: readonly string[]): Promise<void> {
    await this.commit({ tenantId, userId }, [this.memberships.addRolesWrite(saasId, tenantId, userId, envId, [...new Set(roleNames)])]);
  }

  async removeRole(saasId: string, tenantId: string, userId: string, envId: number, roleName: string): Promise<void> {
    const role = { env_id: envId, role_name: roleName };
    await this.commit({ tenantId, userId }, [this.memberships.removeRoleWrite(saasId, tenantId, userId, role)]);
  }

  /** The user counts the SaaS reports per tenant; every tenant must exist, or nothing is stored. */
  async saveUserCounts(saasId: string, counts: readonly TenantUserCount[]): Promise<void> {
    const tenants = await this.liveTenants(saasId);
    const seen = new Set<string>();
    counts.forEach(({ tenant_id }, i) => {
      const field = `tenant_user_counts.${i}.tenant_id`;
      if (seen.has(tenant_id)) throw invalid('invalid_parameter', `${field}: ${tenant_id} appears more than once`, { field });
      if (!tenants.has(tenant_id)) throw invalid('tenant_not_found', `${field}: no tenant with id ${tenant_id}`, { field });
      seen.add(tenant_id);
    });
    await this.memberships.saveUserCounts(saasId, counts, nowSeconds());
  }

  async userCounts(saasId: string): Promise<StoredUserCount[]> {
    const [counts, tenants] = await Promise.all([this.memberships.userCounts(saasId), this.liveTenants(saasId)]);
    return counts.filter((c) => tenants.has(c.tenant_id));
  }
}
