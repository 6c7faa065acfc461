/** The tenants group: tenants, plans, billing, payment-provider linkage, tenant identity providers. */
import { parseIdpMetadata } from '../../shared/domain/tenants/saml-metadata.js';
import { operation } from '../../shared/schemas/operation.js';
import { tenantSchemas as s } from '../../shared/schemas/tenants.js';
import { enterpriseSchemas as e } from '../../shared/schemas/enterprise.js';
import { groupHandler } from '../group-handler.js';
import { metadataFetcher, setupLinkService, tenantOidcService, tenantService, verifiedDomainService } from '../../shared/wiring.js';

export const handler = groupHandler('tenants', {
  getTenants: operation(s.getTenants, async (_, ctx) => ({ tenants: await tenantService().list(ctx.saasId) })),
  createTenant: operation(s.createTenant, ({ body }, ctx) => tenantService().create(ctx.saasId, body)),
  getTenant: operation(s.getTenant, ({ params }, ctx) => tenantService().details(ctx.saasId, params.tenant_id)),
  updateTenant: operation(s.updateTenant, ({ params, body }, ctx) => tenantService().update(ctx.saasId, params.tenant_id, body)),
  deleteTenant: operation(s.deleteTenant, ({ params }, ctx) => tenantService().delete(ctx.saasId, params.tenant_id)),
  updateTenantPlan: operation(s.updateTenantPlan, ({ params, body }, ctx) => tenantService().updatePlan(ctx.saasId, params.tenant_id, body)),
  updateTenantBillingInfo: operation(s.updateTenantBillingInfo, ({ params, body }, ctx) =>
    tenantService().updateBillingInfo(ctx.saasId, params.tenant_id, body),
  ),
  getTenantIdentityProviders: operation(s.getTenantIdentityProviders, ({ params }, ctx) =>
    tenantService().identityProvider(ctx.saasId, params.tenant_id),
  ),
  updateTenantIdentityProvider: operation(s.updateTenantIdentityProvider, async ({ params, body }, ctx) => {
    // Metadata given whole is read now, so a tenant never holds metadata no sign-in could use.
    const xml = body.identity_provider_props?.metadata_xml;
    if (xml) parseIdpMetadata(xml, 'identity_provider_props.metadata_xml');
    // A URL must name a public host now (and again when read at sign-in): never the service's own network.
    const url = body.identity_provider_props?.metadata_url;
    if (url) await metadataFetcher().check(url, 'identity_provider_props.metadata_url');
    return tenantService().setIdentityProvider(ctx.saasId, params.tenant_id, body.identity_provider_props ?? null);
  }),
  getTenantOidcProvider: operation(e.getTenantOidcProvider, ({ params }, ctx) => tenantOidcService().get(ctx.saasId, params.tenant_id)),
  updateTenantOidcProvider: operation(e.updateTenantOidcProvider, ({ params, body }, ctx) =>
    tenantOidcService().set(ctx.saasId, params.tenant_id, body.oidc),
  ),
  getTenantDomains: operation(e.getTenantDomains, ({ params }, ctx) => verifiedDomainService().list(ctx.saasId, params.tenant_id)),
  createTenantDomain: operation(e.createTenantDomain, ({ params, body }, ctx) => verifiedDomainService().claim(ctx.saasId, params.tenant_id, body)),
  verifyTenantDomain: operation(e.verifyTenantDomain, ({ params }, ctx) =>
    verifiedDomainService().verify(ctx.saasId, params.tenant_id, params.domain),
  ),
  deleteTenantDomain: operation(e.deleteTenantDomain, ({ params }, ctx) =>
    verifiedDomainService().remove(ctx.saasId, params.tenant_id, params.domain),
  ),
  getTenantSetupLinks: operation(e.getTenantSetupLinks, ({ params }, ctx) => setupLinkService().list(ctx.saasId, params.tenant_id)),
  createTenantSetupLink: operation(e.createTenantSetupLink, ({ params, body }, ctx) =>
    setupLinkService().create(ctx.saasId, params.tenant_id, body.valid_days),
  ),
  deleteTenantSetupLink: operation(e.deleteTenantSetupLink, ({ params }, ctx) =>
    setupLinkService().revoke(ctx.saasId, params.tenant_id, params.link_id),
  ),
  resetPlan: operation(s.resetPlan, async (_, ctx) => {
    await tenantService().resetPlans(ctx.saasId);
  }),
  getStripeCustomer: operation(s.getStripeCustomer, ({ params }, ctx) => tenantService().paymentCustomer(ctx.saasId, params.tenant_id)),
  updateStripeCustomer: operation(s.updateStripeCustomer, ({ params, body }, ctx) =>
    tenantService().linkPaymentCustomer(ctx.saasId, params.tenant_id, body),
  ),
});
