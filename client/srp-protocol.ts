/**
 * The shapes of Cognito's USER_SRP_AUTH as a client sees them, and the byte encodings of its proof, with no
 * dependency: what client/srp.ts (the unmodified AuthenticationHelper) and the login screen's own client
 * (web/login/srp.ts) both read and answer.
 */

/** The byte encodings both clients use to build the proof. */
export const fromHex = (hex: string) => Uint8Array.from((hex.length % 2 ? `0${hex}` : hex).match(/../g) ?? [], (pair) => parseInt(pair, 16));
export const utf8 = (text: string) => new TextEncoder().encode(text);
export const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
export const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** HMAC-SHA256 of the parts joined, with WebCrypto (browser and Node alike). */
export async function hmacSha256(key: Uint8Array, ...message: Uint8Array[]): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey('raw', concat(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, concat(...message)));
}

/** What POST /sign-in and POST /challenge-id answer. */
export interface PasswordChallenge {
  srp_b: string;
  salt: string;
  secret_block: string;
  pool_name: string;
  /** USER_ID_FOR_SRP */
  username: string;
  session: string;
}

/** What POST /sign-in/challenge takes: the PASSWORD_VERIFIER answer. */
export interface PasswordClaim {
  session: string;
  username: string;
  password_claim_secret_block: string;
  password_claim_signature: string;
  timestamp: string;
}

/** A Sign In answer's PASSWORD_VERIFIER challenge as the proof needs it; undefined when the answer is not one. */
export function passwordChallenge(step: {
  challenge_name?: string;
  challenge_parameters?: Record<string, string>;
  session?: string;
}): PasswordChallenge | undefined {
  const p = step.challenge_parameters ?? {};
  if (step.challenge_name !== 'PASSWORD_VERIFIER' || !p.SRP_B || !p.SALT || !p.SECRET_BLOCK || !p.POOL_NAME || !p.USER_ID_FOR_SRP) return undefined;
  return {
    srp_b: p.SRP_B,
    salt: p.SALT,
    secret_block: p.SECRET_BLOCK,
    pool_name: p.POOL_NAME,
    username: p.USER_ID_FOR_SRP,
    session: step.session ?? '',
  };
}

/** The challenge responses of Respond to Sign In Challenge that carry a password claim. */
export function verifierResponses(claim: Omit<PasswordClaim, 'session'>): Record<string, string> {
  return {
    USERNAME: claim.username,
    PASSWORD_CLAIM_SECRET_BLOCK: claim.password_claim_secret_block,
    PASSWORD_CLAIM_SIGNATURE: claim.password_claim_signature,
    TIMESTAMP: claim.timestamp,
  };
}

/** What a browser keeps to sign in as a remembered device: the device's key, its group, its random password. */
export interface RememberedDevice {
  key: string;
  group: string;
  password: string;
}

/** What makes the proof: either SrpClient (client/srp.ts with the helper, web/login/srp.ts without). */
export interface PasswordProver {
  passwordClaim(challenge: PasswordChallenge, password: string): Promise<PasswordClaim>;
}

/**
 * The DEVICE_PASSWORD_VERIFIER answer: the same proof as the user's, with the device's group as the pool,
 * its key as the name, its random password; USERNAME stays the user's.
 */
export async function deviceVerifierResponses(
  prover: PasswordProver,
  parameters: Record<string, string>,
  session: string,
  device: RememberedDevice,
  username: string,
): Promise<Record<string, string>> {
  const challenge = {
    srp_b: parameters.SRP_B ?? '',
    salt: parameters.SALT ?? '',
    secret_block: parameters.SECRET_BLOCK ?? '',
    pool_name: device.group,
    username: device.key,
    session,
  };
  const claim = await prover.passwordClaim(challenge, device.password);
  return { ...verifierResponses(claim), USERNAME: username, DEVICE_KEY: device.key };
}
