/**
 * Tenant invitations: a member of a tenant invites an e-mail address into it, with envs and roles. The
 * invitee accepts (Validate Invitation) with the access token of their existing account, or with a
 * password that creates one; they become a member with the invited roles, and the invitation is accepted,
 * in one transaction that holds only while the invitation is still pending and unexpired, so two parallel
 * acceptances give one membership.
 *
 * Stored states are pending and accepted; expired is read from the clock on every read (docs/decisions.md,
 * decision 5). Invitations are kept a while past their expiry so the SaaS sees them as expired, then go.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { concurrentUpdate, forbidden, invalid, notFound, type DomainError } from '../../errors.js';
import type { Invitation, InvitationStatus, NewInvitation, InvitationAcceptance } from '../../schemas/invitations.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import type { DefinitionRepository } from '../configuration/definitions.js';
import { newCountedMail, type CountedMail, type MailLimits } from '../mail/mail.js';
import { envsWithRoles, loadCatalog, membershipRefusal, type Catalog, type TenantUserService } from './tenant-users.js';
import { tenantNotFound, type TenantRepository } from './tenants.js';
import type { AccessTokenVerifier } from '../tokens/tokens.js';
import { emailAddress, emailLogin, given, userNotFound, type UserRepository, type UserService } from '../users/users.js';
import {
  issueVerificationCode,
  MAX_CODE_ATTEMPTS,
  unusableCode,
  verificationCodeMatches,
  wrongCode,
  type VerificationCode,
} from '../users/verification-codes.js';

/** How long an invitation stays readable after it expired (as `expired`), before it goes. */
export const KEEP_EXPIRED_SECONDS = 30 * 86400;
/**
 * Accepting writes one check per invited env and role besides the user and the membership; DynamoDB takes
 * 100 items in one transaction.
 */
export const MAX_INVITED_ENVS_AND_ROLES = 80;

export const INVITATION_RULE = {
  /** The inviter is a member of the tenant. */
  inviterMember: 'inviter_member',
  invitationExists: 'invitation_exists',
  /** The invitation is still pending and not expired. */
  invitationPending: 'invitation_pending',
} as const;

export interface InvitedEnv {
  id: number;
  role_names: string[];
}

export interface InvitationRecord {
  id: string;
  tenant_id: string;
  /** As given, trimmed. */
  email: string;
  envs: InvitedEnv[];
  /** The link mailed to the invitee. */
  invitation_url: string;
  inviter_id: string;
  created_at: number;
  /** Unix seconds from which it can no longer be accepted. */
  expired_at: number;
  /** Unix seconds from which it is gone (the item's TTL, checked on read too). */
  remove_at: number;
  /** Expired is never stored: it is pending past expired_at. */
  status: 'pending' | 'accepted';
  accepted_at?: number;
  accepted_user_id?: string;
  /** The login screen's code that proves the invited address before an account is made with it. */
  join_code?: VerificationCode;
}

/** What an invitation id names: nothing, a deleted invitation, or an invitation. */
export type InvitationLookup = { state: 'missing' } | { state: 'deleted' } | { state: 'found'; invitation: InvitationRecord };

export interface InvitationRepository {
  /** The invitation, its pointer and its mail. Rules, in order: `tenant_live`, `inviter_member`, `new_item`. */
  createWrite(saasId: string, invitation: InvitationRecord, mail: CountedMail): AtomicWrite;
  /** As stored, past remove_at or not. */
  get(saasId: string, tenantId: string, invitationId: string): Promise<InvitationRecord | undefined>;
  list(saasId: string, tenantId: string): Promise<InvitationRecord[]>;
  /** An exported invitation (issue 39) with its pointer, unmailed. Rules, in order: `tenant_live`, `new_item`. */
  importWrite(saasId: string, invitation: InvitationRecord): AtomicWrite;
  /** Through the invitation's pointer, which names its tenant. */
  find(saasId: string, invitationId: string, now: number): Promise<InvitationLookup>;
  /** Removes the invitation and turns its pointer into a tombstone. Rule `invitation_exists`. */
  deleteWrite(saasId: string, tenantId: string, invitationId: string): AtomicWrite;
  /** Marks it accepted by `userId`. Rule `invitation_pending`: still pending and `now` before expired_at. */
  acceptWrite(saasId: string, invitation: InvitationRecord, userId: string, now: number): AtomicWrite;
  /** A new join code (replacing any) and its mail. Rule `invitation_pending`. */
  joinCodeWrite(saasId: string, invitation: InvitationRecord, code: VerificationCode, mail: CountedMail, now: number): AtomicWrite;
  /** Spends one answer of the join code while it is `code` and has answers left; false otherwise. */
  spendJoinCodeAttempt(saasId: string, invitation: InvitationRecord, code: VerificationCode, maxAttempts: number): Promise<boolean>;
}

