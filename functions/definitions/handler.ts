/** The definitions group: attributes, roles and envs. Wiring only: parse, call one domain function, shape. */
import { operation } from '../../shared/schemas/operation.js';
import { definitionSchemas as s } from '../../shared/schemas/definitions.js';
import { groupHandler } from '../group-handler.js';
import { definitionService as definitions } from '../../shared/wiring.js';

export const handler = groupHandler('definitions', {
  getUserAttributes: operation(s.getUserAttributes, async (_, ctx) => ({
    user_attributes: await definitions().listAttributes(ctx.saasId, 'user'),
  })),
  createUserAttribute: operation(s.createUserAttribute, ({ body }, ctx) => definitions().createAttribute(ctx.saasId, 'user', body)),
  deleteUserAttribute: operation(s.deleteUserAttribute, ({ params }, ctx) =>
    definitions().deleteAttribute(ctx.saasId, 'user', params.attribute_name),
  ),

  getSaasUserAttributes: operation(s.getSaasUserAttributes, async (_, ctx) => ({
    user_attributes: await definitions().listAttributes(ctx.saasId, 'saas_user'),
  })),
  createSaasUserAttribute: operation(s.createSaasUserAttribute, ({ body }, ctx) => definitions().createAttribute(ctx.saasId, 'saas_user', body)),
  deleteSaasUserAttribute: operation(s.deleteSaasUserAttribute, ({ params }, ctx) =>
    definitions().deleteAttribute(ctx.saasId, 'saas_user', params.attribute_name),
  ),

  getTenantAttributes: operation(s.getTenantAttributes, async (_, ctx) => ({
    tenant_attributes: await definitions().listAttributes(ctx.saasId, 'tenant'),
  })),
  createTenantAttribute: operation(s.createTenantAttribute, ({ body }, ctx) => definitions().createAttribute(ctx.saasId, 'tenant', body)),
  deleteTenantAttribute: operation(s.deleteTenantAttribute, ({ params }, ctx) =>
    definitions().deleteAttribute(ctx.saasId, 'tenant', params.attribute_name),
  ),

  getRoles: operation(s.getRoles, async (_, ctx) => ({ roles: await definitions().listRoles(ctx.saasId) })),
  createRole: operation(s.createRole, ({ body }, ctx) => definitions().createRole(ctx.saasId, body)),
  updateRole: operation(s.updateRole, ({ params, body }, ctx) =>
    definitions().updateRole(ctx.saasId, { role_name: params.role_name, display_name: body.display_name }),
  ),
  deleteRole: operation(s.deleteRole, ({ params }, ctx) => definitions().deleteRole(ctx.saasId, params.role_name)),

  getEnvs: operation(s.getEnvs, async (_, ctx) => ({ envs: await definitions().listEnvs(ctx.saasId) })),
  createEnv: operation(s.createEnv, ({ body }, ctx) => definitions().createEnv(ctx.saasId, body)),
  getEnv: operation(s.getEnv, ({ params }, ctx) => definitions().getEnv(ctx.saasId, params.env_id)),
  updateEnv: operation(s.updateEnv, ({ params, body }, ctx) => definitions().updateEnv(ctx.saasId, { id: params.env_id, ...body })),
  deleteEnv: operation(s.deleteEnv, ({ params }, ctx) => definitions().deleteEnv(ctx.saasId, params.env_id)),
});
