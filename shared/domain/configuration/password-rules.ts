/**
 * The policy's rules that cost nothing, in the module beside the bundles (exported by breached-passwords.ts):
 * the sign-in function, which sets passwords only on NEW_PASSWORD_REQUIRED and chosen sign-up, does not carry
 * them. They answer the broken rule rather than throw it: an error made here would be of this module's own copy
 * of the error class, which the bundle's error mapping does not know (password-policy.ts throws it).
 */
import { DIGITS, LOWER, MAX_PASSWORD_LENGTH, minimumLength, normalizedPassword, SYMBOLS, UPPER, type SaasPasswordPolicy } from './password-shape.js';

const has = (password: string, set: string) => [...password].some((c) => set.includes(c));

/**
 * On the NFKC form: length in characters, then, unless the SaaS chose length first, no outer spaces and the
 * composition it asks for. Undefined when every rule holds.
 */
export function brokenRule(typed: string, policy: SaasPasswordPolicy): { rule: string; message: string } | undefined {
  const password = normalizedPassword(typed);
  const length = [...password].length;
  const minimum = minimumLength(policy);
  if (length < minimum) return { rule: 'minimum_length', message: `must be at least ${minimum} characters` };
  if (length > MAX_PASSWORD_LENGTH) return { rule: 'maximum_length', message: `must be at most ${MAX_PASSWORD_LENGTH} characters` };
  if (policy.length_first) return undefined;
  if (password !== password.trim()) return { rule: 'whitespace', message: 'must not start or end with a space' };
  if (policy.is_require_lowercase && !has(password, LOWER)) return { rule: 'is_require_lowercase', message: 'must contain a lower-case letter' };
  if (policy.is_require_uppercase && !has(password, UPPER)) return { rule: 'is_require_uppercase', message: 'must contain an upper-case letter' };
  if (policy.is_require_numbers && !has(password, DIGITS)) return { rule: 'is_require_numbers', message: 'must contain a number' };
  if (policy.is_require_symbols && !has(password, SYMBOLS))
    return { rule: 'is_require_symbols', message: `must contain a symbol (one of ${SYMBOLS})` };
  return undefined;
}
