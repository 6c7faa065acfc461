/**
 * Who an external provider's verified account signs in as (docs/federation.md). The rule, in order:
 *
 *   1. The user that account is linked to (its subject, never its e-mail address, decides).
 *   2. Else, when the provider vouches for the address (email_verified) and a user has it: nobody yet. A
 *      `verify_external_user` code goes to that user's address, and the code links the account and signs in.
 *      A provider saying an address is verified is not enough to enter someone's account.
 *   3. Else, while self sign-up is on: a new user with that address, the account linked from the start, and a
 *      random password nobody knows (Reset Password gives them one if they want it).
 *   4. Else refused.
 */
import { nowSeconds } from '../../clock.js';
import { invalid } from '../../errors.js';
import type { Credentials } from '../../schemas/sign-in.js';
import { RULE, type Committer } from '../atomic.js';
import type { PasswordPolicy } from '../../schemas/configuration.js';
import { generatePassword } from '../configuration/password-policy.js';
import { FLOW_RULE, type UserFlowRepository, type UserFlowService } from '../users/user-flows.js';
import { loginFromUsername, type UserRecord, type UserRepository, type UserService } from '../users/users.js';

/** An account of an external provider, as its verified ID token describes it. */
export interface ExternalAccount {
  provider: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  /** A tenant's own identity provider (SAML, OpenID Connect): only that tenant's users, and no new users. */
  tenantId?: string;
  /** What a tenant's OpenID Connect provider says of the person besides (its claim mapping). */
  name?: string;
  groups?: string[];
}

/** The provider account a browser met, as a link page carries it: the code it asks for links only this one. */
export type MetAccount = Pick<ExternalAccount, 'provider' | 'subject' | 'tenantId'>;

export type FederatedOutcome =
  | { kind: 'signed_in'; userId: string; credentials: Credentials }
  /** Rule 2: a code went to `email`; `confirmLink` with it signs in. */
  | { kind: 'link_offered'; userId: string; email: string }
  /** Rule 3 with `mayCreate` false: the account would be made for `email`; nothing is stored yet. */
  | { kind: 'consent_needed'; email: string };

export interface FederationDeps {
  users: Pick<UserRepository, 'findByIdentity' | 'findByLogin'>;
  userService: Pick<UserService, 'prepareUser'>;
  flows: Pick<UserFlowRepository, 'identityClaimWrite'>;
  links: Pick<UserFlowService, 'offerLink' | 'confirmLink'>;
  committer: Committer;
  signIn: { federated(saasId: string, userId: string, via: { method: 'federated'; provider: string }): Promise<Credentials> };
  selfSignUpEnabled(saasId: string): Promise<boolean>;
  isMember(saasId: string, tenantId: string, userId: string): Promise<boolean>;
  passwordPolicy(saasId: string): Promise<PasswordPolicy>;
  /** The tenant that verified an address's domain, and the role its newcomers join with (verified-domains.ts). */
  domainOwner?(saasId: string, email: string): Promise<{ tenant_id: string; jit_role?: string } | undefined>;
  /** Makes the user a member of the tenant with the role (just-in-time membership). */
  joinTenant?(saasId: string, tenantId: string, userId: string, role: string): Promise<void>;
}

const notInTenant = () =>
  invalid('not_a_tenant_user', "no user of this tenant has the address the identity provider gave; ask the tenant's administrator");

export class FederationService {
  constructor(private readonly deps: FederationDeps) {}

  /**
   * `mayCreate` false (the screen, before the person gave the consents the SaaS's sign-up page asks for): where
   * rule 3 would make a user, the answer is `consent_needed` instead, and nothing is stored.
   */
  async signIn(saasId: string, account: ExternalAccount, { mayCreate = true }: { mayCreate?: boolean } = {}): Promise<FederatedOutcome> {
    const jitRole = await this.domainRule(saasId, account);
    const linked = await this.deps.users.findByIdentity(saasId, account.provider, account.subject);
    if (linked) return this.signedIn(saasId, await this.member(saasId, account, linked, jitRole), account.provider);
    const login = account.email && account.emailVerified ? loginFromUsername(account.email) : undefined;
    if (!login || login.kind !== 'email') {
      throw invalid('email_not_verified', `${account.provider} did not vouch for an e-mail address of this account; it cannot sign in here`);
    }
    const existing = await this.deps.users.findByLogin(saasId, login);
    if (existing) {
      await this.member(saasId, account, existing, jitRole);
      return this.offerLink(saasId, existing, account);
    }
    if (account.tenantId !== undefined && jitRole !== undefined) return this.createForTenant(saasId, account, login.value, account.tenantId, jitRole);
    if (account.tenantId !== undefined) throw notInTenant();
    if (!(await this.deps.selfSignUpEnabled(saasId))) {
      throw invalid(
        'self_sign_up_disabled',
        `no account has this ${account.provider} account's address, and this SaaS does not let people sign themselves up`,
      );
    }
    if (!mayCreate) return { kind: 'consent_needed', email: login.value };
    const userId = await this.createLinked(saasId, account, login.value);
    // Another sign-in made the user or the link a moment ago: decide again on what is stored now.
    return userId ? this.signedIn(saasId, userId, account.provider) : this.signIn(saasId, account, { mayCreate });
  }

