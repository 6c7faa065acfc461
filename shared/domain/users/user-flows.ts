/**
 * What a signed-in user does to their own account, proven by their access token: move to a new e-mail
 * address (a code mailed to that address confirms it), register an authenticator app (a code of the app
 * confirms it), and link an external account (a code mailed to the address in the token confirms it).
 *
 * Every change commits in one transaction with what it depends on: the confirmed e-mail address moves
 * together with the code being used up, so a code confirms one change only, and two parallel confirms give
 * one change and one refusal.
 */
import type { ActivityChange, ActivityKind, ActivityLog } from './activity.js';
import { createHash } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { matchTotp, newTotpSecret } from '../../crypto/totp.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { alreadyExists, concurrentUpdate, DomainError, invalid } from '../../errors.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import { newCountedMail, type CountedMail, type MailLimits } from '../mail/mail.js';
import type { AccessTokenClaims, AccessTokenVerifier } from '../tokens/tokens.js';
import {
  emailAddress,
  emailLogin,
  loginFromUsername,
  loginOf,
  loginTaken,
  notAnEmailUser,
  totpSecretContext,
  userNotFound,
  type LinkedProvider,
  type Login,
  type UserRecord,
  type UserRepository,
} from './users.js';
import {
  CODE_LIFETIME_SECONDS,
  issueVerificationCode,
  MAX_CODE_ATTEMPTS,
  unusableCode,
  verificationCodeMatches,
  wrongCode,
  type CodePurpose,
  type VerificationCode,
} from './verification-codes.js';

/** The rules these flows' writes hold, besides the users store's. */
export const FLOW_RULE = {
  /** The code is still the one that was read: not used, not replaced. */
  codeUnused: 'code_unused',
  /** The secret being registered is still the pending one. */
  totpPending: 'totp_pending',
  /** The user has no account of that provider linked yet. */
  providerUnlinked: 'provider_unlinked',
  /** No user has that provider account linked. */
  identityFree: 'identity_free',
} as const;

/** The account-wide external provider (docs/federation.md); a tenant's SAML accounts are linked as `SAML:<tenant id>`. */
export const LINKED_PROVIDER = 'Google';

export interface UserFlowRepository {
  /** The code and its mail, replacing any earlier code of that purpose. Rule `user_live`. */
  saveCodeWrite(saasId: string, userId: string, code: VerificationCode, mail: CountedMail): AtomicWrite;
  /** Nobody but `userId` holds the sign-in name. Rule `login_free`. */
  loginFreeCheck(saasId: string, login: Login, userId: string): AtomicWrite;
  /** With `decoy`, `userId` is a decoy's id and the code its own (decoySaveCodeWrite). */
  code(saasId: string, userId: string, purpose: CodePurpose, slot?: string, decoy?: boolean): Promise<VerificationCode | undefined>;
  /** Spends one answer of the code while it is the one read and has answers left; false otherwise. */
  spendAttempt(saasId: string, userId: string, code: VerificationCode, maxAttempts: number, decoy?: boolean): Promise<boolean>;
  /**
   * What spendAttempt writes, written to a decoy item of `decoyId` (until `expiresAt`): an answer given when no
   * code is waiting spends an attempt all the same, so its refusal takes the time of a waiting code's.
   */
  spendDecoyAttempt(saasId: string, decoyId: string, purpose: CodePurpose, expiresAt: number): Promise<void>;
  /**
   * What saveCodeWrite writes, written to decoy items of `decoyId` that hold no one's data and mail nothing:
   * the same transaction (a check, the code, the mail, two counters) for a name nobody has.
   */
  decoySaveCodeWrite(saasId: string, decoyId: string, code: VerificationCode, mail: CountedMail): AtomicWrite;
  /** Removes the code while it is the one read. Rule `code_unused`. */
  useCodeWrite(saasId: string, userId: string, code: VerificationCode): AtomicWrite;
  /** Rule `user_live`. */
  pendingTotpSecretWrite(saasId: string, userId: string, sealedSecret: string): AtomicWrite;
  /** Makes the pending secret the registered one, while it is `sealedSecret`. Rule `totp_pending`. */
  registerTotpSecretWrite(saasId: string, userId: string, sealedSecret: string, activity?: ActivityChange): AtomicWrite;
  /** The link, and the provider account's owner item. Rules `provider_unlinked`, `identity_free`. */
  linkProviderWrite(saasId: string, userId: string, provider: string, link: LinkedProvider): AtomicWrite;
  /** The provider account's owner item alone (a user created with the link). Rule `identity_free`. */
  identityClaimWrite(saasId: string, userId: string, provider: string, subject: string): AtomicWrite;
}

