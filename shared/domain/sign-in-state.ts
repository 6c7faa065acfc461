/**
 * What sign-in keeps of a user between requests, and the port that keeps it. Everything lives in the
 * user's partition (keys.ts), so Delete User takes it along; items with a lifetime carry the TTL attribute
 * `expiresAt` and are checked against the clock on every read, as TTL deletes only eventually.
 */
import { invalid } from '../errors.js';
import type { SignInSettings } from '../schemas/configuration.js';
import type { Credentials, NewDeviceMetadata } from '../schemas/sign-in.js';
import type { AtomicWrite } from './atomic.js';
import type { OutboxMail } from './mail.js';
import type { LockoutStore } from './sign-in-lockout.js';
import type { IssuedTokens, TokenSubject } from './tokens.js';
import type { UserRecord } from './users.js';

export type DeviceRemembering = SignInSettings['device_configuration']['device_remembering'];

/** The challenges answered with a session the service stored (PASSWORD_VERIFIER's lives in its secret block). */
export type FollowUpStep = 'NEW_PASSWORD_REQUIRED' | 'SOFTWARE_TOKEN_MFA' | 'EMAIL_OTP' | 'DEVICE_SRP_AUTH';

/** A challenge issued after a right proof: bound to its user and step, answered at most a few times, once right. */
export interface OpenChallenge {
  step: FollowUpStep;
  /** SHA-256 of the session's secret: the item's key. */
  sessionHash: string;
  /** Answers taken so far, counted before each is checked. */
  attempts: number;
  expiresAt: number;
  /** When the user proved who they are: the tokens' auth_time. */
  authTime: number;
  /** EMAIL_OTP: HMAC-SHA256 of the mailed code, keyed with the session's secret (which only the client holds). */
  codeHash?: string;
  /** DEVICE_SRP_AUTH: the remembered device the proof came with. */
  deviceKey?: string;
  /** The proof came without a DEVICE_KEY: the completed sign-in may offer a new device. */
  mayOfferDevice: boolean;
}

export interface DeviceRecord {
  device_key: string;
  device_group_key: string;
  /** Offered by a sign-in (new_device_metadata), then confirmed by the client with its verifier. */
  status: 'offered' | 'confirmed';
  /** A remembered device signs in with DEVICE_SRP_AUTH and skips MFA. */
  remembered: boolean;
  device_name?: string;
  /** The device's SRP salt and verifier, hex, once confirmed. */
  salt?: string;
  verifier?: string;
  created_at: number;
  confirmed_at?: number;
  /** Only while offered: unconfirmed offers lapse with the access token that could confirm them. */
  expiresAt?: number;
}

export interface DeviceConfirmationRecord {
  salt: string;
  verifier: string;
  device_name?: string;
  remembered: boolean;
  confirmed_at: number;
}

export interface RefreshTokenRecord {
  /** SHA-256 of the token's secret: the item's key. */
  hash: string;
  /** The user's session_version at issue: a password change or reset raises it and so ends the token. */
  session_version: number;
  auth_time: number;
  created_at: number;
  expiresAt: number;
}

export interface SignInStore extends LockoutStore {
  /** Records that an SRP session was answered (until it expires); false when it had been already. */
  /** With `rehearsal`, the same request under a condition that cannot hold: false, and nothing stored. */
  useSession(saasId: string, userId: string, sessionId: string, expiresAt: number, rehearsal?: boolean): Promise<boolean>;
  /** A new follow-up challenge (with the mail that carries its code, if any), on condition the user is live. */
  openChallengeWrite(saasId: string, userId: string, challenge: OpenChallenge, mail?: OutboxMail): AtomicWrite;
  /**
   * Takes one answer of an open challenge of `step`: counted at once, refused (undefined) when the challenge
   * is missing, of another step, expired, or out of attempts.
   */
  takeChallengeAttempt(saasId: string, userId: string, sessionHash: string, step: FollowUpStep, now: number, maxAttempts: number): Promise<OpenChallenge | undefined>;
  /** Closes the challenge: refused (rule `challenge_open`) when it is no longer open, so it closes once. */
  closeChallengeWrite(saasId: string, userId: string, sessionHash: string): AtomicWrite;
  /** Records the TOTP time step just used; false when it or a later one was used before. */
  useTotpStep(saasId: string, userId: string, step: number): Promise<boolean>;
  device(saasId: string, userId: string, deviceKey: string): Promise<DeviceRecord | undefined>;
  /** Confirms an offered device that has not lapsed; false when there is none. */
  confirmDevice(saasId: string, userId: string, deviceKey: string, confirmation: DeviceConfirmationRecord, now: number): Promise<boolean>;
  /** Sets a confirmed device remembered or not; false when there is none. */
  rememberDevice(saasId: string, userId: string, deviceKey: string, remembered: boolean): Promise<boolean>;
  refreshToken(saasId: string, userId: string, hash: string): Promise<RefreshTokenRecord | undefined>;
  /** What a completed sign-in leaves: its refresh token, the device it offers if any, and a reset lockout. */
  signedInWrite(saasId: string, userId: string, refresh: RefreshTokenRecord, offeredDevice?: DeviceRecord): AtomicWrite;
}

/** Whom tokens are for: the user's sign-in name goes in as `email` or `sign_in_id`. */
export function tokenSubject(saasId: string, user: UserRecord, authTime: number, sessionVersion: number): TokenSubject {
  return {
    saasId,
    userId: user.id,
    ...(user.email ? { email: user.email } : { signInId: user.sign_in_id }),
    authTime,
    sessionVersion,
  };
}

export function credentialsOf(tokens: IssuedTokens, refreshToken?: string): Credentials {
  return { id_token: tokens.idToken, access_token: tokens.accessToken, ...(refreshToken ? { refresh_token: refreshToken } : {}) };
}

export const deviceMetadata = (device: DeviceRecord): NewDeviceMetadata => ({
  device_key: device.device_key,
  device_group_key: device.device_group_key,
});

export const deviceNotFound = (field: string, detail: string) => invalid('device_not_found', `${field}: ${detail}`, { field });
