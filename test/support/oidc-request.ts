/** An application's OpenID Connect authorization request, as openid-client builds one: fresh PKCE verifier, state and nonce. */
import * as oidc from 'openid-client';

export interface AuthorizationAttempt {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

export async function authorizationAttempt(client: oidc.Configuration, redirectUri: string, scope = 'openid email'): Promise<AuthorizationAttempt> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(client, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, verifier, state, nonce };
}
