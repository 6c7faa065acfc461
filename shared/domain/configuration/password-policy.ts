/**
 * The password policy every operation that sets a password goes through. Errors name the rule that failed,
 * in the field `password`.
 */
import { randomInt } from 'node:crypto';
import { invalid } from '../../errors.js';
import { logger } from '../../log.js';
import { metrics } from '../../metrics.js';
import type { PasswordPolicy } from '../../schemas/configuration.js';

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  minimum_length: 8,
  is_require_lowercase: true,
  is_require_numbers: true,
  is_require_symbols: true,
  is_require_uppercase: true,
  temporary_password_validity_days: 7,
};

/** Cognito's symbol set, so a password valid there is valid here. */
export const SYMBOLS = '^$*.[]{}()?"!@#%&/\\,><\':;|_~`=+-';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
export const MAX_PASSWORD_LENGTH = 256;
/** NIST SP 800-63B-4's minimum where the password is the only factor (docs/decisions.md, length first). */
export const LENGTH_FIRST_MINIMUM = 15;
/** Its minimum where a second factor is required: passkeys required (sign-in setting `passkeys.required`). */
export const SECOND_FACTOR_MINIMUM = 8;

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

/**
 * The one form of a password that is checked and hashed: NFKC, so full-width, half-width and composed forms of
 * what a person types are one password. Verifiers made from it are marked (users.ts, `normalization`).
 */
export const normalizedPassword = (password: string): string => password.normalize('NFKC');

/** The fewest characters the rules accept. */
export const minimumLength = (policy: SaasPasswordPolicy): number =>
  policy.length_first ? Math.max(policy.second_factor ? SECOND_FACTOR_MINIMUM : LENGTH_FIRST_MINIMUM, policy.minimum_length) : policy.minimum_length;

const has = (password: string, set: string) => [...password].some((c) => set.includes(c));

function violation(rule: string, message: string) {
  return invalid('password_policy_violation', `password: ${message}`, { field: 'password', rule });
}

/**
 * The policy's rules that cost nothing, on the NFKC form: length in characters, then, unless the SaaS chose
 * length first, no outer spaces and the composition it asks for.
 */
export function checkPassword(typed: string, policy: SaasPasswordPolicy): void {
  const password = normalizedPassword(typed);
  const length = [...password].length;
  const minimum = minimumLength(policy);
  if (length < minimum) throw violation('minimum_length', `must be at least ${minimum} characters`);
  if (length > MAX_PASSWORD_LENGTH) throw violation('maximum_length', `must be at most ${MAX_PASSWORD_LENGTH} characters`);
  if (policy.length_first) return;
  if (password !== password.trim()) throw violation('whitespace', 'must not start or end with a space');
  if (policy.is_require_lowercase && !has(password, LOWER)) throw violation('is_require_lowercase', 'must contain a lower-case letter');
  if (policy.is_require_uppercase && !has(password, UPPER)) throw violation('is_require_uppercase', 'must contain an upper-case letter');
  if (policy.is_require_numbers && !has(password, DIGITS)) throw violation('is_require_numbers', 'must contain a number');
  if (policy.is_require_symbols && !has(password, SYMBOLS)) {
    throw violation('is_require_symbols', `must contain a symbol (one of ${SYMBOLS})`);
  }
}

/**
 * Every rule, the breached-password screen last: it loads the check and its filter once per warm instance.
 * Imported by a name left out of every bundle (lib/bundling.ts, BREACHED_CHECK_IMPORT): the functions that set
 * passwords find it beside their bundle, and the sign-in function does not carry its code. The range service,
 * when the SaaS chose it, is asked only about what the bundled list let through; when it cannot answer, the
 * list's verdict stands and BreachedRangeUnreachable counts it.
 */
export async function screenPassword(password: string, policy: SaasPasswordPolicy): Promise<void> {
  checkPassword(password, policy);
  const check = await breachedCheck();
  if (check.isBreachedPassword(password)) throw breached();
  if (!policy.breached_range) return;
  const answer = await check.rangeListed(password, policy.breached_range.baseUrl);
  if ('listed' in answer) {
    if (answer.listed) throw breached();
    return;
  }
  metrics.count('BreachedRangeUnreachable');
  logger.warn('breached-password range service unreachable: the bundled list decided', { reason: answer.unreachable });
}

const breached = () => violation('breached', 'has appeared in data breaches; choose another');

/** The one import of the module beside the bundle (the name lib/bundling.ts leaves external). */
const breachedCheck = () => import('./breached-passwords.js');

/** Whether the password is on the bundled list of breached passwords (the hosted screen asks as the person types). */
export async function isBreached(password: string): Promise<boolean> {
  const { isBreachedPassword } = await breachedCheck();
  return isBreachedPassword(password);
}

/**
 * What generated passwords are made of: every class the policy may require, less the characters that are
 * hard to read, type or paste (quotes, backslash, `|`, `;`, `` ` ``, and l/I/1, O/0 that look alike).
 */
const HARD = /[lI1O0'"`\\|;]/g;
const GENERATED = [LOWER, UPPER, DIGITS, SYMBOLS].map((set) => set.replace(HARD, ''));

/** A random password that meets the policy: one of each required class, the rest from all of them. */
export function generatePassword(policy: SaasPasswordPolicy): string {
  const length = Math.max(minimumLength(policy), 16);
  const all = GENERATED.join('');
  const chars = GENERATED.map((set) => set[randomInt(set.length)] as string);
  while (chars.length < length) chars.push(all[randomInt(all.length)] as string);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}
