/**
 * Sign-in with the password itself (issue 39, docs/migration.md): Cognito's USER_PASSWORD_AUTH through the API,
 * and the hosted screen's step for a user whom SRP cannot prove (web/login/screen/password-step.ts). A SaaS turns
 * it on in its sign-in settings (`password_sign_in.user_password_auth`); an import turns it on unless it was set.
 *
 * - A user on an imported hash (shared/crypto/imported-hash.ts): the hash is checked once, then replaced by an SRP
 *   salt and verifier in one write that also deletes it, so the next sign-in is an ordinary SRP one.
 * - A user with a verifier (API only): the password is checked against it, as Cognito does for this flow, and
 *   decided as an SRP proof is (SignInService.passwordProof): two reads (the name, the profile), the check, and one
 *   write conditioned on the lockout count read, whether it charges a failure or completes the sign-in.
 * - A user imported with no password: checked against the old Cognito pool when one is named (its tenants and
 *   roles came with the import, its password comes now); otherwise mailed a code to set one, and refused.
 * - A name nobody has: tried against the SaaS's old Cognito pool when one is named (lazy migration, its port
 *   below); otherwise refused with the reads, the check's work and the (decoy) write of a wrong password; and
 *   refused when the old pool refuses.
 *
 * Every refusal is the one answer of a wrong password (not_authorized), after the work of a verifier check, so
 * neither the answer nor its time tells who has an account. The password lives in memory for this one call.
 */
import { createHash } from 'node:crypto';
import { srpVerifierMatches, verifyImportedHash } from '../../crypto/imported-hash.js';
import { createPasswordVerifier } from '../../crypto/srp.js';
import { invalid, unauthenticated } from '../../errors.js';
import { log } from '../../log.js';
import { metrics } from '../../metrics.js';
import type { PasswordSignIn as PasswordSignInSettings } from '../../schemas/configuration.js';
import type { SignInResult } from '../../schemas/sign-in.js';
import type { Committer } from '../atomic.js';
import type { ActivityChange, ActivityLog } from '../users/activity.js';
import { loginFromUsername, type Login, type UserRecord, type UserRepository } from '../users/users.js';
import { Lockout, type LockoutRepository, type LockoutState } from './sign-in-lockout.js';
import type { SignInService } from './sign-in.js';
import { requiredResponse, type ProofStateOfName, type SignInRepository } from './sign-in-state.js';

/** A user the old pool accepted, made here by the lazy migration (its own SRP verifier of the password). */
export interface LazyMigration {
  /** The user made here, or undefined when the old pool refused the password or does not know the name. */
  migrate(
    saasId: string,
    pool: NonNullable<PasswordSignInSettings['cognito_pool']>,
    username: string,
    password: string,
  ): Promise<UserRecord | undefined>;
  /** Whether the old pool accepts the password: for a user imported here without one (tenants and roles came first). */
  accepts(pool: NonNullable<PasswordSignInSettings['cognito_pool']>, username: string, password: string): Promise<boolean>;
}

export interface PasswordSignInDeps {
  users: Pick<UserRepository, 'get' | 'passwordWrite'>;
  lockouts: LockoutRepository & Pick<SignInRepository, 'proofStateByLogin'>;
  committer: Committer;
  activity: ActivityLog;
  signIn: Pick<SignInService, 'afterPassword' | 'passwordProof'>;
  settings(saasId: string): Promise<PasswordSignInSettings>;
  poolName(saasId: string): Promise<string>;
  /** The forgotten-password code (user-flows.ts requestPasswordReset): how a user imported with no password sets one. */
  mailSetPassword(saasId: string, username: string): Promise<void>;
  lazy?: LazyMigration;
}

export interface PasswordSignInOptions {
  /**
   * Whether a user with a verifier may sign in this way: yes through the API (Cognito's flow); no on the hosted
   * screen, which asks only after SRP refused, so the password of a user SRP can prove is never checked here.
   */
  withVerifier: boolean;
}

const notAuthorized = () =>
  unauthenticated('not_authorized', 'PASSWORD: incorrect username or password (after repeated failures, wait a moment before trying again)');

/** What a wrong password costs, for a refusal that checked none: one verifier computation. */
const decoyWork = (password: string) => srpVerifierMatches({ salt: '00', verifier: '00', pool_name: '', user_id: '' }, password);

/** What passwordProof checks a password against: the salt and verifier together (either may change between reads). */
const credentialOf = (user: UserRecord) =>
  user.imported_password || !user.password.verifier ? undefined : `${user.password.salt}:${user.password.verifier}`;

