/**
 * Opaque tokens that name their user: `<user id>.<32 random bytes, base64url>`. The user id says which
 * user's partition holds the token's item, so a token is found with one read and goes when the user does;
 * only the SHA-256 of the random part is stored (as the item's key), so the table alone never lets anyone
 * present a token. Refresh tokens and the sessions of follow-up sign-in challenges are such tokens.
 */
import { createHash, randomBytes } from 'node:crypto';

const SHAPE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

export interface UserToken {
  /** What the client holds. */
  token: string;
  userId: string;
  /** SHA-256 hex of the random part: the stored key. */
  hash: string;
  /** The random part, for keying what only the token's holder may open (an e-mail code's hash). */
  secret: string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function newUserToken(userId: string): UserToken {
  const secret = randomBytes(32).toString('base64url');
  return { token: `${userId}.${secret}`, userId, hash: sha256(secret), secret };
}

/** undefined when the text is not a token of this shape. */
export function readUserToken(token: string): UserToken | undefined {
  const m = SHAPE.exec(token);
  if (!m) return undefined;
  const [, userId, secret] = m as unknown as [string, string, string];
  return { token, userId, hash: sha256(secret), secret };
}
