/**
 * Numeric one-time codes sent by e-mail (MFA by e-mail, e-mail verification, account links): uniformly
 * random digits, compared in constant time. Their lifetime and single use belong to whoever stores them.
 */
import { randomInt } from 'node:crypto';
import { constantTimeEqual } from './compare.js';

export const ONE_TIME_CODE_DIGITS = 6;

export function newOneTimeCode(digits = ONE_TIME_CODE_DIGITS): string {
  return String(randomInt(10 ** digits)).padStart(digits, '0');
}

/** The code as typed (surrounding spaces ignored) against the one issued. */
export function oneTimeCodeMatches(given: string, issued: string): boolean {
  return constantTimeEqual(given.trim(), issued);
}