  /**
   * Rule 2 confirmed: the code links the pending account, then the user is signed in. `account` is the one the
   * browser met (the screen's link ticket): a code mailed for another provider account links nothing.
   */
  async confirmLink(
    saasId: string,
    userId: string,
    code: string,
    account: Pick<ExternalAccount, 'provider' | 'subject' | 'tenantId'>,
  ): Promise<Credentials> {
    if (account.tenantId !== undefined && !(await this.deps.isMember(saasId, account.tenantId, userId))) throw notInTenant();
    await this.deps.links.confirmLink(saasId, userId, code, { provider: account.provider, subject: account.subject });
    return this.deps.signIn.federated(saasId, userId, { method: 'federated', provider: account.provider });
  }

  /**
   * A tenant's identity provider signs in that tenant's users only; a person of the tenant's verified domain
   * that offers just-in-time membership joins it first.
   */
  private async member(saasId: string, account: ExternalAccount, user: UserRecord, jitRole?: string): Promise<string> {
    if (account.tenantId === undefined || (await this.deps.isMember(saasId, account.tenantId, user.id))) return user.id;
    if (jitRole === undefined || !this.deps.joinTenant) throw notInTenant();
    await this.deps.joinTenant(saasId, account.tenantId, user.id, jitRole);
    return user.id;
  }

  /**
   * A tenant's provider may not speak for an address of a domain another tenant verified (it would sign in, or
   * link, someone else's people). Answers the role newcomers of the tenant's own verified domain join with.
   */
  private async domainRule(saasId: string, account: ExternalAccount): Promise<string | undefined> {
    if (account.tenantId === undefined || !account.email || !this.deps.domainOwner) return undefined;
    const owner = await this.deps.domainOwner(saasId, account.email);
    if (owner && owner.tenant_id !== account.tenantId) {
      throw invalid('domain_of_another_tenant', 'the identity provider gave an address of a domain another tenant verified; it cannot sign in here');
    }
    return owner?.jit_role;
  }

  /** Just-in-time: a new user of the tenant's verified domain, linked to the provider account at once, then its member. */
  private async createForTenant(saasId: string, account: ExternalAccount, email: string, tenantId: string, role: string): Promise<FederatedOutcome> {
    const userId = await this.createLinked(saasId, account, email);
    if (!userId) return this.signIn(saasId, account);
    await this.deps.joinTenant?.(saasId, tenantId, userId, role);
    return this.signedIn(saasId, userId, account.provider);
  }

  /** A new user with the address, the account linked from the start; undefined when another sign-in made either a moment ago. */
  private async createLinked(saasId: string, account: ExternalAccount, email: string): Promise<string | undefined> {
    const prepared = await this.deps.userService.prepareUser(saasId, {
      email,
      password: generatePassword(await this.deps.passwordPolicy(saasId)),
      providers: { [account.provider]: { subject: account.subject, linked_at: nowSeconds() } },
    });
    const outcome = await this.deps.committer.commit(
      prepared.write,
      this.deps.flows.identityClaimWrite(saasId, prepared.user.id, account.provider, account.subject),
    );
    if (outcome.committed) return prepared.user.id;
    if (outcome.refusedBy === RULE.loginFree || outcome.refusedBy === FLOW_RULE.identityFree) return undefined;
    throw new Error(`creating a federated user was refused by ${outcome.refusedBy}`);
  }

  private async offerLink(saasId: string, user: UserRecord, account: ExternalAccount): Promise<FederatedOutcome> {
    await this.deps.links.offerLink(saasId, user, account.provider, account.subject);
    return { kind: 'link_offered', userId: user.id, email: user.email };
  }

  private async signedIn(saasId: string, userId: string, provider: string): Promise<FederatedOutcome> {
    return { kind: 'signed_in', userId, credentials: await this.deps.signIn.federated(saasId, userId, { method: 'federated', provider }) };
  }
}
