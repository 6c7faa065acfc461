/**
 * The SRP engine of sign-in (docs/decisions.md, decision 3): the challenge to USER_SRP_AUTH and to DEVICE_SRP_AUTH,
 * and the check of the PASSWORD_VERIFIER / DEVICE_PASSWORD_VERIFIER answer. The flows around it (finding
 * the user, lockout, MFA, tokens, single use of a session) belong to the sign-in operations, which call:
 *
 *   const challenge = await srp.passwordChallenge({ saasId, username, srpA, poolName, user });
 *   // answer challenge.parameters and challenge.session; the user is undefined when nobody has that name
 *   const claim = await srp.openPasswordClaim(saasId, challengeResponses, session);
 *   // claim.userId names the user; record claim.sessionId (until claim.expiresAt) to refuse a replay
 *   if (!claim.verify(user?.verifier)) -> wrong password
 *
 * The server keeps nothing between the two steps: the secret block (SECRET_BLOCK) carries the exchange
 * sealed with AES-256-GCM under a deployment-wide key, bound to the SaaS and the kind of challenge, and
 * names the username, user id, pool name, a session id and its expiry. The client signs the block's bytes,
 * so a block that was altered, issued to another SaaS, user or device, or has expired, is refused.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { constantTimeEqual } from '../../crypto/compare.js';
import { N, powG } from '../../crypto/srp.js';
import {
  expectedClaimSignature,
  parseSrpA,
  parseSrpTimestamp,
  serverExchange,
  toBig,
  toBytes,
  type ServerExchange,
} from '../../crypto/srp-server.js';
import { invalid } from '../../errors.js';
import { requiredResponse, sessionRefused } from './sign-in-state.js';
import type { SrpSecretPort } from '../tokens/key-store.js';

export interface SrpUser {
  userId: string;
  /** Hex, as createPasswordVerifier made them. */
  salt: string;
  verifier: string;
}

export interface PasswordChallengeRequest {
  saasId: string;
  /** USERNAME as the client sent it: an e-mail or a sign-in ID. */
  username: string;
  /** SRP_A as the client sent it (hex). */
  srpA: string;
  /** The SaaS's POOL_NAME. */
  poolName: string;
  /** The user the username names; undefined when there is none, and the answer looks just the same. */
  user: SrpUser | undefined;
}

export interface DeviceChallengeRequest {
  saasId: string;
  /** USERNAME of the DEVICE_SRP_AUTH answer. */
  username: string;
  /** The user the device is remembered for. */
  userId: string;
  srpA: string;
  deviceKey: string;
  deviceGroupKey: string;
  /** The device's salt and verifier (deviceVerifierFromClient of its confirmation), hex. */
  device: { salt: string; verifier: string };
}

export interface SrpChallenge {
  /** The challenge_parameters of the answer (PASSWORD_VERIFIER or DEVICE_PASSWORD_VERIFIER). */
  parameters: Record<string, string>;
  /** The `session` of the answer: unique per challenge, also sealed in the secret block. */
  session: string;
  expiresAt: number;
}

/** The PASSWORD_VERIFIER answer (challenge_responses). */
export interface PasswordClaimAnswer {
  USERNAME?: string;
  PASSWORD_CLAIM_SECRET_BLOCK?: string;
  PASSWORD_CLAIM_SIGNATURE?: string;
  TIMESTAMP?: string;
}

/** The DEVICE_PASSWORD_VERIFIER answer: the same, plus the device. */
export interface DeviceClaimAnswer extends PasswordClaimAnswer {
  DEVICE_KEY?: string;
}

type ChallengeKind = 'password' | 'device';

/** Who a secret block was issued to, and for how long: sealed beside the exchange. */
interface SealedFacts {
  kind: ChallengeKind;
  username: string;
  userId: string;
  /** What the proof signs in place of the pool name and user id: POOL_NAME and the user id, or the device's. */
  poolName: string;
  userIdForSrp: string;
  deviceKey?: string;
  /**
   * 1: no such user, and the proof fails like a wrong password. Always present and one digit wide, so the
   * block of an unknown name has exactly the length of a real one (a missing member would tell).
   */
  nobody: 0 | 1;
  sessionId: string;
  issuedAt: number;
  expiresAt: number;
}

