/**
 * Values the screen, the authorization server and the SAML function hand the browser to carry and bring back
 * unread and unchanged: JSON sealed by the secret box (shared/crypto/secret-box.ts) under a context naming what
 * it is, so one kind never opens as another.
 */
import { UnopenableSecret, type SecretBox } from '../../shared/crypto/secret-box.js';

export const sealJson = (box: SecretBox, value: unknown, context: Record<string, string>) => box.seal(JSON.stringify(value), context);

/**
 * The value, when `sealed` is one sealed for `context`; undefined when it is not (forged, altered, another
 * kind), which callers answer with a 4xx. A failure of what the box relies on (KMS throttled or unreachable, a
 * connection reset) is thrown as it came: a 5xx to try again later, not "this is not your ticket".
 */
export async function openJson<T>(box: SecretBox, sealed: string, context: Record<string, string>): Promise<T | undefined> {
  let plaintext: string;
  try {
    plaintext = await box.open(sealed, context);
  } catch (error) {
    if (error instanceof UnopenableSecret) return undefined;
    throw error;
  }
  try {
    return JSON.parse(plaintext) as T;
  } catch {
    return undefined;
  }
}
