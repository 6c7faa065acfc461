/**
 * The sign-in flows (Sign In and Respond to Sign In Challenge): Cognito's USER_SRP_AUTH, then whatever
 * the user's state asks for, and finally the credentials.
 *
 *   USER_SRP_AUTH ─▶ PASSWORD_VERIFIER ─┬─▶ NEW_PASSWORD_REQUIRED (temporary password) ─▶ MFA or credentials
 *                                       ├─▶ DEVICE_SRP_AUTH ─▶ DEVICE_PASSWORD_VERIFIER ─▶ credentials (no MFA)
 *                                       ├─▶ SOFTWARE_TOKEN_MFA or EMAIL_OTP ─▶ credentials
 *                                       └─▶ credentials (+ new_device_metadata when devices are remembered)
 *
 * The SRP answers carry their own state (the engine's secret block); the follow-up challenges have a
 * session stored in the user's partition (sign-in-state.ts). Every session is single use. An unknown user
 * gets the engine's look-alike challenge and then exactly what a wrong password gets, as does a locked user
 * and a replayed answer: nothing in an answer tells who has an account.
 */
import { createHmac } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { constantTimeEqual } from '../../crypto/compare.js';
import { newOneTimeCode } from '../../crypto/one-time-code.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { matchTotp } from '../../crypto/totp.js';
import { newUserToken, readUserToken, type UserToken } from '../../crypto/user-token.js';
import { invalid, unauthenticated } from '../../errors.js';
import { log } from '../../log.js';
import { metrics } from '../../metrics.js';
import type { ChallengeAnswer, ChallengeName, Credentials, SignInChallenge, SignInResult } from '../../schemas/sign-in.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import { newCountedMail, type CountedMail, type MailLimits } from '../mail/mail.js';
import { charged, CONTENDED_ROUNDS, contendedPause, isLocked, Lockout, type LockoutState } from './sign-in-lockout.js';
import { newGrantId, type RefreshTokens } from './refresh-tokens.js';
import { newOfferedDevice } from './sign-in-devices.js';
import {
  answeredKey,
  credentialsOf,
  deviceMetadata,
  deviceNotFound,
  requiredResponse,
  sessionRefused,
  tokenSubject,
  type DeviceRemembering,
  type FollowUpStep,
  type OpenChallenge,
  type ProofState,
  type SignInRepository,
  type SpentSession,
} from './sign-in-state.js';
import type { ActivityChange, ActivityLog, SignInMethod } from '../users/activity.js';
import type { SrpSignIn } from './srp-sign-in.js';
import { enrolmentRequired, passkeyRequired, sealEnrolment, type PasskeyGate } from './passkey-enrolment.js';
import { AMR, type AuthMethod, type TokenService } from '../tokens/tokens.js';
import { loginFromUsername, loginOf, totpSecretContext, type UserRecord, type UserRepository } from '../users/users.js';

export interface SignInSettingsOfService {
  /** How long a follow-up challenge may be answered, in seconds (an e-mailed code never longer than 3 minutes). */
  challengeSeconds: number;
  /** How long an offered device waits for confirmation: as long as the access token that confirms it lives. */
  offeredDeviceSeconds: number;
  /** Device keys look like Cognito's: `<region>_<uuid>`. */
  region: string;
}

export interface SignInDeps {
  users: Pick<UserRepository, 'get' | 'signInCredential'>;
  /** A password change checked against the SaaS's policy (UserService.passwordChangeWrite). */
  passwordChange(saasId: string, userId: string, password: string): Promise<AtomicWrite>;
  store: SignInRepository;
  committer: Committer;
  srp: SrpSignIn;
  tokens: Pick<TokenService, 'issue'>;
  refreshTokens: RefreshTokens;
  box: SecretBox;
  /** The deployment's mail rate limits (configuration), which an EMAIL_OTP mail counts against. */
  mailLimits: MailLimits;
  poolName(saasId: string): Promise<string>;
  deviceRemembering(saasId: string): Promise<DeviceRemembering>;
  settings: SignInSettingsOfService;
  /** Records sign-ins, refused proofs and lockouts in the user's activity, in the writes that settle them. */
  activity: ActivityLog;
  /**
   * Passkeys required (issue 43), by the SaaS or by a tenant of the user's: what a password's sign-in of this user
   * meets. Reads nothing more while the SaaS has passkeys off.
   */
  passkeyGate(saasId: string, user: UserRecord): Promise<PasskeyGate>;
  /** The hosted screen's sign-in only: a person with no passkey yet may enrol one (passkey-enrolment.ts). */
  enrolment?: { box: SecretBox };
}