type SealedExchange = Pick<ServerExchange, 'b' | 'A' | 'u'>;

export interface SrpSettings {
  /** How long a challenge may be answered, in seconds. */
  sessionSeconds: number;
}

/** How far TIMESTAMP may be from the server's clock, either way. */
export const TIMESTAMP_SKEW_SECONDS = 5 * 60;
const MAX_SECRET_BLOCK_CHARS = 8192;
const BLOCK_VERSION = 1;
/** The secret block's plaintext: b, u and A at fixed widths (no text encoding of big numbers), then the facts as JSON. */
const B_BYTES = 32;
const U_BYTES = 32;
const A_BYTES = N.length;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The verifier a proof for nobody is checked against, so it costs what a real check costs. */
let dummyVerifier: string | undefined;
const verifierForNobody = () => (dummyVerifier ??= powG(randomBytes(32)).toString('hex'));

/**
 * An answer whose secret block opened: who it claims to be, and the check of its signature. verify() is
 * false for a wrong password, for nobody (undefined verifier or a fake challenge), and for any value
 * OpenSSL refuses on the way.
 */
export class SrpClaim {
  readonly kind: ChallengeKind;
  readonly saasId: string;
  /** USERNAME of the challenge. */
  readonly username: string;
  /** USER_ID_FOR_SRP: the user to load (a made-up id when the username named nobody). */
  readonly userId: string;
  readonly deviceKey: string | undefined;
  /** The challenge was made for a name nobody has (sealed, so it cannot be claimed otherwise). */
  readonly nobody: boolean;
  /** Unique per challenge: record it (until expiresAt) to make the challenge single use. */
  readonly sessionId: string;
  readonly expiresAt: number;

  constructor(
    saasId: string,
    private readonly facts: SealedFacts,
    private readonly exchange: SealedExchange,
    private readonly proof: { secretBlock: Buffer; timestamp: string; signature: string },
  ) {
    this.kind = facts.kind;
    this.saasId = saasId;
    this.username = facts.username;
    this.userId = facts.userId;
    this.deviceKey = facts.deviceKey;
    this.nobody = facts.nobody === 1;
    this.sessionId = facts.sessionId;
    this.expiresAt = facts.expiresAt;
  }

  /** True when the signature proves knowledge of the password (or device secret) behind `verifier` (hex). */
  verify(verifier: string | undefined): boolean {
    const real = verifier !== undefined && this.facts.nobody === 0;
    const expected = expectedClaimSignature(this.exchange, real ? verifier : verifierForNobody(), {
      poolName: this.facts.poolName,
      userIdForSrp: this.facts.userIdForSrp,
      secretBlock: this.proof.secretBlock,
      timestamp: this.proof.timestamp,
    });
    const matches = constantTimeEqual(expected ?? '', this.proof.signature);
    return real && expected !== undefined && matches;
  }
}

export class SrpSignIn {
  private keys: Promise<{ sealing: Buffer; fakeUsers: Buffer }> | undefined;

  constructor(
    private readonly secrets: SrpSecretPort,
    private readonly settings: SrpSettings,
  ) {}

