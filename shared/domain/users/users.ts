/**
 * SaaS users: the people who sign in to a SaaS, by e-mail address or by sign-in ID (exactly one of them).
 * A sign-in name is unique per SaaS, compared in lower case: the store keeps one owner item per name and
 * writes it in the same transaction as the user, so racing creates give one user. Passwords are turned into
 * an SRP salt and verifier at once (docs/decisions.md, decision 3) and never kept.
 *
 * Attributes: a SaaS user's `attributes` hold the values of SaaS-user attributes, one value across every
 * tenant. Per-tenant user attributes live on the memberships (tenant-users.ts).
 */
import { liveActivity, type ActivityChange, type ActivityEvent, type ActivityKind, type ActivityLog } from './activity.js';
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import type { ImportedPasswordHash } from '../../crypto/imported-hash.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { createPasswordVerifier } from '../../crypto/srp.js';
import { alreadyExists, concurrentUpdate, invalid, notFound, type DomainError } from '../../errors.js';
import { normalizedEmailAddress } from './email-address.js';
import type { TemplateName } from '../../schemas/configuration.js';
import type { Attribute } from '../../schemas/definitions.js';
import type { TenantUserSearch, UserInfo } from '../../schemas/tenant-users.js';
import type {
  MfaMethod,
  MfaPreference,
  MfaPreferenceAnswer,
  SaasUser,
  SaasUserSearch,
  UserActivity,
  UserActivityQuery,
} from '../../schemas/users.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import { checkAttributeValues } from '../attributes.js';
import type { DefinitionRepository } from '../configuration/definitions.js';
import { newCountedMail, type CountedMail, type MailLimits } from '../mail/mail.js';
import { MAX_PAGE_SIZE, readPage, type Cursors, type OrderedSource } from '../paging.js';
import { generatePassword, normalizedPassword, screenPassword, type SaasPasswordPolicy } from '../configuration/password-policy.js';
import type { SettingsRepository } from '../configuration/settings.js';

export type AttributeValue = string | number | boolean;
export type AttributeValues = Record<string, AttributeValue>;
/** A value sets the attribute, null removes it; names not given keep their values. */
export type AttributeChanges = Record<string, AttributeValue | null>;

/** What the first step of a sign-in needs of a user. */
export interface SignInCredential {
  userId: string;
  salt: string;
  verifier: string;
}

export interface PasswordCredential {
  /** SRP salt and verifier, hex (shared/crypto/srp.ts). */
  salt: string;
  verifier: string;
  /** The user must choose a new password at the next sign-in (NEW_PASSWORD_REQUIRED). */
  temporary: boolean;
  /** Unix seconds after which a temporary password no longer signs in. */
  expires_at?: number;
  /**
   * 'NFKC': the verifier is of the password's NFKC form (every one made since issue 43). Absent: of the password
   * as typed; the screen proves that form when the NFKC one is refused (docs/decisions.md, NFKC).
   */
  normalization?: 'NFKC';
}

export interface MfaSettings {
  enabled: boolean;
  method?: MfaMethod;
  /** Set once an authenticator app is registered; enabling softwareToken needs it. */
  software_token_registered: boolean;
  /** The registered authenticator app's TOTP secret, sealed by the secret box (totpSecretContext). */
  sealed_totp_secret?: string;
  /**
   * A secret handed out by Create secret code and not yet confirmed by a code of the app (sealed the same
   * way). It replaces `sealed_totp_secret` only on registration, so a registered app keeps working until
   * its successor is.
   */
  pending_sealed_totp_secret?: string;
}

/** The secret box context of a user's TOTP secret (mfa.sealed_totp_secret): it opens for that user of that SaaS only. */
export const totpSecretContext = (saasId: string, userId: string) => ({ saasId, userId, purpose: 'totp-secret' });

/** A linked external identity, keyed by provider name (`Google`). */
export interface LinkedProvider {
  /** The provider's id for the user. */
  subject: string;
  linked_at: number;
}

