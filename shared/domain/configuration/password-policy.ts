/**
 * The password policy every operation that sets a password goes through. Errors name the rule that failed,
 * in the field `password`.
 */
import { randomInt } from 'node:crypto';
import { invalid } from '../../errors.js';
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

const has = (password: string, set: string) => [...password].some((c) => set.includes(c));

function violation(rule: string, message: string) {
  return invalid('password_policy_violation', `password: ${message}`, { field: 'password', rule });
}

/** The policy's rules that cost nothing: length, spaces and the composition the SaaS asks for. */
export function checkPassword(password: string, policy: PasswordPolicy): void {
  const length = [...password].length;
  if (length < policy.minimum_length) throw violation('minimum_length', `must be at least ${policy.minimum_length} characters`);
  if (length > MAX_PASSWORD_LENGTH) throw violation('maximum_length', `must be at most ${MAX_PASSWORD_LENGTH} characters`);
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
 * passwords find it beside their bundle, and the sign-in function does not carry its code.
 */
export async function screenPassword(password: string, policy: PasswordPolicy): Promise<void> {
  checkPassword(password, policy);
  const { isBreachedPassword } = await import('./breached-passwords.js');
  if (isBreachedPassword(password)) throw violation('breached', 'has appeared in data breaches; choose another');
}

/**
 * What generated passwords are made of: every class the policy may require, less the characters that are
 * hard to read, type or paste (quotes, backslash, `|`, `;`, `` ` ``, and l/I/1, O/0 that look alike).
 */
const HARD = /[lI1O0'"`\\|;]/g;
const GENERATED = [LOWER, UPPER, DIGITS, SYMBOLS].map((set) => set.replace(HARD, ''));

/** A random password that meets the policy: one of each required class, the rest from all of them. */
export function generatePassword(policy: PasswordPolicy): string {
  const length = Math.max(policy.minimum_length, 16);
  const all = GENERATED.join('');
  const chars = GENERATED.map((set) => set[randomInt(set.length)] as string);
  while (chars.length < length) chars.push(all[randomInt(all.length)] as string);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}
