/**
 * Self sign-up: a person gives their e-mail address and receives a temporary password by mail (template
 * sign_up); their first sign-in asks them for a password of their own. Until then, Resend mails a new
 * temporary password (template resend_code).
 *
 * Resend for an address nobody signed up with answers 404: Sign Up itself answers 400 for an address that is
 * taken, so hiding existence here would protect nothing, and a typo would go unnoticed.
 */
import { invalid, notFound } from '../errors.js';
import type { SaasUser } from '../schemas/users.js';
import type { UserService } from './users.js';

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
    const user = await this.deps.users.findByUsername(saasId, email);
    if (!user?.email) throw notFound('user_not_found', 'email: no user signs in with this e-mail address');
    await this.deps.users.resendTemporaryPassword(saasId, user);
  }
}