export interface InvitationDeps {
  invitations: InvitationRepository;
  tenants: TenantRepository;
  definitions: DefinitionRepository;
  users: UserRepository;
  userService: Pick<UserService, 'prepareUser'>;
  tenantUsers: Pick<TenantUserService, 'prepareMembership'>;
  tokens: AccessTokenVerifier;
  committer: Committer;
  box: SecretBox;
  /** The deployment's mail rate limits (configuration). */
  mailLimits: MailLimits;
  /** The SaaS's login screen (ending in `/`), whose invitation page the link opens. */
  loginScreenUrl(saasId: string): Promise<string>;
  lifetimeSeconds: number;
}

export function invitationUrl(loginScreen: string, tenantId: string, invitationId: string): string {
  const query = new URLSearchParams({ invitation_id: invitationId, tenant_id: tenantId });
  return `${loginScreen}invitation?${query.toString()}`;
}

export function statusOf(invitation: InvitationRecord, now: number): InvitationStatus {
  if (invitation.status === 'accepted') return 'accepted';
  return now >= invitation.expired_at ? 'expired' : 'pending';
}

const present = (invitation: InvitationRecord | undefined, now: number) => (invitation && invitation.remove_at > now ? invitation : undefined);

const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export const invitationNotFound = (invitationId: string) => notFound('invitation_not_found', `no invitation with id ${invitationId}`);

/** Why a stored invitation cannot be accepted now, or undefined when it can. */
function unacceptable(invitation: InvitationRecord, now: number): DomainError | undefined {
  switch (statusOf(invitation, now)) {
    case 'accepted':
      return invalid('invitation_accepted', 'invitation_id: the invitation has already been accepted', { field: 'invitation_id' });
    case 'expired':
      return invalid('invitation_expired', `invitation_id: the invitation expired at ${invitation.expired_at}`, { field: 'invitation_id' });
    default:
      return undefined;
  }
}

const emailMismatch = (field: string) => invalid('email_mismatch', `${field}: is not the address the invitation was sent to`, { field });

/** Invited envs once each, in id order, their roles once each. */
function mergeEnvs(envs: readonly InvitedEnv[]): InvitedEnv[] {
  const byId = new Map<number, Set<string>>();
  for (const env of envs) byId.set(env.id, new Set([...(byId.get(env.id) ?? []), ...env.role_names]));
  return [...byId.entries()].sort(([a], [b]) => a - b).map(([id, roles]) => ({ id, role_names: [...roles].sort() }));
}

/** Every invited env and role must exist now; acceptance checks them again in its transaction. */
function checkInvitedEnvs(envs: readonly InvitedEnv[], catalog: Catalog): void {
  const roleNames = new Set(envs.flatMap((env) => env.role_names));
  if (envs.length + roleNames.size > MAX_INVITED_ENVS_AND_ROLES) {
    throw invalid('invalid_parameter', `envs: at most ${MAX_INVITED_ENVS_AND_ROLES} envs and distinct roles in all`, { field: 'envs' });
  }
  for (const env of envs) {
    if (!catalog.envs.has(env.id)) throw notFound('env_not_found', `no env with id ${env.id}`);
    const missing = env.role_names.find((name) => !catalog.roles.has(name));
    if (missing !== undefined) throw invalid('role_not_found', `envs: no role named '${missing}'`, { field: 'envs' });
  }
}

