/**
 * What both halves of the password policy need: the character sets, the lengths and the NFKC form. The rules
 * themselves (password-rules.ts) travel in the module beside the bundles; password-policy.ts, inside them,
 * generates passwords and throws the refusals (lib/bundling.ts, BREACHED_CHECK_IMPORT).
 */
import type { PasswordPolicy } from '../../schemas/configuration.js';

/** The deployment's breached-password range service (BREACHED_RANGE_BASE_URL, breached-range.ts). */
export interface BreachedRangeService {
  baseUrl: string;
}

/**
 * SaaSus's policy with our extensions: `length_first` (sign-in settings `password_length_first`) puts length
 * before composition; `second_factor`, when the SaaS requires passkeys, lowers its minimum to 8;
 * `breached_range`, present when the SaaS turned on `password_breach_range`, asks the range service too.
 */
export type SaasPasswordPolicy = PasswordPolicy & { length_first?: boolean; second_factor?: boolean; breached_range?: BreachedRangeService };

/** Cognito's symbol set, so a password valid there is valid here. */
export const SYMBOLS = '^$*.[]{}()?"!@#%&/\\,><\':;|_~`=+-';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const DIGITS = '0123456789';
export const MAX_PASSWORD_LENGTH = 256;
/** NIST SP 800-63B-4's minimum where the password is the only factor (docs/decisions.md, length first). */
export const LENGTH_FIRST_MINIMUM = 15;
/** Its minimum where a second factor is required: passkeys required (sign-in setting `passkeys.required`). */
export const SECOND_FACTOR_MINIMUM = 8;

/**
 * The one form of a password that is checked and hashed: NFKC, so full-width, half-width and composed forms of
 * what a person types are one password. Verifiers made from it are marked (users.ts, `normalization`).
 */
export const normalizedPassword = (password: string): string => password.normalize('NFKC');

/** The fewest characters the rules accept. */
export const minimumLength = (policy: SaasPasswordPolicy): number =>
  policy.length_first ? Math.max(policy.second_factor ? SECOND_FACTOR_MINIMUM : LENGTH_FIRST_MINIMUM, policy.minimum_length) : policy.minimum_length;
