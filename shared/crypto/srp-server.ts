/**
 * The server side of Cognito's USER_SRP_AUTH proof (docs/decisions.md, decision 3), over the numbers of srp.ts:
 *
 *   challenge  B = (k·v + g^b) mod N, b of 256 random bits
 *   proof      u = H(enc(A) ‖ enc(B)) ≠ 0, S = (A·v^u)^b mod N,
 *              K = HKDF-SHA256(ikm enc(S), salt enc(u), info "Caldera Derived Key", 16 bytes),
 *              signature = base64 HMAC-SHA256(K, poolName ‖ userIdForSrp ‖ secret block ‖ TIMESTAMP)
 *
 * Exponentiations go through OpenSSL (a Diffie-Hellman object over N and g: setPrivateKey(e) then
 * generateKeys() is g^e, computeSecret(X) is X^e); only multiplications and additions use BigInt. Three
 * exponentiations per sign-in: g^b, v^u and (A·v^u)^b. The same formulas sign a device's proof, with the
 * DeviceGroupKey as pool name and the DeviceKey as user id. Pure and synchronous: no clock, no store.
 */
import { createDiffieHellman, createHmac, randomBytes } from 'node:crypto';
import { encode, G, hash, K, N } from './srp.js';

export const toBig = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
export const N_BIG = toBig(N);
export const K_BIG = toBig(K);
const N_BYTES = N.length;

/** Big-endian, N's width: what OpenSSL takes and gives. */
export function toBytes(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(N_BYTES * 2, '0'), 'hex');
}

/**
 * One OpenSSL context for every exponentiation of this process: node runs them synchronously on this
 * thread, so setting the exponent and using it can never interleave with another request. Reusing it
 * also reuses OpenSSL's Montgomery set-up for N, which a fresh context pays again on every call.
 */
const openssl = createDiffieHellman(N, G);

/** g^exponent mod N by OpenSSL. */
function powGMod(exponent: Uint8Array): bigint {
  openssl.setPrivateKey(Buffer.from(exponent));
  return toBig(openssl.generateKeys());
}

/** base^exponent mod N by OpenSSL; undefined when OpenSSL refuses the base (0, 1, N−1, or ≥ N). */
export function powMod(base: bigint, exponent: Uint8Array): bigint | undefined {
  openssl.setPrivateKey(Buffer.from(exponent));
  try {
    return toBig(openssl.computeSecret(toBytes(base)));
  } catch {
    return undefined;
  }
}

/** SRP_A as the client sends it (BigInteger.toString(16)): hex, at most this long, leading zeros allowed. */
const SRP_A_PATTERN = /^[0-9a-fA-F]{1,1024}$/;

/**
 * The client's public value, or undefined when it is not one an honest client can send. A mod N = 0 would
 * make S = 0 whatever the password (anyone could forge the proof); 1 and N−1 make S guessable; values of N
 * and above are never produced by g^a mod N.
 */
export function parseSrpA(text: string): bigint | undefined {
  if (!SRP_A_PATTERN.test(text)) return undefined;
  const a = BigInt(`0x${text}`);
  if (a % N_BIG === 0n || a === 1n || a === N_BIG - 1n || a >= N_BIG) return undefined;
  return a;
}

/** What the server keeps (sealed, in the secret block) between the challenge and the proof. */
export interface ServerExchange {
  /** The server's secret exponent: 32 random bytes. */
  b: Buffer;
  A: bigint;
  /** SRP_B, given to the client. */
  B: bigint;
  /** u = H(enc(A) ‖ enc(B)): all the proof needs of B. */
  u: Buffer;
}

/** B = (k·v + g^b) mod N for a verifier v (hex) and the client's A (from parseSrpA), and u. */
export function serverExchange(verifierHex: string, A: bigint): ServerExchange {
  const v = BigInt(`0x${verifierHex}`);
  for (;;) {
    const b = randomBytes(32);
    const B = (K_BIG * v + powGMod(b)) % N_BIG;
    const u = scrambler(A, B);
    // B = 0 would be refused by the client and u = 0 would leave out the verifier: with odds of 2^-256
    // this loop runs once.
    if (B !== 0n && toBig(u) !== 0n) return { b, A, B, u };
  }
}

/** u = H(enc(A) ‖ enc(B)), the scrambling parameter both sides derive. */
export function scrambler(A: bigint, B: bigint): Buffer {
  return hash(encode(toBytes(A)), encode(toBytes(B)));
}

