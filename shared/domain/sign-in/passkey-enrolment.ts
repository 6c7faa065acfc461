/**
 * Passkeys required (sign-in setting `passkeys.required`, issue 43): a password no longer signs anyone in; it
 * lets a person who has no passkey yet enrol their first on the hosted screen. The ticket of that enrolment is
 * sealed here, by the sign-in that proved the password (sign-in.ts), and opened by the passkey ceremony
 * (passkeys.ts), which takes it only while the person still has no passkey.
 */
import { nowSeconds } from '../../clock.js';
import { UnopenableSecret, type SecretBox } from '../../crypto/secret-box.js';
import { forbidden } from '../../errors.js';

/** How long after the password the page may enrol the passkey: time to find and unlock a device. */
export const ENROLMENT_SECONDS = 10 * 60;

/** What a password sign-in meets when the SaaS requires passkeys: open (not required), enrol (none yet) or closed. */
export type PasskeyGate = 'open' | 'enrol' | 'closed';

const context = (saasId: string) => ({ purpose: 'passkey enrolment ticket', saas_id: saasId });

export const sealEnrolment = (box: SecretBox, saasId: string, userId: string): Promise<string> =>
  box.seal(JSON.stringify({ user_id: userId, exp: nowSeconds() + ENROLMENT_SECONDS }), context(saasId));

/** The user an enrolment ticket names; undefined when it is not one of this SaaS's or has expired. */
export async function openEnrolment(box: SecretBox, saasId: string, ticket: string): Promise<string | undefined> {
  let held: { user_id?: unknown; exp?: unknown };
  try {
    held = JSON.parse(await box.open(ticket, context(saasId))) as typeof held;
  } catch (error) {
    if (error instanceof UnopenableSecret || error instanceof SyntaxError) return undefined;
    throw error;
  }
  return typeof held.user_id === 'string' && typeof held.exp === 'number' && held.exp > nowSeconds() ? held.user_id : undefined;
}

/** A password proved, but this SaaS signs in only with passkeys, and the person has one. */
export const passkeyRequired = () =>
  forbidden(
    'passkey_required',
    'this SaaS requires a passkey: sign in with it on the hosted login screen (a password only enrols a first passkey there)',
  );

/** A password proved for a person with no passkey yet: the hosted screen enrols one with `enrolment`. */
export const enrolmentRequired = (enrolment: string) =>
  forbidden('passkey_enrolment_required', 'this SaaS requires a passkey: create one now to finish signing in', { enrolment });