function toInvitation(invitation: InvitationRecord, catalog: Catalog, now: number): Invitation {
  return {
    id: invitation.id,
    email: invitation.email,
    envs: envsWithRoles(
      invitation.envs.flatMap((env) => env.role_names.map((role_name) => ({ env_id: env.id, role_name }))),
      catalog,
    ),
    expired_at: invitation.expired_at,
    status: statusOf(invitation, now),
    invitation_url: invitation.invitation_url,
  };
}

export class InvitationService {
  constructor(private readonly deps: InvitationDeps) {}

  private async liveTenant(saasId: string, tenantId: string): Promise<void> {
    if (!(await this.deps.tenants.get(saasId, tenantId))) throw tenantNotFound(tenantId);
  }

  /** Create Tenant Invitation: by a member of the tenant (their access token), mailed with invite_tenant_user. */
  async create(saasId: string, tenantId: string, input: NewInvitation): Promise<Invitation> {
    emailLogin(input.email);
    const claims = await this.deps.tokens.verifyAccessToken(saasId, input.access_token);
    return this.invite(saasId, tenantId, claims.sub, input);
  }

  /**
   * An invitation by a member the caller already knows (a tenant admin signed in on the setup page, whose screen
   * session stands for the access token): the same checks and write, the inviter's membership among them.
   */
  async invite(saasId: string, tenantId: string, inviterId: string, input: Omit<NewInvitation, 'access_token'>): Promise<Invitation> {
    emailLogin(input.email);
    const envs = mergeEnvs(input.envs);
    const [, catalog, loginScreen] = await Promise.all([
      this.liveTenant(saasId, tenantId),
      loadCatalog(this.deps.definitions, saasId),
      this.deps.loginScreenUrl(saasId),
    ]);
    checkInvitedEnvs(envs, catalog);
    const now = nowSeconds();
    const id = randomUUID();
    const expiredAt = now + this.deps.lifetimeSeconds;
    const invitation: InvitationRecord = {
      id,
      tenant_id: tenantId,
      email: emailAddress(input.email),
      envs,
      invitation_url: invitationUrl(loginScreen, tenantId, id),
      inviter_id: inviterId,
      created_at: now,
      expired_at: expiredAt,
      remove_at: expiredAt + KEEP_EXPIRED_SECONDS,
      status: 'pending',
    };
    // Counted per invited address only: a tenant's admin may invite a whole team in an hour.
    const mail = await newCountedMail(this.deps, saasId, 'invite_tenant_user', invitation.email, invitation.invitation_url);
    const outcome = await this.deps.committer.commit(this.deps.invitations.createWrite(saasId, invitation, mail));
    if (!outcome.committed) {
      if (outcome.refusedBy === RULE.tenantLive) throw tenantNotFound(tenantId);
      if (outcome.refusedBy === INVITATION_RULE.inviterMember) {
        throw forbidden('inviter_not_member', `access_token: the inviter is not a member of tenant ${tenantId}`);
      }
      throw new Error(`creating an invitation was refused by ${outcome.refusedBy}`);
    }
    return toInvitation(invitation, catalog, now);
  }

