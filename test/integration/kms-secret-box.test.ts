/**
 * Secrets sealed under KMS (shared/crypto/secret-box.ts over shared/adapters/aws/kms.ts) against a stand-in KMS:
 * the requests are KMS's JSON protocol, signed for `kms`, naming the key and the encryption context; a data
 * key opens only under the context it was made for; throttling is tried again.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { AwsServiceError } from '../../shared/adapters/aws/json-service.js';
import { KmsDataKeys } from '../../shared/adapters/aws/kms.js';
import { KmsSecretBox, UnopenableSecret } from '../../shared/crypto/secret-box.js';
import { openJson, sealJson } from '../../web/kit/sealed.js';
import { assertSignedFor, credentials, json, standIn, type Answer } from '../support/aws-stand-in.js';

const KEY_ID = 'arn:aws:kms:eu-west-1:111122223333:key/test';

/** A KMS that remembers the data keys it made and the context of each. */
function standInKms(): Answer {
  const made = new Map<string, { key: Buffer; context: string }>();
  return (arrived, res) => {
    const input = JSON.parse(arrived.body) as { KeyId?: string; CiphertextBlob?: string; EncryptionContext?: Record<string, string> };
    const context = JSON.stringify(input.EncryptionContext ?? {});
    if (arrived.headers['x-amz-target'] === 'TrentService.GenerateDataKey') {
      const key = randomBytes(32);
      const wrapped = randomBytes(48).toString('base64');
      made.set(wrapped, { key, context });
      json(200, { KeyId: input.KeyId, Plaintext: key.toString('base64'), CiphertextBlob: wrapped })(arrived, res);
      return;
    }
    const entry = made.get(input.CiphertextBlob ?? '');
    if (!entry || entry.context !== context) {
      json(400, { __type: 'InvalidCiphertextException', message: 'no such data key under this context' })(arrived, res);
      return;
    }
    json(200, { KeyId: KEY_ID, Plaintext: entry.key.toString('base64') })(arrived, res);
  };
}

async function withKms<T>(answers: Answer[], work: (box: KmsSecretBox, seen: { headers: Record<string, unknown>; body: string }[]) => Promise<T>) {
  const server = await standIn(answers);
  try {
    return await work(new KmsSecretBox(new KmsDataKeys(KEY_ID, { region: 'eu-west-1', endpoint: server.url, credentials })), server.seen);
  } finally {
    await server.close();
  }
}

describe('KMS secret box', () => {
  it('seals with a fresh data key and opens with KMS, in signed KMS requests', async () => {
    const kms = standInKms();
    await withKms([kms], async (box, seen) => {
      const context = { saasId: 'saas-1', purpose: 'client-secret' };
      const sealed = await box.seal('the secret', context);
      assert.ok(sealed.startsWith('v1.kms.') && !sealed.includes('the secret'), sealed);
      assert.equal(await box.open(sealed, context), 'the secret');
      assert.deepEqual(
        seen.map((r) => r.headers['x-amz-target']),
        ['TrentService.GenerateDataKey', 'TrentService.Decrypt'],
      );
      assert.deepEqual(JSON.parse(seen[0]?.body ?? ''), { KeyId: KEY_ID, KeySpec: 'AES_256', EncryptionContext: context });
      for (const arrived of seen) {
        assert.equal(arrived.headers['content-type'], 'application/x-amz-json-1.1');
        await assertSignedFor('kms', 'eu-west-1', arrived as Parameters<typeof assertSignedFor>[2]);
      }
    });
  });

  it('does not open under another context, and does not ask KMS twice for that', async () => {
    await withKms([standInKms()], async (box, seen) => {
      const sealed = await box.seal('the secret', { saasId: 'saas-1' });
      const refused = await box.open(sealed, { saasId: 'saas-2' }).catch((error: unknown) => error);
      assert.ok(refused instanceof UnopenableSecret, String(refused));
      assert.ok(refused.cause instanceof AwsServiceError && refused.cause.name === 'InvalidCiphertextException', String(refused.cause));
      assert.equal(seen.length, 2);
    });
  });

  it('tries a throttled request again', async () => {
    const kms = standInKms();
    await withKms([json(400, { __type: 'ThrottlingException', message: 'slow down' }), kms], async (box, seen) => {
      const sealed = await box.seal('kept', { saasId: 'saas-1' });
      assert.equal(await box.open(sealed, { saasId: 'saas-1' }), 'kept');
      assert.equal(seen.length, 3);
    });
  });

  it('a sealed ticket of the screen that KMS cannot open now is a failure to pass on, one it does not know is "not a ticket"', async () => {
    const kms = standInKms();
    const down = json(500, { __type: 'KMSInternalException', message: 'try later' });
    const throttled = json(400, { __type: 'ThrottlingException', message: 'slow down' });
    const disabled = json(400, { __type: 'DisabledException', message: 'the key is disabled' });
    const context = { purpose: 'screen-ticket' };
    // Seal; then a KMS that fails every attempt (three tries), throttles every attempt, has its key disabled; then KMS again.
    await withKms([kms, down, down, down, throttled, throttled, throttled, disabled, kms, kms], async (box) => {
      const sealed = await sealJson(box, { user: 'u1' }, context);
      for (const failure of ['KMSInternalException', 'ThrottlingException', 'DisabledException']) {
        const thrown = await openJson(box, sealed, context).then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(thrown instanceof AwsServiceError && thrown.name === failure, String(thrown));
      }
      assert.deepEqual(await openJson(box, sealed, context), { user: 'u1' });
      // Another context: KMS says InvalidCiphertextException, which is an answer about the value.
      assert.equal(await openJson(box, sealed, { purpose: 'another' }), undefined);
    });
  });

  it('a connection failure reaches the caller; forged and altered values are "not a ticket"', async () => {
    const server = await standIn([]);
    const { url } = server;
    await server.close();
    const box = new KmsSecretBox(new KmsDataKeys(KEY_ID, { region: 'eu-west-1', endpoint: url, credentials }));
    const forged = `v1.kms.${Buffer.from('k').toString('base64url')}.AAAA.AAAA.AAAA`;
    const thrown = await openJson(box, forged, {}).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.equal(typeof (thrown as { code?: unknown }).code, 'string', String(thrown));
    assert.ok(!(thrown instanceof UnopenableSecret));
    for (const garbage of ['', 'x', 'v1.local.a.b.c.d', 'v1.kms.a.b', '{"user":"u1"}']) assert.equal(await openJson(box, garbage, {}), undefined);
  });
});