export interface UserRecord {
  id: string;
  /** As given, trimmed; '' for a sign-in-ID user. */
  email: string;
  /** As given; '' for an e-mail user. */
  sign_in_id: string;
  /** Values of SaaS-user attributes. */
  attributes: AttributeValues;
  password: PasswordCredential;
  /** Raised by every change that must end existing sessions (password change and reset). */
  session_version: number;
  /**
   * Grants revoked within the last token lifetime (grant id → until when their ID and access tokens could
   * live): the token check refuses tokens whose `origin_jti` is listed (shared/domain/sign-in/grants.ts).
   */
  revoked_grants?: Record<string, number>;
  mfa: MfaSettings;
  providers: Record<string, LinkedProvider>;
  /** Unix seconds; 0 until the first sign-in. */
  last_login_at: number;
  created_at: number;
  /**
   * A password hash an import brought (shared/domain/migration/imports.ts), while `password` holds no verifier
   * yet: checked once at the first sign-in, then replaced by an SRP verifier and deleted.
   */
  imported_password?: ImportedPasswordHash;
  /** Only when an import said the old system had not verified the address. */
  email_verified?: false;
  /** The security events the profile keeps (activity.ts); never part of an answer about the user. */
  activity?: ActivityEvent[];
  /**
   * Set while every tenant the user belongs to has deprovisioned them through SCIM (shared/domain/scim): sign-in
   * refuses them, and setting it raised session_version, which ended their sessions and refresh tokens.
   */
  disabled?: true;
}

/** What the unpaged lists answer of a user: read without the password verifier and sign-in state. */
export type UserSummary = Pick<UserRecord, 'id' | 'email' | 'sign_in_id' | 'attributes' | 'last_login_at'>;

/** A sign-in name, normalised: e-mail addresses trimmed, both kinds in lower case. */
export interface Login {
  kind: 'email' | 'sign_in_id';
  value: string;
}

/** Prefix filters are normalised like names; `id` is exact. */
export interface UserFilter {
  id?: string;
  emailPrefix?: string;
  signInIdPrefix?: string;
}

export interface UserRepository {
  /** The user, its sign-in name (rule `login_free`), and the mail that tells them their password if any. */
  createWrite(saasId: string, user: UserRecord, login: Login, mail?: CountedMail): Promise<AtomicWrite>;
  /** undefined when missing or being deleted. Strongly consistent. */
  get(saasId: string, userId: string): Promise<UserRecord | undefined>;
  getMany(saasId: string, userIds: readonly string[]): Promise<Map<string, UserRecord>>;
  /** Through the name's owner item: one consistent read path for sign-in and lookups. */
  findByLogin(saasId: string, login: Login): Promise<UserRecord | undefined>;
  /**
   * The id the name's owner item names, in one consistent read, the profile unread: for callers already
   * authorised (a tenant's directory), who need not hide from the time taken whether the name has an owner.
   */
  loginOwner(saasId: string, login: Login): Promise<string | undefined>;
  /** The first step of a sign-in: the SRP salt and verifier of the user holding `login`, in one read. */
  signInCredential(saasId: string, login: Login): Promise<SignInCredential | undefined>;
  /** Every user of the SaaS, as the unpaged lists answer them (eventually consistent, like the directory). */
  list(saasId: string): Promise<UserSummary[]>;
  /** The SaaS's users in sign-in name order, narrowed by the filter's key (an id, or a name prefix). */
  directory(saasId: string, filter: UserFilter): OrderedSource<UserSummary>;
  /**
   * Moves the user from `from` to `to` (rules `login_unchanged`, then `login_free`); `password` is the user's
   * current one (the new name's owner item carries a copy; a password changed meanwhile refuses the move).
   */
  changeLoginWrite(
    saasId: string,
    userId: string,
    from: Login,
    to: Login,
    names: { email: string; sign_in_id: string },
    password: PasswordCredential,
  ): Promise<AtomicWrite>;
  /**
   * A new credential; raises session_version (rule `user_live`, also when the user's name changed meanwhile:
   * the name's owner item carries a copy of the credential, rule `login_unchanged`). With `onlyBeforeFirstSignIn`,
   * only while the user has never signed in and still has a temporary password (rule `awaiting_first_sign_in`).
   */
  passwordWrite(
    saasId: string,
    user: Pick<UserRecord, 'id' | 'email' | 'sign_in_id'>,
    credential: PasswordCredential,
    mail?: CountedMail,
    options?: { onlyBeforeFirstSignIn?: boolean; activity?: ActivityChange },
  ): AtomicWrite;
  /** Sets or clears `disabled`; setting it raises session_version (rule `user_live`). */
  disabledWrite(saasId: string, userId: string, disabled: boolean): AtomicWrite;
  /** Sets and removes SaaS-user attribute values (rule `user_live`). */
  attributesWrite(saasId: string, userId: string, changes: AttributeChanges): Promise<AtomicWrite>;
  /** false when the user is gone, or softwareToken is asked for without a registered app. */
  setMfa(saasId: string, userId: string, preference: MfaPreference, activity?: ActivityChange): Promise<boolean>;
  /** false when the user is gone or the provider is not linked. */
  unlinkProvider(saasId: string, userId: string, provider: string): Promise<boolean>;
  /** The user a provider's account (its subject) is linked to. */
  findByIdentity(saasId: string, provider: string, subject: string): Promise<UserRecord | undefined>;
  /** Hides the user, then removes every item of theirs and the items they name; false when missing. */
  delete(saasId: string, userId: string): Promise<boolean>;
}

