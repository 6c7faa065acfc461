/**
 * Values the screen, the authorization server and the SAML function hand the browser to carry and bring back
 * unread and unchanged: JSON sealed by the secret box (shared/crypto/secret-box.ts) under a context naming what
 * it is, so one kind never opens as another.
 */
import type { SecretBox } from '../../shared/crypto/secret-box.js';

export const sealJson = (box: SecretBox, value: unknown, context: Record<string, string>) => box.seal(JSON.stringify(value), context);

/** The value, when `sealed` is one sealed for `context`; undefined for anything else (forged, altered, another kind). */
export async function openJson<T>(box: SecretBox, sealed: string, context: Record<string, string>): Promise<T | undefined> {
  try {
    return JSON.parse(await box.open(sealed, context)) as T;
  } catch {
    return undefined;
  }
}
