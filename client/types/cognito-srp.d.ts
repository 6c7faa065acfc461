/**
 * amazon-cognito-identity-js's package types leave out the SRP helper the login page uses; these are the
 * parts of its CommonJS modules (`module.exports.default`) the page calls.
 */
declare module 'amazon-cognito-identity-js/lib/BigInteger.js' {
  export interface BigInteger {
    toString(radix: number): string;
  }
  const module: { default: new (value: string, radix: number) => BigInteger };
  export default module;
}

declare module 'amazon-cognito-identity-js/lib/AuthenticationHelper.js' {
  import type { BigInteger } from 'amazon-cognito-identity-js/lib/BigInteger.js';
  type Callback<T> = (error: unknown, value: T) => void;
  export interface AuthenticationHelper {
    getLargeAValue(callback: Callback<BigInteger>): void;
    /** HKDF of the SRP session key: 16 bytes. Throws at once when B mod N is 0. */
    getPasswordAuthenticationKey(username: string, password: string, serverB: BigInteger, salt: BigInteger, callback: Callback<Uint8Array>): void;
    /** A remembered device's random password, salt and verifier (hex), read back with the getters below. */
    generateHashDevice(deviceGroupKey: string, deviceKey: string, callback: (error: unknown) => void): void;
    getRandomPassword(): string;
    getSaltDevices(): string;
    getVerifierDevices(): string;
  }
  const module: { default: new (poolName: string) => AuthenticationHelper };
  export default module;
}

declare module 'amazon-cognito-identity-js/lib/DateHelper.js' {
  /** `EEE MMM d HH:mm:ss UTC yyyy`, the TIMESTAMP a PASSWORD_VERIFIER answer carries. */
  const module: { default: new () => { getNowString(): string } };
  export default module;
}