/** Challenges the service offers; the others the spec names are refused with `unsupported_challenge`. */
const OFFERED: readonly ChallengeName[] = [
  'PASSWORD_VERIFIER',
  'NEW_PASSWORD_REQUIRED',
  'SOFTWARE_TOKEN_MFA',
  'EMAIL_OTP',
  'DEVICE_SRP_AUTH',
  'DEVICE_PASSWORD_VERIFIER',
];
/** Answers one follow-up session takes, right or wrong, before it is spent. */
export const CHALLENGE_ATTEMPTS = 3;
/** An e-mailed code is valid this long at most. */
export const EMAIL_CODE_SECONDS = 180;

type Responses = Record<string, string>;

/** What the flow carries from the proof to the end of the sign-in. */
interface Progress {
  authTime: number;
  /** No DEVICE_KEY came with the proof: a new device may be offered. */
  mayOfferDevice: boolean;
  /** How the user proved who they are, for their activity; the password (SRP) when not said. */
  via?: { method: SignInMethod; provider?: string };
  /** The event a code answer's charge recorded as a failure: the sign-in it completes takes it back. */
  provisional?: string;
  /** How the person proved who they are (the ID token's `amr`, from AMR in shared/domain/tokens/tokens.ts): a password's when not said. */
  amr?: readonly AuthMethod[];
}

const progressOf = (challenge: OpenChallenge): Progress => ({ authTime: challenge.authTime, mayOfferDevice: challenge.mayOfferDevice });

/** A right proof and what settling it is conditioned on. */
interface Proven {
  user: UserRecord;
  spent: SpentSession;
}

/** The write that settles a proof lost a race with another attempt: the proof is decided again on a fresh read. */
class ProofContended extends Error {}

/**
 * What decideProof decides: an SRP claim, or a password checked here (USER_PASSWORD_AUTH), which has no session
 * to replay or spend. verify() does the work of a check whatever it is given, undefined (nobody) included.
 */
export interface Proof {
  userId: string;
  nobody: boolean;
  kind: string;
  sessionId?: string;
  expiresAt?: number;
  verify(verifier: string | undefined): boolean;
}

/** How a proof is recorded and refused: SRP's, or the password's. */
interface ProofTerms {
  method: SignInMethod;
  /** The field a refusal names. */
  field: string;
  /** The state the caller read already: the first round decides on it rather than reading it again. */
  seen?: ProofState;
}

const SRP_TERMS: ProofTerms = { method: 'srp', field: 'PASSWORD_CLAIM_SIGNATURE' };

/** One answer for a wrong password, an unknown user, a locked user and a replayed answer. */
const notAuthorized = (field: string) =>
  unauthenticated('not_authorized', `${field}: incorrect username or password (after repeated failures, wait a moment before trying again)`);

const codeMismatch = (field: string) =>
  invalid('code_mismatch', `${field}: is not the right code (or too many failed attempts: wait a moment, then sign in again)`, { field });

/** amazon-cognito-identity-js answers again without the device when the message names one. */
const unknownDevice = () => deviceNotFound('DEVICE_KEY', 'no such device of this user; answer again without it');

const codeDigest = (session: UserToken, code: string) => createHmac('sha256', session.secret).update(code.trim()).digest('hex');

/** `a***@e***.com`: enough for the user to recognise, not enough to learn an address. */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  const dot = domain.lastIndexOf('.');
  return `${local.slice(0, 1)}***@${domain.slice(0, 1)}***${dot > 0 ? domain.slice(dot) : ''}`;
}

