/**
 * The two KMS calls of envelope encryption (crypto/secret-box.ts), GenerateDataKey and Decrypt, through
 * aws/json-service.ts rather than the SDK's KMS client: the same signed requests, 150 KB less in every
 * function bundle (docs/decisions.md, decision 12). Binary values travel base64-encoded, as KMS's JSON
 * protocol has them.
 */
import { UnopenableSecret, type DataKey, type DataKeys } from '../../crypto/secret-box.js';
import { AwsJsonService, AwsServiceError, type AwsJsonServiceOptions } from './json-service.js';

/**
 * KMS's answers that are about the ciphertext it was given (none of its data keys, or not under this context
 * or key, or malformed), not about KMS: the value does not open. Everything else (throttling, KMS down, the key
 * disabled or pending deletion, access denied) is a failure of the service and goes on as it came.
 */
const NOT_A_DATA_KEY = new Set(['InvalidCiphertextException', 'IncorrectKeyException', 'ValidationException']);

const binary = (value: unknown, what: string) => {
  if (typeof value !== 'string' || value === '') throw new Error(`KMS returned no ${what}`);
  return new Uint8Array(Buffer.from(value, 'base64'));
};

export class KmsDataKeys implements DataKeys {
  private readonly kms: AwsJsonService;

  constructor(
    private readonly keyId: string,
    options: Pick<AwsJsonServiceOptions, 'region' | 'endpoint' | 'credentials' | 'trace'>,
  ) {
    this.kms = new AwsJsonService({ ...options, service: 'kms', targetPrefix: 'TrentService', jsonVersion: '1.1' });
  }

  async generate(context: Record<string, string>): Promise<DataKey> {
    const out = await this.kms.call('GenerateDataKey', { KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context });
    return { plaintext: binary(out.Plaintext, 'data key'), wrapped: binary(out.CiphertextBlob, 'wrapped data key') };
  }

  async decrypt(wrapped: Uint8Array, context: Record<string, string>): Promise<Uint8Array> {
    let out: Record<string, unknown>;
    try {
      out = await this.kms.call('Decrypt', { CiphertextBlob: Buffer.from(wrapped).toString('base64'), EncryptionContext: context });
    } catch (error) {
      if (error instanceof AwsServiceError && !error.retryable && NOT_A_DATA_KEY.has(error.name)) {
        throw new UnopenableSecret(`KMS: ${error.name}`, { cause: error });
      }
      throw error;
    }
    return binary(out.Plaintext, 'plaintext');
  }
}
