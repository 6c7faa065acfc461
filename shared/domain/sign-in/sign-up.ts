/**
 * Self sign-up: a person gives their e-mail address and receives a temporary password by mail (template
 * sign_up); their first sign-in asks them for a password of their own. Until then, Resend mails a new
 * temporary password (template resend_code).
 *
 * While self sign-up is on, Resend for an address nobody signed up with answers 404 and for a user who already
 * signed in 400: Sign Up itself answers 400 for an address that is taken, so hiding existence there would
 * protect nothing, and a typo would go unnoticed. While it is off, nothing else tells who has an account, so
 * Resend must not either: an unknown address and a confirmed user both get the answer a resend gets (200),
 * and no mail goes out; a user over the mail limit gets it too, where self sign-up on answers 429.
 *
 * Our extension, the sign-in setting `sign_up.password: "chosen"` (the hosted screen only; the API's Sign Up
 * keeps SaaSus's contract): the person chooses the password at sign-up and a code goes to the address. The
 * account is made only when the code comes back with the password, so an address nobody confirms holds no
 * account: its pending code (one per address, replaced by a newer request) expires with its hour and its
 * TTL, and anyone may start again meanwhile. The password is never stored before: the page sends it again.
 */
import { nowSeconds } from '../../clock.js';
import { DomainError, invalid, notFound } from '../../errors.js';
import type { SaasUser } from '../../schemas/users.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import { newCountedMail, type CountedMail, type MailLimits } from '../mail/mail.js';
import { screenPassword, type SaasPasswordPolicy } from '../configuration/password-policy.js';
import { awaitsFirstSignIn, emailAddress, emailLogin, firstSignInDone, loginTaken, toSaasUser, type UserService } from '../users/users.js';
import {
  issueVerificationCode,
  MAX_CODE_ATTEMPTS,
  unusableCode,
  verificationCodeMatches,
  wrongCode,
  type VerificationCode,
} from '../users/verification-codes.js';

/** The pending sign-ups of the "chosen" password (keys.pendingSignUp): a code per address, no user yet. */
export interface PendingSignUpRepository {
  /** The code (replacing an earlier one of the address) and its mail, in one transaction. */
  saveWrite(saasId: string, email: string, code: VerificationCode, mail: CountedMail): AtomicWrite;
  /**
   * What saveWrite writes, written to decoy items of the address that hold no one's data and mail nothing:
   * for an address that has an account, so the store work (and the time of the answer) is a new address's.
   */
  decoySaveWrite(saasId: string, email: string, code: VerificationCode, mail: CountedMail): AtomicWrite;
  code(saasId: string, email: string): Promise<VerificationCode | undefined>;
  /** One answer spent, right or wrong, before it is compared; false when the code changed or is used up. */
  spendAttempt(saasId: string, email: string, code: VerificationCode, maxAttempts: number): Promise<boolean>;
  /** The code used up, if it is still the one read (rule SIGN_UP_RULE.codeUnused). */
  useWrite(saasId: string, email: string, code: VerificationCode): AtomicWrite;
}

export const SIGN_UP_RULE = { codeUnused: 'sign_up_code_unused' } as const;

/** Where a decoy's mail is addressed: it is never sent (its outbox item is a decoy), but is sealed alike. */
const DECOY_ADDRESS = 'decoy@invalid';

/** How the hosted screen's sign-up sets the password (the sign-in setting sign_up.password, our extension). */
export type SignUpPassword = 'temporary' | 'chosen';

export interface SignUpDeps {
  users: Pick<UserService, 'create' | 'findByUsername' | 'resendTemporaryPassword' | 'prepareUser'>;
  /** The SaaS's sign-in setting self_regist.enable. */
  selfSignUpEnabled(saasId: string): Promise<boolean>;
  /** For the chosen password: where the codes wait, the mail's sealing, the policy, and the transaction. */
  pending?: PendingSignUpRepository;
  box?: SecretBox;
  mailLimits?: MailLimits;
  committer?: Committer;
  passwordPolicy?(saasId: string): Promise<SaasPasswordPolicy>;
}

export class SignUpService {
  constructor(private readonly deps: SignUpDeps) {}

  /** Sign Up: only while the SaaS lets people sign themselves up. */
  async signUp(saasId: string, email: string): Promise<SaasUser> {
    if (!(await this.deps.selfSignUpEnabled(saasId))) {
      throw invalid('self_sign_up_disabled', 'self_regist: this SaaS does not let people sign themselves up (PUT /sign-in-settings turns it on)');
    }
    return this.register(saasId, email);
  }