  /**
   * An open invitation of an export (issue 39, docs/migration.md) under the id its mailed link names, with its
   * expiry; its link points at this SaaS's login screen. `exists` when an invitation (or its deletion) has that id.
   */
  async importOpen(
    saasId: string,
    row: { id: string; tenant_id: string; inviter_id: string; email: string; envs: InvitedEnv[]; created_at: number; expired_at: number },
  ): Promise<'created' | 'exists'> {
    emailLogin(row.email);
    const now = nowSeconds();
    if (row.expired_at <= now)
      throw invalid('invitation_expired', `expired_at: the invitation expired at ${row.expired_at}`, { field: 'expired_at' });
    const envs = mergeEnvs(row.envs);
    const [, catalog, loginScreen] = await Promise.all([
      this.liveTenant(saasId, row.tenant_id),
      loadCatalog(this.deps.definitions, saasId),
      this.deps.loginScreenUrl(saasId),
    ]);
    checkInvitedEnvs(envs, catalog);
    const invitation: InvitationRecord = {
      ...row,
      email: emailAddress(row.email),
      envs,
      invitation_url: invitationUrl(loginScreen, row.tenant_id, row.id),
      remove_at: row.expired_at + KEEP_EXPIRED_SECONDS,
      status: 'pending',
    };
    const outcome = await this.deps.committer.commit(this.deps.invitations.importWrite(saasId, invitation));
    if (outcome.committed) return 'created';
    if (outcome.refusedBy === RULE.tenantLive) throw tenantNotFound(row.tenant_id);
    if (outcome.refusedBy === RULE.newItem) return 'exists';
    throw new Error(`importing an invitation was refused by ${outcome.refusedBy}`);
  }