export interface UserFlowDeps {
  users: UserRepository;
  /** A password change checked against the policy, to commit with the code's use (users.ts). */
  passwordChange(saasId: string, userId: string, password: string, recorded?: ActivityKind): Promise<AtomicWrite>;
  /** Records an authenticator app's registration in the user's activity. */
  activity: ActivityLog;
  flows: UserFlowRepository;
  committer: Committer;
  tokens: AccessTokenVerifier;
  box: SecretBox;
  /** The deployment's mail rate limits (configuration): a decoy's mail counts against them as a real one. */
  mailLimits: MailLimits;
  /** The SaaS's hosted login screen, ending in `/` (ConfigurationService.loginScreenUrl): where a mailed link lands. */
  loginScreenUrl(saasId: string): Promise<string>;
}

/** The error for a refusal by a rule, by rule. */
type Refusals = Record<string, () => DomainError>;

interface CodeRequest {
  purpose: CodePurpose;
  /** The slot the code replaces (verification-codes.ts); the purpose's one slot when absent. */
  slot?: string;
  /** What the code confirms. */
  payload: Record<string, string>;
  template: 'update_user_attribute' | 'verify_external_user' | 'forgot_password';
  to: string;
  /** What the mail carries for the code: the code itself when absent. */
  carry?: (code: string) => Promise<string>;
  /** How long the code lasts, in seconds: its purpose's lifetime when absent. */
  lifetime?: number;
  /** Writes that must hold in the same commit, and the errors for their refusals. */
  alongside?: AtomicWrite[];
  refusals?: Refusals;
}

/** How long a set-password link mailed on import lasts: a week, as an invitation. */
export const SET_PASSWORD_LINK_SECONDS = 7 * 24 * 3600;

/** Where a decoy's mail is addressed: it is never sent (its outbox item is a decoy), but is sealed alike. */
const DECOY_ADDRESS = 'decoy@invalid';

/** What an answer is compared with when no code is waiting: a code no answer matches, of a real one's size. */
const NO_CODE: VerificationCode = {
  purpose: 'PASSWORD_RESET',
  digest: '0'.repeat(64),
  salt: '0'.repeat(32),
  expires_at: 0,
  attempts: 0,
  payload: {},
};

/** The made-up id of a name nobody has: the same for every spelling the lookup treats alike, so its decoy items are reused. */
const decoyIdOf = (saasId: string, username: string) =>
  createHash('sha256').update(`decoy\n${saasId}\n${username.trim().toLowerCase()}`).digest('hex').slice(0, 32);

/** The pending offer of the provider is for another of its accounts now: a newer sign-in with it replaced the one met. */
const offerReplaced = (provider: string) =>
  invalid(
    'link_offer_replaced',
    `code: the ${provider} account waiting to be linked is no longer the one you signed in with; sign in with it again`,
    {
      field: 'code',
    },
  );

const providerAlreadyLinked = (provider: string) =>
  alreadyExists('provider_already_linked', `access_token: this user already has a linked ${provider} account`);

export class UserFlowService {
  constructor(private readonly deps: UserFlowDeps) {}

  /** The user the access token belongs to, and its claims; with `userId`, the token must be that user's (else 401). */
  private async tokenHolder(saasId: string, accessToken: string, userId?: string): Promise<{ user: UserRecord; claims: AccessTokenClaims }> {
    const claims = await this.deps.tokens.verifyAccessToken(saasId, accessToken, userId === undefined ? {} : { userId });
    const user = await this.deps.users.get(saasId, claims.sub);
    if (!user) throw userNotFound(claims.sub);
    return { user, claims };
  }

  /**
   * Commits the writes. A refused commit is a 404 when the user has gone meanwhile (whichever rule noticed),
   * else the error `refusals` names for the rule, else a conflict.
   */
  private async commit(saasId: string, userId: string, writes: AtomicWrite[], refusals: Refusals = {}) {
    const outcome = await this.deps.committer.commit(...writes);
    if (outcome.committed) return;
    if (outcome.refusedBy === RULE.userLive || !(await this.deps.users.get(saasId, userId))) throw userNotFound(userId);
    throw refusals[outcome.refusedBy]?.() ?? concurrentUpdate('user');
  }

