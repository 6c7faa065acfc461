/**
 * The login screen's SRP client (Cognito's USER_SRP_AUTH, docs/decisions.md, decision 3), with no dependency:
 * BigInt for the numbers and WebCrypto for SHA-256 and HMAC, so it runs as it is in the browser (the page's
 * script) and in Node (the server answers a remembered device's steps, screen/remembered-devices.ts). It computes what
 * amazon-cognito-identity-js's AuthenticationHelper computes (client/srp.ts, which the example app keeps), and
 * test/unit/login-srp.test.ts proves the two agree over many random inputs:
 *
 *   A = g^a mod N, a of 1024 random bits          u = H(pad(A) ‖ pad(B)), refused when 0
 *   x = H(pad(salt) ‖ H(poolName ‖ userId ‖ ":" ‖ password))
 *   S = (B − k·g^x)^(a + u·x) mod N                 K = HKDF-SHA256(ikm pad(S), salt pad(u), "Caldera Derived Key"), 16 bytes
 *   signature = base64 HMAC-SHA256(K, poolName ‖ userId ‖ secret block ‖ TIMESTAMP)
 *
 * where pad is the client's encoding (big-endian, fewest bytes, a 0x00 byte in front when the top bit is set).
 */
import {
  concat,
  deviceVerifierResponses,
  fromBase64,
  fromHex,
  hmacSha256,
  toBase64,
  utf8,
  type PasswordChallenge,
  type PasswordClaim,
  type RememberedDevice,
} from '../../client/srp-protocol.js';

export {
  passwordChallenge,
  verifierResponses,
  type PasswordChallenge,
  type PasswordClaim,
  type RememberedDevice,
} from '../../client/srp-protocol.js';

/** The 3072-bit group of RFC 3526 (g = 2), as Cognito uses it. */
const N = BigInt(
  '0xFFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245' +
    'E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F' +
    '83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9' +
    'DE2BCBF6955817183995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7' +
    'ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200CBBE117577A615D6C770988C0BAD946E208E24FA074E5AB31' +
    '43DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF',
);
const G = 2n;

/** The client's encoding of a non-negative number, as hex: even length, `00` in front when the top bit is set. */
export function padHex(value: bigint): string {
  const hex = value.toString(16);
  const even = hex.length % 2 ? `0${hex}` : hex;
  return /^[89a-f]/.test(even) ? `00${even}` : even;
}

/** base^exponent mod N, four bits of the exponent at a time. */
export function modPow(base: bigint, exponent: bigint): bigint {
  const b = ((base % N) + N) % N;
  const table = [1n, b];
  for (let i = 2; i < 16; i++) table.push(((table[i - 1] as bigint) * b) % N);
  let result = 1n;
  const digits = exponent.toString(16);
  for (const digit of digits) {
    for (let i = 0; i < 4; i++) result = (result * result) % N;
    result = (result * (table[parseInt(digit, 16)] as bigint)) % N;
  }
  return result;
}

const toHex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
const toBig = (bytes: Uint8Array) => BigInt(`0x${toHex(bytes) || '0'}`);
const random = (size: number) => crypto.getRandomValues(new Uint8Array(size));

const sha256 = async (...parts: Uint8Array[]) => new Uint8Array(await crypto.subtle.digest('SHA-256', concat(...parts)));

/** k = H(pad(N) ‖ pad(g)), once. */
let multiplier: Promise<bigint> | undefined;
const k = () => (multiplier ??= sha256(fromHex(padHex(N)), fromHex(padHex(G))).then(toBig));

/** x = H(pad(salt) ‖ H(utf8(poolName + userId + ":" + password))). */
async function privateKeyX(saltHex: string, poolName: string, userId: string, password: string): Promise<bigint> {
  const inner = await sha256(utf8(`${poolName}${userId}:${password}`));
  return toBig(await sha256(fromHex(padHex(BigInt(`0x${saltHex}`))), inner));
}

const HKDF_INFO = concat(utf8('Caldera Derived Key'), Uint8Array.of(1));

