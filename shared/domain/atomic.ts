/**
 * Writes that happen together or not at all (one store transaction). Repositories build them, the domain
 * combines them (a new user with the mail that tells them their password; a user, a membership and an
 * accepted invitation) and commits them through a Committer. Each part names the rule its condition holds,
 * so a refused commit says which rule stopped it and the domain can answer with the right error.
 */

export interface WritePart {
  /** The rule this part's condition holds, e.g. `login_free`, `tenant_live`; reported when it refuses. */
  readonly rule: string;
  /** What the store will write; opaque to the domain. */
  readonly op: unknown;
}

export interface AtomicWrite {
  readonly parts: readonly WritePart[];
}

export type CommitOutcome = { committed: true } | { committed: false; refusedBy: string };

export interface Committer {
  /** All parts of all writes in one transaction; when conditions fail, the first failing part in order is named. */
  commit(...writes: AtomicWrite[]): Promise<CommitOutcome>;
  /**
   * Many commits of their own (each entry: one commit's writes), sent many to a request where the store allows:
   * each still whole or not at all, each outcome what commit(...entry) alone would answer, in order. An entry that
   * writes what an earlier one writes is committed after it.
   */
  commitEach(entries: readonly (readonly AtomicWrite[])[]): Promise<CommitOutcome[]>;
}

export const atomicWrite = (...parts: WritePart[]): AtomicWrite => ({ parts });

/** The rules that writes of users and memberships hold, as their refusals name them. */
export const RULE = {
  /** An item with a fresh id (a new user, a new mail) does not exist yet. */
  newItem: 'new_item',
  /** The user exists and is not being deleted. */
  userLive: 'user_live',
  /** The sign-in name is held by no other user. */
  loginFree: 'login_free',
  /** The user has never signed in and still has the temporary password they were given (Resend Sign Up). */
  awaitingFirstSignIn: 'awaiting_first_sign_in',
  /**
   * The user's listed fields are still what the write read (a write that also copies them whole to the directory
   * entry, while a SaaS's directory moves onto entries); refused, the write is built again from a fresh read.
   */
  userUnchanged: 'user_unchanged',
  /** The user still has the sign-in name the change was made from. */
  loginUnchanged: 'login_unchanged',
  /** The tenant exists and is not being deleted. */
  tenantLive: 'tenant_live',
  /** The user is not a member of the tenant yet. */
  notMember: 'not_member',
  /** The user is a member of the tenant. */
  member: 'member',
  /** The member holds the role in the env. */
  roleAssigned: 'role_assigned',
  envExists: 'env_exists',
  /** A follow-up sign-in challenge is still open (not answered yet, nor expired): its session is single use. */
  challengeOpen: 'challenge_open',
  /** The user is live and no password change has raised their session version since it was read. */
  sessionCurrent: 'session_current',
  /** The user's sign-in state (lockout count, last answered SRP session) is still what a proof read. */
  signInState: 'sign_in_state',
  /** Followed by `:<role name>`. */
  roleExists: 'role_exists',
} as const;
