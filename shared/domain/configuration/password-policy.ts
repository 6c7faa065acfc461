/**
 * The password policy every operation that sets a password goes through. Errors name the rule that failed,
 * in the field `password`.
 */
import { randomInt } from 'node:crypto';
import { invalid } from '../../errors.js';
import { logger } from '../../log.js';
import { metrics } from '../../metrics.js';
import type { PasswordPolicy } from '../../schemas/configuration.js';
import { DIGITS, LOWER, minimumLength, SYMBOLS, UPPER, type SaasPasswordPolicy } from './password-shape.js';

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  minimum_length: 8,
  is_require_lowercase: true,
  is_require_numbers: true,
  is_require_symbols: true,
  is_require_uppercase: true,
  temporary_password_validity_days: 7,
};

export type { BreachedRangeService, SaasPasswordPolicy } from './password-shape.js';
export { LENGTH_FIRST_MINIMUM, MAX_PASSWORD_LENGTH, minimumLength, normalizedPassword, SECOND_FACTOR_MINIMUM, SYMBOLS } from './password-shape.js';

/**
 * Every rule, the breached-password screen last. The rules (password-rules.ts) and the check come in one module,
 * loaded with its filter once per warm instance and imported by a name left out of every bundle (lib/bundling.ts,
 * BREACHED_CHECK_IMPORT): the functions that set passwords find it beside their bundle, and the sign-in
 * function does not carry its code; the refusal is thrown here, with the bundle's own error class. The range service,
 * when the SaaS chose it, is asked only about what the bundled list let through; when it cannot answer, the
 * list's verdict stands and BreachedRangeUnreachable counts it.
 */
export async function screenPassword(password: string, policy: SaasPasswordPolicy): Promise<void> {
  const check = await breachedCheck();
  const broken = check.brokenRule(password, policy);
  if (broken) throw violation(broken.rule, broken.message);
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

function violation(rule: string, message: string) {
  return invalid('password_policy_violation', `password: ${message}`, { field: 'password', rule });
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