/** What the users domain needs of the rest of the service. */
export interface UserServiceDeps {
  users: UserRepository;
  committer: Committer;
  definitions: DefinitionRepository;
  settings: SettingsRepository;
  box: SecretBox;
  /** The deployment's mail rate limits (configuration). */
  mailLimits: MailLimits;
  passwordPolicy(saasId: string): Promise<SaasPasswordPolicy>;
  /** The SaaS's SRP pool name (SaasAccount.poolName). */
  poolName(saasId: string): Promise<string>;
  /** The user with every tenant they belong to (tenant-users.ts); undefined when missing. */
  userInfo(saasId: string, userId: string): Promise<UserInfo | undefined>;
  /** Seals and opens search cursors. */
  cursors: Cursors;
  /** Records password and MFA changes in the user's activity. */
  activity: ActivityLog;
}

export const KNOWN_PROVIDERS = ['Google'] as const;
const SIGN_IN_ID = /^[A-Za-z0-9_-]{1,50}$/;
/** Any address a user may hold, including those stored before email-address.ts's rule: the lookup's shape. */
const STORED_EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SAAS_USER_COUNT = 'saas-user-count';
const DAY = 86_400;

export const userNotFound = (userId: string) => notFound('user_not_found', `no user with id ${userId}`);

export const notAnEmailUser = () =>
  invalid('not_an_email_user', 'email: this user signs in with a sign-in ID; change it with PATCH /users/{user_id}/sign-in-id', {
    field: 'email',
  });

/** Resend Sign Up's refusal: the user signed in, or has a password of their own, so there is nothing to resend. */
export const firstSignInDone = () =>
  invalid('user_already_confirmed', 'email: this user has already signed in or chosen a password; use Reset Password instead', {
    field: 'email',
  });

/** A user who has never signed in and still holds the temporary password the service gave them. */
export const awaitsFirstSignIn = (user: Pick<UserRecord, 'last_login_at' | 'password'>) => user.last_login_at === 0 && user.password.temporary;

/** '' and null mean "not given", as SDKs without optional fields send them. */
export const given = (value: string | null | undefined): string | undefined => (value === null || value === '' ? undefined : value);