  /** A new code for the user, mailed in the same commit as the code and the request's other writes. */
  private async mailCode(saasId: string, userId: string, request: CodeRequest): Promise<void> {
    const now = nowSeconds();
    const issued = issueVerificationCode(request.purpose, request.payload, now, request.slot);
    const record = request.lifetime === undefined ? issued.record : { ...issued.record, expires_at: now + request.lifetime };
    const value = request.carry ? await request.carry(issued.code) : issued.code;
    const mail = await newCountedMail(this.deps, saasId, request.template, request.to, value, userId);
    await this.commit(saasId, userId, [...(request.alongside ?? []), this.deps.flows.saveCodeWrite(saasId, userId, record, mail)], request.refusals);
  }

  /**
   * The stored code if `given` is it; each answer spends one of the code's attempts first. `confirms`, when
   * given, checks the code is one for what the caller confirms before an attempt is spent. With `decoy`, the
   * same requests and checks against a decoy's code, and a refusal whatever was given.
   */
  private async answer(
    saasId: string,
    userId: string,
    purpose: CodePurpose,
    given: string,
    { slot, confirms, decoy = false }: { slot?: string; confirms?: (code: VerificationCode) => void; decoy?: boolean } = {},
  ): Promise<VerificationCode> {
    const stored = await this.deps.flows.code(saasId, userId, purpose, slot, decoy);
    const now = nowSeconds();
    const unusable = unusableCode(stored, now);
    if (unusable) {
      // No code to answer (none asked for, expired, used up): an attempt is spent on a decoy item, and the answer
      // compared, all the same. A wrong reset code told who had a code waiting: 1.7 times slower (issue 36).
      await this.deps.flows.spendDecoyAttempt(saasId, decoy ? userId : decoyIdOf(saasId, userId), purpose, now + CODE_LIFETIME_SECONDS);
      verificationCodeMatches(stored ?? NO_CODE, given);
      throw unusable;
    }
    const code = stored as VerificationCode;
    confirms?.(code);
    const spent = await this.deps.flows.spendAttempt(saasId, userId, code, MAX_CODE_ATTEMPTS, decoy);
    if (!spent || !verificationCodeMatches(code, given) || decoy) throw wrongCode();
    return code;
  }

  /**
   * What asking for a code does for a user, done for a name that has none (or a user who gets no mail): a
   * code made, its mail sealed, and the same transaction written to decoy items. Nothing is mailed, and the
   * time of the answer does not tell (the screen's forgot step took twice as long for a real user before).
   */
  private async decoyCode(saasId: string, username: string, request: Pick<CodeRequest, 'purpose' | 'template'>): Promise<void> {
    const id = decoyIdOf(saasId, username);
    const { code, record } = issueVerificationCode(request.purpose, {}, nowSeconds());
    const mail = await newCountedMail(this.deps, saasId, request.template, DECOY_ADDRESS, code, id);
    try {
      await this.deps.committer.commit(this.deps.flows.decoySaveCodeWrite(saasId, id, record, mail));
    } catch (error) {
      // Past the mail limits, as a user's request is: the same silent answer.
      if (!(error instanceof DomainError && error.kind === 'too_many_requests')) throw error;
    }
  }

  /** Request User Email Update: mails a code to the new address, which must be free. */
  async requestEmailUpdate(saasId: string, userId: string, input: { email: string; access_token: string }): Promise<void> {
    const login = emailLogin(input.email);
    const { user } = await this.tokenHolder(saasId, input.access_token, userId);
    if (!user.email) throw notAnEmailUser();
    const address = emailAddress(input.email);
    await this.mailCode(saasId, userId, {
      purpose: 'EMAIL_UPDATE',
      payload: { email: address },
      template: 'update_user_attribute',
      to: address,
      alongside: [this.deps.flows.loginFreeCheck(saasId, login, userId)],
      refusals: { [RULE.loginFree]: () => loginTaken(login) },
    });
  }

  /** Confirm User Email Update: the code moves the user to the address it was sent to, if still free. */
  async confirmEmailUpdate(saasId: string, userId: string, input: { code: string; access_token: string }): Promise<void> {
    const { user } = await this.tokenHolder(saasId, input.access_token, userId);
    const code = await this.answer(saasId, userId, 'EMAIL_UPDATE', input.code);
    const address = code.payload.email as string;
    const to = emailLogin(address);
    await this.commit(
      saasId,
      userId,
      [
        await this.deps.users.changeLoginWrite(saasId, userId, loginOf(user), to, { email: address, sign_in_id: '' }, user.password),
        this.deps.flows.useCodeWrite(saasId, userId, code),
      ],
      { [RULE.loginFree]: () => loginTaken(to), [FLOW_RULE.codeUnused]: wrongCode },
    );
  }

