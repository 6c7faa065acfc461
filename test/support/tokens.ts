/**
 * Real ID and access tokens for tests of operations that take a user's token (e-mail update, MFA
 * registration, invitations, devices): minted by the service's own TokenService, so they verify exactly as
 * tokens from a sign-in do. Call after startHarness(), which points the process at the test's table.
 */
import type { IssuedTokens, TokenSubject } from '../../shared/domain/tokens/tokens.js';
import { tokenService } from '../../shared/wiring.js';

/** A subject whose session version defaults to a new user's, 0: the verifier compares it with the user's own. */
export type TestSubject = Omit<TokenSubject, 'sessionVersion'> & { sessionVersion?: number };

export function mintTokens(subject: TestSubject): Promise<IssuedTokens> {
  return tokenService().issue({ sessionVersion: 0, ...subject });
}

/** Just the access token, for bodies that carry `access_token`. */
export async function mintAccessToken(subject: TestSubject): Promise<string> {
  return (await mintTokens(subject)).accessToken;
}

/** The access token a sign-in would give this user (an e-mail user or a sign-in-ID user, as the API answers them). */
export function accessTokenOf(saasId: string, user: { id: string; email: string; sign_in_id: string }): Promise<string> {
  return mintAccessToken({ saasId, userId: user.id, ...(user.email ? { email: user.email } : { signInId: user.sign_in_id }) });
}
