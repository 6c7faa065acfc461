/**
 * The wiring builds the secret box from the deployment's settings (docs/decisions.md, "Settings and secrets"):
 * KMS when KMS_KEY_ID is set, the local master key otherwise, and a clear refusal with neither.
 */
import { afterEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { resetConfigForTests } from '../../shared/config.js';
import { KmsSecretBox, LocalSecretBox } from '../../shared/crypto/secret-box.js';
import { resetClientsForTests, secretBox } from '../../shared/wiring.js';

const saved = { KMS_KEY_ID: process.env.KMS_KEY_ID, LOCAL_MASTER_KEY: process.env.LOCAL_MASTER_KEY };

function settings(values: { KMS_KEY_ID?: string; LOCAL_MASTER_KEY?: string }): void {
  for (const name of ['KMS_KEY_ID', 'LOCAL_MASTER_KEY'] as const) {
    const value = values[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfigForTests();
  resetClientsForTests();
}

afterEach(() => settings(saved));

describe("the wiring's secret box", () => {
  it('is KMS when a key is configured, even with a local master key beside it', () => {
    settings({ KMS_KEY_ID: 'arn:aws:kms:eu-west-1:111122223333:key/test', LOCAL_MASTER_KEY: randomBytes(32).toString('base64') });
    assert.ok(secretBox() instanceof KmsSecretBox);
    assert.equal(secretBox(), secretBox(), 'one per cold start');
  });

  it('is the local master key under npm start, and seals what it opens', async () => {
    settings({ LOCAL_MASTER_KEY: randomBytes(32).toString('base64') });
    const box = secretBox();
    assert.ok(box instanceof LocalSecretBox);
    const context = { saasId: 's', purpose: 'test' };
    assert.equal(await box.open(await box.seal('a secret', context), context), 'a secret');
  });

  it('refuses to be built with neither, naming both settings', () => {
    settings({});
    assert.throws(() => secretBox(), /set KMS_KEY_ID \(AWS\) or LOCAL_MASTER_KEY \(local mode\)/);
  });
});
