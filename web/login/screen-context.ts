/**
 * What the login screen was opened for, carried through every way of signing in (password, Google, SAML) to
 * where it ends: the SaaS's own `state` (with the PKCE challenge its application keeps the verifier of), or an
 * OpenID Connect authorization request (oidc/authorization-server.ts).
 */
export interface ScreenContext {
  state?: string;
  /** S256 of the application's verifier: the code is then saved bound to it (POST /credentials/exchange). */
  code_challenge?: string;
  authorization?: string;
}

/** Only S256 challenges are carried (`code_challenge_method=S256`); anything else is no challenge. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const MAX_STATE_LENGTH = 1024;
export const MAX_AUTHORIZATION_LENGTH = 4096;

/** The context a request's query names: an authorization request before a state; values over their bounds are left out. */
export function screenContext(query: URLSearchParams): ScreenContext {
  const authorization = query.get('authorization');
  const state = query.get('state');
  if (authorization && authorization.length <= MAX_AUTHORIZATION_LENGTH) return { authorization };
  const challenge = query.get('code_challenge');
  return {
    ...(state !== null && state.length <= MAX_STATE_LENGTH ? { state } : {}),
    ...(challenge && S256_CHALLENGE.test(challenge) && query.get('code_challenge_method') === 'S256' ? { code_challenge: challenge } : {}),
  };
}

/** The context as the query of an address that reads it back with `screenContext` (the SAML and Google starts). */
export function contextQuery(context: ScreenContext): Record<string, string> {
  if (context.authorization !== undefined) return { authorization: context.authorization };
  return {
    ...(context.state !== undefined ? { state: context.state } : {}),
    ...(context.code_challenge !== undefined ? { code_challenge: context.code_challenge, code_challenge_method: 'S256' } : {}),
  };
}
