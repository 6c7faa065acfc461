/**
 * The setup page composed (setup/setup-page.ts): the tenant's identity settings as the API's operations change them
 * (the same services, the same checks), and the URLs its IT admin copies. Apart from wiring.ts, which composes the
 * screen; login-function.ts routes `…/setup` here.
 */
import { config } from '../../shared/config.js';
import { parseIdpMetadata } from '../../shared/domain/tenants/saml-metadata.js';
import { ENTRY_PATHS } from '../../shared/routes.js';
import {
  accountRepository,
  checkTenantOidcProvider,
  metadataFetcher,
  scimBaseUrl,
  scimTokenService,
  secretBox,
  setupLinkService,
  tenantOidcCallbackUrl,
  tenantOidcService,
  tenantService,
  verifiedDomainService,
} from '../../shared/wiring.js';
import type { SamlProps } from '../../shared/schemas/tenants.js';
import { samlAcsUrl, samlEntityId } from './saml/ticket.js';
import { SetupPage } from './setup/setup-page.js';
import { SETUP_EN } from './texts/en-setup.js';
import { SETUP_JA } from './texts/ja-setup.js';
import type { LoginTexts } from './texts/en.js';
import { saasExists, secureCookies } from './wiring.js';

const WORDS = { en: SETUP_EN, ja: SETUP_JA };

/** The metadata as the sign-in will read it: from its URL (a public host only), or as given. */
async function samlMetadata(props: SamlProps) {
  if (props.metadata_xml) return parseIdpMetadata(props.metadata_xml, 'metadata_xml');
  const url = props.metadata_url ?? '';
  return parseIdpMetadata(await metadataFetcher().text(url, 'metadata_url'), 'metadata_url');
}

export const setupPage = (texts: LoginTexts) =>
  new SetupPage({
    basePath: ENTRY_PATHS.login,
    secureCookies: secureCookies(),
    box: secretBox(),
    texts,
    words: texts.lang === 'ja' ? WORDS.ja : WORDS.en,
    saasExists,
    saasName: async (saasId) => (await accountRepository().getSaas(saasId))?.name ?? '',
    links: setupLinkService(),
    view: async ({ saasId, tenantId }) => {
      const base = config().publicBaseUrl;
      const [saas, tenant, saml, oidc, scimTokens, { domains }] = await Promise.all([
        accountRepository().getSaas(saasId),
        tenantService().current(saasId, tenantId),
        tenantService().identityProvider(saasId, tenantId),
        tenantOidcService().get(saasId, tenantId),
        scimTokenService().list(saasId, tenantId),
        verifiedDomainService().list(saasId, tenantId),
      ]);
      return {
        saasName: saas?.name ?? '',
        tenantName: tenant.name,
        ...(saml.saml ? { saml: saml.saml } : {}),
        ...(oidc.oidc ? { oidc: oidc.oidc } : {}),
        scimTokens,
        domains,
        urls: {
          spEntityId: samlEntityId(base, saasId),
          acsUrl: samlAcsUrl(base),
          spMetadataUrl: samlEntityId(base, saasId),
          samlSignIn: saml.saml?.sign_in_url ?? '',
          oidcCallback: tenantOidcCallbackUrl(saasId),
          oidcSignIn: oidc.oidc?.sign_in_url ?? '',
          scim: scimBaseUrl(saasId, tenantId),
        },
      };
    },
    saml: {
      test: samlMetadata,
      save: async (saasId, tenantId, props) => {
        await samlMetadata(props);
        await tenantService().setIdentityProvider(saasId, tenantId, props);
      },
    },
    oidc: {
      test: checkTenantOidcProvider,
      save: (saasId, tenantId, props) => tenantOidcService().set(saasId, tenantId, props),
    },
    scim: { create: (saasId, tenantId) => scimTokenService().create(saasId, tenantId) },
    domains: {
      claim: (saasId, tenantId, input) => verifiedDomainService().claim(saasId, tenantId, input),
      verify: (saasId, tenantId, domain) => verifiedDomainService().verify(saasId, tenantId, domain),
    },
  });
