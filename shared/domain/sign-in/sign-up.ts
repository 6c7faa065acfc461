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
 */
import { DomainError, invalid, notFound } from '../../errors.js';
import type { SaasUser } from '../../schemas/users.js';
import { awaitsFirstSignIn, firstSignInDone, type UserService } from '../users/users.js';

export interface SignUpDeps {
  users: Pick<UserService, 'create' | 'findByUsername' | 'resendTemporaryPassword'>;
  /** The SaaS's sign-in setting self_regist.enable. */
  selfSignUpEnabled(saasId: string): Promise<boolean>;
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
