/**
 * Tenants and their users: tenants, memberships, plans, a tenant's SAML identity provider. What belongs here: a
 * service over tenants or memberships (invitations and the marketplace, which also need users and sign-up, have
 * their own files). Tenants check plans and tax rates through the PlanCatalogue port that
 * shared/domain/tenants/tenants.ts declares, filled here from pricing.ts: the one direction between the two.
 */
import { TenantUserService } from '../domain/tenants/tenant-users.js';
import { TenantService, type PlanCatalogue } from '../domain/tenants/tenants.js';
import { committer, definitionRepository, membershipRepository, tenantRepository, userRepository } from './repositories.js';
import { hostedLoginScreen, signInSettings } from './configuration.js';
import { publicFetcher } from './clients.js';
import { cursors } from './keys.js';
import { catalogueService } from './pricing.js';

/** What tenants ask of pricing: does a plan or tax rate exist, a plan's billing interval. */
const planCatalogue = (): PlanCatalogue => catalogueService();

export const tenantService = () =>
  new TenantService(
    tenantRepository(),
    definitionRepository(),
    (saasId, tenantId) => `${hostedLoginScreen(saasId)}saml?tenant_id=${encodeURIComponent(tenantId)}`,
    planCatalogue(),
    async (saasId) => (await signInSettings(saasId)).passkeys.enable,
  );

export const tenantUserService = () => {
  const users = userRepository();
  return new TenantUserService(membershipRepository(users), users, tenantRepository(), definitionRepository(), committer(), cursors());
};

/** A tenant's SAML metadata_url and OpenID Connect discovery, read only from public addresses (on AWS; publicFetcher). */
export const metadataFetcher = () => publicFetcher(5000, 256 * 1024);
