/**
 * SCIM's Users and Groups of one tenant (RFC 7644 §3), over the same users, memberships and roles the SaaSus API
 * manages: a SCIM user is a user of the SaaS and a member of the tenant, and what the directory sent is kept on
 * the membership (its `scim`), so it goes with the membership, the user and the tenant. A SCIM group is a role of
 * the SaaS pushed to this tenant: its members hold that role in the tenant (in the SaaS's first env).
 *
 * `active: false` suspends the membership; when no other membership of the user is live, the user is disabled:
 * sign-in refuses them and their sessions and refresh tokens end (users.ts, `disabled`). One tenant's directory
 * never disables a user another tenant still has. DELETE ends the membership, and the user with it when they
 * belong to no other tenant.
 */
import type { Filter } from 'scim2-parse-filter';
import type { ScimPatchOperation } from 'scim-patch';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import type { DefinitionRepository } from '../configuration/definitions.js';
import { loadCatalog, type Member, type MembershipRecord, type MembershipRepository } from '../tenants/tenant-users.js';
import { emailLogin, signInIdLogin, type Login, type PreparedUser, type UserRecord, type UserRepository } from '../users/users.js';
import { nowSeconds } from '../../clock.js';
import { DomainError } from '../../errors.js';
import {
  equalityOn,
  listResponse,
  matcher,
  patched,
  patchOperations,
  scimBoolean,
  scimConflict,
  scimFilter,
  scimInvalid,
  scimNotFound,
  SCHEMA,
  type Paging,
} from './scim-protocol.js';
import type { ScimGroupRecord, ScimRepository } from './scim-tokens.js';

export type Resource = Record<string, unknown>;

export interface ScimDirectoryDeps {
  scim: ScimRepository;
  users: UserRepository;
  memberships: MembershipRepository;
  definitions: DefinitionRepository;
  committer: Committer;
  /** The tenant's members as a paged read's first page read them (store/recent.ts's Recent fits). */
  snapshots: MemberSnapshots;
  /** A new user with a password of their own that nobody is told (they sign in through their IdP), or `password`. */
  prepareUser(saasId: string, input: { email?: string; sign_in_id?: string; password?: string }): Promise<PreparedUser>;
}

/**
 * What a paged read of the users read first, kept a little while by this instance: the pages after it come from the
 * same read, so a directory's import sees one snapshot (no one skipped or seen twice when writes come between two
 * pages), and reading N users in pages costs one read of the tenant, not one per page.
 */
export interface MemberSnapshots {
  get(key: string, seconds: number, load: () => Promise<Listed[]>): Promise<Listed[]>;
  forget(key: string): void;
}

const SNAPSHOT_SECONDS = 60;
const snapshotKey = (saasId: string, tenantId: string) => `${saasId}\n${tenantId}`;

/** What a list call asks: the filter's text, paging, and whether members may be left out. */
export interface ScimQuery {
  filter?: string;
  paging: Paging;
  excludeMembers?: boolean;
}

/** Kept of a resource sent: what the service itself answers (id, meta, groups, members) and the password are not. */
const NOT_KEPT = new Set(['id', 'meta', 'schemas', 'groups', 'password', 'members']);
const MAX_RESOURCE_BYTES = 16_384;
const EMAIL_SHAPE = /@/;
const CONCURRENT_COMMITS = 8;
/** Members given a role in one transaction: 3 checks and 2 items each stay within DynamoDB's 100. */
const ROLE_BATCH = 48;

/** A member as lists read them: the user only for a member the directory never sent (no `scim` to answer from). */
export interface Listed {
  membership: MembershipRecord;
  user?: UserRecord;
}

