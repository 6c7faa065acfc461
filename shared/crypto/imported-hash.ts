/**
 * Password hashes brought in by an import (docs/migration.md (coming)): checked once, at the user's first sign-in,
 * then replaced by an SRP verifier. bcrypt and Argon2 go through hash-wasm (pure WebAssembly, so the Lambda
 * bundle needs no native binary for linux-arm64); scrypt, PBKDF2 and SHA-2 through node:crypto. Firebase's
 * modified scrypt is scrypt followed by AES-256-CTR over the project's signer key (github firebase/scrypt).
 *
 * Every cost parameter has a ceiling: a file could otherwise hold a hash whose one check costs minutes of
 * CPU or gigabytes of memory, and a sign-in by that name would then take a function down.
 */
import { createCipheriv, createHash, pbkdf2, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { argon2Verify, bcryptVerify } from 'hash-wasm';
import { N, powG, privateKeyX } from './srp.js';

/** Binary values of the field forms (hash, salt, keys): base64 (standard or URL-safe) unless `encoding` says hex. */
export type BinaryEncoding = 'base64' | 'hex';

export type ImportedPasswordHash =
  /** Modular crypt form: `$2a$`, `$2b$` or `$2y$`, cost, 22 characters of salt, 31 of hash. */
  | { algorithm: 'bcrypt'; hash: string }
  /** PHC string: `$argon2id$v=19$m=…,t=…,p=…$salt$hash` (or `$argon2i$`). */
  | { algorithm: 'argon2'; hash: string }
  | { algorithm: 'scrypt'; hash: string; salt: string; n: number; r: number; p: number; encoding?: BinaryEncoding }
  | {
      algorithm: 'firebase_scrypt';
      hash: string;
      salt: string;
      /** The project's password hash parameters (Firebase console): base64 like the rest. */
      salt_separator: string;
      signer_key: string;
      rounds: number;
      mem_cost: number;
    }
  | { algorithm: 'pbkdf2'; digest: 'sha1' | 'sha256' | 'sha512'; iterations: number; hash: string; salt: string; encoding?: BinaryEncoding }
  /** A legacy table's digest of the salt and the password joined, the salt first (`prefix`) or last (`suffix`). */
  | { algorithm: 'sha256' | 'sha512'; hash: string; salt: string; salt_position: 'prefix' | 'suffix'; encoding?: BinaryEncoding }
  /**
   * This service's own (and Cognito's) SRP verifier, as an export writes it (docs/migration.md): hex salt and
   * verifier v = g^x mod N, with the pool name and user id that went into x (shared/crypto/srp.ts). Another
   * stack cannot use it as its verifier (its pool name and the user's id differ), so it is checked once and replaced.
   */
  | { algorithm: 'srp'; salt: string; verifier: string; pool_name: string; user_id: string };

export type HashAlgorithm = ImportedPasswordHash['algorithm'];
export const HASH_ALGORITHMS: readonly HashAlgorithm[] = ['bcrypt', 'argon2', 'scrypt', 'firebase_scrypt', 'pbkdf2', 'sha256', 'sha512', 'srp'];

/** The ceilings: well above what any exporter writes by default, well below what would take a function down. */
export const HASH_LIMITS = {
  bcryptCost: 16,
  /** Argon2 memory in KiB (256 MiB) and passes. */
  argon2MemoryKib: 262_144,
  argon2Passes: 16,
  argon2Parallelism: 16,
  /** scrypt's memory is 128·N·r·p bytes: 256 MiB at most. */
  scryptMemoryBytes: 268_435_456,
  pbkdf2Iterations: 2_000_000,
} as const;

const BCRYPT = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2(id|i)\$v=(16|19)\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const DIGEST_BYTES = { sha1: 20, sha256: 32, sha512: 64 } as const;

function bytes(value: string, encoding: BinaryEncoding = 'base64'): Buffer | undefined {
  if (typeof value !== 'string' || !(encoding === 'hex' ? HEX : BASE64).test(value)) return undefined;
  return Buffer.from(value, encoding === 'hex' ? 'hex' : 'base64');
}

const positiveInteger = (value: unknown, max: number): value is number =>
  Number.isInteger(value) && (value as number) >= 1 && (value as number) <= max;

/** Why the hash cannot be used, or undefined when it can: checked on import, so a sign-in never meets a bad one. */
export function importedHashProblem(h: ImportedPasswordHash): string | undefined {
  switch (h.algorithm) {
    case 'bcrypt': {
      const m = typeof h.hash === 'string' ? BCRYPT.exec(h.hash) : null;
      if (!m) return 'bcrypt: hash must be $2a$, $2b$ or $2y$, a two-digit cost and 53 characters of salt and hash';
      const cost = Number(m[1]);
      return cost >= 4 && cost <= HASH_LIMITS.bcryptCost ? undefined : `bcrypt: cost must be 4 to ${HASH_LIMITS.bcryptCost}`;
    }
    case 'argon2': {
      const m = typeof h.hash === 'string' ? ARGON2.exec(h.hash) : null;
      if (!m) return 'argon2: hash must be a PHC string $argon2id$ or $argon2i$ with v, m, t and p';
      const [memory, passes, lanes] = [Number(m[3]), Number(m[4]), Number(m[5])];
      if (memory > HASH_LIMITS.argon2MemoryKib || passes > HASH_LIMITS.argon2Passes || lanes > HASH_LIMITS.argon2Parallelism)
        return `argon2: m must be at most ${HASH_LIMITS.argon2MemoryKib}, t at most ${HASH_LIMITS.argon2Passes}, p at most ${HASH_LIMITS.argon2Parallelism}`;
      return undefined;
    }
    case 'scrypt': {
      if (!bytes(h.hash, h.encoding)?.length || !bytes(h.salt, h.encoding)) return `scrypt: hash and salt must be ${h.encoding ?? 'base64'}`;
      if (!positiveInteger(h.n, 2 ** 24) || (h.n & (h.n - 1)) !== 0 || h.n < 2) return 'scrypt: n must be a power of two';
      if (!positiveInteger(h.r, 64) || !positiveInteger(h.p, 64)) return 'scrypt: r and p must be 1 to 64';
      return 128 * h.n * h.r * h.p <= HASH_LIMITS.scryptMemoryBytes ? undefined : 'scrypt: 128·n·r·p must be at most 256 MiB';
    }
    case 'firebase_scrypt': {
      const fields = [h.hash, h.salt, h.salt_separator, h.signer_key];
      if (fields.some((field) => bytes(field) === undefined) || !bytes(h.hash)?.length || !bytes(h.signer_key)?.length)
        return 'firebase_scrypt: hash, salt, salt_separator and signer_key must be base64';
      if (!positiveInteger(h.rounds, 64) || !positiveInteger(h.mem_cost, 24)) return 'firebase_scrypt: rounds must be 1 to 64, mem_cost 1 to 24';
      return 128 * 2 ** h.mem_cost * h.rounds <= HASH_LIMITS.scryptMemoryBytes
        ? undefined
        : 'firebase_scrypt: 128·2^mem_cost·rounds must be at most 256 MiB';
    }
    case 'pbkdf2': {
      if (!(h.digest in DIGEST_BYTES)) return 'pbkdf2: digest must be sha1, sha256 or sha512';
      if (!bytes(h.hash, h.encoding)?.length || !bytes(h.salt, h.encoding)) return `pbkdf2: hash and salt must be ${h.encoding ?? 'base64'}`;
      return positiveInteger(h.iterations, HASH_LIMITS.pbkdf2Iterations)
        ? undefined
        : `pbkdf2: iterations must be 1 to ${HASH_LIMITS.pbkdf2Iterations}`;
    }
    case 'sha256':
    case 'sha512': {
      const digest = bytes(h.hash, h.encoding);
      if (digest?.length !== DIGEST_BYTES[h.algorithm] || !bytes(h.salt, h.encoding))
        return `${h.algorithm}: hash must be a whole ${h.algorithm} digest and salt ${h.encoding ?? 'base64'}`;
      return h.salt_position === 'prefix' || h.salt_position === 'suffix' ? undefined : `${h.algorithm}: salt_position must be prefix or suffix`;
    }
    case 'srp': {
      const [salt, verifier] = [bytes(h.salt, 'hex'), bytes(h.verifier, 'hex')];
      if (!salt?.length || !verifier?.length || verifier.length > N.length)
        return 'srp: salt and verifier must be hex, the verifier at most 384 bytes';
      return typeof h.pool_name === 'string' && typeof h.user_id === 'string' ? undefined : 'srp: pool_name and user_id must be strings';
    }
    default:
      return `algorithm must be one of ${HASH_ALGORITHMS.join(', ')}`;
  }
}

const scryptAsync = promisify(scrypt) as (password: Buffer, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const pbkdf2Async = promisify(pbkdf2);

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/** Whether `password` is the one the hash was made of. Only for hashes importedHashProblem accepts. */
export async function verifyImportedHash(h: ImportedPasswordHash, password: string): Promise<boolean> {
  // No exporter hashes an empty password, and hash-wasm refuses one rather than answering.
  if (password === '') return false;
  const secret = Buffer.from(password, 'utf8');
  switch (h.algorithm) {
    case 'bcrypt':
      // bcrypt reads 72 bytes and ignores the rest: the system that made the hash let its users in that way, so
      // the same typed password must pass here (hash-wasm refuses a longer one rather than cutting it).
      return bcryptVerify({ password: secret.subarray(0, 72), hash: h.hash });
    case 'argon2':
      return argon2Verify({ password: secret, hash: h.hash });
    case 'scrypt': {
      const expected = bytes(h.hash, h.encoding) as Buffer;
      const options = { N: h.n, r: h.r, p: h.p, maxmem: 256 * h.n * h.r * h.p };
      return sameBytes(await scryptAsync(secret, bytes(h.salt, h.encoding) as Buffer, expected.length, options), expected);
    }
    case 'firebase_scrypt': {
      const salt = Buffer.concat([bytes(h.salt) as Buffer, bytes(h.salt_separator) as Buffer]);
      const n = 2 ** h.mem_cost;
      const derived = await scryptAsync(secret, salt, 64, { N: n, r: h.rounds, p: 1, maxmem: 256 * n * h.rounds });
      const cipher = createCipheriv('aes-256-ctr', derived.subarray(0, 32), Buffer.alloc(16));
      const signed = Buffer.concat([cipher.update(bytes(h.signer_key) as Buffer), cipher.final()]);
      return sameBytes(signed, bytes(h.hash) as Buffer);
    }
    case 'pbkdf2': {
      const expected = bytes(h.hash, h.encoding) as Buffer;
      return sameBytes(await pbkdf2Async(secret, bytes(h.salt, h.encoding) as Buffer, h.iterations, expected.length, h.digest), expected);
    }
    case 'sha256':
    case 'sha512': {
      const salt = bytes(h.salt, h.encoding) as Buffer;
      const joined = h.salt_position === 'prefix' ? Buffer.concat([salt, secret]) : Buffer.concat([secret, salt]);
      return sameBytes(createHash(h.algorithm).update(joined).digest(), bytes(h.hash, h.encoding) as Buffer);
    }
    case 'srp':
      return srpVerifierMatches(h, password);
  }
}

/** Whether `password` is the one an SRP salt and verifier were made of (g^x mod N, x from the pool name and user id). */
export function srpVerifierMatches(h: { salt: string; verifier: string; pool_name: string; user_id: string }, password: string): boolean {
  const computed = powG(privateKeyX(Buffer.from(h.salt, 'hex'), h.pool_name, h.user_id, password));
  // Both at the group's width: a stored verifier may have lost or kept its leading zeros.
  const wide = (b: Buffer) => Buffer.concat([Buffer.alloc(Math.max(0, N.length - b.length)), b]);
  return sameBytes(wide(computed), wide(Buffer.from(h.verifier, 'hex')));
}
