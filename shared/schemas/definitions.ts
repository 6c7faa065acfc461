import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { DefinitionName, DisplayName, EnvId, PathParam } from './common.js';

export const AttributeType = Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('bool'), Type.Literal('date')], {
  description: 'string, number, bool or date (YYYY-MM-DD)',
});

export const Attribute = Type.Object(
  {
    attribute_name: DefinitionName('an attribute name'),
    display_name: DisplayName,
    attribute_type: AttributeType,
  },
  { $id: 'Attribute' },
);
export type Attribute = Static<typeof Attribute>;

export const Role = Type.Object({ role_name: DefinitionName('a role name'), display_name: DisplayName }, { $id: 'Role' });
export type Role = Static<typeof Role>;

export const Env = Type.Object({ id: EnvId, name: DefinitionName('an env name'), display_name: Type.Optional(DisplayName) }, { $id: 'Env' });
export type Env = Static<typeof Env>;

const AttributeNameParam = Type.Object({ attribute_name: PathParam });
const RoleNameParam = Type.Object({ role_name: PathParam });
const EnvIdParam = Type.Object({ env_id: EnvId });

export const definitionSchemas = {
  getUserAttributes: { response: Type.Object({ user_attributes: Type.Array(Attribute) }) },
  createUserAttribute: { body: Attribute, response: Attribute },
  deleteUserAttribute: { params: AttributeNameParam },
  getSaasUserAttributes: { response: Type.Object({ user_attributes: Type.Array(Attribute) }) },
  createSaasUserAttribute: { body: Attribute, response: Attribute },
  deleteSaasUserAttribute: { params: AttributeNameParam },
  getTenantAttributes: { response: Type.Object({ tenant_attributes: Type.Array(Attribute) }) },
  createTenantAttribute: { body: Attribute, response: Attribute },
  deleteTenantAttribute: { params: AttributeNameParam },
  getRoles: { response: Type.Object({ roles: Type.Array(Role) }) },
  createRole: { body: Role, response: Role },
  updateRole: { params: RoleNameParam, body: Type.Object({ display_name: DisplayName }) },
  deleteRole: { params: RoleNameParam },
  getEnvs: { response: Type.Object({ envs: Type.Array(Env) }) },
  createEnv: { body: Env, response: Env },
  getEnv: { params: EnvIdParam, response: Env },
  updateEnv: {
    params: EnvIdParam,
    body: Type.Object({ name: DefinitionName('an env name'), display_name: Type.Optional(DisplayName) }),
  },
  deleteEnv: { params: EnvIdParam },
} satisfies Record<string, OperationSchema>;
