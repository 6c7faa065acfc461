/**
 * A user's password in an export (issue 39, docs/migration.md): the SRP salt and verifier, or the hash a user
 * imported and not signed in since still holds, leaves the service only sealed under the operator's seal key
 * (shared/crypto/export-seal.ts), as the TOTP seeds do. Anyone holding a verifier can guess passwords against it
 * offline, so the file's other readers must not get it. The whole hash is sealed, not only its verifier: the
 * algorithm and an imported bcrypt or Argon2 hash are as good for guessing. It is bound to the row's external_id
 * under a name of its own, so it opens on that user's row and in that field only.
 *
 * Files from other systems (bcrypt, scrypt, …) still bring their hashes in the clear: they are not sealed, and
 * the import takes them as it always did.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { sealForExport } from '../../crypto/export-seal.js';
import type { ImportedPasswordHash } from '../../crypto/imported-hash.js';
import { invalid } from '../../errors.js';
import { PasswordHash, type SealedPasswordHash } from '../../schemas/migration.js';
import { opened } from './integration-rows.js';

const binding = (externalId: string) => `password_hash.${externalId}`;
const isPasswordHash = TypeCompiler.Compile(PasswordHash);

export function sealPasswordHash(sealKey: Buffer, hash: ImportedPasswordHash, externalId: string): SealedPasswordHash {
  return { algorithm: 'sealed', value: sealForExport(sealKey, JSON.stringify(hash), binding(externalId)) };
}

/** The row's hash, opened with the job's seal key when sealed; a refusal naming the field when it cannot be. */
export function openPasswordHash(
  hash: ImportedPasswordHash | SealedPasswordHash,
  externalId: string,
  sealKey: Buffer | undefined,
): ImportedPasswordHash {
  if (hash.algorithm !== 'sealed') return hash;
  const text = opened('password_hash', hash.value, binding(externalId), sealKey);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  // Only the seal key's holder could have sealed it; still, what opens is checked as a hash in the clear is.
  if (!isPasswordHash.Check(value)) throw invalid('invalid_password_hash', 'password_hash: the sealed value is not a password hash');
  return value as ImportedPasswordHash;
}
