/**
 * Envelope encryption of stored secrets (docs/decisions.md, decision 4). On AWS a KMS data key per secret wraps the
 * plaintext with AES-256-GCM; locally a key file stands in for KMS. Either way the stored form is
 * `v1.<mode>.<wrapped key>.<iv>.<tag>.<ciphertext>` (base64url parts) and the encryption context (the
 * owner of the secret) is bound in, so a sealed value copied onto another record does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plaintext: string, context: Record<string, string>): Promise<string>;
  /**
   * The plaintext; UnopenableSecret when `sealed` is not a value this box sealed under `context` (forged,
   * altered, another context or deployment). Any other error is a failure of what the box relies on (KMS
   * unreachable, throttled, the key disabled): not an answer about the value.
   */
  open(sealed: string, context: Record<string, string>): Promise<string>;
}

/** The value does not open: it was not sealed by this box under this context, or was altered since. */
export class UnopenableSecret extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`sealed value does not open: ${reason}`, options);
    this.name = 'UnopenableSecret';
  }
}

/** Runs the local part of opening; whatever it throws (bad parts, a wrong tag) means the value does not open. */
function opening<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof UnopenableSecret) throw error;
    throw new UnopenableSecret(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

function aad(context: Record<string, string>): Buffer {
  const ordered = Object.keys(context)
    .sort()
    .map((k) => [k, context[k]]);
  return Buffer.from(JSON.stringify(ordered));
}

function encrypt(dataKey: Uint8Array, plaintext: string, context: Record<string, string>) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(aad(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

function decrypt(dataKey: Uint8Array, parts: Buffer[], context: Record<string, string>): string {
  const [iv, tag, ciphertext] = parts as [Buffer, Buffer, Buffer];
  const decipher = createDecipheriv('aes-256-gcm', dataKey, iv);
  decipher.setAAD(aad(context));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}

function pack(mode: string, wrappedKey: Uint8Array, sealed: ReturnType<typeof encrypt>): string {
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
  return ['v1', mode, b64(wrappedKey), b64(sealed.iv), b64(sealed.tag), b64(sealed.ciphertext)].join('.');
}

function unpack(sealed: string, mode: string): { wrappedKey: Buffer; parts: Buffer[] } {
  const fields = sealed.split('.');
  if (fields.length !== 6 || fields[0] !== 'v1' || fields[1] !== mode) {
    throw new UnopenableSecret(`not a v1.${mode} value`);
  }
  const [wrappedKey, ...parts] = fields.slice(2).map((f) => Buffer.from(f, 'base64url'));
  return { wrappedKey: wrappedKey as Buffer, parts };
}

/** Local mode: one 32-byte master key (kept in `.data/`) wraps a random data key per secret. */
export class LocalSecretBox implements SecretBox {
  private readonly masterKey: Buffer;

  constructor(masterKeyBase64: string) {
    this.masterKey = Buffer.from(masterKeyBase64, 'base64');
    if (this.masterKey.length !== 32) throw new Error('the local master key must be 32 bytes (base64)');
  }

  async seal(plaintext: string, context: Record<string, string>): Promise<string> {
    const dataKey = randomBytes(32);
    const wrapped = encrypt(this.masterKey, dataKey.toString('base64'), context);
    const wrappedKey = Buffer.concat([wrapped.iv, wrapped.tag, wrapped.ciphertext]);
    return pack('local', wrappedKey, encrypt(dataKey, plaintext, context));
  }

  async open(sealed: string, context: Record<string, string>): Promise<string> {
    return opening(() => {
      const { wrappedKey, parts } = unpack(sealed, 'local');
      const dataKey = decrypt(this.masterKey, [wrappedKey.subarray(0, 12), wrappedKey.subarray(12, 28), wrappedKey.subarray(28)], context);
      return decrypt(Buffer.from(dataKey, 'base64'), parts, context);
    });
  }
}

/** A data key: AES-256 key material and the same key encrypted under the KMS key. */
export interface DataKey {
  plaintext: Uint8Array;
  /** The data key encrypted under the KMS key, stored beside what it encrypts. */
  wrapped: Uint8Array;
}

/** Where data keys come from and are opened: KMS on AWS (aws/kms.ts). */
export interface DataKeys {
  generate(context: Record<string, string>): Promise<DataKey>;
  /** UnopenableSecret when the service says `wrapped` is none of its data keys under `context`. */
  decrypt(wrapped: Uint8Array, context: Record<string, string>): Promise<Uint8Array>;
}

/** AWS: a KMS data key per secret (aws/kms.ts); the wrapped data key is stored beside the ciphertext. */
export class KmsSecretBox implements SecretBox {
  constructor(private readonly dataKeys: DataKeys) {}

  async seal(plaintext: string, context: Record<string, string>): Promise<string> {
    const dataKey = await this.dataKeys.generate(context);
    return pack('kms', dataKey.wrapped, encrypt(dataKey.plaintext, plaintext, context));
  }

  async open(sealed: string, context: Record<string, string>): Promise<string> {
    const { wrappedKey, parts } = opening(() => unpack(sealed, 'kms'));
    const dataKey = await this.dataKeys.decrypt(wrappedKey, context);
    return opening(() => decrypt(dataKey, parts, context));
  }
}
