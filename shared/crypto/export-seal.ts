/**
 * Secrets in an export file (issue 39, docs/migration.md): a TOTP seed leaves the service only sealed under a
 * key the operator gives (AES-256-GCM, a random 12-byte nonce), bound to the row it belongs to, so a sealed
 * value moved onto another user's row does not open. The importing stack is given the same key. The file's
 * other readers (anyone who finds it) learn nothing of the seeds.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const SEAL_KEY_BYTES = 32;

/** The operator's key from its base64 (standard or URL-safe) text; undefined unless it is 32 bytes. */
export function sealKeyOf(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
  return key.length === SEAL_KEY_BYTES ? key : undefined;
}

export function sealForExport(key: Buffer, plaintext: string, boundTo: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(Buffer.from(boundTo, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
}

/** The plaintext; undefined when the value was not sealed under this key for `boundTo`, or was altered. */
export function openFromExport(key: Buffer, sealed: string, boundTo: string): string | undefined {
  if (!sealed.startsWith(VERSION)) return undefined;
  const raw = Buffer.from(sealed.slice(VERSION.length), 'base64url');
  if (raw.length < NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES)).setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