/** The address as stored (email-address.ts: the rule and the normal form), or a 400 naming `field`. */
export function emailAddress(email: string, field = 'email'): string {
  const address = normalizedEmailAddress(email);
  if (address === undefined) {
    throw invalid('invalid_parameter', `${field}: must be a plain e-mail address (ASCII, no display name, quotes or spaces)`, { field });
  }
  return address;
}

export function emailLogin(email: string): Login {
  return { kind: 'email', value: emailAddress(email).toLowerCase() };
}

/** Sign-in IDs are unique without regard to case: `Alice` and `alice` would be the same name to a person. */
export function signInIdLogin(signInId: string): Login {
  if (!SIGN_IN_ID.test(signInId)) {
    throw invalid('invalid_parameter', 'sign_in_id: must be 1 to 50 letters, digits, - or _', { field: 'sign_in_id' });
  }
  return { kind: 'sign_in_id', value: signInId.toLowerCase() };
}

export function loginOf(user: Pick<UserRecord, 'email' | 'sign_in_id'>): Login {
  return user.email ? { kind: 'email', value: user.email.trim().toLowerCase() } : { kind: 'sign_in_id', value: user.sign_in_id.toLowerCase() };
}

/** The one sign-in name in a request that must name exactly one: an e-mail address or a sign-in ID. */
export function loginFromRequest(input: { email?: string | null; sign_in_id?: string }): Login {
  const email = given(input.email);
  const signInId = given(input.sign_in_id);
  if ((email === undefined) === (signInId === undefined)) {
    throw invalid('invalid_parameter', 'email: give either email or sign_in_id, not both and not neither', { field: 'email' });
  }
  return email !== undefined ? emailLogin(email) : signInIdLogin(signInId as string);
}

/**
 * A USERNAME at sign-in: an e-mail address (it has an `@`) or a sign-in ID; undefined when it is neither.
 * Only looked up, never stored: the looser shape still finds users whose address an earlier rule accepted.
 */
export function loginFromUsername(username: string): Login | undefined {
  const trimmed = username.trim();
  // Lower-casing is the lookup's only folding (no NFKC: a full-width or other compatibility letter stays itself
  // and names nobody). Two characters lower-case into ASCII (U+212A KELVIN SIGN into `k`, U+0130 into `i` and a
  // dot): a name spelled with them is not the stored name, so it names nobody rather than someone else.
  const ascii = (c: string) => c.charCodeAt(0) < 0x80;
  if ([...trimmed].some((c) => !ascii(c) && [...c.toLowerCase()].some(ascii))) return undefined;
  if (trimmed.includes('@')) return STORED_EMAIL_SHAPE.test(trimmed) ? { kind: 'email', value: trimmed.toLowerCase() } : undefined;
  return SIGN_IN_ID.test(trimmed) ? { kind: 'sign_in_id', value: trimmed.toLowerCase() } : undefined;
}

/** An event as the activity API answers it. */
function toUserActivity(event: ActivityEvent): UserActivity {
  const { id, kind, at, method, provider, challenge, source_ip, user_agent } = event;
  return {
    activity_id: id,
    kind,
    created_at: at,
    ...(method ? { method } : {}),
    ...(provider ? { provider } : {}),
    ...(challenge ? { challenge } : {}),
    ...(source_ip ? { source_ip } : {}),
    ...(user_agent ? { user_agent } : {}),
  };
}

export function toSaasUser(user: UserSummary): SaasUser {
  return { id: user.id, email: user.email, sign_in_id: user.sign_in_id, attributes: user.attributes, last_login_at: user.last_login_at };
}

/** Normalised search filters: empty strings are "not given"; name prefixes compare in lower case. */
export function userFilter(query: Pick<SaasUserSearch | TenantUserSearch, 'id' | 'email' | 'sign_in_id'>): UserFilter {
  const id = given(query.id);
  const email = given(query.email);
  const signInId = given(query.sign_in_id);
  return {
    ...(id ? { id: id.toLowerCase() } : {}),
    ...(email ? { emailPrefix: email.toLowerCase() } : {}),
    ...(signInId ? { signInIdPrefix: signInId.toLowerCase() } : {}),
  };
}

