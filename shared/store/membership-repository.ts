import { GetCommand, type DynamoClient, type QueryInput } from './dynamo-client.js';
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import type { OrderedSource, Positioned } from '../domain/paging.js';
import type {
  EnvRole,
  ListedMember,
  Member,
  MemberFilter,
  MembershipRecord,
  MembershipRepository,
  StoredUserCount,
} from '../domain/tenants/tenant-users.js';
import type { AttributeChanges, UserFilter, UserRecord, UserSummary } from '../domain/users/users.js';
import type { TenantUserCount } from '../schemas/tenant-users.js';
import { batchGet, batchPut } from './batch.js';
import { ENTITY, INDEX_NAME, keys, type ItemKey } from './keys.js';
import { collect, indexQuery, partitionQuery, queryIndexAll, queryPages } from './query.js';
import { both, check, EXISTS, LIVE, putNew, remove, update, type Condition } from './transact.js';
import { Update } from './update.js';
import { projection, READ_PAGE, UUID, UUID_POSITION, type DynamoUserRepository } from './user-repository.js';

/** A role held in an env, as a member of the membership's string set: `<env id>#<role name>`. */
const roleMember = (role: EnvRole) => `${role.env_id}#${role.role_name}`;

function toRole(member: string): EnvRole {
  const split = member.indexOf('#');
  return { env_id: Number(member.slice(0, split)), role_name: member.slice(split + 1) };
}

function toMembership(item: Record<string, unknown>): MembershipRecord {
  return {
    tenant_id: item.tenant_id as string,
    user_id: item.user_id as string,
    attributes: (item.attributes ?? {}) as MembershipRecord['attributes'],
    roles: [...((item.roles as Set<string> | undefined) ?? [])]
      .map(toRole)
      .sort((a, b) => a.env_id - b.env_id || a.role_name.localeCompare(b.role_name)),
    created_at: item.created_at as number,
    ...(item.scim ? { scim: item.scim as Record<string, unknown> } : {}),
    ...(item.suspended ? { suspended: true as const } : {}),
  };
}

/**
 * The membership directory's sort keys begin with a user id, a random UUID: split at these first characters,
 * its ranges hold about as many memberships each, and read side by side they come back in order.
 */
const DIRECTORY_SPLITS = [...'123456789abcdef'];
const MEMBERSHIP_ATTRIBUTES = ['tenant_id', 'user_id', 'attributes', 'roles', 'created_at'];

/** A membership position in name order: the user's directory position, a space, the tenant id. */
const LOGIN_ORDER_POSITION = new RegExp(`^(.+) (${UUID})$`);
/** A position in gsi1's every-membership partition: user id, a space, tenant id. */
const MEMBERSHIP_DIRECTORY_POSITION = new RegExp(`^(${UUID}) (${UUID})$`);
/**
 * When the search goes by name, the memberships of a few users are read at once, more as the reading goes
 * on: a short page reads little, a long one waits less.
 */
const FIRST_GROUP = 4;
const LARGEST_GROUP = 32;

async function* inGrowingGroups<T>(items: AsyncIterable<T>): AsyncGenerator<T[]> {
  let size = FIRST_GROUP;
  let group: T[] = [];
  for await (const item of items) {
    group.push(item);
    if (group.length === size) {
      yield group;
      group = [];
      size = Math.min(size * 2, LARGEST_GROUP);
    }
  }
  if (group.length > 0) yield group;
}

/** A source that accepts positions matching `pattern` and reads with `read`. */
function source<T>(
  pattern: RegExp,
  read: (after: string | undefined) => AsyncIterable<Positioned<T>>,
  accepts?: (m: RegExpExecArray) => boolean,
): OrderedSource<T> {
  return {
    accepts: (position) => {
      const m = pattern.exec(position);
      return m !== null && (accepts?.(m) ?? true);
    },
    read,
  };
}

