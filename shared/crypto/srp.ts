/**
 * The numbers of Cognito's USER_SRP_AUTH (docs/decisions.md, decision 3): the 3072-bit group of RFC 3526 with g = 2,
 * SHA-256, and numbers hashed in the client's encoding (big-endian, fewest bytes, a 0x00 byte in front when
 * the top bit is set). This module turns a password into the salt and verifier that are stored instead of
 * it; the sign-in flow builds on the same encoding. Exponentiation goes through OpenSSL.
 */
import { createDiffieHellman, createHash, getDiffieHellman, randomBytes } from 'node:crypto';

const GROUP = getDiffieHellman('modp15');
export const N: Buffer = GROUP.getPrime();
export const G: Buffer = Buffer.from([2]);

/** The client's encoding of a non-negative number given as big-endian bytes. */
export function encode(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = Buffer.from(bytes.subarray(start));
  if (trimmed.length === 0) return Buffer.from([0]);
  return (trimmed[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
}

export function hash(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const part of parts) h.update(part);
  return h.digest();
}

/** k = H(enc(N) ‖ enc(g)). */
export const K: Buffer = hash(encode(N), encode(G));

/** g^e mod N, computed by OpenSSL. */
export function powG(exponent: Uint8Array): Buffer {
  const dh = createDiffieHellman(N, G);
  dh.setPrivateKey(Buffer.from(exponent));
  return dh.generateKeys();
}

/** x = H(enc(s) ‖ H(utf8(poolName + userId + ":" + password))). */
export function privateKeyX(salt: Uint8Array, poolName: string, userId: string, password: string): Buffer {
  return hash(encode(salt), hash(Buffer.from(`${poolName}${userId}:${password}`, 'utf8')));
}

export interface PasswordVerifier {
  /** 16 random bytes, hex. */
  salt: string;
  /** v = g^x mod N, hex. */
  verifier: string;
}

/** The salt and verifier stored for a password; the password itself is dropped here. */
export function createPasswordVerifier(poolName: string, userId: string, password: string, salt = randomBytes(16)): PasswordVerifier {
  const x = privateKeyX(salt, poolName, userId, password);
  return { salt: salt.toString('hex'), verifier: powG(x).toString('hex') };
}
