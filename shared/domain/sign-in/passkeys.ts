/**
 * Passkeys (WebAuthn, discoverable credentials, user verification required): this service's extension, which
 * SaaSus does not offer, turned on per SaaS by the sign-in setting `passkeys.enable`. A signed-in person
 * registers one on the hosted screen; later it alone signs them in, with the same tokens as a password
 * sign-in and MFA satisfied (a passkey with user verification is two factors: the device and its unlock).
 *
 * The rules the ceremonies keep:
 *   - a challenge serves once (taken by a conditional delete before its answer is checked) and only for
 *     CHALLENGE_SECONDS (checked here, not left to the table's TTL, which deletes late);
 *   - the relying party is the host the screen was served from: the caller names it, with its origin, and both
 *     must match what the browser signed;
 *   - a credential belongs to one user of one SaaS: looked up in the SaaS's own keys, and registered only once;
 *   - the signature counter only moves forward (a clone is refused), and counter and backup flags are kept.
 * The protocol itself is SimpleWebAuthn's (a maintained library); nothing here knows HTTP or DynamoDB.
 */
import type { ActivityChange, ActivityLog } from '../users/activity.js';
import { createHash, randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { nowSeconds } from '../../clock.js';
import { invalid, notFound, unauthenticated } from '../../errors.js';
import type { Credentials } from '../../schemas/sign-in.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { openEnrolment, passkeyRequired } from './passkey-enrolment.js';

type CreationOptions = { challenge_id: string; options: PublicKeyCredentialCreationOptionsJSON };

/** How long a page has to answer a challenge: enough to unlock a device, short enough to be useless later. */
export const CHALLENGE_SECONDS = 120;
/** A person has this many passkeys at most (each one a key and an item). */
export const MAX_PASSKEYS = 10;

export const PASSKEY_RULE = {
  /** No passkey of this SaaS has the credential yet. */
  credentialFree: 'passkey_credential_free',
  /** The passkey still has the counter the sign-in read. */
  passkeyCurrent: 'passkey_current',
  passkeyExists: 'passkey_exists',
} as const;

/** The relying party of one ceremony: the host the screen is served from, and the page's origin. */
export interface RelyingParty {
  id: string;
  origin: string;
  /** Shown by the device when it asks to create the passkey. */
  name: string;
}

export interface PasskeyRecord {
  /** base64url SHA-256 of the credential id: a fixed-length key and the API's `passkey_id`. */
  id: string;
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  counter: number;
  transports: string[];
  /** multiDevice: a synced passkey; singleDevice: bound to one authenticator. */
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  rp_id: string;
  aaguid: string;
  created_at: number;
  /** 0 until it first signs in. */
  last_used_at: number;
}

export interface PasskeyUse {
  counter: number;
  backed_up: boolean;
  last_used_at: number;
}

export interface PasskeyChallenge {
  id: string;
  challenge: string;
  purpose: 'register' | 'sign_in';
  /** The person registering (registration only). */
  user_id?: string;
  rp_id: string;
  origin: string;
  expires_at: number;
}

export interface PasskeyRepository {
  saveChallenge(saasId: string, challenge: PasskeyChallenge): Promise<void>;
  /** The challenge, removed in the same request; undefined when there is none (never made, or taken already). */
  takeChallenge(saasId: string, challengeId: string): Promise<PasskeyChallenge | undefined>;
  addWrite(saasId: string, userId: string, passkey: PasskeyRecord, activity?: ActivityChange): AtomicWrite;
  /** addWrite without the profile's check: in the transaction that creates the user (an import). Rule credentialFree. */
  importWrite(saasId: string, userId: string, passkey: PasskeyRecord): AtomicWrite;
  ownerOf(saasId: string, passkeyId: string): Promise<string | undefined>;
  get(saasId: string, userId: string, passkeyId: string): Promise<PasskeyRecord | undefined>;
  list(saasId: string, userId: string): Promise<PasskeyRecord[]>;
  usedWrite(saasId: string, userId: string, passkeyId: string, use: PasskeyUse, counterRead: number): AtomicWrite;
  removeWrite(saasId: string, userId: string, passkeyId: string, activity?: ActivityChange): AtomicWrite;
}

/** A passkey as the API and the screen show it: no key material. */
export interface PasskeyView {
  id: string;
  rp_id: string;
  device_type: PasskeyRecord['device_type'];
  backed_up: boolean;
  created_at: number;
  last_used_at: number;
}

export interface PasskeyDeps {
  passkeys: PasskeyRepository;
  committer: Committer;
  /** The SaaS's sign-in setting `passkeys.enable`. */
  enabled(saasId: string): Promise<boolean>;
  users: {
    /** The user's sign-in name as the device shows it (the e-mail address or sign-in ID); undefined when gone. */
    name(saasId: string, userId: string): Promise<string | undefined>;
  };
  /** The user an access token belongs to (a refused token is an error). */
  tokenHolder(saasId: string, accessToken: string): Promise<string>;
  /** Opens the enrolment tickets of passkeys required (passkey-enrolment.ts). */
  box: SecretBox;
  /** Signs the user in, the writes in the same transaction as the sign-in's own. */
  signIn(saasId: string, userId: string, ...writes: AtomicWrite[]): Promise<Credentials>;
  /**
   * Records passkeys added and removed in the user's activity, in the transaction that does it. The profile is
   * not read here, so these writes drop nothing; the user's next sign-in or refused password trims the list.
   */
  activity: ActivityLog;
}

/** The library base64url-encodes a string challenge again: it is handed the bytes, and checks the string. */
const challengeBytes = (challenge: PasskeyChallenge) => new Uint8Array(Buffer.from(challenge.challenge, 'base64url'));

export const passkeyId = (credentialId: string) => createHash('sha256').update(credentialId).digest('base64url');

const view = (p: PasskeyRecord): PasskeyView => ({
  id: p.id,
  rp_id: p.rp_id,
  device_type: p.device_type,
  backed_up: p.backed_up,
  created_at: p.created_at,
  last_used_at: p.last_used_at,
});

/** One error type for every refused ceremony; its message names the rule (the screen shows its own words instead). */
const refused = (why: string) => unauthenticated('passkey_refused', `the passkey was not accepted: ${why}`);
const disabled = () => invalid('passkeys_disabled', 'passkeys: this SaaS has not turned them on (PUT /sign-in-settings {passkeys: {enable: true}})');

export class PasskeyService {
  constructor(private readonly deps: PasskeyDeps) {}

  /** The SaaS offers passkeys (its sign-in setting). */
  enabled(saasId: string): Promise<boolean> {
    return this.deps.enabled(saasId);
  }

  private async requireEnabled(saasId: string): Promise<void> {
    if (!(await this.deps.enabled(saasId))) throw disabled();
  }

  private async newChallenge(saasId: string, rp: RelyingParty, purpose: PasskeyChallenge['purpose'], userId?: string) {
    const challenge: PasskeyChallenge = {
      id: randomBytes(24).toString('base64url'),
      challenge: randomBytes(32).toString('base64url'),
      purpose,
      ...(userId !== undefined ? { user_id: userId } : {}),
      rp_id: rp.id,
      origin: rp.origin,
      expires_at: nowSeconds() + CHALLENGE_SECONDS,
    };
    await this.deps.passkeys.saveChallenge(saasId, challenge);
    return challenge;
  }

  /** The challenge of an answer, taken so it serves no other; refused when unknown, used, expired or for another ceremony. */
  private async takeChallenge(saasId: string, challengeId: string, purpose: PasskeyChallenge['purpose'], rp: RelyingParty) {
    const challenge = await this.deps.passkeys.takeChallenge(saasId, challengeId);
    if (!challenge || challenge.purpose !== purpose) throw refused('the challenge is unknown or was used already; start again');
    if (challenge.expires_at <= nowSeconds()) throw refused('the challenge has expired; start again');
    if (challenge.rp_id !== rp.id || challenge.origin !== rp.origin) throw refused('the challenge was made for another site');
    return challenge;
  }

  /** Registration, step 1: the options for `navigator.credentials.create`, for the holder of the access token. */
  async registrationOptions(saasId: string, accessToken: string, rp: RelyingParty): Promise<CreationOptions> {
    await this.requireEnabled(saasId);
    return this.optionsFor(saasId, await this.deps.tokenHolder(saasId, accessToken), rp);
  }

  /**
   * Passkeys required: the person an enrolment ticket names (passkey-enrolment.ts), while they still have no
   * passkey, so a password alone never adds one beside theirs.
   */
  private async enrolee(saasId: string, ticket: string): Promise<string> {
    await this.requireEnabled(saasId);
    const userId = await openEnrolment(this.deps.box, saasId, ticket);
    if (userId === undefined) throw invalid('ticket_expired', 'ticket: is not an enrolment ticket of this SaaS, or too old; sign in again');
    if ((await this.deps.passkeys.list(saasId, userId)).length > 0) throw passkeyRequired();
    return userId;
  }

  /** Enrolment of a first passkey when the SaaS requires them, step 1: as registrationOptions, for the ticket's person. */
  async enrolmentOptions(saasId: string, ticket: string, rp: RelyingParty): Promise<CreationOptions> {
    return this.optionsFor(saasId, await this.enrolee(saasId, ticket), rp);
  }

  /** Enrolment, step 2: as register; the page then signs in with the new passkey. */
  async enrol(saasId: string, ticket: string, rp: RelyingParty, challengeId: string, response: RegistrationResponseJSON): Promise<PasskeyView> {
    return this.registerFor(saasId, await this.enrolee(saasId, ticket), rp, challengeId, response);
  }

  private async optionsFor(saasId: string, userId: string, rp: RelyingParty): Promise<CreationOptions> {
    const name = await this.deps.users.name(saasId, userId);
    if (name === undefined) throw notFound('user_not_found', `no user with id ${userId}`);
    const existing = await this.deps.passkeys.list(saasId, userId);
    if (existing.length >= MAX_PASSKEYS) throw invalid('too_many_passkeys', `passkeys: at most ${MAX_PASSKEYS}; remove one first`);
    const challenge = await this.newChallenge(saasId, rp, 'register', userId);
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: name,
      userID: new TextEncoder().encode(userId),
      challenge: challengeBytes(challenge),
      timeout: CHALLENGE_SECONDS * 1000,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    });
    return { challenge_id: challenge.id, options };
  }

  /** Registration, step 2: the device's answer checked and the passkey kept for the holder of the access token. */
  async register(
    saasId: string,
    accessToken: string,
    rp: RelyingParty,
    challengeId: string,
    response: RegistrationResponseJSON,
  ): Promise<PasskeyView> {
    await this.requireEnabled(saasId);
    return this.registerFor(saasId, await this.deps.tokenHolder(saasId, accessToken), rp, challengeId, response);
  }

  private async registerFor(saasId: string, userId: string, rp: RelyingParty, challengeId: string, response: RegistrationResponseJSON) {
    const challenge = await this.takeChallenge(saasId, challengeId, 'register', rp);
    if (challenge.user_id !== userId) throw refused('the challenge was made for someone else');
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
    } catch (error) {
      throw refused(error instanceof Error ? error.message : String(error));
    }
    if (!verified.verified) throw refused('the answer did not verify');
    const info = verified.registrationInfo;
    const passkey: PasskeyRecord = {
      id: passkeyId(info.credential.id),
      credential_id: info.credential.id,
      public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: info.credential.transports ?? response.response.transports ?? [],
      device_type: info.credentialDeviceType,
      backed_up: info.credentialBackedUp,
      rp_id: rp.id,
      aaguid: info.aaguid,
      created_at: nowSeconds(),
      last_used_at: 0,
    };
    const outcome = await this.deps.committer.commit(
      this.deps.passkeys.addWrite(saasId, userId, passkey, this.deps.activity.change('passkey_added', undefined)),
    );
    if (!outcome.committed) {
      if (outcome.refusedBy === RULE.userLive) throw notFound('user_not_found', `no user with id ${userId}`);
      throw invalid('passkey_already_registered', 'this passkey is registered already');
    }
    return view(passkey);
  }

  /** Sign-in, step 1: options naming no credential, so the device offers the passkeys it holds for this site. */
  async signInOptions(saasId: string, rp: RelyingParty): Promise<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
    await this.requireEnabled(saasId);
    const challenge = await this.newChallenge(saasId, rp, 'sign_in');
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      challenge: challengeBytes(challenge),
      timeout: CHALLENGE_SECONDS * 1000,
      userVerification: 'required',
    });
    return { challenge_id: challenge.id, options };
  }

  /** Sign-in, step 2: the device's signature checked; signed in as the passkey's user. */
  async signIn(
    saasId: string,
    rp: RelyingParty,
    challengeId: string,
    response: AuthenticationResponseJSON,
  ): Promise<{ userId: string; credentials: Credentials }> {
    await this.requireEnabled(saasId);
    const challenge = await this.takeChallenge(saasId, challengeId, 'sign_in', rp);
    const id = passkeyId(response.id);
    const userId = await this.deps.passkeys.ownerOf(saasId, id);
    const passkey = userId === undefined ? undefined : await this.deps.passkeys.get(saasId, userId, id);
    if (userId === undefined || !passkey) throw refused('this passkey is not registered here');
    // A discoverable credential names its user: it must be the one it was registered for.
    const handle = response.response.userHandle;
    if (handle !== undefined && Buffer.from(handle, 'base64url').toString('utf8') !== userId) throw refused('the passkey names another user');
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: passkey.credential_id,
          publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
          counter: passkey.counter,
          transports: passkey.transports as never,
        },
        requireUserVerification: true,
      });
    } catch (error) {
      throw refused(error instanceof Error ? error.message : String(error));
    }
    if (!verified.verified) throw refused('the signature did not verify');
    const use = {
      counter: verified.authenticationInfo.newCounter,
      backed_up: verified.authenticationInfo.credentialBackedUp,
      last_used_at: nowSeconds(),
    };
    // A refused commit (the counter moved meanwhile, the user went) is the sign-in's own refusal.
    const credentials = await this.deps.signIn(saasId, userId, this.deps.passkeys.usedWrite(saasId, userId, id, use, passkey.counter));
    return { userId, credentials };
  }

  /** The user's passkeys (the API's GET /users/{user_id}/passkeys); a user who is not there is a 404. */
  async list(saasId: string, userId: string): Promise<{ passkeys: PasskeyView[] }> {
    if ((await this.deps.users.name(saasId, userId)) === undefined) throw notFound('user_not_found', `no user with id ${userId}`);
    const passkeys = await this.deps.passkeys.list(saasId, userId);
    return { passkeys: passkeys.sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id)).map(view) };
  }

  async remove(saasId: string, userId: string, passkeyIdToRemove: string): Promise<void> {
    const outcome = await this.deps.committer.commit(
      this.deps.passkeys.removeWrite(saasId, userId, passkeyIdToRemove, this.deps.activity.change('passkey_removed', undefined)),
    );
    if (!outcome.committed) throw notFound('passkey_not_found', `user ${userId} has no passkey ${passkeyIdToRemove}`);
  }

  /** The screen's view of the holder of the access token: their passkeys. */
  async listForHolder(saasId: string, accessToken: string): Promise<{ passkeys: PasskeyView[] }> {
    await this.requireEnabled(saasId);
    return this.list(saasId, await this.deps.tokenHolder(saasId, accessToken));
  }

  async removeForHolder(saasId: string, accessToken: string, passkeyIdToRemove: string): Promise<void> {
    await this.requireEnabled(saasId);
    await this.remove(saasId, await this.deps.tokenHolder(saasId, accessToken), passkeyIdToRemove);
  }
}