  /** A new e-mail user whose temporary password is mailed with sign_up (Sign Up, and marketplace sign-up). */
  async register(saasId: string, email: string): Promise<SaasUser> {
    const { password: _mailedNotAnswered, ...user } = await this.deps.users.create(saasId, { email }, 'sign_up');
    return user;
  }

  /**
   * The chosen password's first step: the password checked against the policy (refused before any mail), then
   * a code mailed to the address (template verify_user_attribute). An address that has an account gets no
   * mail and the error `email_already_exists`, which the screen answers like a new address; its code and mail
   * are made and written to decoy items all the same, so the store work, and the time of the answer, do not
   * tell it apart (up to and past the mail limits, which count the decoy's requests alike).
   */
  async requestWithPassword(saasId: string, email: string, password: string): Promise<void> {
    const { pending, box, mailLimits, committer, passwordPolicy } = this.chosenDeps();
    if (!(await this.deps.selfSignUpEnabled(saasId))) {
      throw invalid('self_sign_up_disabled', 'self_regist: this SaaS does not let people sign themselves up (PUT /sign-in-settings turns it on)');
    }
    const login = emailLogin(email);
    await screenPassword(password, await passwordPolicy(saasId));
    const taken = (await this.deps.users.findByUsername(saasId, login.value)) !== undefined;
    const { code, record } = issueVerificationCode('EMAIL_VERIFY', {}, nowSeconds());
    // The decoy's mail is sealed alike but addressed nowhere: no one's address is kept in a decoy.
    const mail = await newCountedMail({ box, mailLimits }, saasId, 'verify_user_attribute', taken ? DECOY_ADDRESS : emailAddress(email), code);
    await committer.commit(taken ? pending.decoySaveWrite(saasId, login.value, record, mail) : pending.saveWrite(saasId, login.value, record, mail));
    if (taken) throw loginTaken(login);
  }

  /**
   * The code mailed to the address and the password chosen: the user made with that password (their own, not
   * temporary), and the code used up, in one transaction. Five answers at most per code, right or wrong.
   */
  async confirmWithPassword(saasId: string, input: { email: string; code: string; password: string }): Promise<SaasUser> {
    const { pending, committer } = this.chosenDeps();
    const login = emailLogin(input.email);
    const stored = await pending.code(saasId, login.value);
    const unusable = unusableCode(stored, nowSeconds());
    if (unusable) throw unusable;
    const code = stored as VerificationCode;
    const spent = await pending.spendAttempt(saasId, login.value, code, MAX_CODE_ATTEMPTS);
    if (!spent || !verificationCodeMatches(code, input.code)) throw wrongCode();
    const prepared = await this.deps.users.prepareUser(saasId, { email: input.email, password: input.password });
    const outcome = await committer.commit(prepared.write, pending.useWrite(saasId, login.value, code));
    if (outcome.committed) return toSaasUser(prepared.user);
    if (outcome.refusedBy === RULE.loginFree) throw loginTaken(login);
    if (outcome.refusedBy === SIGN_UP_RULE.codeUnused) throw wrongCode();
    throw new Error(`a sign-up with a chosen password was refused by ${outcome.refusedBy}`);
  }

  private chosenDeps() {
    const { pending, box, mailLimits, committer, passwordPolicy } = this.deps;
    if (!pending || !box || !mailLimits || !committer || !passwordPolicy) {
      throw new Error('SignUpService: the chosen password needs pending, box, mailLimits, committer and passwordPolicy');
    }
    return { pending, box, mailLimits, committer, passwordPolicy };
  }

  /** Resend Sign Up Confirmation Email: a new temporary password, while the user has never signed in. */
  async resend(saasId: string, email: string): Promise<void> {
    const [user, selfSignUp] = await Promise.all([this.deps.users.findByUsername(saasId, email), this.deps.selfSignUpEnabled(saasId)]);
    if (!selfSignUp) {
      // The same answer whether the address is unknown, confirmed, or awaiting its first sign-in.
      if (!user?.email || !awaitsFirstSignIn(user)) return;
      try {
        return await this.deps.users.resendTemporaryPassword(saasId, user);
      } catch (error) {
        // The first sign-in landed between our read and the write (as if it had come first), or the address had
        // its mails for now (a 429 would tell the address has an account): the mail is not sent, as for others.
        if (error instanceof DomainError && (error.code === firstSignInDone().code || error.kind === 'too_many_requests')) return;
        throw error;
      }
    }
    if (!user?.email) throw notFound('user_not_found', 'email: no user signs in with this e-mail address');
    await this.deps.users.resendTemporaryPassword(saasId, user);
  }
}