export function matchesUserFilter(user: Pick<UserRecord, 'id' | 'email' | 'sign_in_id'>, filter: UserFilter): boolean {
  const login = loginOf(user);
  return (
    (filter.id === undefined || user.id === filter.id) &&
    (filter.emailPrefix === undefined || (login.kind === 'email' && login.value.startsWith(filter.emailPrefix))) &&
    (filter.signInIdPrefix === undefined || (login.kind === 'sign_in_id' && login.value.startsWith(filter.signInIdPrefix)))
  );
}

export function loginTaken(login: Login): DomainError {
  return login.kind === 'email'
    ? alreadyExists('email_already_exists', `email: ${login.value} is already used by another user`)
    : alreadyExists('sign_in_id_already_exists', `sign_in_id: ${login.value} is already used by another user`);
}

/** The values a change sets must match their definitions; removing needs no definition (it may be gone). */
export function checkAttributeChanges(changes: AttributeChanges, definitions: readonly Attribute[], kindLabel: string): void {
  const sets = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== null));
  checkAttributeValues(sets, definitions, kindLabel);
}

/** The SRP salt and verifier of a password; a temporary one expires after the policy's validity days. */
function credentialFor(poolName: string, userId: string, password: string, temporary: boolean, policy: SaasPasswordPolicy): PasswordCredential {
  const { salt, verifier } = createPasswordVerifier(poolName, userId, normalizedPassword(password));
  return {
    salt,
    verifier,
    normalization: 'NFKC',
    temporary,
    ...(temporary ? { expires_at: nowSeconds() + policy.temporary_password_validity_days * DAY } : {}),
  };
}

export interface NewUser {
  email?: string | null;
  sign_in_id?: string;
  password?: string;
  /** Linked from the start (a user made by a federated sign-in). */
  providers?: Record<string, LinkedProvider>;
}

export interface PreparedUser {
  user: UserRecord;
  login: Login;
  /** Commit it alone (createUser) or with other writes (an invitation's membership). */
  write: AtomicWrite;
  /** Only for a sign-in-ID user whose password the service generated: nobody else can tell them. */
  generatedPassword?: string;
}

/** The error of a change to a user that `rule` refused. */
function refusedChange(userId: string, rule: string): never {
  if (rule === RULE.userLive) throw userNotFound(userId);
  if (rule === RULE.awaitingFirstSignIn) throw firstSignInDone();
  if (rule === RULE.loginUnchanged || rule === RULE.userUnchanged) throw concurrentUpdate('user');
  throw new Error(`a change to user ${userId} was refused by ${rule}`);
}

export class UserService {
  constructor(private readonly deps: UserServiceDeps) {}

  private async credential(saasId: string, userId: string, password: string, temporary: boolean, policy: SaasPasswordPolicy) {
    return credentialFor(await this.deps.poolName(saasId), userId, password, temporary, policy);
  }

  /**
   * A new user, not yet stored. A given password must pass the policy and is the user's own; without one the
   * service generates a temporary one, mailed to an e-mail user with `mailTemplate` (Sign Up passes
   * `sign_up`), handed back for a sign-in-ID user.
   */
  async prepareUser(saasId: string, input: NewUser, mailTemplate: TemplateName = 'create_user'): Promise<PreparedUser> {
    const login = loginFromRequest(input);
    const [policy, poolName] = await Promise.all([this.deps.passwordPolicy(saasId), this.deps.poolName(saasId)]);
    const givenPassword = given(input.password);
    if (givenPassword !== undefined) await screenPassword(givenPassword, policy);
    const password = givenPassword ?? generatePassword(policy);
    const generated = givenPassword === undefined;
    const id = randomUUID();
    const user: UserRecord = {
      id,
      email: login.kind === 'email' ? emailAddress(input.email as string) : '',
      sign_in_id: login.kind === 'sign_in_id' ? (input.sign_in_id as string) : '',
      attributes: {},
      password: credentialFor(poolName, id, password, generated, policy),
      session_version: 0,
      mfa: { enabled: false, software_token_registered: false },
      providers: input.providers ?? {},
      last_login_at: 0,
      created_at: nowSeconds(),
    };
    const mail = generated && login.kind === 'email' ? await newCountedMail(this.deps, saasId, mailTemplate, user.email, password) : undefined;
    return {
      user,
      login,
      write: await this.deps.users.createWrite(saasId, user, login, mail),
      ...(generated && login.kind === 'sign_in_id' ? { generatedPassword: password } : {}),
    };
  }

