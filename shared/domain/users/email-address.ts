/**
 * The one rule for e-mail addresses the service accepts (users, invitations, sign-up, sender and reply
 * addresses, back-office staff): a plain address that every mail system delivers to the mailbox we store,
 * and that looks like nothing else.
 *
 * - ASCII only. The local part is a dot-atom of RFC 5322 (letters, digits and ! # $ % & ' * + - / = ? ^ _ ` { | } ~,
 *   dots between them), at most 64 characters. No quoted local parts, comments, display names (`"x" <a@b>`),
 *   angle brackets, spaces, control characters (NUL, ESC), bidi or zero-width characters: anything that
 *   could render as another address or hide one. Internationalised local parts (SMTPUTF8) are refused:
 *   not every system delivers them, and mixed scripts are how look-alikes are made.
 * - The domain is two or more LDH labels (letters, digits, inner hyphens; each 1 to 63 characters), the last
 *   one alphabetic or an IDN label in its ASCII form (`xn--...`). Internationalised domains are accepted in
 *   that ASCII (punycode) form only, so one domain has one spelling.
 * - At most 254 characters in all (RFC 5321's path limit).
 *
 * Normalised form (what is stored): surrounding ASCII white space removed, the domain lower-cased (domains are
 * case-insensitive), the local part as given (a mailbox may be case-sensitive; uniqueness compares the whole
 * address without regard to case).
 */
import { EMAIL_ADDRESS_PATTERN } from '../../schemas/common.js';

const EMAIL_ADDRESS = new RegExp(EMAIL_ADDRESS_PATTERN);

/** The address in its stored form, or undefined when the rule refuses it. */
export function normalizedEmailAddress(input: string): string | undefined {
  // ASCII white space only: String#trim would also drop U+FEFF and U+00A0, which must be refused, not hidden.
  const trimmed = input.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (!EMAIL_ADDRESS.test(trimmed)) return undefined;
  const at = trimmed.lastIndexOf('@');
  return `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}
