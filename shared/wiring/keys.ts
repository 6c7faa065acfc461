/**
 * The deployment's keys and what is built on them: signing keys, the JWKS, the SRP secret, token issue and
 * checks, refresh tokens, paging cursors. What belongs here: a service that holds a cache for the whole cold
 * start, not one request (keyServicesOfThisStore), and the token services built over it.
 */
import type { DynamoClient } from '../store/dynamo-client.js';
import { config } from '../config.js';
import { Cursors } from '../domain/paging.js';
import { RefreshTokens } from '../domain/sign-in/refresh-tokens.js';
import { SrpSignIn } from '../domain/sign-in/srp-sign-in.js';
import { KeyStore } from '../domain/tokens/key-store.js';
import { openIdConfiguration, TokenService, TokenVerifier } from '../domain/tokens/tokens.js';
import { dynamo, secretBox } from './clients.js';
import { configurationReader } from './configuration.js';
import { keyRepository, userRepository } from './repositories.js';

/**
 * The deployment's keys and what is built on them hold caches (keys, the opened signing key, the SRP secret,
 * the verifier's JWKS) that must live for the whole cold start, not one request. They are rebuilt only when
 * the store itself is (tests and the local runner point the process at another table).
 */
interface KeyServices {
  db: DynamoClient;
  keyStore: KeyStore;
  tokenVerifier: TokenVerifier;
  srpSignIn: SrpSignIn;
  refreshTokens: RefreshTokens;
  cursors: Cursors;
}
let keyServices: KeyServices | undefined;

function keyServicesOfThisStore(): KeyServices {
  const db = dynamo();
  if (keyServices?.db !== db) {
    const { tokenIssuer, tokenLifetimeSeconds, signInSessionSeconds } = config();
    const keyStore = new KeyStore(keyRepository(), secretBox(), { tokenLifetimeSeconds });
    keyServices = {
      db,
      keyStore,
      tokenVerifier: new TokenVerifier(keyStore, tokenIssuer, (saasId) => configurationReader().signInPageUrl(saasId), userRepository()),
      srpSignIn: new SrpSignIn(keyStore, { sessionSeconds: signInSessionSeconds }),
      // The SaaS's refresh_token_validity, read with the sign-in settings (kept SETTINGS_CACHE_SECONDS).
      refreshTokens: new RefreshTokens(keyStore, (saasId) => configurationReader().refreshTokenSeconds(saasId)),
      // The deployment's SRP secret, from which the cursor key is derived for that use alone (paging.ts).
      cursors: new Cursors(() => keyStore.srpSecret()),
    };
  }
  return keyServices;
}

/** Signing keys, the JWKS and the SRP secret. The public function only calls its read-only publishedKeys(). */
export const keyStore = () => keyServicesOfThisStore().keyStore;

/** The paging cursors' sealing, over the deployment's SRP secret. */
export const cursors = () => keyServicesOfThisStore().cursors;

/** Refresh tokens whose lifetime is the SaaS's refresh_token_validity. */
export const refreshTokens = () => keyServicesOfThisStore().refreshTokens;

export const tokenService = () => new TokenService(keyStore(), { issuer: config().tokenIssuer, lifetimeSeconds: config().tokenLifetimeSeconds });

/** verifyAccessToken / verifyIdToken for every operation that takes a user's token. */
export const tokenVerifier = () => keyServicesOfThisStore().tokenVerifier;

export const srpSignIn = () => keyServicesOfThisStore().srpSignIn;

/** GET /.well-known/openid-configuration: the configured issuer and public base URL, never the request's Host. */
export const openIdDiscovery = () => openIdConfiguration(config().tokenIssuer, config().publicBaseUrl);