/** USERNAME of an answer may be the user id (what amazon-cognito-identity-js sends) or the sign-in name. */
function namesUser(username: string, user: UserRecord): boolean {
  if (username === user.id) return true;
  const login = loginFromUsername(username);
  const own = loginOf(user);
  return login !== undefined && login.kind === own.kind && login.value === own.value;
}

export class SignInService {
  private readonly lockout: Lockout;

  constructor(private readonly deps: SignInDeps) {
    this.lockout = new Lockout(deps.store);
  }

  /** Sign In (USER_SRP_AUTH): the PASSWORD_VERIFIER challenge; a look-alike one when USERNAME names nobody. One read. */
  async start(saasId: string, parameters: { USERNAME: string; SRP_A?: string }): Promise<SignInChallenge> {
    const srpA = requiredResponse(parameters, 'SRP_A', 'sign_in_parameters.SRP_A');
    const login = loginFromUsername(parameters.USERNAME);
    const [user, poolName] = await Promise.all([login ? this.deps.users.signInCredential(saasId, login) : undefined, this.deps.poolName(saasId)]);
    const challenge = await this.deps.srp.passwordChallenge({ saasId, username: parameters.USERNAME, srpA, poolName, user });
    return { challenge_name: 'PASSWORD_VERIFIER', challenge_parameters: challenge.parameters, session: challenge.session };
  }

  /** Respond to Sign In Challenge. */
  async respond(saasId: string, answer: ChallengeAnswer): Promise<SignInResult> {
    const responses = answer.challenge_responses ?? {};
    const session = answer.session || undefined;
    if (!OFFERED.includes(answer.challenge_name)) {
      throw invalid(
        'unsupported_challenge',
        `challenge_name: ${answer.challenge_name} is not offered by this service (it offers ${OFFERED.join(', ')})`,
        {
          field: 'challenge_name',
        },
      );
    }
    switch (answer.challenge_name) {
      case 'PASSWORD_VERIFIER':
        return this.passwordVerifier(saasId, responses, session);
      case 'NEW_PASSWORD_REQUIRED':
        return this.newPassword(saasId, responses, session);
      case 'SOFTWARE_TOKEN_MFA':
        return this.softwareTokenMfa(saasId, responses, session);
      case 'EMAIL_OTP':
        return this.emailOtp(saasId, responses, session);
      case 'DEVICE_SRP_AUTH':
        return this.deviceSrpAuth(saasId, responses, session);
      default:
        return this.devicePasswordVerifier(saasId, responses, session);
    }
  }

  private async passwordVerifier(saasId: string, responses: Responses, session: string | undefined): Promise<SignInResult> {
    const claim = await this.deps.srp.openPasswordClaim(saasId, responses, session);
    // Checked before the session is spent: amazon-cognito-identity-js answers again without the device.
    const presented = responses.DEVICE_KEY;
    const device = presented ? await this.deps.store.device(saasId, claim.userId, presented) : undefined;
    if (presented && device?.status !== 'confirmed') throw unknownDevice();
    return this.decideProof(
      saasId,
      claim,
      (user) => user.password.verifier,
      SRP_TERMS,
      async ({ user, spent }) => {
        const progress: Progress = { authTime: nowSeconds(), mayOfferDevice: !presented };
        if (user.password.temporary) {
          if (user.password.expires_at !== undefined && user.password.expires_at <= progress.authTime) {
            throw invalid(
              'temporary_password_expired',
              'PASSWORD_CLAIM_SIGNATURE: the temporary password has expired; ask for a new one (Reset Password) and sign in with it',
              { field: 'PASSWORD_CLAIM_SIGNATURE' },
            );
          }
          return this.challenge(saasId, user, 'NEW_PASSWORD_REQUIRED', progress, {}, spent);
        }
        if (device?.remembered) return this.challenge(saasId, user, 'DEVICE_SRP_AUTH', progress, { deviceKey: device.device_key }, spent);
        return this.mfaOrCredentials(saasId, user, progress, spent);
      },
    );
  }

