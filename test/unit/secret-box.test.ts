import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LocalSecretBox } from '../../shared/crypto/secret-box.js';

describe('local secret box', () => {
  const box = new LocalSecretBox(randomBytes(32).toString('base64'));
  const context = { saasId: 's1', apiKey: 'k1' };

  it('opens what it sealed, and never stores the plaintext', async () => {
    const sealed = await box.seal('top secret', context);
    assert.ok(!sealed.includes('top secret'));
    assert.match(sealed, /^v1\.local\./);
    assert.equal(await box.open(sealed, context), 'top secret');
  });

  it('seals the same secret differently each time', async () => {
    assert.notEqual(await box.seal('x', context), await box.seal('x', context));
  });

  it('refuses another context, another key and a changed ciphertext', async () => {
    const sealed = await box.seal('top secret', context);
    await assert.rejects(box.open(sealed, { saasId: 's2', apiKey: 'k1' }));
    await assert.rejects(new LocalSecretBox(randomBytes(32).toString('base64')).open(sealed, context));
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[5]!, 'base64url');
    ct[0] = ct[0]! ^ 1;
    parts[5] = ct.toString('base64url');
    await assert.rejects(box.open(parts.join('.'), context));
  });

  it('wants a 32-byte key', () => {
    assert.throws(() => new LocalSecretBox(randomBytes(16).toString('base64')));
  });
});
