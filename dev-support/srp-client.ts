/**
 * A fast SRP client for tests, benchmarks and the load driver: the same answers amazon-cognito-identity-js
 * computes (test/unit/srp-sign-in.test.ts checks they agree), with its exponentiations done by OpenSSL
 * instead of a JavaScript BigInteger, so a client costs about what the server does.
 */
import { randomBytes } from 'node:crypto';
import { encode, powG, privateKeyX } from '../shared/crypto/srp.js';
import { claimSignature, K_BIG, N_BIG, powMod, scrambler, sessionKey, srpTimestamp, toBig } from '../shared/crypto/srp-server.js';
import type { DeviceClaimAnswer, PasswordClaimAnswer } from '../shared/domain/sign-in/srp-sign-in.js';

const bytesOf = (value: bigint) => {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
};

/** What the client proves knowledge of: a password (with the pool name), or a device's random password. */
interface Secret {
  /** POOL_NAME, or the DeviceGroupKey. */
  poolName: string;
  /** USER_ID_FOR_SRP, or the DeviceKey. */
  userIdForSrp: string;
  password: string;
}

/** One sign-in attempt: a fresh secret a, its public A = g^a, and the answers to the challenges. */
export class SrpTestClient {
  private readonly a = randomBytes(32);
  readonly A = toBig(powG(this.a));
  /** SRP_A, as amazon-cognito-identity-js sends it. */
  readonly srpA = this.A.toString(16);

  /** The PASSWORD_VERIFIER answer to a USER_SRP_AUTH challenge. */
  passwordAnswer(parameters: Record<string, string>, password: string, at = new Date()): Required<PasswordClaimAnswer> {
    const { POOL_NAME, USER_ID_FOR_SRP } = required(parameters, 'POOL_NAME', 'USER_ID_FOR_SRP');
    return {
      USERNAME: USER_ID_FOR_SRP,
      ...this.claim(parameters, { poolName: POOL_NAME, userIdForSrp: USER_ID_FOR_SRP, password }, at),
    };
  }

  /** The DEVICE_PASSWORD_VERIFIER answer to a DEVICE_SRP_AUTH challenge. */
  deviceAnswer(
    parameters: Record<string, string>,
    device: { deviceGroupKey: string; randomPassword: string },
    at = new Date(),
  ): Required<DeviceClaimAnswer> {
    const { DEVICE_KEY, USERNAME } = required(parameters, 'DEVICE_KEY', 'USERNAME');
    return {
      USERNAME,
      DEVICE_KEY,
      ...this.claim(parameters, { poolName: device.deviceGroupKey, userIdForSrp: DEVICE_KEY, password: device.randomPassword }, at),
    };
  }

  private claim(parameters: Record<string, string>, secret: Secret, at: Date) {
    const { SRP_B, SALT, SECRET_BLOCK } = required(parameters, 'SRP_B', 'SALT', 'SECRET_BLOCK');
    const B = BigInt(`0x${SRP_B}`);
    const u = scrambler(this.A, B);
    const x = privateKeyX(bytesOf(BigInt(`0x${SALT}`)), secret.poolName, secret.userIdForSrp, secret.password);
    // S = (B − k·g^x)^(a + u·x) mod N
    const base = (((B - K_BIG * toBig(powG(x))) % N_BIG) + N_BIG) % N_BIG;
    const S = powMod(base, bytesOf(toBig(this.a) + toBig(u) * toBig(x)));
    if (S === undefined) throw new Error('the server sent a degenerate SRP_B');
    const timestamp = srpTimestamp(at);
    return {
      PASSWORD_CLAIM_SECRET_BLOCK: SECRET_BLOCK,
      TIMESTAMP: timestamp,
      PASSWORD_CLAIM_SIGNATURE: claimSignature(
        sessionKey(S, u),
        secret.poolName,
        secret.userIdForSrp,
        Buffer.from(SECRET_BLOCK, 'base64'),
        timestamp,
      ),
    };
  }
}

function required<K extends string>(parameters: Record<string, string>, ...names: K[]): Record<K, string> {
  for (const name of names) if (!parameters[name]) throw new Error(`the challenge has no ${name}`);
  return parameters as Record<K, string>;
}

/**
 * What a client does on Confirm Device (amazon-cognito-identity-js's generateHashDevice): a random password
 * for the device, and the salt and verifier the server stores, base64 of their hex bytes.
 */
export function newDeviceSecret(deviceGroupKey: string, deviceKey: string) {
  const randomPassword = randomBytes(40).toString('base64');
  const salt = encode(randomBytes(16));
  const verifier = encode(powG(privateKeyX(salt, deviceGroupKey, deviceKey, randomPassword)));
  return {
    randomPassword,
    deviceSecretVerifierConfig: { password_verifier: verifier.toString('base64'), salt: salt.toString('base64') },
  };
}

/** x^e mod N in plain BigInt: the baseline the benchmark compares OpenSSL with, and a cross-check in tests. */
export function bigIntModPow(base: bigint, exponent: bigint, modulus = N_BIG): bigint {
  let result = 1n;
  base %= modulus;
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % modulus;
    base = (base * base) % modulus;
    exponent >>= 1n;
  }
  return result;
}