  /**
   * Decides an SRP proof with one read and one write: the user's profile and sign-in state are read, the
   * proof is checked against the verifier there, and one write conditioned on that state settles it. A wrong
   * proof spends its session and counts towards the lockout; a right one spends it within what comes next
   * (`onRight`: the follow-up challenge or the completed sign-in). A write that finds the state changed (another
   * attempt settled first) decides the proof again on a fresh read, so no answer comes from a count that moved,
   * however many proofs arrive at once.
   *
   * A replayed or older session, a locked user and a name nobody has are refused as a wrong proof is, with the
   * same requests (the write goes to a decoy item that holds nothing, so the store does the work of a write)
   * and the proof computed all the same: neither the answer nor its time tells who has an account.
   */
  private async decideProof(
    saasId: string,
    claim: Proof,
    verifierOf: (user: UserRecord) => string | undefined,
    terms: ProofTerms,
    onRight: (proven: Proven) => Promise<SignInResult>,
  ): Promise<SignInResult> {
    let checked: { verifier: string | undefined; right: boolean } | undefined;
    for (let round = 0; round < CONTENDED_ROUNDS; round++) {
      const seen = round === 0 && terms.seen ? terms.seen : await this.deps.store.proofState(saasId, claim.userId, claim.nobody);
      const { user } = seen;
      const verifier = user && verifierOf(user);
      if (checked?.verifier !== verifier || !checked) checked = { verifier, right: claim.verify(verifier) };
      const now = nowSeconds();
      const replayed = claim.sessionId !== undefined && seen.answered?.[answeredKey(claim.sessionId)] !== undefined;
      const refusal = !user ? 'no such user' : replayed ? 'replayed' : isLocked(seen.lockout, now) ? 'locked out' : undefined;
      if (refusal || !user) {
        await this.deps.committer.commit(this.deps.store.decoyProofWrite(saasId, claim.userId, now));
        return this.refused(claim, terms, refusal ?? 'no such user');
      }
      const spent: SpentSession = { seen, sessionId: claim.sessionId, expiresAt: claim.expiresAt };
      try {
        if (checked.right) return await onRight({ user, spent });
        const charge = charged(seen.lockout, now);
        const activity = this.deps.activity.change(charge.lockedUntil ? 'locked_out' : 'sign_in_failed', user.activity, { method: terms.method });
        const outcome = await this.deps.committer.commit(this.deps.store.proofWrite(saasId, user.id, { ...spent, charged: charge, activity }, now));
        if (outcome.committed) {
          this.deps.activity.settled(saasId, user.id, activity);
          return this.refused(claim, terms, 'wrong proof');
        }
      } catch (error) {
        if (!(error instanceof ProofContended)) throw error;
      }
      await contendedPause(round);
    }
    return this.refused(claim, terms, 'contended');
  }

  private refused(claim: Proof, terms: ProofTerms, outcome: string): never {
    metrics.count(outcome === 'locked out' ? 'SignInLockedOut' : 'SignInFailed');
    log.info('sign-in proof refused', { userId: claim.userId, kind: claim.kind, outcome });
    throw notAuthorized(terms.field);
  }

  /**
   * Passkeys required: a password (and what follows it: a code, a device) signs nobody in. Asked before any code
   * is sent, after the proof, so only someone who knows the password learns that the person has a passkey.
   */
  private async passwordGate(saasId: string, user: UserRecord): Promise<void> {
    const gate = await this.deps.passkeyGate(saasId, user);
    if (gate === 'open') return;
    log.info('password sign-in refused: passkeys required', { userId: user.id, gate });
    if (gate === 'enrol' && this.deps.enrolment) throw enrolmentRequired(await sealEnrolment(this.deps.enrolment.box, saasId, user.id));
    throw passkeyRequired();
  }

