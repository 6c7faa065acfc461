/**
 * The optional second screen of a new password (sign-in setting `password_breach_range`): a breached-password
 * range service with the Pwned Passwords API's shape, asked by k-anonymity. Only the first 5 hex characters of
 * the password's SHA-1 leave the service; the answer lists the suffixes of every breached hash under that
 * prefix, and the match is made here. Loaded with the bundled filter, beside the bundles of the functions that
 * set passwords (breached-passwords.ts re-exports it), so no bundle carries it.
 */
import { createHash } from 'node:crypto';

/** A slow service must not hold up setting a password: past this, the bundled list decides. */
export const RANGE_TIMEOUT_MS = 1000;
export const RANGE_PREFIX_LENGTH = 5;

/** The part of the SHA-1 (upper-case hex) of the NFKC form that is sent, and the part kept here. */
export function rangeQuery(password: string): { prefix: string; suffix: string } {
  const hash = createHash('sha1').update(password.normalize('NFKC'), 'utf8').digest('hex').toUpperCase();
  return { prefix: hash.slice(0, RANGE_PREFIX_LENGTH), suffix: hash.slice(RANGE_PREFIX_LENGTH) };
}

/**
 * How many breaches the answer gives for `suffix`: lines `SUFFIX:COUNT`, compared without regard to case. A
 * padding line (count 0, sent for `Add-Padding: true`) or a line that is not of that shape counts nothing.
 */
export function rangeCount(answer: string, suffix: string): number {
  const wanted = suffix.toUpperCase();
  for (const line of answer.split(/\r?\n/)) {
    const match = /^\s*([0-9A-Fa-f]{35}):(\d+)\s*$/.exec(line);
    if (match && match[1]!.toUpperCase() === wanted) return Number(match[2]);
  }
  return 0;
}

/** What the range service said, or why it said nothing (then the bundled list alone decides). */
export type RangeAnswer = { listed: boolean } | { unreachable: string };

/** Asks `baseUrl` (GET /range/{prefix}, padded) whether the password is listed; never throws. */
export async function rangeListed(password: string, baseUrl: string, timeoutMs = RANGE_TIMEOUT_MS): Promise<RangeAnswer> {
  const { prefix, suffix } = rangeQuery(password);
  try {
    // The signal also bounds reading the body, so a service that stalls mid-answer is cut off too.
    const response = await fetch(`${baseUrl}/range/${prefix}`, { headers: { 'Add-Padding': 'true' }, signal: AbortSignal.timeout(timeoutMs) });
    if (response.status !== 200) {
      await response.body?.cancel();
      return { unreachable: `status ${response.status}` };
    }
    return { listed: rangeCount(await response.text(), suffix) > 0 };
  } catch (error) {
    return { unreachable: error instanceof Error ? (error.name === 'TimeoutError' ? 'timeout' : error.message) : String(error) };
  }
}