/** A made-up id for a name nobody has, the same for each try of it: where its decoy writes go. */
function nobodyId(saasId: string, login: Login): string {
  const hex = createHash('sha256').update(`${saasId}\n${login.kind}\n${login.value}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export class PasswordSignIn {
  private readonly lockout: Lockout;

  constructor(private readonly deps: PasswordSignInDeps) {
    this.lockout = new Lockout(deps.lockouts);
  }

  async signIn(saasId: string, parameters: { USERNAME: string; PASSWORD?: string }, options: PasswordSignInOptions): Promise<SignInResult> {
    const settings = await this.deps.settings(saasId);
    // Off, the flow is refused as it was before it existed: SaaSus's clients see what they always saw.
    if (!settings.user_password_auth) {
      throw invalid('invalid_parameter', 'sign_in_flow: USER_PASSWORD_AUTH is not enabled for this SaaS (sign-in settings: password_sign_in)', {
        field: 'sign_in_flow',
      });
    }
    const password = requiredResponse(parameters, 'PASSWORD', 'sign_in_parameters.PASSWORD');
    const username = parameters.USERNAME;
    const login = loginFromUsername(username);
    const named = login && (await this.deps.lockouts.proofStateByLogin(saasId, login, nobodyId(saasId, login)));
    const user = named?.seen.user;
    const pool = settings.cognito_pool;
    const lazy = this.deps.lazy;
    const poolName = await this.deps.poolName(saasId);
    if (!named || !user) {
      const migrated = login && pool && (await lazy?.migrate(saasId, pool, username, password));
      if (migrated) {
        log.info('user migrated from the old pool', { userId: migrated.id });
        return this.deps.signIn.afterPassword(saasId, migrated);
      }
      // Nobody's name: the decoy write and the check a wrong password's charge and check are (no old pool to ask).
      if (named && !pool) return this.passwordProof(saasId, named, password, poolName);
      return this.refused(password, undefined, 'no such user');
    }
    const imported = user.imported_password;
    const verifier = user.password.verifier;
    // The steady state (a user with a verifier, through the API): decided on the state just read, as SRP's proof is.
    if (verifier && !imported && options.withVerifier) return this.passwordProof(saasId, named, password, poolName);
    if (!imported && !verifier && !(pool && lazy)) {
      // Imported with no password and no old pool to ask: the way in is the mailed code; the answer is a wrong password's.
      await this.deps.mailSetPassword(saasId, username);
      return this.refused(password, user.id, 'no password yet');
    }
    if (verifier && !imported && !options.withVerifier) return this.refused(password, user.id, 'has a verifier');
    // An imported hash or the old pool: charged before the check, as an MFA code is, so parallel guesses cannot
    // outrun the count (the check may take a bcrypt's time, or the old pool's round trip).
    let provisional: ActivityChange | undefined;
    const recordFailure = (next: LockoutState) =>
      (provisional = this.deps.activity.change(next.lockedUntil ? 'locked_out' : 'sign_in_failed', user.activity, { method: 'password' }));
    if ((await this.lockout.charge(saasId, user.id, recordFailure)) === 'locked') return this.refused(password, user.id, 'locked out');
    const right = imported
      ? await verifyImportedHash(imported, password)
      : await (lazy as LazyMigration).accepts(pool as NonNullable<typeof pool>, username, password);
    if (!right) {
      this.deps.activity.settled(saasId, user.id, provisional);
      return this.refused(undefined, user.id, 'wrong password');
    }
    const signedIn = await this.replaceImportedHash(saasId, user, poolName, password);
    return this.deps.signIn.afterPassword(saasId, signedIn, provisional?.add.id);
  }

  /** The password against the verifier in `named`'s state (nobody's: against none, at the same cost). */
  private passwordProof(saasId: string, named: ProofStateOfName, password: string, poolName: string): Promise<SignInResult> {
    const verify = (credential: string | undefined) => {
      const [salt = '', verifier] = credential?.split(':') ?? [];
      if (named.nobody || verifier === undefined) {
        decoyWork(password);
        return false;
      }
      return srpVerifierMatches({ salt, verifier, pool_name: poolName, user_id: named.userId }, password);
    };
    return this.deps.signIn.passwordProof(saasId, { userId: named.userId, nobody: named.nobody, kind: 'password', verify }, credentialOf, named.seen);
  }

  /**
   * The imported hash (or the old pool's word, for a user imported without a password) gives way to an SRP
   * verifier of the same password, whatever the policy says of it now.
   */
  private async replaceImportedHash(saasId: string, user: UserRecord, poolName: string, password: string): Promise<UserRecord> {
    const { salt, verifier } = createPasswordVerifier(poolName, user.id, password);
    const outcome = await this.deps.committer.commit(this.deps.users.passwordWrite(saasId, user, { salt, verifier, temporary: false }));
    const changed = outcome.committed ? await this.deps.users.get(saasId, user.id) : undefined;
    if (!changed) throw unauthenticated('not_authorized', 'the user changed during the sign-in; sign in again');
    log.info('imported password hash replaced by a verifier', { userId: user.id, algorithm: user.imported_password?.algorithm });
    return changed;
  }

  /** The one refusal; `password` given when no check ran, so the refusal costs what a check does. */
  private refused(password: string | undefined, userId: string | undefined, outcome: string): never {
    if (password !== undefined) decoyWork(password);
    metrics.count(outcome === 'locked out' ? 'SignInLockedOut' : 'SignInFailed');
    log.info('password sign-in refused', { ...(userId ? { userId } : {}), outcome });
    throw notAuthorized();
  }
}