  /** Create SaaS User; Sign Up passes `sign_up` for the mail of a generated password. */
  async create(saasId: string, input: NewUser, mailTemplate: TemplateName = 'create_user'): Promise<SaasUser & { password?: string }> {
    const prepared = await this.prepareUser(saasId, input, mailTemplate);
    const outcome = await this.deps.committer.commit(prepared.write);
    if (!outcome.committed) {
      if (outcome.refusedBy === RULE.loginFree) throw loginTaken(prepared.login);
      throw new Error(`creating a user was refused by ${outcome.refusedBy}`);
    }
    return { ...toSaasUser(prepared.user), ...(prepared.generatedPassword ? { password: prepared.generatedPassword } : {}) };
  }

  /** The stored user, for sign-in and the other flows; 404 when missing. */
  async record(saasId: string, userId: string): Promise<UserRecord> {
    const user = await this.deps.users.get(saasId, userId);
    if (!user) throw userNotFound(userId);
    return user;
  }

  /** The user a sign-in USERNAME names (e-mail address or sign-in ID, any case), if any. */
  async findByUsername(saasId: string, username: string): Promise<UserRecord | undefined> {
    const login = loginFromUsername(username);
    return login ? this.deps.users.findByLogin(saasId, login) : undefined;
  }

  async get(saasId: string, userId: string): Promise<SaasUser> {
    return toSaasUser(await this.record(saasId, userId));
  }

  /** The user's security activity kept now, newest first, a page at a time (our extension). */
  async activity(saasId: string, userId: string, query: UserActivityQuery): Promise<{ activities: UserActivity[]; cursor?: string }> {
    const events = liveActivity((await this.record(saasId, userId)).activity, nowSeconds());
    const source: OrderedSource<ActivityEvent> = {
      accepts: (position) => events.some((event) => event.id === position),
      async *read(after) {
        for (const event of events) if (after === undefined || event.id < after) yield { position: event.id, item: event };
      },
    };
    const sealing = { cursors: this.deps.cursors, scope: `${saasId}\nuser-activity\n${userId}` };
    const page = await readPage(source, sealing, given(query.cursor), query.limit ?? MAX_PAGE_SIZE, () => true);
    return { activities: page.items.map(toUserActivity), ...(page.cursor ? { cursor: page.cursor } : {}) };
  }

  async list(saasId: string): Promise<SaasUser[]> {
    return (await this.deps.users.list(saasId)).map(toSaasUser);
  }

  async search(saasId: string, query: SaasUserSearch): Promise<{ users: SaasUser[]; cursor?: string }> {
    const filter = userFilter(query);
    const sealing = { cursors: this.deps.cursors, scope: `${saasId}\nsaas-users\n${JSON.stringify(filter)}` };
    const page = await readPage(this.deps.users.directory(saasId, filter), sealing, given(query.cursor), query.limit ?? MAX_PAGE_SIZE, (user) =>
      matchesUserFilter(user, filter),
    );
    return { users: page.items.map(toSaasUser), ...(page.cursor ? { cursor: page.cursor } : {}) };
  }

