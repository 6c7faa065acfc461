/**
 * What a tenant's OpenID Connect discovery URL names, read when the tenant saves it (shared/domain/tenants/tenant-oidc.ts):
 * the issuer, once the document proves to be a provider's. The fetch it is given checks and pins every
 * address (shared/http/public-fetch.ts), so a tenant cannot aim it at the service's own network.
 */
import { invalid } from '../errors.js';

type Fetch = (url: string, init: { method?: string; headers?: Record<string, string> }) => Promise<Response>;

const WELL_KNOWN = '/.well-known/openid-configuration';

/** The document's URL: as given when it names one, else the issuer's well-known path (OpenID Connect Discovery 1.0, 4). */
export const discoveryDocumentUrl = (url: string) => (url.includes('/.well-known/') ? url : `${url.replace(/\/$/, '')}${WELL_KNOWN}`);

export async function discoverOidcIssuer(fetch: Fetch, discoveryUrl: string, field: string): Promise<{ issuer: string; jwksUri: string }> {
  const refused = (why: string) => invalid('invalid_parameter', `${field}: ${why}`, { field });
  const answer = await fetch(discoveryDocumentUrl(discoveryUrl), { method: 'GET', headers: { accept: 'application/json' } });
  if (answer.status !== 200) throw refused(`the discovery document answered ${answer.status}`);
  let document: Record<string, unknown>;
  try {
    document = (await answer.json()) as Record<string, unknown>;
  } catch {
    throw refused('the discovery document is not JSON');
  }
  const missing = ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'].filter((name) => typeof document?.[name] !== 'string');
  if (missing.length > 0) throw refused(`the discovery document names no ${missing.join(', ')}`);
  const issuer = document.issuer as string;
  // Given as the issuer, the document must say so (Discovery 1.0, 4.3): otherwise it speaks for another.
  if (!discoveryUrl.includes('/.well-known/') && issuer.replace(/\/$/, '') !== discoveryUrl.replace(/\/$/, '')) {
    throw refused(`the discovery document is the issuer ${issuer}'s, not ${discoveryUrl}'s`);
  }
  return { issuer, jwksUri: document.jwks_uri as string };
}

/**
 * The setup page's "test the connection" (web/login/setup): the discovery document, then the key set it names,
 * which must hold at least one signing key, as the sign-in will need one to verify an ID token.
 */
export async function checkOidcProvider(fetch: Fetch, discoveryUrl: string, field: string): Promise<{ issuer: string; keys: number }> {
  const { issuer, jwksUri } = await discoverOidcIssuer(fetch, discoveryUrl, field);
  const refused = (why: string) => invalid('invalid_parameter', `${field}: ${why}`, { field });
  const answer = await fetch(jwksUri, { method: 'GET', headers: { accept: 'application/json' } });
  if (answer.status !== 200) throw refused(`the key set (jwks_uri) answered ${answer.status}`);
  let keys: unknown;
  try {
    keys = ((await answer.json()) as { keys?: unknown }).keys;
  } catch {
    throw refused('the key set (jwks_uri) is not JSON');
  }
  const signing = Array.isArray(keys) ? keys.filter((key: { use?: unknown }) => key?.use === undefined || key.use === 'sig') : [];
  if (signing.length === 0) throw refused('the key set (jwks_uri) holds no signing key');
  return { issuer, keys: signing.length };
}