  /**
   * Forgot password (the hosted login screen): a code mailed with forgot_password to the user's address. The
   * same answer, and no mail, for an unknown name, a user without an address, or an address whose mails are
   * limited for now: the screen must not tell who has an account.
   */
  async requestPasswordReset(saasId: string, username: string): Promise<void> {
    const login = loginFromUsername(username);
    const user = login && (await this.deps.users.findByLogin(saasId, login));
    if (!user?.email) {
      if (login) await this.decoyCode(saasId, username, { purpose: 'PASSWORD_RESET', template: 'forgot_password' });
      return;
    }
    try {
      await this.mailCode(saasId, user.id, { purpose: 'PASSWORD_RESET', payload: {}, template: 'forgot_password', to: user.email });
    } catch (error) {
      if (error instanceof DomainError && (error.kind === 'too_many_requests' || error.code === 'user_not_found')) return;
      throw error;
    }
  }

  /**
   * A user imported without a password (an import job that asked for it, docs/migration.md): a link to the
   * hosted screen's set-password page, mailed with forgot_password. The name and a password-reset code ride in
   * the link's fragment, which a browser never sends to a server, so no log or Referer holds them; the page
   * reads them and sets the password as a forgotten one's reset does. The code lasts SET_PASSWORD_LINK_SECONDS
   * (a mail of a move is read later than one asked for a minute ago); a newer code, from "Forgot your
   * password?" or a sign-in attempt, replaces it. Refused by the mail limits as any mail is.
   */
  async mailSetPasswordLink(saasId: string, user: Pick<UserRecord, 'id' | 'email'>): Promise<void> {
    await this.mailCode(saasId, user.id, {
      purpose: 'PASSWORD_RESET',
      payload: {},
      template: 'forgot_password',
      to: user.email,
      lifetime: SET_PASSWORD_LINK_SECONDS,
      carry: async (code) => `${await this.deps.loginScreenUrl(saasId)}set-password#${new URLSearchParams({ username: user.email, code })}`,
    });
  }

  /**
   * The code of a forgotten password and a new one (checked against the policy): the password changes, which
   * ends the user's sessions and tokens, and the code is used up. An unknown name is refused as a wrong code.
   */
  async confirmPasswordReset(saasId: string, input: { username: string; code: string; password: string }): Promise<void> {
    const login = loginFromUsername(input.username);
    const user = login && (await this.deps.users.findByLogin(saasId, login));
    // A user without an address was never mailed a code: refused as a name nobody has.
    if (!user?.email) {
      // The decoy's code, as requestPasswordReset left it: the same reads, write and refusals as a user's.
      if (login) await this.answer(saasId, decoyIdOf(saasId, input.username), 'PASSWORD_RESET', input.code, { decoy: true });
      throw wrongCode();
    }
    const code = await this.answer(saasId, user.id, 'PASSWORD_RESET', input.code);
    await this.commit(
      saasId,
      user.id,
      [
        await this.deps.passwordChange(saasId, user.id, input.password, 'password_reset_completed'),
        this.deps.flows.useCodeWrite(saasId, user.id, code),
      ],
      {
        [FLOW_RULE.codeUnused]: wrongCode,
      },
    );
  }

  /** Create secret code: a new authenticator-app secret, pending until a code of the app registers it. */
  async createSecretCode(saasId: string, userId: string, accessToken: string): Promise<{ secret_code: string }> {
    await this.tokenHolder(saasId, accessToken, userId);
    const secret = newTotpSecret();
    const sealed = await this.deps.box.seal(secret, totpSecretContext(saasId, userId));
    await this.commit(saasId, userId, [this.deps.flows.pendingTotpSecretWrite(saasId, userId, sealed)]);
    return { secret_code: secret };
  }