const holds = (m: Listed, group: ScimGroupRecord) => m.membership.roles.some((r) => r.env_id === group.env_id && r.role_name === group.role_name);

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The body a client sent, as kept: unknown extension schemas and all, under a size bound; `active` a boolean. */
function keptUser(body: unknown): Resource {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw scimInvalid('invalidSyntax', 'the body must be a JSON object');
  const kept: Resource = {};
  for (const [name, value] of Object.entries(body)) {
    if (NOT_KEPT.has(name.toLowerCase())) continue;
    // Names are case-insensitive: one spelling is kept, the schema's.
    const canonical = name.toLowerCase() === 'username' ? 'userName' : name.toLowerCase() === 'active' ? 'active' : name;
    kept[canonical] = value;
  }
  if (typeof kept.userName !== 'string' || kept.userName.trim() === '') throw scimInvalid('invalidValue', 'userName: is required');
  kept.userName = kept.userName.trim();
  kept.active = kept.active === undefined ? true : scimBoolean(kept.active, 'active');
  if (JSON.stringify(kept).length > MAX_RESOURCE_BYTES) throw scimInvalid('invalidValue', `the resource is larger than ${MAX_RESOURCE_BYTES} bytes`);
  return kept;
}

/** userName is the sign-in name: an e-mail address, else a sign-in ID. */
function loginOfUserName(userName: string): Login {
  try {
    return EMAIL_SHAPE.test(userName) ? emailLogin(userName) : signInIdLogin(userName);
  } catch (error) {
    throw scimInvalid('invalidValue', `userName: ${error instanceof DomainError ? error.message : 'is not a sign-in name'}`);
  }
}

const sameName = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

/** Runs the tasks a few at a time: each is a transaction of its own (one member, one role). */
async function inTurn<T>(items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_COMMITS, items.length) }, worker));
}

export class ScimDirectory {
  constructor(private readonly deps: ScimDirectoryDeps) {}

  private async commit(...writes: AtomicWrite[]): Promise<string | undefined> {
    const outcome = await this.deps.committer.commit(...writes);
    return outcome.committed ? undefined : outcome.refusedBy;
  }

  /** The user as SCIM answers it: what the directory sent, or for a member it never sent, what the service knows. */
  private userResource(member: Listed, groups: readonly ScimGroupRecord[], base: string): Resource {
    const { user, membership } = member;
    const kept = membership.scim ?? {
      userName: user?.email || user?.sign_in_id,
      active: true,
      ...(user?.email ? { emails: [{ value: user.email, type: 'work', primary: true }] } : {}),
    };
    const held = groups.filter((g) => holds(member, g));
    const id = membership.user_id;
    return {
      schemas: [SCHEMA.user],
      ...kept,
      id,
      groups: held.map((g) => ({ value: g.role_name, display: g.display_name, $ref: `${base}/Groups/${encodeURIComponent(g.role_name)}` })),
      meta: { resourceType: 'User', created: iso(membership.created_at), location: `${base}/Users/${id}` },
    };
  }

  private async member(saasId: string, tenantId: string, userId: string): Promise<Member> {
    const member = await this.deps.memberships.get(saasId, tenantId, userId);
    if (!member) throw scimNotFound('User', userId);
    return member;
  }

  async getUser(saasId: string, tenantId: string, userId: string, base: string): Promise<Resource> {
    const [member, groups] = await Promise.all([this.member(saasId, tenantId, userId), this.deps.scim.groups(saasId, tenantId)]);
    return this.userResource(member, groups, base);
  }

  async listUsers(saasId: string, tenantId: string, query: ScimQuery, base: string) {
    const filter = scimFilter(query.filter);
    const userName = equalityOn(filter, 'userName');
    let members: Listed[];
    if (userName !== undefined) {
      const member = await this.memberNamed(saasId, tenantId, userName);
      members = member ? [member] : [];
    } else {
      // A first page (startIndex 1) reads afresh; the pages after it read what it read.
      const key = snapshotKey(saasId, tenantId);
      if (query.paging.startIndex === 1) this.deps.snapshots.forget(key);
      members = await this.deps.snapshots.get(key, SNAPSHOT_SECONDS, () => this.listed(saasId, tenantId));
    }
    // Nobody found (every user's first lookup): no group to name.
    const groups = members.length > 0 ? await this.deps.scim.groups(saasId, tenantId) : [];
    // userName is not case-exact (RFC 7643 §4.1.1): the lookup, which ignores case, was the filter.
    const wanted = userName === undefined ? matcher(filter) : () => true;
    return listResponse(members.map((m) => this.userResource(m, groups, base)).filter(wanted), query.paging);
  }

