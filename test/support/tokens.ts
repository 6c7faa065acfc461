/**
 * Real ID and access tokens for tests of operations that take a user's token (e-mail update, MFA
 * registration, invitations, devices): minted by the service's own TokenService, so they verify exactly as
 * tokens from a sign-in do. Call after startHarness(), which points the process at the test's table.
 */
import type { IssuedTokens, TokenSubject } from '../../shared/domain/tokens.js';
import { tokenService } from '../../shared/wiring.js';

export function mintTokens(subject: TokenSubject): Promise<IssuedTokens> {
  return tokenService().issue(subject);
}

/** Just the access token, for bodies that carry `access_token`. */
export async function mintAccessToken(subject: TokenSubject): Promise<string> {
  return (await mintTokens(subject)).accessToken;
}

/** The access token a sign-in would give this user (an e-mail user or a sign-in-ID user, as the API answers them). */
export function accessTokenOf(saasId: string, user: { id: string; email: string; sign_in_id: string }): Promise<string> {
  return mintAccessToken({ saasId, userId: user.id, ...(user.email ? { email: user.email } : { signInId: user.sign_in_id }) });
}
