/**
 * Lazy migration from a live Cognito user pool (issue 39, docs/migration.md): a sign-in by a name unknown here,
 * with the password itself (password-sign-in.ts), is tried against the SaaS's old pool; when the pool accepts
 * it, the user is made here with the pool's e-mail address, an SRP verifier of that password and the memberships
 * the setting's group mapping gives the old pool's groups, in one write, and signs in.
 * The password is held only in memory, for this one call. The old pool is reached through its port (the AWS
 * SDK's Cognito client, shared/adapters/cognito-pool.ts).
 */
import { nowSeconds } from '../../clock.js';
import { createPasswordVerifier } from '../../crypto/srp.js';
import { log } from '../../log.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import type { LazyMigration } from '../sign-in/password-sign-in.js';
import type { NewMembership } from '../tenants/tenant-users.js';
import { emailAddress, loginFromRequest, type UserRecord, type UserRepository } from '../users/users.js';
import { membershipsOf } from './group-mapping.js';
import { externalId } from './external-id.js';

export type OldPool = Parameters<LazyMigration['migrate']>[1];

/** What the old pool says of a user whose password it accepted. */
export interface OldPoolUser {
  /** The pool's `sub`: the user's identity there, from which the id here is derived. */
  sub: string;
  email?: string;
  emailVerified: boolean;
  /** The groups the old pool's ID token names (`cognito:groups`; none when it names none). */
  groups: readonly string[];
}

export interface OldPoolPort {
  /** The user, when the pool accepts the password outright; undefined when it refuses, or asks for more. */
  signIn(pool: OldPool, username: string, password: string): Promise<OldPoolUser | undefined>;
}

export interface CognitoMigrationDeps {
  pool: OldPoolPort;
  users: Pick<UserRepository, 'createWrite' | 'findByLogin'>;
  committer: Committer;
  poolName(saasId: string): Promise<string>;
  /** A membership's writes as tenant users make them (tenant-users.ts prepareMembership). */
  prepareMember(saasId: string, membership: NewMembership): Promise<AtomicWrite[]>;
}

/** The rules a membership's write holds of what the mapping names (membership-repository.ts addWrite). */
const MEMBERSHIP_RULES = [RULE.tenantLive, RULE.envExists, RULE.roleExists];

export class CognitoLazyMigration implements LazyMigration {
  constructor(private readonly deps: CognitoMigrationDeps) {}

  async accepts(pool: OldPool, username: string, password: string): Promise<boolean> {
    return (await this.deps.pool.signIn(pool, username, password)) !== undefined;
  }

  async migrate(saasId: string, pool: OldPool, username: string, password: string): Promise<UserRecord | undefined> {
    const old = await this.deps.pool.signIn(pool, username, password);
    if (!old) return undefined;
    // The pool's address when it has one; otherwise the name typed becomes the sign-in ID.
    const login = loginFromRequest(old.email ? { email: old.email } : { sign_in_id: username.trim() });
    // Derived from the pool's sub (as an import's ids are from external ids): two first sign-ins make one user.
    const id = externalId(saasId, 'user', `cognito:${pool.user_pool_id}:${old.sub}`);
    const { salt, verifier } = createPasswordVerifier(await this.deps.poolName(saasId), id, password);
    const user: UserRecord = {
      id,
      email: login.kind === 'email' ? emailAddress(old.email as string) : '',
      sign_in_id: login.kind === 'sign_in_id' ? username.trim() : '',
      attributes: {},
      password: { salt, verifier, temporary: false },
      session_version: 0,
      mfa: { enabled: false, software_token_registered: false },
      providers: {},
      last_login_at: 0,
      created_at: nowSeconds(),
      ...(old.email && !old.emailVerified ? { email_verified: false as const } : {}),
    };
    const userWrite = await this.deps.users.createWrite(saasId, user, login);
    const members = await Promise.all(
      membershipsOf(pool.groups ?? [], old.groups).map((m) => this.deps.prepareMember(saasId, { ...m, userId: id, userIsNew: true })),
    );
    let outcome = await this.deps.committer.commit(userWrite, ...members.flat());
    const refusedBy = outcome.committed ? '' : outcome.refusedBy;
    if (members.length > 0 && MEMBERSHIP_RULES.some((rule) => refusedBy === rule || refusedBy.startsWith(`${rule}:`))) {
      // The mapping was checked when saved; a tenant, env or role gone since must not keep the person out.
      log.warn('a lazily migrated user was made without the memberships of the group mapping', { userId: id, refusedBy });
      outcome = await this.deps.committer.commit(userWrite);
    }
    if (outcome.committed) return user;
    // Another sign-in of the same person made them first (or the name was taken meanwhile): the one there is.
    if (outcome.refusedBy === RULE.loginFree) return this.deps.users.findByLogin(saasId, login);
    throw new Error(`a migrated user was refused by ${outcome.refusedBy}`);
  }
}