  async list(saasId: string, tenantId: string): Promise<Invitation[]> {
    const [, stored, catalog] = await Promise.all([
      this.liveTenant(saasId, tenantId),
      this.deps.invitations.list(saasId, tenantId),
      loadCatalog(this.deps.definitions, saasId),
    ]);
    const now = nowSeconds();
    return stored
      .filter((invitation) => present(invitation, now))
      .sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id))
      .map((invitation) => toInvitation(invitation, catalog, now));
  }

  async get(saasId: string, tenantId: string, invitationId: string): Promise<Invitation> {
    const [, stored, catalog] = await Promise.all([
      this.liveTenant(saasId, tenantId),
      this.deps.invitations.get(saasId, tenantId, invitationId),
      loadCatalog(this.deps.definitions, saasId),
    ]);
    const now = nowSeconds();
    const invitation = present(stored, now);
    if (!invitation) throw invitationNotFound(invitationId);
    return toInvitation(invitation, catalog, now);
  }

  async delete(saasId: string, tenantId: string, invitationId: string): Promise<void> {
    if (!present(await this.deps.invitations.get(saasId, tenantId, invitationId), nowSeconds())) throw invitationNotFound(invitationId);
    const outcome = await this.deps.committer.commit(this.deps.invitations.deleteWrite(saasId, tenantId, invitationId));
    if (!outcome.committed) throw invitationNotFound(invitationId);
  }

  /** The invitation if it can be accepted now: 404 when there is none, 400 when deleted, accepted or expired. */
  private async acceptable(saasId: string, invitationId: string, now: number): Promise<InvitationRecord> {
    const lookup = await this.deps.invitations.find(saasId, invitationId, now);
    if (lookup.state === 'missing') throw invitationNotFound(invitationId);
    if (lookup.state === 'deleted') throw invalid('invitation_deleted', 'invitation_id: the invitation was deleted', { field: 'invitation_id' });
    const refusal = unacceptable(lookup.invitation, now);
    if (refusal) throw refusal;
    return lookup.invitation;
  }

  /** Get Invitation Validity: whether it can still be accepted. */
  async validity(saasId: string, invitationId: string): Promise<{ is_valid: boolean }> {
    const now = nowSeconds();
    const lookup = await this.deps.invitations.find(saasId, invitationId, now);
    if (lookup.state === 'missing') throw invitationNotFound(invitationId);
    if (lookup.state === 'deleted' || unacceptable(lookup.invitation, now)) return { is_valid: false };
    return { is_valid: Boolean(await this.deps.tenants.get(saasId, lookup.invitation.tenant_id)) };
  }

  /**
   * The hosted login screen's way in for a new person: a code mailed (verify_user_attribute) to the invited
   * address, which proves the address before an account is made with it; a forwarded link alone does not.
   */
  async mailJoinCode(saasId: string, invitationId: string): Promise<void> {
    const now = nowSeconds();
    const invitation = await this.acceptable(saasId, invitationId, now);
    const { code, record } = issueVerificationCode('EMAIL_VERIFY', {}, now);
    const mail = await newCountedMail(this.deps, saasId, 'verify_user_attribute', invitation.email, code);
    const outcome = await this.deps.committer.commit(this.deps.invitations.joinCodeWrite(saasId, invitation, record, mail, now));
    if (outcome.committed) return;
    await this.acceptable(saasId, invitationId, nowSeconds());
    throw concurrentUpdate('invitation');
  }

  /** The join code and a password: the invited user made with them, a member, the invitation accepted. */
  async joinWithCode(saasId: string, invitationId: string, input: { code: string; password: string }): Promise<{ email: string }> {
    const invitation = await this.acceptable(saasId, invitationId, nowSeconds());
    const unusable = unusableCode(invitation.join_code, nowSeconds());
    if (unusable) throw unusable;
    const code = invitation.join_code as VerificationCode;
    const spent = await this.deps.invitations.spendJoinCodeAttempt(saasId, invitation, code, MAX_CODE_ATTEMPTS);
    if (!spent || !verificationCodeMatches(code, input.code)) throw wrongCode();
    await this.accept(saasId, invitationId, { email: invitation.email, password: input.password });
    return { email: invitation.email };
  }

  /**
   * Validate Invitation: the invitee becomes a member with the invited envs and roles, as the user of the
   * access token (whose e-mail address must be the invited one) or as a new user with that address and the
   * given password; the invitation is accepted in the same transaction.
   */
  async accept(saasId: string, invitationId: string, input: InvitationAcceptance): Promise<void> {
    const now = nowSeconds();
    const invitation = await this.acceptable(saasId, invitationId, now);
    const invitee = await this.invitee(saasId, invitation, input);
    const membership = await this.deps.tenantUsers.prepareMembership(saasId, {
      tenantId: invitation.tenant_id,
      userId: invitee.userId,
      envs: invitation.envs,
      userIsNew: invitee.writes.length > 0,
    });
    const outcome = await this.deps.committer.commit(
      this.deps.invitations.acceptWrite(saasId, invitation, invitee.userId, now),
      ...invitee.writes,
      ...membership.writes,
    );
    if (outcome.committed) return;
    if (outcome.refusedBy === INVITATION_RULE.invitationPending) {
      // Accepted, deleted or expired meanwhile: say which.
      await this.acceptable(saasId, invitationId, nowSeconds());
      throw concurrentUpdate('invitation');
    }
    if (outcome.refusedBy === RULE.loginFree) throw existingUserNeedsToken();
    throw membershipRefusal(outcome.refusedBy, { tenantId: invitation.tenant_id, userId: invitee.userId });
  }

  /** The accepting user: the holder of the access token, else a new user (its write to commit with the rest). */
  private async invitee(
    saasId: string,
    invitation: InvitationRecord,
    input: InvitationAcceptance,
  ): Promise<{ userId: string; writes: AtomicWrite[] }> {
    const accessToken = given(input.access_token);
    if (accessToken !== undefined) {
      const claims = await this.deps.tokens.verifyAccessToken(saasId, accessToken);
      const user = await this.deps.users.get(saasId, claims.sub);
      if (!user) throw userNotFound(claims.sub);
      if (!user.email || !sameAddress(user.email, invitation.email)) throw emailMismatch('access_token');
      return { userId: user.id, writes: [] };
    }
    const email = given(input.email);
    if (email === undefined) {
      throw invalid('invalid_parameter', 'email: give access_token, or email and password for a new user', { field: 'email' });
    }
    if (!sameAddress(email, invitation.email)) throw emailMismatch('email');
    if (await this.deps.users.findByLogin(saasId, emailLogin(email))) throw existingUserNeedsToken();
    const password = given(input.password);
    if (password === undefined) throw invalid('invalid_parameter', 'password: is required to create the invited user', { field: 'password' });
    const prepared = await this.deps.userService.prepareUser(saasId, { email, password });
    return { userId: prepared.user.id, writes: [prepared.write] };
  }
}

const existingUserNeedsToken = () =>
  invalid('access_token_required', 'access_token: a user with this e-mail address exists; accept the invitation with their access token', {
    field: 'access_token',
  });