  private async mfaOrCredentials(saasId: string, user: UserRecord, progress: Progress, spent?: SpentSession): Promise<SignInResult> {
    await this.passwordGate(saasId, user);
    if (user.mfa.enabled && user.mfa.method === 'softwareToken') return this.challenge(saasId, user, 'SOFTWARE_TOKEN_MFA', progress, {}, spent);
    if (user.mfa.enabled && user.mfa.method === 'email') return this.challenge(saasId, user, 'EMAIL_OTP', progress, {}, spent);
    return this.complete(saasId, user, progress, spent);
  }

  /**
   * Opens a follow-up challenge; its session names the user and a secret whose hash is the stored key. After
   * an SRP proof, `spent` settles the proof in the same write.
   */
  private async challenge(
    saasId: string,
    user: UserRecord,
    step: FollowUpStep,
    progress: Progress,
    extra: { deviceKey?: string },
    spent?: SpentSession,
  ): Promise<SignInResult> {
    const session = newUserToken(user.id);
    const now = nowSeconds();
    const seconds = step === 'EMAIL_OTP' ? Math.min(EMAIL_CODE_SECONDS, this.deps.settings.challengeSeconds) : this.deps.settings.challengeSeconds;
    const challenge: OpenChallenge = {
      step,
      sessionHash: session.hash,
      attempts: 0,
      expiresAt: now + seconds,
      authTime: progress.authTime,
      mayOfferDevice: progress.mayOfferDevice,
      ...extra,
    };
    const parameters: Record<string, string> = { USER_ID_FOR_SRP: user.id };
    let mail: CountedMail | undefined;
    if (step === 'EMAIL_OTP') {
      const code = newOneTimeCode();
      challenge.codeHash = codeDigest(session, code);
      mail = await newCountedMail(this.deps, saasId, 'authentication_mfa', user.email, code, user.id);
      Object.assign(parameters, { CODE_DELIVERY_DELIVERY_MEDIUM: 'EMAIL', CODE_DELIVERY_DESTINATION: maskEmail(user.email) });
    }
    if (step === 'NEW_PASSWORD_REQUIRED') {
      // amazon-cognito-identity-js parses both; nothing is required beyond the new password.
      const attributes = user.email ? { email: user.email } : { sign_in_id: user.sign_in_id };
      Object.assign(parameters, { userAttributes: JSON.stringify(attributes), requiredAttributes: '[]' });
    }
    if (extra.deviceKey) parameters.DEVICE_KEY = extra.deviceKey;
    const settled = spent && { ...spent, charged: charged(spent.seen.lockout, now) };
    const outcome = await this.deps.committer.commit(this.deps.store.openChallengeWrite(saasId, user.id, challenge, mail, settled));
    if (!outcome.committed) {
      if (spent && outcome.refusedBy === RULE.signInState) throw new ProofContended();
      throw notAuthorized('session');
    }
    if (step === 'SOFTWARE_TOKEN_MFA' || step === 'EMAIL_OTP') metrics.count('MfaChallengeIssued');
    log.debug('sign-in challenge issued', { userId: user.id, challenge: step });
    return { challenge_name: step, challenge_parameters: parameters, session: session.token };
  }

  /**
   * Takes one answer of a follow-up challenge: the session must be an open one of this step, of a live user
   * whom USERNAME (when given) names. Malformed answers are refused before, and change nothing.
   */
  private async takeAnswer(saasId: string, step: FollowUpStep, responses: Responses, session: string | undefined) {
    if (!session) throw invalid('invalid_parameter', 'session: is required', { field: 'session' });
    const token = readUserToken(session);
    if (!token) throw sessionRefused(`session: is not a ${step} session this service issued`);
    const user = await this.deps.users.get(saasId, token.userId);
    if (!user) throw sessionRefused('session: its user no longer exists');
    if (responses.USERNAME && !namesUser(responses.USERNAME, user)) throw sessionRefused('USERNAME: is not the user this session was issued to');
    const challenge = await this.deps.store.takeChallengeAttempt(saasId, user.id, token.hash, step, nowSeconds(), CHALLENGE_ATTEMPTS);
    if (!challenge) throw sessionRefused(`session: is not an open ${step} challenge (answered, expired, out of attempts, or of another step)`);
    return { user, challenge, token };
  }

