/**
 * The SAML service provider composed (saml/service-provider.ts), apart from the screen's wiring.ts so that its bundle alone
 * carries the XML signature stack: built from the shared repositories and the settings, which are read here.
 * saml-function.ts only routes requests to it.
 */
import { config } from '../../shared/config.js';
import { invalid } from '../../shared/errors.js';
import { loginScreenUrl } from '../../shared/routes.js';
import {
  accountRepository,
  configurationReader,
  keyStore,
  metadataFetcher,
  samlAssertions,
  screenHosts,
  secretBox,
  tenantRepository,
} from '../../shared/wiring.js';
import type { HostGateDeps } from './host-gate.js';
import { SamlSignIn } from './saml/service-provider.js';
import type { LoginTexts } from './texts/en.js';

/** As much as `metadata_xml` may hold. */
const MAX_METADATA_CHARS = 100_000;

let sp: SamlSignIn | undefined;
/** One per warm instance: it keeps the identity providers' metadata read from their URLs. */
export const samlSignIn = () =>
  (sp ??= new SamlSignIn({
    publicBaseUrl: config().publicBaseUrl,
    spKey: () => keyStore().samlServiceProviderKey(),
    settings: async (saasId, tenantId) => (await tenantRepository().get(saasId, tenantId))?.saml,
    fetchMetadata: async (url) => {
      // Checked again now, not only when saved: the name may resolve elsewhere since.
      const text = await metadataFetcher().text(url, 'metadata_url');
      if (text.length > MAX_METADATA_CHARS) throw invalid('metadata_too_large', `metadata_url: larger than ${MAX_METADATA_CHARS} characters`);
      return text;
    },
    box: secretBox(),
    claimAssertion: (saasId, issuer, id, expiresAt) => samlAssertions().claim(saasId, issuer, id, expiresAt),
  }));

export const saasExists = async (saasId: string) => (await accountRepository().getSaas(saasId)) !== undefined;

/** The screen of the SaaS on the service's own URL, where the flow's cookie is scoped and read. */
export const screenOf = (saasId: string) => loginScreenUrl(config().publicBaseUrl, saasId);

/** Cookies only over HTTPS (the deployed service); plain HTTP on a laptop. */
export const secureCookies = () => config().publicBaseUrl.startsWith('https:');

/** The box that seals the flow cookie (saml/ticket.ts). */
export { secretBox };

/** The host rule's door (host-gate.ts), as at the login function's. */
export const hostGateDeps = (texts: LoginTexts): HostGateDeps => ({
  plan: screenHosts(),
  screenUrl: (saasId) => configurationReader().loginScreenUrl(saasId),
  texts,
});