  /**
   * The lookup every client makes before it creates someone: the name's owner item alone, which for a name nobody
   * holds (each user of an initial sync) is the whole answer; for a holder, their membership and profile.
   */
  private async memberNamed(saasId: string, tenantId: string, userName: string): Promise<Member | undefined> {
    let login: Login;
    try {
      login = loginOfUserName(userName);
    } catch {
      // A name no user could hold finds nobody.
      return undefined;
    }
    const userId = await this.deps.users.loginOwner(saasId, login);
    const member = userId === undefined ? undefined : await this.deps.memberships.get(saasId, tenantId, userId);
    // The profile still holds the name (as findByLogin checks): an owner item a change of name left behind finds nobody.
    return member && sameName(login.kind === 'email' ? member.user.email : member.user.sign_in_id, login.value) ? member : undefined;
  }

  /**
   * Every member of the tenant from its partition alone; users are read only for members the directory never sent
   * (a tenant whose members all came through SCIM costs one query, whatever its size).
   */
  private async listed(saasId: string, tenantId: string): Promise<Listed[]> {
    const memberships = await this.deps.memberships.ofTenant(saasId, tenantId);
    const unsent = memberships.filter((m) => !m.scim).map((m) => m.user_id);
    const users = unsent.length > 0 ? await this.deps.users.getMany(saasId, unsent) : new Map<string, UserRecord>();
    return memberships.flatMap((membership) => {
      if (membership.scim) return [{ membership }];
      const user = users.get(membership.user_id);
      return user ? [{ membership, user }] : [];
    });
  }

  /**
   * The user's `disabled` after this membership becomes `active` or not: set when no membership of theirs is live
   * any more, cleared when one is. Undefined when it stays as it is.
   */
  private async disabledChange(saasId: string, tenantId: string, user: UserRecord, active: boolean): Promise<AtomicWrite | undefined> {
    const others = active ? [] : (await this.deps.memberships.ofUser(saasId, user)).filter((m) => m.membership.tenant_id !== tenantId);
    const live = active || others.some((m) => !m.membership.suspended);
    if (live === !user.disabled) return undefined;
    return this.deps.users.disabledWrite(saasId, user.id, !live);
  }

  async createUser(saasId: string, tenantId: string, body: unknown, base: string): Promise<Resource> {
    const kept = keptUser(body);
    this.deps.snapshots.forget(snapshotKey(saasId, tenantId));
    const login = loginOfUserName(kept.userName as string);
    const membership = {
      tenant_id: tenantId,
      attributes: {},
      roles: [],
      created_at: nowSeconds(),
      scim: kept,
      ...(kept.active === false ? { suspended: true as const } : {}),
    };
    // Most names are new (every user of an initial sync): the create is tried first, its login_free rule the
    // check; only a name already held costs the lookup.
    const password = (body as { password?: unknown }).password;
    const created = await this.createNew(saasId, { kept, login, membership, password }, base);
    if (created) return created;
    // Someone the SaaS already has (another tenant's member, or invited by hand before SCIM was turned on).
    const existing = await this.deps.users.findByLogin(saasId, login);
    if (!existing) throw this.refusal(RULE.loginFree, kept.userName as string);
    const userId = existing.id;
    const member = await this.deps.memberships.get(saasId, tenantId, userId);
    if (member?.membership.scim) throw scimConflict(`userName: ${kept.userName as string} is already provisioned in this tenant`);
    const write = member
      ? this.deps.memberships.scimWrite(saasId, tenantId, userId, kept)
      : this.deps.memberships.addWrite(saasId, { ...membership, user_id: userId }, { userWrittenAlongside: false });
    const change = await this.disabledChange(saasId, tenantId, existing, kept.active as boolean);
    const refused = await this.commit(write, ...(change ? [change] : []));
    if (refused) throw this.refusal(refused, kept.userName as string);
    return this.getUser(saasId, tenantId, userId, base);
  }