  private async newPassword(saasId: string, responses: Responses, session: string | undefined): Promise<SignInResult> {
    const password = requiredResponse(responses, 'NEW_PASSWORD');
    const { user, challenge, token } = await this.takeAnswer(saasId, 'NEW_PASSWORD_REQUIRED', responses, session);
    const outcome = await this.deps.committer.commit(
      this.deps.store.closeChallengeWrite(saasId, user.id, token.hash),
      await this.deps.passwordChange(saasId, user.id, password),
    );
    if (!outcome.committed) throw sessionRefused('session: has been answered already, or its user is gone');
    const changed = await this.deps.users.get(saasId, user.id);
    if (!changed) throw sessionRefused('session: its user no longer exists');
    return this.mfaOrCredentials(saasId, changed, progressOf(challenge));
  }

  /** A code answer: charged to the lockout, checked, and on success the challenge closes with the sign-in. */
  private async codeAnswer(
    saasId: string,
    step: 'SOFTWARE_TOKEN_MFA' | 'EMAIL_OTP',
    field: string,
    code: string,
    responses: Responses,
    session: string | undefined,
    check: (user: UserRecord, challenge: OpenChallenge, token: UserToken) => Promise<boolean>,
  ): Promise<SignInResult> {
    const { user, challenge, token } = await this.takeAnswer(saasId, step, responses, session);
    // The charge records the answer as a failure in the write it makes anyway; a right code's sign-in removes it again.
    let provisional: ActivityChange | undefined;
    const recordFailure = (next: LockoutState) =>
      (provisional = this.deps.activity.change(next.lockedUntil ? 'locked_out' : 'sign_in_failed', user.activity, { challenge: step }));
    const allowed = (await this.lockout.charge(saasId, user.id, recordFailure)) === 'allowed';
    if (!allowed || !(await check(user, challenge, token))) {
      // Written with the charge, which committed when allowed; a locked user's attempt charged nothing.
      if (allowed) this.deps.activity.settled(saasId, user.id, provisional);
      metrics.count(allowed ? 'SignInFailed' : 'SignInLockedOut');
      log.info('sign-in code refused', { userId: user.id, challenge: step, outcome: allowed ? 'wrong code' : 'locked out' });
      throw codeMismatch(field);
    }
    const progress: Progress = {
      ...progressOf(challenge),
      amr: AMR.code,
      ...(provisional ? { provisional: provisional.add.id } : {}),
    };
    return this.complete(saasId, user, progress, undefined, this.deps.store.closeChallengeWrite(saasId, user.id, token.hash));
  }

  private softwareTokenMfa(saasId: string, responses: Responses, session: string | undefined): Promise<SignInResult> {
    const code = requiredResponse(responses, 'SOFTWARE_TOKEN_MFA_CODE');
    return this.codeAnswer(saasId, 'SOFTWARE_TOKEN_MFA', 'SOFTWARE_TOKEN_MFA_CODE', code, responses, session, async (user) => {
      const sealed = user.mfa.sealed_totp_secret;
      if (!sealed || !user.mfa.software_token_registered) return false;
      const step = matchTotp(await this.deps.box.open(sealed, totpSecretContext(saasId, user.id)), code.trim());
      // A step is good for one sign-in: a code seen over someone's shoulder is spent.
      return step !== undefined && this.deps.store.useTotpStep(saasId, user.id, step);
    });
  }

  private emailOtp(saasId: string, responses: Responses, session: string | undefined): Promise<SignInResult> {
    // Cognito names it EMAIL_OTP_CODE; amazon-cognito-identity-js 6's sendMFACode sends every code as SMS_MFA_CODE.
    const field = responses.EMAIL_OTP_CODE || !responses.SMS_MFA_CODE ? 'EMAIL_OTP_CODE' : 'SMS_MFA_CODE';
    const code = requiredResponse(responses, field);
    return this.codeAnswer(
      saasId,
      'EMAIL_OTP',
      field,
      code,
      responses,
      session,
      async (_user, challenge, token) => challenge.codeHash !== undefined && constantTimeEqual(codeDigest(token, code), challenge.codeHash),
    );
  }

