/**
 * The page's data block, shared by the server that writes it (pages.ts) and the page script that reads it
 * (page/). Kept apart from pages.ts, whose stylesheet and ticket code need Node: the page's own type check
 * compiles this file and nothing of the server.
 */
import type { LoginTexts } from './texts/en.js';

/** Which form the page opens with: its address says (`./sign-up`, `./forgot-password`, `./set-password` of a mailed link). */
export type FirstForm = 'sign-in-form' | 'sign-up-form' | 'forgot-form' | 'reset-form' | 'link-form' | 'consent-form';

/** The SaaS's password policy as the page checks it while the person types (the server checks it again). */
export interface PasswordRules {
  minimum_length: number;
  is_require_lowercase: boolean;
  is_require_uppercase: boolean;
  is_require_numbers: boolean;
  is_require_symbols: boolean;
  /** The characters that count as symbols (shared/domain/configuration/password-policy.ts). */
  symbols: string;
  /** The SaaS chose length first (sign-in setting password_length_first): spaces anywhere, no composition. */
  length_first?: boolean;
}

/** What the script needs to know, in a JSON data block (never run: script-src allows only our file). */
export interface PageData {
  csrf: string;
  first: FirstForm;
  state?: string;
  /** The application's PKCE challenge (S256), handed back with the answer that ends the sign-in. */
  code_challenge?: string;
  /** The sealed OpenID Connect authorization request the page was opened for (oidc/authorization-server.ts). */
  authorization?: string;
  /** A provider account to link with a mailed code (screen.ts, `./link`). */
  link?: { ticket: string; email: string };
  /** A new account a provider's sign-in would make, waiting for the consents the SaaS asks for (screen.ts, `./consent`). */
  consent?: { ticket: string; email: string };
  /** Every new-password field shows and checks these. */
  passwordRules?: PasswordRules;
  /** The names are shown when known: the inviting SaaS and the tenant. */
  invitation?: { id: string; tenantId: string; email: string; saasName?: string; tenantName?: string };
  /** Why the invitation cannot be accepted: the page says so and offers plain sign-in. */
  invitationProblem?: string;
  messages: LoginTexts['messages'];
  tagManagerId?: string;
  /**
   * The sign-in setting password_sign_in (our extension, issue 39): when SRP refuses, the page sends the password
   * to `api/password` once, for a user still on an imported hash (web/login/screen/password-step.ts).
   */
  passwordSignIn?: true;
  /**
   * A screen session is live but does not answer this request by itself (web/login/screen/resume.ts): who is
   * signed in, and why they sign in again (prompt=login, max_age, a second factor now needed or asked for, another tenant).
   */
  signedInAs?: { name: string; why: 'login_asked' | 'too_old' | 'second_factor' | 'second_factor_asked' | 'other_tenant' };
}
