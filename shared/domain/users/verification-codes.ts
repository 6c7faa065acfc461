/**
 * Codes mailed to confirm a request a user made (a new e-mail address, a link to an external account, a
 * forgotten password, an invited address before its account is made): six digits, valid 24 hours (the spec's limits, docs/decisions.md; a password reset's one
 * hour), single use, and stored only as a salted hash beside what they
 * confirm. A code takes at most MAX_CODE_ATTEMPTS answers, right or wrong: each answer spends one before it
 * is compared, so parallel guessing cannot go past the limit, and a million codes cannot be tried in a day.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../../crypto/compare.js';
import { newOneTimeCode } from '../../crypto/one-time-code.js';
import { invalid, type DomainError } from '../../errors.js';

export const CODE_LIFETIME_SECONDS = 24 * 3600;
export const MAX_CODE_ATTEMPTS = 5;

export type CodePurpose = 'EMAIL_UPDATE' | 'EXTERNAL_LINK' | 'PASSWORD_RESET' | 'EMAIL_VERIFY';

/** A forgotten password's code lets anyone holding it in: an hour, as Cognito's forgot-password codes. */
const LIFETIME_OF: Readonly<Record<CodePurpose, number>> = {
  EMAIL_UPDATE: CODE_LIFETIME_SECONDS,
  EXTERNAL_LINK: CODE_LIFETIME_SECONDS,
  PASSWORD_RESET: 3600,
  EMAIL_VERIFY: 3600,
};

export interface VerificationCode {
  purpose: CodePurpose;
  /** SHA-256 of the salt and the code, hex. */
  digest: string;
  salt: string;
  /** Unix seconds; the code is refused from then on (and the item's TTL). */
  expires_at: number;
  /** Answers spent, right or wrong. */
  attempts: number;
  /** What the code confirms: the new e-mail address, the account to link. */
  payload: Record<string, string>;
  /**
   * Codes of one purpose that must not replace each other (a link offer per provider): each its own item. A
   * new code replaces only the code of its slot.
   */
  slot?: string;
}

const digestOf = (salt: string, code: string) => createHash('sha256').update(`${salt}:${code}`, 'utf8').digest('hex');

/** A new code to mail and the record that stands for it. */
export function issueVerificationCode(
  purpose: CodePurpose,
  payload: Record<string, string>,
  now: number,
  slot?: string,
): { code: string; record: VerificationCode } {
  const code = newOneTimeCode();
  const salt = randomBytes(16).toString('hex');
  const record: VerificationCode = { purpose, digest: digestOf(salt, code), salt, expires_at: now + LIFETIME_OF[purpose], attempts: 0, payload };
  return { code, record: slot === undefined ? record : { ...record, slot } };
}

/** Why a stored code cannot take an answer any more; undefined while it can. */
export function unusableCode(record: VerificationCode | undefined, now: number): DomainError | undefined {
  if (!record) return invalid('invalid_code', 'code: no code is waiting to be confirmed; request a new one', { field: 'code' });
  if (record.expires_at <= now) return invalid('code_expired', 'code: has expired; request a new one', { field: 'code' });
  if (record.attempts >= MAX_CODE_ATTEMPTS) {
    return invalid('invalid_code', `code: ${MAX_CODE_ATTEMPTS} wrong answers used this code up; request a new one`, { field: 'code' });
  }
  return undefined;
}

export function verificationCodeMatches(record: VerificationCode, given: string): boolean {
  return constantTimeEqual(digestOf(record.salt, given.trim()), record.digest);
}

export const wrongCode = () => invalid('invalid_code', 'code: is not the code that was sent', { field: 'code' });