  private async deviceSrpAuth(saasId: string, responses: Responses, session: string | undefined): Promise<SignInResult> {
    const deviceKey = requiredResponse(responses, 'DEVICE_KEY');
    const srpA = requiredResponse(responses, 'SRP_A');
    const { user, challenge, token } = await this.takeAnswer(saasId, 'DEVICE_SRP_AUTH', responses, session);
    if (deviceKey !== challenge.deviceKey) throw sessionRefused('DEVICE_KEY: is not the device this session was issued for');
    const device = await this.deps.store.device(saasId, user.id, deviceKey);
    if (!device?.remembered || !device.salt || !device.verifier) throw unknownDevice();
    const srp = await this.deps.srp.deviceChallenge({
      saasId,
      username: responses.USERNAME || user.id,
      userId: user.id,
      srpA,
      deviceKey,
      deviceGroupKey: device.device_group_key,
      device: { salt: device.salt, verifier: device.verifier },
    });
    const outcome = await this.deps.committer.commit(this.deps.store.closeChallengeWrite(saasId, user.id, token.hash));
    if (!outcome.committed) throw sessionRefused('session: has been answered already');
    return { challenge_name: 'DEVICE_PASSWORD_VERIFIER', challenge_parameters: srp.parameters, session: srp.session };
  }

  private async devicePasswordVerifier(saasId: string, responses: Responses, session: string | undefined): Promise<SignInResult> {
    const claim = await this.deps.srp.openDeviceClaim(saasId, responses, session);
    const device = claim.deviceKey ? await this.deps.store.device(saasId, claim.userId, claim.deviceKey) : undefined;
    const verifier = device?.remembered ? device.verifier : undefined;
    // A remembered device stands in for the second factor.
    return this.decideProof(
      saasId,
      claim,
      () => verifier,
      SRP_TERMS,
      async ({ user, spent }) => {
        await this.passwordGate(saasId, user);
        return this.complete(saasId, user, { authTime: nowSeconds(), mayOfferDevice: false, amr: AMR.device }, spent);
      },
    );
  }

  /**
   * A password checked here against the user's verifier (USER_PASSWORD_AUTH, password-sign-in.ts), decided as an
   * SRP proof is: the check first, then one write conditioned on the lockout count it was decided on (a wrong
   * password's charge, or the sign-in itself, or its next challenge), so parallel guesses are serialised by the
   * store as SRP's are, with one write where charging first took two. `seen` is the state the caller read; a
   * name nobody has writes its decoy, as a wrong password writes its charge.
   */
  passwordProof(saasId: string, proof: Proof, verifierOf: (user: UserRecord) => string | undefined, seen: ProofState): Promise<SignInResult> {
    return this.decideProof(saasId, proof, verifierOf, { method: 'password', field: 'PASSWORD', seen }, ({ user, spent }) =>
      this.afterPassword(saasId, user, undefined, spent),
    );
  }

  /**
   * After a password checked on the server (password-sign-in.ts: USER_PASSWORD_AUTH, an imported user's first
   * sign-in): what a right SRP proof leads to. `provisional` is the failure its lockout charge recorded; `spent`
   * the state passwordProof decided on, which the next write settles.
   */
  async afterPassword(saasId: string, user: UserRecord, provisional?: string, spent?: SpentSession): Promise<SignInResult> {
    const progress: Progress = { authTime: nowSeconds(), mayOfferDevice: true, via: { method: 'password' }, ...(provisional ? { provisional } : {}) };
    if (user.password.temporary) {
      if (user.password.expires_at !== undefined && user.password.expires_at <= progress.authTime) {
        throw invalid('temporary_password_expired', 'PASSWORD: the temporary password has expired; ask for a new one (Reset Password)', {
          field: 'PASSWORD',
        });
      }
      return this.challenge(saasId, user, 'NEW_PASSWORD_REQUIRED', progress, {}, spent);
    }
    return this.mfaOrCredentials(saasId, user, progress, spent);
  }