  /** A new user and their membership in one transaction; undefined when the name is already held. */
  private async createNew(
    saasId: string,
    { kept, login, membership, password }: { kept: Resource; login: Login; membership: Omit<MembershipRecord, 'user_id'>; password: unknown },
    base: string,
  ): Promise<Resource | undefined> {
    let prepared: PreparedUser;
    try {
      prepared = await this.deps.prepareUser(saasId, {
        ...(login.kind === 'email' ? { email: kept.userName as string } : { sign_in_id: kept.userName as string }),
        ...(typeof password === 'string' ? { password } : {}),
      });
    } catch (error) {
      // A password the policy refuses matters only to a new user: one the SaaS already has keeps their own.
      if (error instanceof DomainError && (await this.deps.users.loginOwner(saasId, login)) !== undefined) return undefined;
      throw error;
    }
    const userId = prepared.user.id;
    const add = this.deps.memberships.addWrite(saasId, { ...membership, user_id: userId }, { userWrittenAlongside: true });
    const refused = await this.commit(prepared.write, add);
    if (refused === RULE.loginFree) return undefined;
    if (refused) throw this.refusal(refused, kept.userName as string);
    // A user provisioned inactive: disabled at once (a second write, as the new profile is the first's).
    if (kept.active === false) await this.commit(this.deps.users.disabledWrite(saasId, userId, true));
    // What was just written, answered without reading it back: a new member holds no role, so is in no group.
    return this.userResource({ user: prepared.user, membership: { ...membership, user_id: userId } }, [], base);
  }

  private refusal(rule: string, userName: string): DomainError {
    if (rule === RULE.loginFree || rule === RULE.notMember) return scimConflict(`userName: ${userName} is already provisioned`);
    if (rule === RULE.tenantLive) return scimNotFound('Tenant', '');
    return new DomainError('conflict', 'concurrent_update', 'the user changed at the same time; try again');
  }

  /** PUT: the resource replaced by the body; userName stays the sign-in name it was. */
  async replaceUser(saasId: string, tenantId: string, userId: string, body: unknown, base: string): Promise<Resource> {
    return this.updateUser(saasId, tenantId, userId, () => keptUser(body), base);
  }

  /** PATCH (RFC 7644 §3.5.2), with Okta's and Entra's spellings. */
  async patchUser(saasId: string, tenantId: string, userId: string, body: unknown, base: string): Promise<Resource> {
    const operations = patchOperations(body);
    return this.updateUser(saasId, tenantId, userId, (current) => keptUser(patched(current, operations)), base);
  }

  private async updateUser(saasId: string, tenantId: string, userId: string, change: (current: Resource) => Resource, base: string) {
    const member = await this.member(saasId, tenantId, userId);
    this.deps.snapshots.forget(snapshotKey(saasId, tenantId));
    const current = this.userResource(member, [], base);
    delete current.groups;
    const next = change(current);
    if (!sameName(next.userName, current.userName)) {
      throw scimInvalid('mutability', 'userName: is the sign-in name and cannot be changed through SCIM; change it through the API');
    }
    next.userName = current.userName;
    const wasActive = current.active !== false;
    const active = next.active as boolean;
    const disabled = active === wasActive ? undefined : await this.disabledChange(saasId, tenantId, member.user, active);
    const refused = await this.commit(this.deps.memberships.scimWrite(saasId, tenantId, userId, next), ...(disabled ? [disabled] : []));
    if (refused === RULE.member || refused === RULE.tenantLive) throw scimNotFound('User', userId);
    if (refused) throw this.refusal(refused, next.userName as string);
    return this.getUser(saasId, tenantId, userId, base);
  }

