/**
 * Enterprise sign-in (issue 41): a tenant's own OpenID Connect provider, and the domains a tenant verified, which
 * route its people's addresses to its provider and guard them from other tenants' providers. What belongs here: a
 * service over a tenant's identity settings beyond the SaaSus ones (docs/enterprise.md).
 */
import { txtResolver } from '../adapters/dns-txt.js';
import { checkOidcProvider, discoverOidcIssuer } from '../adapters/oidc-discovery.js';
import { SetupLinkService } from '../domain/tenants/setup-links.js';
import { TenantOidcService } from '../domain/tenants/tenant-oidc.js';
import { VerifiedDomainService } from '../domain/tenants/verified-domains.js';
import { hostedLoginScreen } from './configuration.js';
import { secretBox } from './clients.js';
import { definitionRepository, domainRepository, setupLinkRepository, tenantRepository } from './repositories.js';
import { metadataFetcher, tenantUserService } from './tenants.js';

/** The screen's `oidc/callback`: the redirect URI a tenant's provider is told; on the SaaS's screen host, as its sign-in URL. */
export const tenantOidcCallbackUrl = (saasId: string) => `${hostedLoginScreen(saasId)}oidc/callback`;

export const tenantOidcService = () =>
  new TenantOidcService({
    tenants: tenantRepository(),
    box: secretBox(),
    discover: (url, field) => discoverOidcIssuer(metadataFetcher().fetcher(field), url, field),
    callbackUrl: tenantOidcCallbackUrl,
    signInUrl: (saasId, tenantId) => `${hostedLoginScreen(saasId)}oidc?tenant_id=${encodeURIComponent(tenantId)}`,
  });

/** The setup page's "test the connection" of an OpenID Connect provider: its discovery document and key set. */
export const checkTenantOidcProvider = (discoveryUrl: string) =>
  checkOidcProvider(metadataFetcher().fetcher('discovery_url'), discoveryUrl, 'discovery_url');

/** Whether the SaaS defines a role of that name: a domain's join role and an import's SCIM rows name one. */
export const roleExists = async (saasId: string, roleName: string) =>
  (await definitionRepository().listRoles(saasId)).some((role) => role.role_name === roleName);

/** Verified domains and home-realm discovery (shared/domain/tenants/verified-domains.ts). */
export const verifiedDomainService = () =>
  new VerifiedDomainService({
    domains: domainRepository(),
    resolveTxt: txtResolver(),
    tenantExists: async (saasId, tenantId) => (await tenantRepository().get(saasId, tenantId)) !== undefined,
    roleExists,
  });

/** One-time setup links for a tenant's IT admin (shared/domain/tenants/setup-links.ts), opened on the SaaS's hosted screen. */
export const setupLinkService = () =>
  new SetupLinkService({
    links: setupLinkRepository(),
    tenantExists: async (saasId, tenantId) => (await tenantRepository().get(saasId, tenantId)) !== undefined,
    pageUrl: (saasId) => `${hostedLoginScreen(saasId)}setup`,
  });

/** A newcomer of a tenant's verified domain joins it with the role, in the SaaS's first environment. */
export async function joinTenantJustInTime(saasId: string, tenantId: string, userId: string, role: string): Promise<void> {
  const [env] = (await definitionRepository().listEnvs(saasId)).sort((a, b) => a.id - b.id);
  await tenantUserService().addMember(saasId, { tenantId, userId, ...(env ? { envs: [{ id: env.id, role_names: [role] }] } : {}) });
}
