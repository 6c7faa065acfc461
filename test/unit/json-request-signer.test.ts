/**
 * The store's SigV4 signer (shared/adapters/aws/json-service.ts) against the AWS SDK's own: the same request,
 * credentials and time must carry the same Authorization, with and without a session token, across a day's
 * change (the cached signing key must follow the date) and a change of credentials (and of their secret).
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { JsonRequestSigner } from '../../shared/adapters/aws/json-service.js';

const REGION = 'eu-west-1';

async function sdkAuthorization(
  service: string,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  headers: Record<string, string>,
  body: string,
  at: Date,
) {
  const sdk = new SignatureV4({ service, region: REGION, credentials, sha256: Sha256, applyChecksum: false });
  const signed = await sdk.sign(
    { method: 'POST', protocol: 'https:', hostname: 'dynamodb.eu-west-1.amazonaws.com', path: '/', query: {}, headers, body },
    { signingDate: at },
  );
  return signed.headers.authorization;
}

describe('SigV4 for JSON-protocol requests', () => {
  const headers = {
    host: 'dynamodb.eu-west-1.amazonaws.com',
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': 'DynamoDB_20120810.GetItem',
    'content-length': '61',
  };
  const body = JSON.stringify({ TableName: 'table', Key: { pk: { S: 'a  b' }, sk: { S: 'ü' } } });

  it('signs as the AWS SDK signs, with and without a session token, on each day and for each secret', async () => {
    const signer = new JsonRequestSigner('dynamodb', REGION);
    const cases = [
      { at: new Date('2026-11-26T23:59:59.900Z'), credentials: { accessKeyId: 'AKID1', secretAccessKey: 'secret-1' } },
      { at: new Date('2026-11-27T00:00:00.100Z'), credentials: { accessKeyId: 'AKID1', secretAccessKey: 'secret-1' } },
      { at: new Date('2026-11-27T00:00:01.000Z'), credentials: { accessKeyId: 'AKID2', secretAccessKey: 'secret-2', sessionToken: 'token' } },
      { at: new Date('2026-11-27T00:00:02.000Z'), credentials: { accessKeyId: 'AKID1', secretAccessKey: 'secret-1' } },
    ];
    for (const { at, credentials } of cases) {
      const ours = signer.sign(credentials, headers, body, at);
      assert.equal(ours.authorization, await sdkAuthorization('dynamodb', credentials, headers, body, at), at.toISOString());
      assert.equal(
        ours['x-amz-date'],
        at
          .toISOString()
          .replace(/[-:]/g, '')
          .replace(/\.\d{3}/, ''),
      );
      assert.equal(ours['x-amz-security-token'], credentials.sessionToken);
    }
  });

  it('signs the body: another body, another signature', () => {
    const signer = new JsonRequestSigner('kms', REGION);
    const credentials = { accessKeyId: 'AKID1', secretAccessKey: 'secret-1' };
    const at = new Date('2026-11-26T08:00:00Z');
    assert.notEqual(signer.sign(credentials, headers, body, at).authorization, signer.sign(credentials, headers, `${body} `, at).authorization);
  });
});