const HKDF_INFO = Buffer.concat([Buffer.from('Caldera Derived Key', 'utf8'), Buffer.from([1])]);

/**
 * K = HKDF-SHA256(ikm enc(S), salt enc(u), info "Caldera Derived Key"), 16 bytes: one extract and one
 * expand block, written out as two HMACs (a quarter of what node's general hkdfSync costs per call).
 */
export function sessionKey(S: bigint, u: Uint8Array): Buffer {
  const prk = createHmac('sha256', encode(u))
    .update(encode(toBytes(S)))
    .digest();
  return createHmac('sha256', prk).update(HKDF_INFO).digest().subarray(0, 16);
}

/** base64 HMAC-SHA256(K, poolName ‖ userIdForSrp ‖ secret block bytes ‖ TIMESTAMP). */
export function claimSignature(key: Uint8Array, poolName: string, userIdForSrp: string, secretBlock: Uint8Array, timestamp: string): string {
  return createHmac('sha256', key)
    .update(Buffer.from(poolName, 'utf8'))
    .update(Buffer.from(userIdForSrp, 'utf8'))
    .update(secretBlock)
    .update(Buffer.from(timestamp, 'utf8'))
    .digest('base64');
}

/**
 * The signature an honest client computes for this exchange, or undefined when no client can match it
 * (u = 0, or OpenSSL refusing an intermediate value): a failed sign-in either way, never an error.
 */
export function expectedClaimSignature(
  exchange: Pick<ServerExchange, 'b' | 'A' | 'u'>,
  verifierHex: string,
  proof: { poolName: string; userIdForSrp: string; secretBlock: Uint8Array; timestamp: string },
): string | undefined {
  const { b, A, u } = exchange;
  if (toBig(u) === 0n) return undefined;
  const vToU = powMod(BigInt(`0x${verifierHex}`), u);
  if (vToU === undefined) return undefined;
  const S = powMod((A * vToU) % N_BIG, b);
  if (S === undefined) return undefined;
  return claimSignature(sessionKey(S, u), proof.poolName, proof.userIdForSrp, proof.secretBlock, proof.timestamp);
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const TIMESTAMP_PATTERN = new RegExp(
  `^(${WEEKDAYS.join('|')}) (${MONTHS.join('|')}) ([1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]) UTC ([0-9]{4})$`,
);

/** The client's TIMESTAMP, `EEE MMM d HH:mm:ss UTC yyyy` in English with the day not zero-padded. */
export function srpTimestamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${WEEKDAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC ${date.getUTCFullYear()}`
  );
}

/** Unix seconds of a TIMESTAMP in exactly that form, with a weekday that fits the date; else undefined. */
export function parseSrpTimestamp(text: string): number | undefined {
  const m = TIMESTAMP_PATTERN.exec(text);
  if (!m) return undefined;
  const [, weekday, month, day, hours, minutes, seconds, year] = m as unknown as string[];
  const ms = Date.UTC(Number(year), MONTHS.indexOf(month as string), Number(day), Number(hours), Number(minutes), Number(seconds));
  const date = new Date(ms);
  // Feb 30 rolls over to March in Date.UTC; the format must also name the right weekday.
  if (date.getUTCDate() !== Number(day) || WEEKDAYS[date.getUTCDay()] !== weekday) return undefined;
  return Math.floor(ms / 1000);
}

/**
 * A device's verifier as amazon-cognito-identity-js's ConfirmDevice sends it (DeviceSecretVerifierConfig:
 * base64 of the hex bytes of the salt and of v = g^x), as the hex that serverExchange takes; undefined when
 * it is not a usable verifier.
 */
export function deviceVerifierFromClient(config: { password_verifier: string; salt: string }): { salt: string; verifier: string } | undefined {
  const base64 = /^[A-Za-z0-9+/]+={0,2}$/;
  if (!base64.test(config.password_verifier) || !base64.test(config.salt)) return undefined;
  const salt = Buffer.from(config.salt, 'base64');
  const verifier = Buffer.from(config.password_verifier, 'base64');
  if (salt.length === 0 || salt.length > 64 || verifier.length === 0 || verifier.length > N_BYTES + 1) return undefined;
  const v = toBig(verifier);
  if (v <= 1n || v >= N_BIG - 1n) return undefined;
  return { salt: salt.toString('hex'), verifier: verifier.toString('hex') };
}