  /**
   * A sign-in an external identity provider vouched for (web/login/screen/federation.ts, docs/federation.md):
   * no password and no MFA of ours (the provider has its own), no device offered; the same settling write,
   * so a user removed meanwhile is refused.
   */
  async federated(
    saasId: string,
    userId: string,
    via: { method: 'federated' | 'passkey'; provider?: string },
    ...writes: AtomicWrite[]
  ): Promise<Credentials> {
    const user = await this.deps.users.get(saasId, userId);
    if (!user) throw unauthenticated('not_authorized', 'the user was removed during the sign-in; sign in again');
    // A passkey's sign-in (passkeys.ts) passes its counter update: it commits with the sign-in or not at all.
    const { credentials } = await this.complete(
      saasId,
      user,
      { authTime: nowSeconds(), mayOfferDevice: false, via, amr: AMR[via.method] },
      undefined,
      ...writes,
    );
    return credentials as Credentials;
  }

  /**
   * The end of a sign-in, in one transaction with what closes its last challenge: last_login_at, the lockout
   * reset, the spent SRP session (when the proof was the last step) and the offered device, on condition that
   * the user is live and their session version unchanged. The refresh token is sealed, not stored
   * (refresh-tokens.ts). Tokens are signed only once it committed.
   */
  private async complete(
    saasId: string,
    user: UserRecord,
    progress: Progress,
    spent?: SpentSession,
    ...writes: AtomicWrite[]
  ): Promise<SignInResult> {
    // Every way in ends here (password, MFA, federation, passkeys): a deprovisioned user stops at the last step,
    // after proving who they are, so the refusal tells nothing to someone who could not.
    if (user.disabled) throw unauthenticated('user_disabled', 'this user has been deactivated by their organisation; ask its administrator');
    const now = nowSeconds();
    const { settings } = this.deps;
    const remembering = progress.mayOfferDevice ? await this.deps.deviceRemembering(saasId) : 'no';
    const device = remembering === 'no' ? undefined : newOfferedDevice(settings.region, now, settings.offeredDeviceSeconds);
    const sessionVersion = user.session_version;
    const activity = this.deps.activity.change('sign_in_succeeded', user.activity, progress.via ?? { method: 'srp' });
    if (progress.provisional) activity.drop.push(progress.provisional);
    const outcome = await this.deps.committer.commit(
      ...writes,
      this.deps.store.signedInWrite(
        saasId,
        user.id,
        {
          // The event's time, to the second: the directory's copy of last_login_at is the event's (settled, below).
          at: activity.add.at,
          sessionVersion,
          ...(spent ? { spent } : {}),
          activity,
        },
        device,
      ),
    );
    if (!outcome.committed) {
      if (outcome.refusedBy === RULE.challengeOpen) throw sessionRefused('session: has been answered already');
      // After an SRP proof, the read decides again why (a race with another attempt, a password change, a delete).
      if (spent) throw new ProofContended();
      throw unauthenticated('not_authorized', 'session: the password changed or the user was removed during the sign-in; sign in again');
    }
    this.deps.activity.settled(saasId, user.id, activity);
    // The sign-in's ID and access tokens belong to its refresh token's grant: Revoke Token ends them too.
    const grantId = newGrantId();
    const amr = progress.amr ?? AMR.password;
    const [tokens, refreshToken] = await Promise.all([
      this.deps.tokens.issue({ ...tokenSubject(saasId, user, progress.authTime, sessionVersion, amr), grantId }),
      this.deps.refreshTokens.issue(saasId, { userId: user.id, sessionVersion, authTime: progress.authTime, amr, grantId }),
    ]);
    metrics.count('SignInSucceeded');
    log.debug('sign-in completed', { userId: user.id, deviceOffered: device !== undefined });
    return {
      challenge_parameters: {},
      credentials: credentialsOf(tokens, refreshToken.token),
      ...(device ? { new_device_metadata: deviceMetadata(device) } : {}),
    };
  }
}
