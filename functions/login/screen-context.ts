/**
 * What the login screen was opened for, carried through every way of signing in (password, Google, SAML) to
 * where it ends: the SaaS's own `state`, or an OpenID Connect authorization request (authorization-server.ts).
 */
export interface ScreenContext {
  state?: string;
  authorization?: string;
}

export const MAX_STATE_LENGTH = 1024;
export const MAX_AUTHORIZATION_LENGTH = 4096;

/** The context a request's query names: an authorization request before a state; values over their bounds are left out. */
export function screenContext(query: URLSearchParams): ScreenContext {
  const authorization = query.get('authorization');
  const state = query.get('state');
  if (authorization && authorization.length <= MAX_AUTHORIZATION_LENGTH) return { authorization };
  return state !== null && state.length <= MAX_STATE_LENGTH ? { state } : {};
}
