/**
 * What sign-in keeps of a user between requests, and the port that keeps it. Everything lives in the
 * user's partition (keys.ts), so Delete User takes it along: the lockout count and the SRP sessions answered
 * lately on the profile itself, so a proof is settled with one read and one conditional write; items with
 * a lifetime carry the TTL attribute `expiresAt` and are checked against the clock on every read, as TTL
 * deletes only eventually. Refresh tokens are not stored at all (refresh-tokens.ts).
 */
import type { ActivityChange } from '../users/activity.js';
import { invalid, unauthenticated } from '../../errors.js';
import type { SignInSettings } from '../../schemas/configuration.js';
import type { Credentials, NewDeviceMetadata } from '../../schemas/sign-in.js';
import type { AtomicWrite } from '../atomic.js';
import type { CountedMail } from '../mail/mail.js';
import type { LockoutState, LockoutRepository } from './sign-in-lockout.js';
import type { AuthMethod, IssuedTokens, TokenSubject } from '../tokens/tokens.js';
import type { Login, UserRecord } from '../users/users.js';

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

/**
 * A device a sign-in offered, kept on the user's profile until it lapses (Confirm Device makes it a device
 * item of its own): what that item holds before its confirmation, but its key and status.
 */
export interface PendingOffer {
  device_group_key: string;
  created_at: number;
  expiresAt: number;
}

export interface DeviceConfirmationRecord {
  salt: string;
  verifier: string;
  device_name?: string;
  remembered: boolean;
  confirmed_at: number;
}

/** What a proof is checked against and settled on: the user's profile as read, with sign-in's state on it. */
export interface ProofState {
  /** undefined when there is no such user, or it is being deleted. */
  user: UserRecord | undefined;
  lockout: LockoutState | undefined;
  /**
   * The SRP sessions answered lately (their session id's first characters), with when each expires; the
   * map itself is undefined until the first one.
   */
  answered: Record<string, number> | undefined;
  /** The devices offered to the user that await Confirm Device, by device key (absent until the first). */
  offers?: Record<string, PendingOffer>;
}

/** A proof's reading of the profile and the session it spends: what settling the proof is conditioned on. */
export interface SpentSession {
  seen: ProofState;
  /**
   * The session id, and when the session expires (its entry is dropped after that). Absent for a password
   * checked on the server (USER_PASSWORD_AUTH): no session to spend, the write holds on the count alone.
   */
  sessionId?: string;
  expiresAt?: number;
  /**
   * The lockout state after this proof when it is charged: a wrong proof, and a right one that a follow-up
   * challenge comes after (only a completed sign-in resets the count, so codes cannot be guessed by proving
   * the password again and again).
   */
  charged?: LockoutState;
  /** The user's activity this write records: a refused proof (a failure, or the one that locked the user out). */
  activity?: ActivityChange;
}

/** The key of a session among the answered ones: 96 random bits are unique enough for three minutes. */
export const answeredKey = (sessionId: string) => sessionId.slice(0, 16);

/** A completed sign-in. */
export interface SignedIn {
  at: number;
  /** The session version the tokens are bound to: the write holds only while the user is still at it. */
  sessionVersion: number;
  /** When the SRP proof was the last step: its session is spent in the same write. */
  spent?: SpentSession;
  /** The sign-in in the user's activity, recorded by the same write. */
  activity?: ActivityChange;
}

/** A sign-in name's owner and proof state (USER_PASSWORD_AUTH's two reads); a made-up id's decoy state when nobody has it. */
export interface ProofStateOfName {
  userId: string;
  nobody: boolean;
  /** `user` is undefined for nobody, and when the name left its owner or the owner is being deleted meanwhile. */
  seen: ProofState;
}