  /** Removes the user from every tenant and the SaaS; answers the user as they were. */
  async delete(saasId: string, userId: string): Promise<UserInfo> {
    const before = await this.deps.userInfo(saasId, userId);
    // A delete cut short (a store outage, a timeout) leaves the profile hidden, so `before` is gone: the
    // retry still finishes it (else the name stays taken by nobody), then answers as for any unknown user.
    const removed = await this.deps.users.delete(saasId, userId);
    if (!before || !removed) throw userNotFound(userId);
    return before;
  }

  private async commitToUser(userId: string, ...writes: AtomicWrite[]): Promise<void> {
    const outcome = await this.deps.committer.commit(...writes);
    if (!outcome.committed) refusedChange(userId, outcome.refusedBy);
  }

  async changePassword(saasId: string, userId: string, password: string, temporary = false): Promise<void> {
    await this.commitToUser(userId, await this.passwordChangeWrite(saasId, userId, password, temporary));
  }

  /** A password change (checked against the policy) to commit with other writes; sign-in's NEW_PASSWORD_REQUIRED uses it. */
  async passwordChangeWrite(
    saasId: string,
    userId: string,
    password: string,
    temporary = false,
    recorded: ActivityKind = temporary ? 'password_reset' : 'password_changed',
  ): Promise<AtomicWrite> {
    const policy = await this.deps.passwordPolicy(saasId);
    await screenPassword(password, policy);
    const user = await this.record(saasId, userId);
    const activity = this.deps.activity.change(recorded, user.activity);
    return this.deps.users.passwordWrite(saasId, user, await this.credential(saasId, userId, password, temporary, policy), undefined, { activity });
  }

  /** A new temporary password in place of the user's, mailed with `template` to an e-mail user; returned. */
  private async issueTemporaryPassword(
    saasId: string,
    user: UserRecord,
    template: TemplateName,
    options: { onlyBeforeFirstSignIn?: boolean; recorded?: ActivityKind } = {},
  ): Promise<{ password: string }> {
    const policy = await this.deps.passwordPolicy(saasId);
    const password = generatePassword(policy);
    const credential = await this.credential(saasId, user.id, password, true, policy);
    const mail = user.email ? await newCountedMail(this.deps, saasId, template, user.email, password, user.id) : undefined;
    const { recorded, ...rule } = options;
    const activity = recorded && this.deps.activity.change(recorded, user.activity);
    await this.commitToUser(user.id, this.deps.users.passwordWrite(saasId, user, credential, mail, { ...rule, ...(activity ? { activity } : {}) }));
    return { password };
  }

  /** A new temporary password: returned, and mailed (forgot_password) to an e-mail user. */
  async resetPassword(saasId: string, userId: string): Promise<{ password: string }> {
    return this.issueTemporaryPassword(saasId, await this.record(saasId, userId), 'forgot_password', { recorded: 'password_reset' });
  }

  /**
   * Resend Sign Up Confirmation Email: a new temporary password, mailed with resend_code, for a user who has
   * not signed in yet. The store holds the rule, so a sign-in racing the resend leaves the user's own password.
   */
  async resendTemporaryPassword(saasId: string, user: UserRecord): Promise<void> {
    if (!awaitsFirstSignIn(user)) throw firstSignInDone();
    await this.issueTemporaryPassword(saasId, user, 'resend_code', { onlyBeforeFirstSignIn: true });
  }

  async changeEmail(saasId: string, userId: string, email: string): Promise<void> {
    const user = await this.record(saasId, userId);
    if (!user.email) throw notAnEmailUser();
    await this.changeLogin(saasId, user, emailLogin(email), { email: emailAddress(email), sign_in_id: '' });
  }

  async changeSignInId(saasId: string, userId: string, signInId: string): Promise<void> {
    const user = await this.record(saasId, userId);
    if (!user.sign_in_id) {
      throw invalid('not_a_sign_in_id_user', 'sign_in_id: this user signs in with an e-mail address; change it with PATCH /users/{user_id}/email', {
        field: 'sign_in_id',
      });
    }
    await this.changeLogin(saasId, user, signInIdLogin(signInId), { email: '', sign_in_id: signInId });
  }

