import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { importedHashProblem, verifyImportedHash, type ImportedPasswordHash } from '../../shared/crypto/imported-hash.js';
import { createPasswordVerifier } from '../../shared/crypto/srp.js';
import { HASH_VECTORS } from '../support/hash-vectors.js';

describe('imported password hashes', () => {
  for (const [name, hash, password] of HASH_VECTORS) {
    it(`${name}: the vector's password passes, any other fails`, async () => {
      assert.equal(importedHashProblem(hash), undefined);
      assert.equal(await verifyImportedHash(hash, password), true);
      assert.equal(await verifyImportedHash(hash, `x${password}`), false);
      assert.equal(await verifyImportedHash(hash, ''), false);
    });
  }

  it("srp: an export's verifier, made with another stack's pool name and user id, passes with its password only", async () => {
    const { salt, verifier } = createPasswordVerifier('OldPool', 'old-user-id', 'Round-trip-1');
    const hash: ImportedPasswordHash = { algorithm: 'srp', salt, verifier, pool_name: 'OldPool', user_id: 'old-user-id' };
    assert.equal(importedHashProblem(hash), undefined);
    assert.equal(await verifyImportedHash(hash, 'Round-trip-1'), true);
    assert.equal(await verifyImportedHash(hash, 'Round-trip-2'), false);
    assert.equal(await verifyImportedHash({ ...hash, user_id: 'another-id' }, 'Round-trip-1'), false);
    assert.match(importedHashProblem({ ...hash, verifier: 'zz' }) ?? '', /must be hex/);
  });

  it('refuses shapes it cannot check, and costs above the ceilings', () => {
    const refused: ImportedPasswordHash[] = [
      { algorithm: 'bcrypt', hash: '$2x$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e' },
      { algorithm: 'bcrypt', hash: '$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' },
      { algorithm: 'argon2', hash: '$argon2d$v=19$m=64,t=1,p=1$c29tZXNhbHQ$BC1zOS/31Hbq1XqrbUolSJD8lbGO5hYA' },
      { algorithm: 'argon2', hash: '$argon2id$v=19$m=4194304,t=1,p=1$c29tZXNhbHQ$RvwmOL1c3noOUb9Tb0PVAyFny0544DEN' },
      { algorithm: 'scrypt', hash: 'AAAA', salt: 'AAAA', n: 1000, r: 8, p: 1 },
      { algorithm: 'scrypt', hash: 'AAAA', salt: 'AAAA', n: 2 ** 20, r: 8, p: 2 },
      { algorithm: 'pbkdf2', digest: 'md5' as 'sha1', iterations: 1, hash: 'AAAA', salt: 'AAAA' },
      { algorithm: 'pbkdf2', digest: 'sha256', iterations: 10_000_000, hash: 'AAAA', salt: 'AAAA' },
      { algorithm: 'sha256', hash: 'AAAA', salt: 'AAAA', salt_position: 'prefix' },
      { algorithm: 'sha256', hash: 'zz', salt: '', salt_position: 'prefix', encoding: 'hex' },
      { algorithm: 'md5' } as unknown as ImportedPasswordHash,
    ];
    for (const hash of refused) assert.match(importedHashProblem(hash) ?? 'accepted', /must/, JSON.stringify(hash));
  });
});
