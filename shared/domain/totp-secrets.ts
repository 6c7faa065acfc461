/**
 * A user's authenticator-app secret is stored sealed by the secret box (DESIGN.md decision 4), bound to the
 * SaaS and the user: a sealed secret copied onto another user does not open. Registration (user-flows.ts)
 * seals; sign-in opens `mfa.sealed_totp_secret` to check a SOFTWARE_TOKEN_MFA code.
 */
import type { SecretBox } from '../crypto/secret-box.js';

const context = (saasId: string, userId: string) => ({ saasId, userId, purpose: 'totp-secret' });

export function sealTotpSecret(box: SecretBox, saasId: string, userId: string, secret: string): Promise<string> {
  return box.seal(secret, context(saasId, userId));
}

export function openTotpSecret(box: SecretBox, saasId: string, userId: string, sealed: string): Promise<string> {
  return box.open(sealed, context(saasId, userId));
}
