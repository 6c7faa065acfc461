/**
 * Sealing under a code that only its holder knows: the store keeps the sealed value and the code's hash (to
 * find it), never anything that opens it, so whoever reads the table cannot use what a code carries. The
 * temporary codes of Save Authentication/Authorization Information carry tokens this way: a random UUID
 * (122 bits) is key material enough for HKDF. The same sealing under a deployment secret (sealWithKey) makes
 * the self-contained refresh tokens.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const derive = (material: Buffer, context: string) => Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), context, 32));

/**
 * Keys derived from a deployment secret, kept per context while the secret lives (a warm instance's one
 * Buffer): every refresh token issued or opened derived its SaaS's key again, HKDF each time. Codes are new
 * material every call and are derived as they come; at most this many contexts are kept per secret.
 */
const KEPT_CONTEXTS = 1000;
const derivedKeys = new WeakMap<Buffer, Map<string, Buffer>>();

function keyOf(material: Buffer, context: string, keep: boolean): Buffer {
  if (!keep) return derive(material, context);
  let kept = derivedKeys.get(material);
  if (!kept) derivedKeys.set(material, (kept = new Map()));
  let key = kept.get(context);
  if (!key) {
    key = derive(material, context);
    if (kept.size >= KEPT_CONTEXTS) kept.clear();
    kept.set(context, key);
  }
  return key;
}

/** The stored form of a code: its lookup key. */
export function codeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/** `iv ‖ tag ‖ AES-256-GCM(plaintext)` under a key derived from `material` for `context`. */
export function sealWithKey(material: Buffer, context: string, plaintext: string, keep = true): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(material, context, keep), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** undefined when the material or the context is not the one it was sealed with, or it was altered. */
export function openWithKey(material: Buffer, context: string, bytes: Buffer, keep = true): string | undefined {
  if (bytes.length < 28) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(material, context, keep), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** sealWithKey under a code, base64; `context` binds it to its use and owner. */
export const sealWithCode = (code: string, context: string, plaintext: string): string =>
  sealWithKey(Buffer.from(code, 'utf8'), context, plaintext, false).toString('base64');

/** undefined when the code or the context is not the one it was sealed with, or it was altered. */
export const openWithCode = (code: string, context: string, sealed: string): string | undefined =>
  openWithKey(Buffer.from(code, 'utf8'), context, Buffer.from(sealed, 'base64'), false);