  /** Register Authentication Application: a code of the app (now, or one step either side) makes it the user's. */
  async registerSoftwareToken(saasId: string, userId: string, input: { access_token: string; verification_code: string }): Promise<void> {
    const { user } = await this.tokenHolder(saasId, input.access_token, userId);
    const pending = user.mfa.pending_sealed_totp_secret;
    if (!pending) {
      throw invalid('secret_code_not_created', 'verification_code: no authenticator app is waiting to be registered; create a secret code first', {
        field: 'verification_code',
      });
    }
    const secret = await this.deps.box.open(pending, totpSecretContext(saasId, userId));
    if (matchTotp(secret, input.verification_code.trim()) === undefined) {
      throw invalid('invalid_verification_code', "verification_code: is not the authenticator app's current code", { field: 'verification_code' });
    }
    const activity = this.deps.activity.change('authenticator_registered', user.activity);
    await this.commit(saasId, userId, [this.deps.flows.registerTotpSecretWrite(saasId, userId, pending, activity)], {
      [FLOW_RULE.totpPending]: () =>
        invalid('secret_code_replaced', 'verification_code: a newer secret code was created meanwhile; register the app with that one', {
          field: 'verification_code',
        }),
    });
  }

  /**
   * A provider's account (`subject`) signed in with the user's verified address but is linked to nobody: a
   * `verify_external_user` code to the user's address confirms the link (docs/federation.md). The code's
   * payload is that pending account, for 24 hours, in the provider's own slot: an offer from another provider
   * (a tenant's identity provider asserting the same address) never replaces the one the user is confirming.
   */
  async offerLink(saasId: string, user: UserRecord, provider: string, subject: string): Promise<void> {
    if (user.providers[provider]) throw providerAlreadyLinked(provider);
    await this.mailCode(saasId, user.id, {
      purpose: 'EXTERNAL_LINK',
      slot: provider,
      payload: { provider, subject },
      template: 'verify_external_user',
      to: user.email,
    });
  }

  /**
   * Request External User Account Link: mails a new code for the Google account waiting to be linked to the
   * access token's user (the last one the login screen met with the user's address, within 24 hours). Only
   * the account-wide provider: the API names no provider account, so a tenant's identity provider, which that
   * tenant's administrator controls, is linked only on the screen, by the page that met the account.
   */
  async requestExternalLink(saasId: string, accessToken: string): Promise<void> {
    const { user, claims } = await this.tokenHolder(saasId, accessToken);
    if (!claims.email) {
      throw invalid('not_an_email_user', 'access_token: names no e-mail address; only e-mail users link external accounts', {
        field: 'access_token',
      });
    }
    const pending = await this.deps.flows.code(saasId, user.id, 'EXTERNAL_LINK', LINKED_PROVIDER);
    const { provider, subject } = pending && pending.expires_at > nowSeconds() ? pending.payload : {};
    if (provider !== LINKED_PROVIDER || !subject) {
      if (user.providers[LINKED_PROVIDER]) throw providerAlreadyLinked(LINKED_PROVIDER);
      throw invalid(
        'no_external_account',
        'access_token: no Google account waits to be linked to this user; sign in with it on the login screen first',
        { field: 'access_token' },
      );
    }
    await this.offerLink(saasId, user, provider, subject);
  }

  /** Confirm External User Account Link: the code records the pending Google account on the user. */
  async confirmExternalLink(saasId: string, input: { access_token: string; code: string }): Promise<void> {
    const { user } = await this.tokenHolder(saasId, input.access_token);
    await this.confirmLink(saasId, user.id, input.code, { provider: LINKED_PROVIDER });
  }

  /**
   * The code's provider account linked to the user; answers the link. The code confirms only the offer of
   * `offer`: its provider, and, when the caller met the account (the screen's link page), that very subject. A
   * code of another offer is refused before an attempt is spent, so it stays good for its own page.
   */
  async confirmLink(
    saasId: string,
    userId: string,
    given: string,
    offer: { provider: string; subject?: string },
  ): Promise<{ provider: string; subject: string }> {
    const code = await this.answer(saasId, userId, 'EXTERNAL_LINK', given, {
      slot: offer.provider,
      confirms: ({ payload }) => {
        if (payload.provider !== offer.provider || (offer.subject !== undefined && payload.subject !== offer.subject))
          throw offerReplaced(offer.provider);
      },
    });
    const provider = code.payload.provider as string;
    const subject = code.payload.subject as string;
    await this.commit(
      saasId,
      userId,
      [
        this.deps.flows.linkProviderWrite(saasId, userId, provider, { subject, linked_at: nowSeconds() }),
        this.deps.flows.useCodeWrite(saasId, userId, code),
      ],
      {
        [FLOW_RULE.codeUnused]: wrongCode,
        [FLOW_RULE.providerUnlinked]: () => providerAlreadyLinked(provider),
        [FLOW_RULE.identityFree]: () => alreadyExists('external_account_taken', `code: this ${provider} account is linked to another user`),
      },
    );
    return { provider, subject };
  }
}