  /** Ends the membership; a user left in no tenant is deleted, as nobody could reach them any more. */
  async deleteUser(saasId: string, tenantId: string, userId: string): Promise<void> {
    const member = await this.member(saasId, tenantId, userId);
    this.deps.snapshots.forget(snapshotKey(saasId, tenantId));
    const refused = await this.commit(this.deps.memberships.removeWrite(saasId, tenantId, userId));
    if (refused) throw scimNotFound('User', userId);
    if ((await this.deps.memberships.ofUser(saasId, member.user)).length === 0) await this.deps.users.delete(saasId, userId);
    else if (member.user.disabled) {
      // The suspended membership may have been all that kept them out; the others decide now.
      const change = await this.disabledChange(saasId, tenantId, member.user, false);
      if (change) await this.commit(change);
    }
  }

  // Groups.

  private groupResource(group: ScimGroupRecord, members: readonly Listed[] | undefined, base: string): Resource {
    return {
      schemas: [SCHEMA.group],
      id: group.role_name,
      displayName: group.display_name,
      ...(group.external_id !== undefined ? { externalId: group.external_id } : {}),
      ...(members
        ? {
            members: members
              .filter((m) => holds(m, group))
              .map((m) => ({
                value: m.membership.user_id,
                display: (m.membership.scim?.userName as string | undefined) ?? (m.user?.email || m.user?.sign_in_id),
                $ref: `${base}/Users/${m.membership.user_id}`,
              })),
          }
        : {}),
      meta: { resourceType: 'Group', created: iso(group.created_at), location: `${base}/Groups/${encodeURIComponent(group.role_name)}` },
    };
  }

  private async group(saasId: string, tenantId: string, groupId: string): Promise<ScimGroupRecord> {
    const group = await this.deps.scim.group(saasId, tenantId, groupId);
    if (!group) throw scimNotFound('Group', groupId);
    return group;
  }

  async getGroup(saasId: string, tenantId: string, groupId: string, excludeMembers: boolean, base: string): Promise<Resource> {
    const group = await this.group(saasId, tenantId, groupId);
    return this.groupResource(group, excludeMembers ? undefined : await this.listed(saasId, tenantId), base);
  }

  async listGroups(saasId: string, tenantId: string, query: ScimQuery, base: string) {
    const filter: Filter | undefined = scimFilter(query.filter);
    const [groups, members] = await Promise.all([
      this.deps.scim.groups(saasId, tenantId),
      query.excludeMembers ? undefined : this.listed(saasId, tenantId),
    ]);
    const wanted = matcher(filter);
    return listResponse(groups.map((g) => this.groupResource(g, members, base)).filter(wanted), query.paging);
  }

  /**
   * A group is a role the SaaS defined, named by its role name or display name: a tenant's directory chooses who
   * holds the SaaS's roles, never what the roles are (they are the same for every tenant).
   */
  async createGroup(saasId: string, tenantId: string, body: unknown, base: string): Promise<Resource> {
    const b = (body ?? {}) as { displayName?: unknown; externalId?: unknown; members?: unknown };
    if (typeof b.displayName !== 'string' || b.displayName.trim() === '') throw scimInvalid('invalidValue', 'displayName: is required');
    const catalog = await loadCatalog(this.deps.definitions, saasId);
    const wanted = b.displayName.trim().toLowerCase();
    const role = [...catalog.roles.values()].find((r) => r.role_name.toLowerCase() === wanted || r.display_name.toLowerCase() === wanted);
    if (!role) throw scimInvalid('invalidValue', `displayName: the SaaS has no role named ${b.displayName}; a group maps to one of its roles`);
    const envId = Math.min(...catalog.envs.keys());
    if (!Number.isFinite(envId)) throw scimInvalid('invalidValue', 'the SaaS has no env to hold roles in');
    const group: ScimGroupRecord = {
      role_name: role.role_name,
      display_name: b.displayName.trim(),
      ...(typeof b.externalId === 'string' ? { external_id: b.externalId } : {}),
      env_id: envId,
      created_at: nowSeconds(),
    };
    const refused = await this.commit(this.deps.scim.groupCreateWrite(saasId, tenantId, group));
    if (refused === 'group_free') throw scimConflict(`displayName: the role ${role.role_name} is already a group of this tenant`);
    if (refused) throw scimInvalid('invalidValue', `displayName: the role ${role.role_name} cannot be used (${refused})`);
    const members = memberIds(b.members, 'members');
    await this.addMembers(saasId, tenantId, group, members);
    // Without members (as Okta and Entra create groups) the answer needs no read of the tenant.
    return members.length > 0 ? this.getGroup(saasId, tenantId, group.role_name, false, base) : this.groupResource(group, [], base);
  }

