/**
 * Values the screen, the authorization server and the SAML function hand the browser to carry and bring back
 * unread and unchanged: JSON sealed by the secret box (shared/crypto/secret-box.ts) under a context naming what
 * it is, so one kind never opens as another.
 */
export interface SealingBox {
  seal(plaintext: string, context: Record<string, string>): Promise<string>;
  open(sealed: string, context: Record<string, string>): Promise<string>;
}

export const sealJson = (box: SealingBox, value: unknown, context: Record<string, string>) => box.seal(JSON.stringify(value), context);

/** The value, when `sealed` is one sealed for `context`; undefined for anything else (forged, altered, another kind). */
export async function openJson<T>(box: SealingBox, sealed: string, context: Record<string, string>): Promise<T | undefined> {
  try {
    return JSON.parse(await box.open(sealed, context)) as T;
  } catch {
    return undefined;
  }
}