export class DynamoMembershipRepository implements MembershipRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
    private readonly users: DynamoUserRepository,
  ) {}

  addWrite(saasId: string, membership: MembershipRecord, options: { userWrittenAlongside: boolean; tenantWrittenAlongside?: boolean }): AtomicWrite {
    const { tenant_id: tenantId, user_id: userId } = membership;
    const tenantSide = keys.membership(saasId, tenantId, userId);
    const userSide = keys.userMembership(saasId, userId, tenantId);
    const data = {
      tenant_id: tenantId,
      user_id: userId,
      attributes: membership.attributes,
      created_at: membership.created_at,
      // DynamoDB stores no empty sets: a membership without roles has no attribute.
      ...(membership.roles.length > 0 ? { roles: new Set(membership.roles.map(roleMember)) } : {}),
      ...(membership.suspended ? { suspended: true } : {}),
    };
    const envIds = [...new Set(membership.roles.map((r) => r.env_id))];
    const roleNames = [...new Set(membership.roles.map((r) => r.role_name))];
    return atomicWrite(
      // A transaction may touch an item once: a tenant or user written alongside holds its own rule.
      ...(options.tenantWrittenAlongside ? [] : [check(this.table, keys.tenant(saasId, tenantId), LIVE, RULE.tenantLive)]),
      ...(options.userWrittenAlongside ? [] : [check(this.table, keys.userProfile(saasId, userId), LIVE, RULE.userLive)]),
      putNew(
        this.table,
        {
          ...tenantSide,
          ...keys.membershipDirectoryEntry(saasId, userId, tenantId),
          entity: ENTITY.membership,
          v: 1,
          ...data,
          // Only the tenant's side: SCIM reads the tenant's members, never a user's tenants.
          ...(membership.scim ? { scim: membership.scim } : {}),
          mirror: userSide,
        },
        RULE.notMember,
      ),
      putNew(this.table, { ...userSide, entity: ENTITY.userMembership, v: 1, ...data, mirror: tenantSide }, RULE.notMember),
      ...envIds.map((id) => check(this.table, keys.env(saasId, id), EXISTS, `${RULE.envExists}:${id}`)),
      ...roleNames.map((name) => check(this.table, keys.role(saasId, name), EXISTS, `${RULE.roleExists}:${name}`)),
    );
  }

  async get(saasId: string, tenantId: string, userId: string): Promise<Member | undefined> {
    const [out, user] = await Promise.all([
      this.db.send(new GetCommand({ TableName: this.table, Key: keys.membership(saasId, tenantId, userId), ConsistentRead: true })),
      this.users.get(saasId, userId),
    ]);
    return out.Item && user ? { membership: toMembership(out.Item), user } : undefined;
  }

  async present(saasId: string, pairs: readonly { tenantId: string; userId: string }[]): Promise<boolean[]> {
    const id = (key: ItemKey) => `${key.pk}\n${key.sk}`;
    /** The ids of the live ones of `wanted`, read many to a request (each key once). */
    const live = async (wanted: readonly ItemKey[]) =>
      new Set(
        (await batchGet(this.db, this.table, [...new Map(wanted.map((key) => [id(key), key])).values()]))
          .filter((item) => !item.deleting)
          .map((item) => id({ pk: item.pk as string, sk: item.sk as string })),
      );
    // The memberships first: only those found need their tenant and user read (an import's first run finds none,
    // and reads one key a membership where it read all three).
    const members = await live(pairs.map(({ tenantId, userId }) => keys.membership(saasId, tenantId, userId)));
    const found = pairs.filter(({ tenantId, userId }) => members.has(id(keys.membership(saasId, tenantId, userId))));
    const sides = found.length
      ? await live(found.flatMap(({ tenantId, userId }) => [keys.tenant(saasId, tenantId), keys.userProfile(saasId, userId)]))
      : new Set<string>();
    return pairs.map(
      ({ tenantId, userId }) =>
        members.has(id(keys.membership(saasId, tenantId, userId))) &&
        sides.has(id(keys.tenant(saasId, tenantId))) &&
        sides.has(id(keys.userProfile(saasId, userId))),
    );
  }

  /** The memberships of one query's pages, each joined with its user; those whose user is gone are left out. */
  private async *joined(saasId: string, input: QueryInput, position: (item: Record<string, unknown>) => string) {
    for await (const page of queryPages(this.db, { ...input, Limit: READ_PAGE })) {
      const users = await this.users.getMany(
        saasId,
        page.map((item) => item.user_id as string),
      );
      for (const item of page) {
        const user = users.get(item.user_id as string);
        if (user) yield { position: position(item), item: { membership: toMembership(item), user } };
      }
    }
  }

  async ofTenant(saasId: string, tenantId: string): Promise<MembershipRecord[]> {
    const items = await collect(
      queryPages(this.db, { ...partitionQuery(this.table, keys.tenantMemberships(saasId, tenantId)), ConsistentRead: true }),
    );
    return items.map(toMembership);
  }

  addRoleToMembersWrite(saasId: string, tenantId: string, userIds: readonly string[], role: EnvRole): AtomicWrite {
    const change = () => new Update().add('roles', new Set([roleMember(role)]));
    return atomicWrite(
      check(this.table, keys.tenant(saasId, tenantId), LIVE, RULE.tenantLive),
      check(this.table, keys.env(saasId, role.env_id), EXISTS, `${RULE.envExists}:${role.env_id}`),
      check(this.table, keys.role(saasId, role.role_name), EXISTS, `${RULE.roleExists}:${role.role_name}`),
      ...userIds.flatMap((userId) => [
        update(this.table, keys.userMembership(saasId, userId, tenantId), change(), EXISTS, RULE.member),
        update(this.table, keys.membership(saasId, tenantId, userId), change(), EXISTS, RULE.member),
      ]),
    );
  }

  async ofUser(saasId: string, user: UserRecord): Promise<Member[]> {
    const members: Member[] = [];
    for await (const { item } of this.userPartition(saasId, user)) members.push(item);
    return members;
  }

  /**
   * Get Users' read path: the membership directory in 16 ranges read side by side, and beside them the user
   * directory once, joined here; so a membership costs its share of two index reads (eventually consistent,
   * as the directory always was) rather than a strongly consistent read of its user's profile each.
   */
  async everyMember(saasId: string): Promise<ListedMember[]> {
    const gsi1pk = keys.membershipDirectory(saasId);
    const base = { TableName: this.table, IndexName: INDEX_NAME, ...projection(MEMBERSHIP_ATTRIBUTES) };
    const bounds = ['', ...DIRECTORY_SPLITS, undefined];
    const ranges = bounds.slice(0, -1).map((from, i) => {
      const to = bounds[i + 1];
      // No sort key is a single character, so a bound never names an item: BETWEEN reads [from, to).
      const [condition, values] =
        from === ''
          ? ['gsi1sk < :to', { ':to': to }]
          : to === undefined
            ? ['gsi1sk >= :from', { ':from': from }]
            : ['gsi1sk BETWEEN :from AND :to', { ':from': from, ':to': to }];
      return collect(
        queryPages(this.db, {
          ...base,
          KeyConditionExpression: `gsi1pk = :pk AND ${condition}`,
          ExpressionAttributeValues: { ':pk': gsi1pk, ...values },
        }),
      );
    });
    const [users, ...parts] = await Promise.all([this.users.list(saasId), ...ranges]);
    const byId = new Map(users.map((user) => [user.id, user]));
    return parts.flat().flatMap((item) => {
      const user = byId.get(item.user_id as string);
      return user ? [{ membership: toMembership(item), user }] : [];
    });
  }

  /** One user's memberships, after a tenant id. */
  private async *userPartition<U extends UserSummary>(
    saasId: string,
    user: U,
    afterTenant?: string,
  ): AsyncGenerator<Positioned<{ membership: MembershipRecord; user: U }>> {
    const pages = queryPages(this.db, {
      ...partitionQuery(this.table, keys.userMemberships(saasId, user.id)),
      ConsistentRead: true,
      ...(afterTenant ? { ExclusiveStartKey: keys.userMembership(saasId, user.id, afterTenant) } : {}),
    });
    for await (const page of pages) {
      for (const item of page) yield { position: item.tenant_id as string, item: { membership: toMembership(item), user } };
    }
  }

  /**
   * The narrowest key the filter has decides the order: a user's partition (by tenant id), a tenant's
   * partition (by user id), the user directory for a name prefix (by name, then tenant id), or else every
   * membership of the SaaS (gsi1, by user id then tenant id).
   */
  directory(saasId: string, filter: MemberFilter): OrderedSource<ListedMember> {
    if (filter.id !== undefined) return this.byUser(saasId, filter.id);
    if (filter.tenantId !== undefined) return this.byTenant(saasId, filter.tenantId);
    if (filter.emailPrefix !== undefined || filter.signInIdPrefix !== undefined) return this.byName(saasId, filter);
    return this.everyMembership(saasId);
  }

  private byUser(saasId: string, userId: string): OrderedSource<Member> {
    return source(UUID_POSITION, (after) => this.readByUser(saasId, userId, after));
  }

  private async *readByUser(saasId: string, userId: string, after: string | undefined): AsyncGenerator<Positioned<Member>> {
    const user = await this.users.get(saasId, userId);
    if (user) yield* this.userPartition(saasId, user, after);
  }

  private byTenant(saasId: string, tenantId: string): OrderedSource<Member> {
    const where = keys.tenantMemberships(saasId, tenantId);
    return source(UUID_POSITION, (after) =>
      this.joined(
        saasId,
        {
          ...partitionQuery(this.table, where),
          ConsistentRead: true,
          ...(after ? { ExclusiveStartKey: keys.membership(saasId, tenantId, after) } : {}),
        },
        (item) => item.user_id as string,
      ),
    );
  }

  private everyMembership(saasId: string): OrderedSource<Member> {
    const gsi1pk = keys.membershipDirectory(saasId);
    return source(MEMBERSHIP_DIRECTORY_POSITION, (after) => {
      const [, userId, tenantId] = after ? (MEMBERSHIP_DIRECTORY_POSITION.exec(after) as RegExpExecArray) : [];
      return this.joined(
        saasId,
        {
          ...indexQuery(this.table, { gsi1pk }),
          ...(after ? { ExclusiveStartKey: { gsi1pk, gsi1sk: after, ...keys.membership(saasId, tenantId as string, userId as string) } } : {}),
        },
        (item) => item.gsi1sk as string,
      );
    });
  }

  /** By the user directory's name order; each user's memberships follow, by tenant id. */
  private byName(saasId: string, filter: MemberFilter): OrderedSource<ListedMember> {
    const names: UserFilter = { emailPrefix: filter.emailPrefix, signInIdPrefix: filter.signInIdPrefix };
    const users = this.users.directory(saasId, names);
    return source(
      LOGIN_ORDER_POSITION,
      (after) => this.readByName(saasId, names, after),
      (m) => users.accepts(m[1] as string),
    );
  }

  private async *readByName(saasId: string, names: UserFilter, after: string | undefined): AsyncGenerator<Positioned<ListedMember>> {
    let userAfter: string | undefined;
    if (after) {
      const [, userPosition, tenantId] = LOGIN_ORDER_POSITION.exec(after) as RegExpExecArray;
      userAfter = userPosition as string;
      // Finish the user the last page ended in, if they still hold the name they had then.
      const sameUser = this.users.directory(saasId, { ...names, id: userAfter.slice(-36) });
      for await (const { position, item } of sameUser.read(undefined)) {
        if (position !== userAfter) continue;
        for await (const member of this.userPartition(saasId, item, tenantId))
          yield { position: `${position} ${member.position}`, item: member.item };
      }
    }
    for await (const group of inGrowingGroups(this.users.directory(saasId, names).read(userAfter))) {
      const memberships = await Promise.all(
        group.map(async ({ item }) => {
          const list: Positioned<ListedMember>[] = [];
          for await (const member of this.userPartition(saasId, item)) list.push(member);
          return list;
        }),
      );
      for (const [i, { position }] of group.entries()) {
        for (const member of memberships[i] ?? []) yield { position: `${position} ${member.position}`, item: member.item };
      }
    }
  }

  /** The membership and its mirror, guarded by the tenant being live and the membership `condition`. */
  private bothSides(saasId: string, tenantId: string, userId: string, change: Update, tenantSide: Condition, rule: string): AtomicWrite {
    return atomicWrite(
      check(this.table, keys.tenant(saasId, tenantId), LIVE, RULE.tenantLive),
      update(this.table, keys.userMembership(saasId, userId, tenantId), change, EXISTS, RULE.member),
      update(this.table, keys.membership(saasId, tenantId, userId), change, tenantSide, rule),
    );
  }

  attributesWrite(saasId: string, tenantId: string, userId: string, changes: AttributeChanges): AtomicWrite {
    const change = new Update().changeEntries('attributes', changes);
    if (change.isEmpty()) {
      return atomicWrite(
        check(this.table, keys.tenant(saasId, tenantId), LIVE, RULE.tenantLive),
        check(this.table, keys.membership(saasId, tenantId, userId), EXISTS, RULE.member),
      );
    }
    return this.bothSides(saasId, tenantId, userId, change, EXISTS, RULE.member);
  }

  addRolesWrite(saasId: string, tenantId: string, userId: string, envId: number, roleNames: readonly string[]): AtomicWrite {
    const change = new Update().add('roles', new Set(roleNames.map((role_name) => roleMember({ env_id: envId, role_name }))));
    const write = this.bothSides(saasId, tenantId, userId, change, EXISTS, RULE.member);
    return atomicWrite(
      ...write.parts,
      check(this.table, keys.env(saasId, envId), EXISTS, `${RULE.envExists}:${envId}`),
      ...roleNames.map((name) => check(this.table, keys.role(saasId, name), EXISTS, `${RULE.roleExists}:${name}`)),
    );
  }

  removeRoleWrite(saasId: string, tenantId: string, userId: string, role: EnvRole): AtomicWrite {
    const held = new Set([roleMember(role)]);
    const assigned: Condition = { expression: 'contains(#roles, :role)', names: { '#roles': 'roles' }, values: { ':role': roleMember(role) } };
    return this.bothSides(saasId, tenantId, userId, new Update().delete('roles', held), both(EXISTS, assigned), RULE.roleAssigned);
  }

  scimWrite(saasId: string, tenantId: string, userId: string, resource: Record<string, unknown>): AtomicWrite {
    const suspended = () => (resource.active === false ? new Update().set('suspended', true) : new Update().remove('suspended'));
    const both = this.bothSides(saasId, tenantId, userId, suspended(), EXISTS, RULE.member);
    // The resource on the tenant's side only: SCIM reads the tenant's members, never a user's tenants.
    return atomicWrite(
      ...both.parts.slice(0, 2),
      update(this.table, keys.membership(saasId, tenantId, userId), suspended().set('scim', resource), EXISTS, RULE.member),
    );
  }

  removeWrite(saasId: string, tenantId: string, userId: string): AtomicWrite {
    return atomicWrite(
      check(this.table, keys.tenant(saasId, tenantId), LIVE, RULE.tenantLive),
      remove(this.table, keys.userMembership(saasId, userId, tenantId), EXISTS, RULE.member),
      remove(this.table, keys.membership(saasId, tenantId, userId), EXISTS, RULE.member),
    );
  }

  /**
   * One item per tenant, in the tenant's partition (so it goes with the tenant), indexed so that one query
   * reads them all. A save racing a tenant's deletion may leave one behind; reads skip tenants that are gone.
   */
  saveUserCounts(saasId: string, counts: readonly TenantUserCount[], at: number): Promise<void> {
    return batchPut(
      this.db,
      this.table,
      counts.map(({ tenant_id, count }) => ({
        ...keys.tenantUserCount(saasId, tenant_id),
        ...keys.tenantUserCountEntry(saasId, tenant_id),
        entity: ENTITY.tenantUserCount,
        v: 1,
        tenant_id,
        count,
        updated_at: at,
      })),
    );
  }

  async userCounts(saasId: string): Promise<StoredUserCount[]> {
    const items = await queryIndexAll(this.db, this.table, keys.tenantUserCounts(saasId));
    return items.map((item) => ({ tenant_id: item.tenant_id as string, count: item.count as number, updated_at: item.updated_at as number }));
  }
}