  /**
   * The role to these members, ROLE_BATCH to a transaction; a batch refused because one is not a member is tried
   * member by member, to name who is not.
   */
  private async addMembers(saasId: string, tenantId: string, group: ScimGroupRecord, userIds: readonly string[]): Promise<void> {
    this.deps.snapshots.forget(snapshotKey(saasId, tenantId));
    const unknown: string[] = [];
    const role = { env_id: group.env_id, role_name: group.role_name };
    const one = async (userId: string) => {
      const refused = await this.commit(this.deps.memberships.addRolesWrite(saasId, tenantId, userId, group.env_id, [group.role_name]));
      if (refused === RULE.member) unknown.push(userId);
      else if (refused) throw scimInvalid('invalidValue', `members: the role cannot be given (${refused})`);
    };
    const batches: string[][] = [];
    const distinct = [...new Set(userIds)];
    for (let i = 0; i < distinct.length; i += ROLE_BATCH) batches.push(distinct.slice(i, i + ROLE_BATCH));
    await inTurn(batches, async (batch) => {
      const refused = await this.commit(this.deps.memberships.addRoleToMembersWrite(saasId, tenantId, batch, role));
      if (refused === RULE.member) for (const userId of batch) await one(userId);
      else if (refused) throw scimInvalid('invalidValue', `members: the role cannot be given (${refused})`);
    });
    if (unknown.length > 0) throw scimInvalid('invalidValue', `members: not users of this tenant: ${unknown.slice(0, 10).join(', ')}`);
  }

  private async removeMembers(saasId: string, tenantId: string, group: ScimGroupRecord, userIds: readonly string[]): Promise<void> {
    this.deps.snapshots.forget(snapshotKey(saasId, tenantId));
    const role = { env_id: group.env_id, role_name: group.role_name };
    // Removing someone who is not a member (any more) changes nothing, as a retried PATCH must.
    await inTurn(userIds, async (userId) => void (await this.commit(this.deps.memberships.removeRoleWrite(saasId, tenantId, userId, role))));
  }

  private async holders(saasId: string, tenantId: string, group: ScimGroupRecord): Promise<string[]> {
    return (await this.deps.memberships.ofTenant(saasId, tenantId)).filter((membership) => holds({ membership }, group)).map((m) => m.user_id);
  }

  private async setMembers(saasId: string, tenantId: string, group: ScimGroupRecord, userIds: readonly string[]): Promise<void> {
    const now = new Set(await this.holders(saasId, tenantId, group));
    const wanted = new Set(userIds);
    await this.removeMembers(
      saasId,
      tenantId,
      group,
      [...now].filter((id) => !wanted.has(id)),
    );
    await this.addMembers(
      saasId,
      tenantId,
      group,
      [...wanted].filter((id) => !now.has(id)),
    );
  }

  private async saveGroupNames(saasId: string, tenantId: string, group: ScimGroupRecord, next: Resource): Promise<void> {
    if (typeof next.displayName !== 'string' || next.displayName.trim() === '') throw scimInvalid('invalidValue', 'displayName: is required');
    const externalId = typeof next.externalId === 'string' ? next.externalId : undefined;
    if (next.displayName === group.display_name && externalId === group.external_id) return;
    const { external_id: _old, ...rest } = group;
    const saved = { ...rest, display_name: next.displayName, ...(externalId !== undefined ? { external_id: externalId } : {}) };
    if (await this.commit(this.deps.scim.groupUpdateWrite(saasId, tenantId, saved))) throw scimNotFound('Group', group.role_name);
  }