export interface SignInRepository extends LockoutRepository {
  /**
   * The profile and its sign-in state, in one consistent read. With `decoy` (a name nobody has), the read of
   * the decoy decoyProofWrite keeps for the name, as large as a profile: no user, and the same work.
   */
  proofState(saasId: string, userId: string, decoy?: boolean): Promise<ProofState>;
  /**
   * The owner of a sign-in name and its proof state, in two reads (the name, then the profile). A name nobody
   * has reads the decoy of `nobodyId` instead, as proofState does: the same requests either way.
   */
  proofStateByLogin(saasId: string, login: Login, nobodyId: string): Promise<ProofStateOfName>;
  /**
   * Settles a checked SRP proof that does not end the sign-in: spends its session and charges it, on
   * condition that the user is live and nothing was answered or charged since `spent.seen` (rule `sign_in_state`).
   */
  proofWrite(saasId: string, userId: string, spent: SpentSession, now: number): AtomicWrite;
  /**
   * The write a refused or unknown proof makes in place of proofWrite: the same request, a condition that
   * holds, to a decoy item of `userId` that holds nothing and expires (a write that cannot hold is answered
   * faster than one that writes: a real user's wrong proof took 1.2 times as long as a made-up name's).
   */
  decoyProofWrite(saasId: string, userId: string, now: number): AtomicWrite;
  /**
   * A new follow-up challenge (with the mail that carries its code, if any), on condition the user is live;
   * after an SRP proof, with the proof's settling (`spent`: rule `sign_in_state`).
   */
  openChallengeWrite(saasId: string, userId: string, challenge: OpenChallenge, mail?: CountedMail, spent?: SpentSession): AtomicWrite;
  /**
   * Takes one answer of an open challenge of `step`: counted at once, refused (undefined) when the challenge
   * is missing, of another step, expired, or out of attempts.
   */
  takeChallengeAttempt(
    saasId: string,
    userId: string,
    sessionHash: string,
    step: FollowUpStep,
    now: number,
    maxAttempts: number,
  ): Promise<OpenChallenge | undefined>;
  /** Closes the challenge: refused (rule `challenge_open`) when it is no longer open, so it closes once. */
  closeChallengeWrite(saasId: string, userId: string, sessionHash: string): AtomicWrite;
  /** Records the TOTP time step just used; false when it or a later one was used before. */
  useTotpStep(saasId: string, userId: string, step: number): Promise<boolean>;
  device(saasId: string, userId: string, deviceKey: string): Promise<DeviceRecord | undefined>;
  /** Whether the user has a passkey (passkeys required: a password only enrols the first). */
  hasPasskey(saasId: string, userId: string): Promise<boolean>;
  /** Confirms an offered device that has not lapsed; false when there is none. */
  confirmDevice(saasId: string, userId: string, deviceKey: string, confirmation: DeviceConfirmationRecord, now: number): Promise<boolean>;
  /** Sets a confirmed device remembered or not; false when there is none. */
  rememberDevice(saasId: string, userId: string, deviceKey: string, remembered: boolean): Promise<boolean>;
  /**
   * What a completed sign-in leaves: last_login_at, the lockout reset, the spent session, and the device it
   * offers if any; on condition that the user is live at `signedIn.sessionVersion` and, with `spent`,
   * unchanged since the proof read it (rule `session_current`).
   */
  signedInWrite(saasId: string, userId: string, signedIn: SignedIn, offeredDevice?: DeviceRecord): AtomicWrite;
}

/** Whom tokens are for: the user's sign-in name goes in as `email` or `sign_in_id`. */
export function tokenSubject(saasId: string, user: UserRecord, authTime: number, sessionVersion: number, amr?: readonly AuthMethod[]): TokenSubject {
  return {
    saasId,
    userId: user.id,
    ...(user.email ? { email: user.email } : { signInId: user.sign_in_id }),
    authTime,
    sessionVersion,
    ...(amr !== undefined ? { amr } : {}),
  };
}

export function credentialsOf(tokens: IssuedTokens, refreshToken?: string): Credentials {
  return { id_token: tokens.idToken, access_token: tokens.accessToken, ...(refreshToken ? { refresh_token: refreshToken } : {}) };
}

export const deviceMetadata = (device: DeviceRecord): NewDeviceMetadata => ({
  device_key: device.device_key,
  device_group_key: device.device_group_key,
});

/** A challenge response that must be given, and not empty. */
export function requiredResponse<T extends object>(answer: T, field: keyof T & string, path = field as string): string {
  const value: unknown = answer[field];
  if (typeof value !== 'string' || value === '') throw invalid('invalid_parameter', `${path}: is required`, { field: path });
  return value;
}

/** A session (or what an answer names) that is not, or no longer, one this service issued for the challenge. */
export const sessionRefused = (message: string) => unauthenticated('invalid_session', message);

export const deviceNotFound = (field: string, detail: string) => invalid('device_not_found', `${field}: ${detail}`, { field });
