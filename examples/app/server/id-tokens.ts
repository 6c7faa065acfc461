/**
 * Verifies the ID token of the session cookie the way any SaaS backend would: aws-jwt-verify against the
 * service's published keys, with the issuer and the key set's address taken from the service's OpenID
 * configuration, the SaaS id as the audience, and `token_use` = `id`.
 */
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { Fetcher } from 'aws-jwt-verify/https';
import type { ServiceClient } from './service-client.js';

export interface IdTokenVerifier {
  /** The token's user id, or undefined when the token is not a valid ID token of this SaaS. */
  verify(idToken: string): Promise<string | undefined>;
}

/**
 * aws-jwt-verify's own fetcher speaks https only; the local service runs on plain http. The platform's
 * fetch does both, with a short time limit so a slow service cannot hold a request.
 */
const platformFetcher: Fetcher = {
  async fetch(uri) {
    const response = await fetch(uri, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`${uri} answered ${response.status}`);
    return response.arrayBuffer();
  },
};

const newVerifier = (issuer: string, audience: string, jwksUri: string) =>
  JwtVerifier.create(
    {
      issuer,
      audience,
      jwksUri,
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'id') throw new Error('not an ID token');
      },
    },
    { jwksCache: new SimpleJwksCache({ fetcher: platformFetcher }) },
  );

export function jwksIdTokenVerifier(service: ServiceClient): IdTokenVerifier {
  let verifier: Promise<ReturnType<typeof newVerifier>> | undefined;
  const ready = () => {
    verifier ??= service.openIdConfiguration().then(({ issuer, jwks_uri }) => newVerifier(issuer, service.saasId, jwks_uri));
    // A failed discovery is tried again by the next request rather than remembered.
    verifier.catch(() => {
      verifier = undefined;
    });
    return verifier;
  };
  return {
    async verify(idToken) {
      try {
        const payload = await (await ready()).verify(idToken);
        return payload.sub;
      } catch {
        return undefined;
      }
    },
  };
}