  /**
   * Member operations are applied one member at a time (each a transaction: the role, the membership); the names
   * through `scim-patch` on the group without its members, so a PATCH never reads the whole tenant unless it
   * replaces or clears the members.
   */
  async patchGroup(saasId: string, tenantId: string, groupId: string, body: unknown): Promise<void> {
    const operations = patchOperations(body);
    const group = await this.group(saasId, tenantId, groupId);
    const names: ScimPatchOperation[] = [];
    for (const [i, op] of operations.entries()) {
      const target = memberTarget(op.path);
      if (target === undefined) {
        names.push(withoutMembers(op));
        continue;
      }
      const value = (op as { value?: unknown }).value;
      if (op.op === 'add') await this.addMembers(saasId, tenantId, group, memberIds(value, `Operations.${i}.value`));
      else if (op.op === 'replace') await this.setMembers(saasId, tenantId, group, memberIds(value, `Operations.${i}.value`));
      else if (target !== '') await this.removeMembers(saasId, tenantId, group, [target]);
      else if (value !== undefined) await this.removeMembers(saasId, tenantId, group, memberIds(value, `Operations.${i}.value`));
      else await this.removeMembers(saasId, tenantId, group, await this.holders(saasId, tenantId, group));
    }
    if (names.length === 0) return;
    const current: Resource = { displayName: group.display_name, ...(group.external_id !== undefined ? { externalId: group.external_id } : {}) };
    await this.saveGroupNames(saasId, tenantId, group, patched(current, names));
  }

  async replaceGroup(saasId: string, tenantId: string, groupId: string, body: unknown, base: string): Promise<Resource> {
    const group = await this.group(saasId, tenantId, groupId);
    const b = (body ?? {}) as Resource;
    await this.saveGroupNames(saasId, tenantId, group, b);
    if (b.members !== undefined) await this.setMembers(saasId, tenantId, group, memberIds(b.members, 'members'));
    return this.getGroup(saasId, tenantId, groupId, false, base);
  }

  /** The group goes, and with it the role from every member of this tenant; the role itself stays the SaaS's. */
  async deleteGroup(saasId: string, tenantId: string, groupId: string): Promise<void> {
    const group = await this.group(saasId, tenantId, groupId);
    await this.removeMembers(saasId, tenantId, group, await this.holders(saasId, tenantId, group));
    if (await this.commit(this.deps.scim.groupRemoveWrite(saasId, tenantId, groupId))) throw scimNotFound('Group', groupId);
  }
}

/** `[{value: "<user id>"}, …]`, as every client sends members. */
function memberIds(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((m, i) => {
    const id = (m as { value?: unknown } | null)?.value;
    if (typeof id !== 'string' || id === '') throw scimInvalid('invalidValue', `${field}.${i}.value: must be a user id`);
    return id;
  });
}

/**
 * Whether an operation's path is the members: '' for `members` itself, the user id for `members[value eq "id"]`
 * (Okta's removal), undefined for any other path.
 */
function memberTarget(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  if (/^members$/i.test(path)) return '';
  const valuePath = /^members\[(.*)\]$/i.exec(path);
  if (!valuePath) return undefined;
  const id = equalityOn(scimFilter(valuePath[1]), 'value');
  if (id === undefined) throw scimInvalid('invalidPath', `${path}: only members[value eq "<id>"] is supported`);
  return id;
}

/** A path-less operation (Entra: `{"op":"Replace","value":{"displayName":…}}`) may not carry members. */
function withoutMembers(op: ScimPatchOperation): ScimPatchOperation {
  const value = (op as { value?: unknown }).value;
  if (op.path === undefined && value && typeof value === 'object' && !Array.isArray(value) && 'members' in value) {
    throw scimInvalid('invalidPath', 'members: change them with path "members"');
  }
  return op;
}
