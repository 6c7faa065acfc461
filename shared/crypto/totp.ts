/**
 * Time-based one-time passwords for authenticator apps (RFC 6238 over RFC 4226): HMAC-SHA-1, 30-second
 * steps, 6 digits, a 160-bit secret shown as base32 (RFC 4648, no padding), which is what every
 * authenticator app reads from an otpauth:// URI. Time comes from shared/clock.ts, so tests move it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { nowSeconds } from '../clock.js';
import { constantTimeEqual } from './compare.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** Reads base32 as people copy it: any case, spaces and `=` padding ignored. undefined when not base32. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = ALPHABET.indexOf(char);
    if (index < 0) return undefined;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new secret for an authenticator app: 160 random bits, base32. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** The code of one time step (RFC 4226 HOTP with the step as counter); `digits` is 6 unless a test says. */
export function totpCodeAt(secret: Uint8Array, step: number, digits = TOTP_DIGITS): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export const totpStep = (seconds: number) => Math.floor(seconds / TOTP_STEP_SECONDS);

/**
 * The time step a code matches, now or one step either side (clock drift of the phone), else undefined.
 * Callers record the step to refuse a code used twice.
 */
export function matchTotp(secretBase32: string, code: string, at = nowSeconds()): number | undefined {
  const secret = base32Decode(secretBase32);
  if (!secret || secret.length === 0 || !/^\d{6}$/.test(code)) return undefined;
  const now = totpStep(at);
  let matched: number | undefined;
  // Every candidate is computed and compared, so timing says nothing about which one matched.
  for (const step of [now - 1, now, now + 1]) {
    if (constantTimeEqual(totpCodeAt(secret, step), code) && matched === undefined) matched = step;
  }
  return matched;
}

/** The otpauth:// URI an authenticator app scans (Key Uri Format): issuer, account and the secret. */
export function totpUri(options: { secret: string; accountName: string; issuer: string }): string {
  const label = `${encodeURIComponent(options.issuer)}:${encodeURIComponent(options.accountName)}`;
  const query = new URLSearchParams({
    secret: options.secret,
    issuer: options.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${query.toString().replaceAll('+', '%20')}`;
}
