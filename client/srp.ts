/**
 * The SRP half of signing in, in the browser (docs/decisions.md, decisions 3 and 9): amazon-cognito-identity-js's
 * AuthenticationHelper, unmodified, makes SRP_A and the session key; the proof is the HMAC that its
 * CognitoUser sends. The password is used here and nowhere else: only SRP_A and the proof leave the page.
 * The example app's page runs it in the browser, `npm start` and the tests in Node; the hosted login screen has
 * its own, with no dependency (web/login/srp.ts), proved against this one. The shapes both speak are
 * srp-protocol.ts's.
 */
import helperModule from 'amazon-cognito-identity-js/lib/AuthenticationHelper.js';
import bigIntegerModule from 'amazon-cognito-identity-js/lib/BigInteger.js';
import dateHelperModule from 'amazon-cognito-identity-js/lib/DateHelper.js';
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
} from './srp-protocol.js';

const AuthenticationHelper = helperModule.default;
const BigInteger = bigIntegerModule.default;
const DateHelper = dateHelperModule.default;

export { passwordChallenge, verifierResponses, type PasswordChallenge, type PasswordClaim, type RememberedDevice } from './srp-protocol.js';

/**
 * A new device's secret, as CognitoUser makes it on Confirm Device (generateHashDevice): a random password to
 * keep, and the salt and SRP verifier to send (base64 of their hex bytes).
 */
export function newDeviceSecret(group: string, key: string): Promise<{ device: RememberedDevice; salt: string; verifier: string }> {
  const helper = new AuthenticationHelper(group);
  return new Promise((resolve, reject) => {
    helper.generateHashDevice(group, key, (error) => {
      if (error) return reject(error instanceof Error ? error : new Error(String(error)));
      resolve({
        device: { key, group, password: helper.getRandomPassword() },
        salt: toBase64(fromHex(helper.getSaltDevices())),
        verifier: toBase64(fromHex(helper.getVerifierDevices())),
      });
    });
  });
}

/** One sign-in attempt: a fresh secret a, its SRP_A, and the proof for the challenge that answers it. */
export class SrpClient {
  /**
   * The pool name arrives with the challenge, after A is made; the helper hashes poolName + username, so
   * it is built with an empty pool name and given both joined as the username (the same bytes).
   */
  private readonly helper = new AuthenticationHelper('');

  srpA(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.helper.getLargeAValue((error, a) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(a.toString(16))));
    });
  }

  /** The DEVICE_PASSWORD_VERIFIER answer (srp-protocol.ts's deviceVerifierResponses). */
  deviceClaim(parameters: Record<string, string>, session: string, device: RememberedDevice, username: string): Promise<Record<string, string>> {
    return deviceVerifierResponses(this, parameters, session, device, username);
  }

  async passwordClaim(challenge: PasswordChallenge, password: string, timestamp = new DateHelper().getNowString()): Promise<PasswordClaim> {
    const key = await new Promise<Uint8Array>((resolve, reject) => {
      try {
        this.helper.getPasswordAuthenticationKey(
          challenge.pool_name + challenge.username,
          password,
          new BigInteger(challenge.srp_b, 16),
          new BigInteger(challenge.salt, 16),
          (error, hkdf) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(hkdf)),
        );
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    const message = concat(utf8(challenge.pool_name), utf8(challenge.username), fromBase64(challenge.secret_block), utf8(timestamp));
    return {
      session: challenge.session,
      username: challenge.username,
      password_claim_secret_block: challenge.secret_block,
      password_claim_signature: toBase64(await hmacSha256(key, message)),
      timestamp,
    };
  }
}
