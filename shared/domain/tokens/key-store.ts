/**
 * The deployment's own keys (docs/decisions.md, decision 4): the RSA keys that sign ID and access tokens, published
 * as one JWKS, and the secret the SRP engine derives its keys from. Private parts are stored sealed by the
 * secret box; everything is created lazily by the first function that needs it, race-safe (the repository
 * writes conditionally, so two cold starts agree on one current key and one secret), and cached per cold
 * start.
 *
 * Rotation makes a new key current and retires the old one. A retired key stays published until no token
 * it signed can still be valid: its retirement, plus the time a warm signer may keep using its cached key,
 * plus the token lifetime, plus clock skew. Past that it leaves the JWKS (checked on every read, and the
 * table's TTL removes the item eventually).
 */
import { createPrivateKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint } from 'jose';
import { nowSeconds } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { selfSignedCertificate } from '../../crypto/self-signed-certificate.js';

/** A public key as the JWKS publishes it. */
export interface PublicJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: 'RS256';
  use: 'sig';
}

export interface SigningKeyRecord {
  kid: string;
  publicJwk: PublicJwk;
  /** PKCS#8 PEM, sealed with {purpose: 'token-signing-key', kid}. */
  sealedPrivateKey: string;
  createdAt: number;
  retiredAt?: number;
  /** Set on retirement: from then on no token it signed can be valid, and it is no longer published. */
  expiresAt?: number;
}

export interface SigningKeySet {
  /** The key that signs now; undefined before the first one is made. */
  currentKid: string | undefined;
  keys: SigningKeyRecord[];
}

export interface KeyRepository {
  /** The current key's id and every stored signing key, in one strongly consistent read. */
  signingKeys(): Promise<SigningKeySet>;
  /** Stores `key` and makes it current, unless a current key exists; false when one did. */
  createFirstSigningKey(key: SigningKeyRecord): Promise<boolean>;
  /**
   * Stores `next` and makes it current, retiring `previousKid` as given, only while `previousKid` is still
   * current; false when another rotation came first.
   */
  rotateSigningKey(previousKid: string, next: SigningKeyRecord, retirement: { retiredAt: number; expiresAt: number }): Promise<boolean>;
  /** The sealed deployment secret of that name, if any. */
  deploymentSecret(name: string): Promise<string | undefined>;
  /** Stores the sealed secret unless one exists; answers the one stored (theirs when two race). */
  createDeploymentSecret(name: string, sealed: string): Promise<string>;
}

export interface KeyStoreSettings {
  /** Lifetime of ID and access tokens, in seconds: how long a retired key must stay published. */
  tokenLifetimeSeconds: number;
}

/** How long a cold start keeps the keys it read before reading them again (so it sees rotations). */
export const KEY_CACHE_SECONDS = 5 * 60;
/** Clock difference allowed between the functions that sign and those that verify. */
const CLOCK_SKEW_SECONDS = 60;
const SRP_SECRET = 'srp';
const SAML_SP_KEY = 'saml-sp';

/**
 * The deployment secret the SRP engine (sign-in/srp-sign-in.ts) derives its keys from. Declared by its holder,
 * below sign-in/, so that tokens/ imports nothing of sign-in/ (docs/architecture.md, Layers).
 */
export interface SrpSecretPort {
  /** 32 bytes, the same for every function of the deployment and never rotated: fake salts must stay put. */
  srpSecret(): Promise<Buffer>;
}

/** PEM, both. */
export interface SamlServiceProviderKey {
  privateKey: string;
  certificate: string;
}

const generateRsaKeyPair = promisify(generateKeyPair);

export interface ActiveSigningKey {
  kid: string;
  privateKey: KeyObject;
}

interface Cached<T> {
  value: T;
  readAt: number;
}

export class KeyStore implements SrpSecretPort {
  private cachedSet: Cached<SigningKeySet> | undefined;
  private active: ActiveSigningKey | undefined;
  private srp: Promise<Buffer> | undefined;
  private saml: Promise<SamlServiceProviderKey> | undefined;

  constructor(
    private readonly repository: KeyRepository,
    private readonly box: SecretBox,
    private readonly settings: KeyStoreSettings,
  ) {}

  private async keySet(refresh: boolean): Promise<SigningKeySet> {
    const now = nowSeconds();
    if (refresh || !this.cachedSet || now - this.cachedSet.readAt >= KEY_CACHE_SECONDS) {
      this.cachedSet = { value: await this.repository.signingKeys(), readAt: now };
    }
    return this.cachedSet.value;
  }