/** K = HKDF-SHA256(ikm pad(S), salt pad(u), info "Caldera Derived Key"), 16 bytes: one extract and one expand block. */
async function sessionKey(S: bigint, u: bigint): Promise<Uint8Array> {
  const prk = await hmacSha256(fromHex(padHex(u)), fromHex(padHex(S)));
  return (await hmacSha256(prk, HKDF_INFO)).subarray(0, 16);
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The client's TIMESTAMP, `EEE MMM d HH:mm:ss UTC yyyy` in English with the day not zero-padded. */
export function srpTimestamp(date = new Date()): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${WEEKDAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC ${date.getUTCFullYear()}`
  );
}

/**
 * A new device's secret, as CognitoUser makes it on Confirm Device (generateHashDevice): a random password to
 * keep, and the salt and SRP verifier to send (base64 of their hex bytes).
 */
export async function newDeviceSecret(group: string, key: string): Promise<{ device: RememberedDevice; salt: string; verifier: string }> {
  const password = toBase64(random(40));
  const saltHex = padHex(toBig(random(16)));
  const x = await privateKeyX(saltHex, group, key, password);
  return { device: { key, group, password }, salt: toBase64(fromHex(saltHex)), verifier: toBase64(fromHex(padHex(modPow(G, x)))) };
}

/**
 * The forms of a typed password to prove, in order: its NFKC form, of which every verifier made since issue 43
 * is made, then, when it differs, the password as typed, for a verifier made before (docs/decisions.md, NFKC).
 * The challenge does not say which a user has: that would tell a real name from one nobody has.
 */
export const passwordForms = (password: string): string[] => [...new Set([password.normalize('NFKC'), password])];

/** One sign-in attempt: a fresh secret a, its SRP_A, and the proof for the challenge that answers it. */
export class SrpClient {
  private readonly a: bigint;
  private readonly A: bigint;

  /** `secret`: a's 128 bytes; random unless a test fixes them. */
  constructor(secret: Uint8Array = random(128)) {
    this.a = toBig(secret);
    this.A = modPow(G, this.a);
    // As the helper: A ≡ 0 would make S = 0 whatever the password (odds of 2^-3072 with a random a).
    if (this.A === 0n) throw new Error('Illegal parameter. A mod N cannot be 0.');
  }

  srpA(): Promise<string> {
    return Promise.resolve(this.A.toString(16));
  }

  /** The DEVICE_PASSWORD_VERIFIER answer (srp-protocol.ts's deviceVerifierResponses). */
  deviceClaim(parameters: Record<string, string>, session: string, device: RememberedDevice, username: string): Promise<Record<string, string>> {
    return deviceVerifierResponses(this, parameters, session, device, username);
  }

  async passwordClaim(challenge: PasswordChallenge, password: string, timestamp = srpTimestamp()): Promise<PasswordClaim> {
    if (!/^[0-9a-fA-F]+$/.test(challenge.srp_b) || !/^[0-9a-fA-F]+$/.test(challenge.salt)) throw new Error('SRP_B and SALT must be hex.');
    const B = BigInt(`0x${challenge.srp_b}`);
    if (B % N === 0n) throw new Error('B cannot be zero.');
    const u = toBig(await sha256(fromHex(padHex(this.A)), fromHex(padHex(B))));
    if (u === 0n) throw new Error('U cannot be zero.');
    const x = await privateKeyX(challenge.salt, challenge.pool_name, challenge.username, password);
    const S = modPow(B - (await k()) * modPow(G, x), this.a + u * x);
    const key = await sessionKey(S, u);
    const signature = await hmacSha256(key, utf8(challenge.pool_name), utf8(challenge.username), fromBase64(challenge.secret_block), utf8(timestamp));
    return {
      session: challenge.session,
      username: challenge.username,
      password_claim_secret_block: challenge.secret_block,
      password_claim_signature: toBase64(signature),
      timestamp,
    };
  }
}