  private derivedKeys() {
    this.keys ??= this.secrets.srpSecret().then((secret) => ({
      sealing: Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'srp secret block v1', 32)),
      fakeUsers: Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'srp unknown users v1', 32)),
    }));
    // A failed read of the secret must not stick for the life of the process.
    this.keys.catch(() => (this.keys = undefined));
    return this.keys;
  }

  /** The answer to USER_SRP_AUTH: SRP_B, SALT, SECRET_BLOCK, POOL_NAME, USER_ID_FOR_SRP, USERNAME. */
  async passwordChallenge(request: PasswordChallengeRequest): Promise<SrpChallenge> {
    const A = this.clientValue(request.srpA);
    const user = request.user ?? (await this.nobody(request.saasId, request.username));
    const exchange = serverExchange(user.verifier, A);
    const sealed = await this.seal(request.saasId, exchange, {
      kind: 'password',
      username: request.username,
      userId: user.userId,
      poolName: request.poolName,
      userIdForSrp: user.userId,
      nobody: request.user ? 0 : 1,
    });
    return {
      parameters: {
        SRP_B: exchange.B.toString(16),
        SALT: user.salt,
        SECRET_BLOCK: sealed.secretBlock,
        POOL_NAME: request.poolName,
        USER_ID_FOR_SRP: user.userId,
        USERNAME: request.username,
      },
      session: sealed.sessionId,
      expiresAt: sealed.expiresAt,
    };
  }

  /** The answer to DEVICE_SRP_AUTH: SRP_B, SALT, SECRET_BLOCK, DEVICE_KEY, USERNAME. */
  async deviceChallenge(request: DeviceChallengeRequest): Promise<SrpChallenge> {
    const A = this.clientValue(request.srpA);
    const exchange = serverExchange(request.device.verifier, A);
    const sealed = await this.seal(request.saasId, exchange, {
      kind: 'device',
      username: request.username,
      userId: request.userId,
      poolName: request.deviceGroupKey,
      userIdForSrp: request.deviceKey,
      deviceKey: request.deviceKey,
      nobody: 0,
    });
    return {
      parameters: {
        SRP_B: exchange.B.toString(16),
        SALT: request.device.salt,
        SECRET_BLOCK: sealed.secretBlock,
        DEVICE_KEY: request.deviceKey,
        USERNAME: request.username,
      },
      session: sealed.sessionId,
      expiresAt: sealed.expiresAt,
    };
  }

  /** Opens a PASSWORD_VERIFIER answer; `session`, when given, must be the challenge's. */
  openPasswordClaim(saasId: string, answer: PasswordClaimAnswer, session?: string): Promise<SrpClaim> {
    return this.open(saasId, 'password', answer, session);
  }

  /** Opens a DEVICE_PASSWORD_VERIFIER answer: its DEVICE_KEY must be the challenged device's. */
  async openDeviceClaim(saasId: string, answer: DeviceClaimAnswer, session?: string): Promise<SrpClaim> {
    const claim = await this.open(saasId, 'device', answer, session);
    if (answer.DEVICE_KEY === undefined || answer.DEVICE_KEY !== claim.deviceKey) {
      throw sessionRefused('DEVICE_KEY: is not the device this challenge was issued to');
    }
    return claim;
  }

  private clientValue(srpA: string): bigint {
    const A = parseSrpA(srpA);
    if (A === undefined) {
      throw invalid('invalid_parameter', 'SRP_A: must be the hex of a public value g^a mod N (not 0, 1, N−1 or a multiple of N)', {
        field: 'SRP_A',
      });
    }
    return A;
  }

  /**
   * An unknown username gets what a user would: a salt and an id that stay the same for that name (so two
   * attempts cannot tell), derived from the deployment secret. Names are compared as users are looked up:
   * trimmed and case-insensitively.
   */
  private async nobody(saasId: string, username: string): Promise<SrpUser> {
    const { fakeUsers } = await this.derivedKeys();
    const digest = createHmac('sha256', fakeUsers).update(`${saasId}\n${username.trim().toLowerCase()}`).digest();
    const id = Buffer.from(digest.subarray(16, 32));
    id[6] = ((id[6] as number) & 0x0f) | 0x40;
    id[8] = ((id[8] as number) & 0x3f) | 0x80;
    const hex = id.toString('hex');
    return {
      userId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
      salt: digest.subarray(0, 16).toString('hex'),
      verifier: randomBytes(384).toString('hex'),
    };
  }

  private aad(saasId: string, kind: ChallengeKind): Buffer {
    return Buffer.from(`srp-secret-block\n${BLOCK_VERSION}\n${kind}\n${saasId}`, 'utf8');
  }

  private async seal(
    saasId: string,
    exchange: ServerExchange,
    who: Pick<SealedFacts, 'kind' | 'username' | 'userId' | 'poolName' | 'userIdForSrp' | 'deviceKey' | 'nobody'>,
  ): Promise<{ secretBlock: string; sessionId: string; expiresAt: number }> {
    const { sealing } = await this.derivedKeys();
    const issuedAt = nowSeconds();
    const facts: SealedFacts = {
      ...who,
      sessionId: randomBytes(24).toString('base64url'),
      issuedAt,
      expiresAt: issuedAt + this.settings.sessionSeconds,
    };
    const plaintext = Buffer.concat([exchange.b, exchange.u, toBytes(exchange.A), Buffer.from(JSON.stringify(facts), 'utf8')]);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', sealing, iv);
    cipher.setAAD(this.aad(saasId, who.kind));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const block = Buffer.concat([Buffer.from([BLOCK_VERSION]), iv, cipher.getAuthTag(), ciphertext]);
    return { secretBlock: block.toString('base64'), sessionId: facts.sessionId, expiresAt: facts.expiresAt };
  }

  private async unseal(saasId: string, kind: ChallengeKind, block: Buffer): Promise<{ facts: SealedFacts; exchange: SealedExchange }> {
    const { sealing } = await this.derivedKeys();
    if (block.length < 1 + 12 + 16 + B_BYTES + U_BYTES + A_BYTES || block[0] !== BLOCK_VERSION) {
      throw sessionRefused('PASSWORD_CLAIM_SECRET_BLOCK: is not a secret block this service issued');
    }
    let plaintext: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', sealing, block.subarray(1, 13));
      decipher.setAAD(this.aad(saasId, kind));
      decipher.setAuthTag(block.subarray(13, 29));
      plaintext = Buffer.concat([decipher.update(block.subarray(29)), decipher.final()]);
    } catch {
      // Altered, sealed for another SaaS or kind of challenge, or by another deployment.
      throw sessionRefused('PASSWORD_CLAIM_SECRET_BLOCK: is not a secret block this service issued for this challenge');
    }
    const aStart = B_BYTES + U_BYTES;
    return {
      exchange: { b: plaintext.subarray(0, B_BYTES), u: plaintext.subarray(B_BYTES, aStart), A: toBig(plaintext.subarray(aStart, aStart + A_BYTES)) },
      facts: JSON.parse(plaintext.subarray(aStart + A_BYTES).toString('utf8')) as SealedFacts,
    };
  }

  private async open(saasId: string, kind: ChallengeKind, answer: PasswordClaimAnswer, session: string | undefined): Promise<SrpClaim> {
    const username = requiredResponse(answer, 'USERNAME');
    const blockText = requiredResponse(answer, 'PASSWORD_CLAIM_SECRET_BLOCK');
    const signature = requiredResponse(answer, 'PASSWORD_CLAIM_SIGNATURE');
    const timestamp = requiredResponse(answer, 'TIMESTAMP');
    if (blockText.length > MAX_SECRET_BLOCK_CHARS || !BASE64.test(blockText)) {
      throw invalid('invalid_parameter', 'PASSWORD_CLAIM_SECRET_BLOCK: must be the base64 SECRET_BLOCK of the challenge', {
        field: 'PASSWORD_CLAIM_SECRET_BLOCK',
      });
    }
    if (!BASE64.test(signature) || Buffer.from(signature, 'base64').length !== 32) {
      throw invalid('invalid_parameter', 'PASSWORD_CLAIM_SIGNATURE: must be a base64 HMAC-SHA256', { field: 'PASSWORD_CLAIM_SIGNATURE' });
    }
    const signedAt = parseSrpTimestamp(timestamp);
    if (signedAt === undefined) {
      throw invalid('invalid_parameter', "TIMESTAMP: must look like 'Tue Mar 4 09:05:07 UTC 2025' (EEE MMM d HH:mm:ss UTC yyyy)", {
        field: 'TIMESTAMP',
      });
    }
    const now = nowSeconds();
    if (Math.abs(signedAt - now) > TIMESTAMP_SKEW_SECONDS) {
      throw invalid('invalid_parameter', `TIMESTAMP: must be within ${TIMESTAMP_SKEW_SECONDS / 60} minutes of the server's time`, {
        field: 'TIMESTAMP',
      });
    }
    const secretBlock = Buffer.from(blockText, 'base64');
    const { facts, exchange } = await this.unseal(saasId, kind, secretBlock);
    if (facts.expiresAt < now) throw sessionRefused('session: the challenge has expired; sign in again');
    if (session !== undefined && !constantTimeEqual(session, facts.sessionId)) {
      throw sessionRefused('session: is not the session of this challenge');
    }
    // amazon-cognito-identity-js answers with USER_ID_FOR_SRP, other clients with the name they signed in with.
    if (username !== facts.username && username !== facts.userId) {
      throw sessionRefused('USERNAME: is not the user this challenge was issued to');
    }
    return new SrpClaim(saasId, facts, exchange, { secretBlock, timestamp, signature });
  }
}