  private async changeLogin(saasId: string, user: UserRecord, to: Login, names: { email: string; sign_in_id: string }): Promise<void> {
    const outcome = await this.deps.committer.commit(
      await this.deps.users.changeLoginWrite(saasId, user.id, loginOf(user), to, names, user.password),
    );
    if (outcome.committed) return;
    if (outcome.refusedBy === RULE.loginFree) throw loginTaken(to);
    if (!(await this.deps.users.get(saasId, user.id))) throw userNotFound(user.id);
    throw concurrentUpdate('user');
  }

  async updateAttributes(saasId: string, userId: string, changes: AttributeChanges): Promise<void> {
    checkAttributeChanges(changes, await this.deps.definitions.listAttributes(saasId, 'saas_user'), 'SaaS user attribute');
    // Refused as changed since read (RULE.userUnchanged: another change of the user meanwhile), it is built again.
    for (let attempt = 1; ; attempt++) {
      const write = await this.deps.users.attributesWrite(saasId, userId, changes);
      const outcome = await this.deps.committer.commit(write);
      if (outcome.committed) return;
      if (outcome.refusedBy !== RULE.userUnchanged || attempt === 3) refusedChange(userId, outcome.refusedBy);
    }
  }

  async mfaPreference(saasId: string, userId: string): Promise<MfaPreferenceAnswer> {
    const { mfa } = await this.record(saasId, userId);
    if (!mfa.enabled || !mfa.method) return { enabled: mfa.enabled };
    return { enabled: true, ...(mfa.method === 'softwareToken' ? { method: mfa.method } : {}), mfa_method: mfa.method };
  }

  async updateMfaPreference(saasId: string, userId: string, preference: MfaPreference): Promise<void> {
    const { enabled, method } = preference;
    if (enabled && !method) throw invalid('invalid_parameter', 'method: is required when enabled is true', { field: 'method' });
    const user = await this.record(saasId, userId);
    const softwareTokenMissing = () =>
      invalid('software_token_not_registered', 'method: softwareToken needs an authenticator app registered first', { field: 'method' });
    if (enabled && method === 'softwareToken' && !user.mfa.software_token_registered) throw softwareTokenMissing();
    if (enabled && method === 'email' && !user.email) {
      throw invalid('invalid_parameter', 'method: email needs a user who signs in with an e-mail address', { field: 'method' });
    }
    const activity = this.deps.activity.change(enabled ? 'mfa_enabled' : 'mfa_disabled', user.activity);
    if (await this.deps.users.setMfa(saasId, userId, enabled ? { enabled, method } : { enabled }, activity)) return;
    if (!(await this.deps.users.get(saasId, userId))) throw userNotFound(userId);
    throw softwareTokenMissing();
  }

  async unlinkProvider(saasId: string, userId: string, providerName: string): Promise<void> {
    const provider = KNOWN_PROVIDERS.find((known) => known.toLowerCase() === providerName.toLowerCase());
    if (!provider) {
      throw invalid('unknown_provider', `provider_name: must be one of ${KNOWN_PROVIDERS.join(', ')}`, { field: 'provider_name' });
    }
    await this.record(saasId, userId);
    if (!(await this.deps.users.unlinkProvider(saasId, userId, provider))) {
      if (!(await this.deps.users.get(saasId, userId))) throw userNotFound(userId);
      throw notFound('provider_not_linked', `user ${userId} has no linked ${provider} account`);
    }
  }

  /** The user count the SaaS reports (for billing), with when it was saved. */
  async saveCount(saasId: string, count: number): Promise<void> {
    await this.deps.settings.put(saasId, SAAS_USER_COUNT, { count, updated_at: nowSeconds() });
  }

  async count(saasId: string): Promise<{ count: number; updated_at: number }> {
    return (await this.deps.settings.get<{ count: number; updated_at: number }>(saasId, SAAS_USER_COUNT)) ?? { count: 0, updated_at: 0 };
  }
}
