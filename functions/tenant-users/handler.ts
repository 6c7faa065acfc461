/**
 * The tenant-users group: memberships of SaaS users in tenants, their attributes and roles, and counts; and SCIM
 * (scim.ts), which provisions the same memberships from a tenant's directory.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { isScimPath, scimHandler } from './scim.js';
import { operation } from '../../shared/schemas/operation.js';
import { tenantUserSchemas as s } from '../../shared/schemas/tenant-users.js';
import { groupHandler } from '../group-handler.js';
import { tenantUserService as tenantUsers, scimBaseUrl, scimTokenService as scimTokens } from '../../shared/wiring.js';

const signedRoutes = groupHandler('tenant-users', {
  getAllTenantUsers: operation(s.getAllTenantUsers, async (_, ctx) => ({ users: await tenantUsers().list(ctx.saasId) })),
  getAllTenantUsersCount: operation(s.getAllTenantUsersCount, async (_, ctx) => ({
    tenant_user_counts: await tenantUsers().userCounts(ctx.saasId),
  })),
  saveTenantUsersCounts: operation(s.saveTenantUsersCounts, ({ body }, ctx) => tenantUsers().saveUserCounts(ctx.saasId, body.tenant_user_counts)),
  searchTenantUsers: operation(s.searchTenantUsers, ({ query }, ctx) => tenantUsers().search(ctx.saasId, query)),
  getUserInfoByEmail: operation(s.getUserInfoByEmail, ({ query }, ctx) => tenantUsers().userInfoByEmail(ctx.saasId, query.email)),
  getUserInfoBySignInId: operation(s.getUserInfoBySignInId, ({ query }, ctx) => tenantUsers().userInfoBySignInId(ctx.saasId, query.sign_in_id)),
  getAllTenantUser: operation(s.getAllTenantUser, async ({ params }, ctx) => ({
    users: await tenantUsers().userTenants(ctx.saasId, params.user_id),
  })),
  getTenantUsers: operation(s.getTenantUsers, async ({ params }, ctx) => ({
    users: await tenantUsers().listTenant(ctx.saasId, params.tenant_id),
  })),
  createTenantUser: operation(s.createTenantUser, ({ params, body }, ctx) => tenantUsers().create(ctx.saasId, params.tenant_id, body)),
  getTenantUser: operation(s.getTenantUser, ({ params }, ctx) => tenantUsers().get(ctx.saasId, params.tenant_id, params.user_id)),
  updateTenantUser: operation(s.updateTenantUser, ({ params, body }, ctx) =>
    tenantUsers().updateAttributes(ctx.saasId, params.tenant_id, params.user_id, body.attributes),
  ),
  deleteTenantUser: operation(s.deleteTenantUser, ({ params }, ctx) => tenantUsers().remove(ctx.saasId, params.tenant_id, params.user_id)),
  createTenantUserRoles: operation(s.createTenantUserRoles, ({ params, body }, ctx) =>
    tenantUsers().addRoles(ctx.saasId, params.tenant_id, params.user_id, params.env_id, body.role_names),
  ),
  deleteTenantUserRole: operation(s.deleteTenantUserRole, ({ params }, ctx) =>
    tenantUsers().removeRole(ctx.saasId, params.tenant_id, params.user_id, params.env_id, params.role_name),
  ),
  getScimTokens: operation(s.getScimTokens, async ({ params }, ctx) => ({
    base_url: scimBaseUrl(ctx.saasId, params.tenant_id),
    tokens: await scimTokens().list(ctx.saasId, params.tenant_id),
  })),
  createScimToken: operation(s.createScimToken, async ({ params }, ctx) => ({
    ...(await scimTokens().create(ctx.saasId, params.tenant_id)),
    base_url: scimBaseUrl(ctx.saasId, params.tenant_id),
  })),
  deleteScimToken: operation(s.deleteScimToken, ({ params }, ctx) => scimTokens().revoke(ctx.saasId, params.tenant_id, params.token_id)),
});

export const handler = (event: APIGatewayProxyEventV2, context: Context) =>
  isScimPath(event.rawPath) ? scimHandler(event) : signedRoutes(event, context);
