/** The tenant-users group: memberships of SaaS users in tenants, their attributes and roles, and counts. */
import { operation } from '../../shared/schemas/operation.js';
import { tenantUserSchemas as s } from '../../shared/schemas/tenant-users.js';
import { tenantUserService as tenantUsers, groupHandler } from '../../shared/wiring.js';
import { unmatchedPage } from '../../web/login/unmatched-page.js';

export const handler = groupHandler('tenant-users', unmatchedPage, {
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
});