  /**
   * The public keys that may have signed a token still valid now: the JWKS. Only reads, so the public,
   * read-only function can serve it (an empty set before the first key exists). `refresh` reads the store
   * again, for a token naming a key this cold start has not seen yet.
   */
  async publishedKeys(options: { refresh?: boolean } = {}): Promise<PublicJwk[]> {
    const now = nowSeconds();
    const { keys } = await this.keySet(options.refresh ?? false);
    return keys.filter((key) => key.expiresAt === undefined || key.expiresAt > now).map((key) => key.publicJwk);
  }

  /** The key to sign with: the current one, made now if there is none yet. */
  async signingKey(): Promise<ActiveSigningKey> {
    let set = await this.keySet(false);
    if (set.currentKid === undefined) {
      // Another cold start may have won the race to make the first key: then theirs is used.
      await this.repository.createFirstSigningKey(await this.newKey());
      set = await this.keySet(true);
    }
    const current = set.keys.find((key) => key.kid === set.currentKid);
    if (!current) throw new Error(`the current signing key ${String(set.currentKid)} is missing`);
    if (this.active?.kid !== current.kid) {
      const pem = await this.box.open(current.sealedPrivateKey, sealingContext(current.kid));
      this.active = { kid: current.kid, privateKey: createPrivateKey(pem) };
    }
    return this.active;
  }

  /**
   * Makes a new key current. The old one keeps verifying until every token it signed has expired. Answers
   * the new key's id; when two rotations race, one wins and the other makes none and answers the winner's.
   */
  async rotate(): Promise<string> {
    // Rotate what is current now, not what this cold start read minutes ago.
    await this.keySet(true);
    const { kid: previousKid } = await this.signingKey();
    const next = await this.newKey();
    const retiredAt = nowSeconds();
    const expiresAt = retiredAt + KEY_CACHE_SECONDS + this.settings.tokenLifetimeSeconds + CLOCK_SKEW_SECONDS;
    await this.repository.rotateSigningKey(previousKid, next, { retiredAt, expiresAt });
    const set = await this.keySet(true);
    return set.currentKid as string;
  }

  /** SrpSecretPort: 32 bytes for the whole deployment, made on first use. */
  srpSecret(): Promise<Buffer> {
    this.srp ??= this.loadSrpSecret();
    this.srp.catch(() => (this.srp = undefined));
    return this.srp;
  }

  private async loadSrpSecret(): Promise<Buffer> {
    return Buffer.from(await this.deploymentSecret(SRP_SECRET, async () => randomBytes(32).toString('base64')), 'base64');
  }

  /** A secret of the whole deployment, made by `make` on first use and sealed; every instance reads the one stored first. */
  private async deploymentSecret(name: string, make: () => Promise<string>): Promise<string> {
    const context = { purpose: 'deployment-secret', name };
    let sealed = await this.repository.deploymentSecret(name);
    sealed ??= await this.repository.createDeploymentSecret(name, await this.box.seal(await make(), context));
    return this.box.open(sealed, context);
  }

  /**
   * The SAML service provider's signing key and its self-signed certificate (10 years), one per deployment,
   * made on first use: it signs AuthnRequests; identity providers read the certificate in the SP metadata.
   */
  samlServiceProviderKey(): Promise<SamlServiceProviderKey> {
    this.saml ??= this.loadSamlKey();
    this.saml.catch(() => (this.saml = undefined));
    return this.saml;
  }

  private async loadSamlKey(): Promise<SamlServiceProviderKey> {
    const made = await this.deploymentSecret(SAML_SP_KEY, async () => {
      const { privateKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
      return JSON.stringify({
        privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
        certificate: selfSignedCertificate(privateKey, 'SAML service provider', new Date(), 3650),
      } satisfies SamlServiceProviderKey);
    });
    return JSON.parse(made) as SamlServiceProviderKey;
  }

  private async newKey(): Promise<SigningKeyRecord> {
    const { publicKey, privateKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
    const { n, e } = publicKey.export({ format: 'jwk' });
    const kid = await calculateJwkThumbprint({ kty: 'RSA', n: n as string, e: e as string });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    return {
      kid,
      publicJwk: { kty: 'RSA', n: n as string, e: e as string, kid, alg: 'RS256', use: 'sig' },
      sealedPrivateKey: await this.box.seal(pem, sealingContext(kid)),
      createdAt: nowSeconds(),
    };
  }
}

const sealingContext = (kid: string) => ({ purpose: 'token-signing-key', kid });
