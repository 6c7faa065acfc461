/**
 * The two KMS calls of envelope encryption (crypto/secret-box.ts), GenerateDataKey and Decrypt, through
 * aws/json-service.ts rather than the SDK's KMS client: the same signed requests, 150 KB less in every
 * function bundle (docs/decisions.md, decision 12). Binary values travel base64-encoded, as KMS's JSON
 * protocol has them.
 */
import type { DataKey, DataKeys } from '../crypto/secret-box.js';
import { AwsJsonService, type AwsJsonServiceOptions } from './json-service.js';

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
    const out = await this.kms.call('Decrypt', { CiphertextBlob: Buffer.from(wrapped).toString('base64'), EncryptionContext: context });
    return binary(out.Plaintext, 'plaintext');
  }
}
