/**
 * A software WebAuthn authenticator for the integration tests of the passkey ceremonies: a P-256 key, "none"
 * attestation, a signature counter, and whatever it is told to sign (another origin, another relying party,
 * no user verification), so each rule of shared/domain/sign-in/passkeys.ts can be broken on purpose. The
 * browser test uses Chromium's own virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

const FLAG = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 } as const;

export interface Signing {
  origin: string;
  /** The relying party whose hash the authenticator data carries (default: the one the options name). */
  rpId?: string;
  /** Default true. */
  userVerified?: boolean;
  /** Default `webauthn.create` / `webauthn.get`. */
  type?: string;
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  counter = 0;
  userHandle = '';

  constructor() {
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  }

  get id(): string {
    return b64(this.credentialId);
  }

  private cosePublicKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: 'jwk' });
    const key = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, new Uint8Array(Buffer.from(jwk.x as string, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y as string, 'base64url'))],
    ]);
    return isoCBOR.encode(key);
  }

  private authenticatorData(rpId: string, userVerified: boolean, attested: boolean): Buffer {
    const flags = FLAG.up | (userVerified ? FLAG.uv : 0) | (attested ? FLAG.at : 0);
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    const parts: Uint8Array[] = [sha256(rpId), Buffer.from([flags]), counter];
    if (attested) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(this.credentialId.length);
      parts.push(Buffer.alloc(16), length, this.credentialId, this.cosePublicKey());
    }
    return Buffer.concat(parts);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** The answer to registration options (`navigator.credentials.create`), as @simplewebauthn/browser sends it. */
  register(options: { challenge: string; rp: { id?: string }; user: { id: string } }, signing: Signing) {
    this.userHandle = options.user.id;
    const authData = this.authenticatorData(signing.rpId ?? options.rp.id ?? '', signing.userVerified ?? true, true);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64(this.clientData(signing.type ?? 'webauthn.create', options.challenge, signing.origin)),
        attestationObject: b64(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** The answer to sign-in options (`navigator.credentials.get`): the next counter value, signed. */
  authenticate(options: { challenge: string; rpId?: string }, signing: Signing) {
    this.counter += 1;
    const authData = this.authenticatorData(signing.rpId ?? options.rpId ?? '', signing.userVerified ?? true, false);
    const clientData = this.clientData(signing.type ?? 'webauthn.get', options.challenge, signing.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64(clientData),
        authenticatorData: b64(authData),
        signature: b64(signature),
        userHandle: this.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
