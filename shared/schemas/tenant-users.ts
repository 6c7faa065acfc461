import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { AttributeChanges, AttributeValues, Count, EnvId, Limit, OptionalOrEmpty, PathParam, SearchPrefix, Uuid } from './common.js';

export const EnvWithRoles = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    display_name: Type.String(),
    roles: Type.Array(Type.Object({ role_name: Type.String(), display_name: Type.String() })),
  },
  { $id: 'EnvWithRoles' },
);
export type EnvWithRoles = Static<typeof EnvWithRoles>;

export const TenantUser = Type.Object(
  {
    id: Type.String(),
    tenant_id: Type.String(),
    tenant_name: Type.String(),
    email: Type.String(),
    sign_in_id: Type.String(),
    attributes: AttributeValues,
    envs: Type.Array(EnvWithRoles),
  },
  { $id: 'TenantUser' },
);
export type TenantUser = Static<typeof TenantUser>;

/** A user with every tenant they belong to: Delete User's answer, and what sign-in's `/userinfo` shows. */
export const UserInfo = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    sign_in_id: Type.String(),
    user_attribute: AttributeValues,
    tenants: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          completed_sign_up: Type.Boolean(),
          envs: Type.Array(EnvWithRoles),
          user_attribute: AttributeValues,
          back_office_staff_email: Type.String(),
          plan_id: Type.Optional(Type.String({ description: "the tenant's current plan; left out without one" })),
          is_paid: Type.Boolean({ description: 'the tenant has a plan and is linked to a payment-provider customer' }),
        },
        { $id: 'UserTenant' },
      ),
    ),
  },
  { $id: 'UserInfo' },
);
export type UserInfo = Static<typeof UserInfo>;

export const TenantUserSearch = Type.Object({
  tenant_id: OptionalOrEmpty(Uuid),
  id: OptionalOrEmpty(Uuid),
  email: Type.Optional(SearchPrefix),
  sign_in_id: Type.Optional(SearchPrefix),
  env_id: Type.Optional(EnvId),
  role_name: Type.Optional(Type.String({ maxLength: 100 })),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
});
export type TenantUserSearch = Static<typeof TenantUserSearch>;

export const TenantUserCount = Type.Object({ tenant_id: Uuid, count: Count });
export type TenantUserCount = Static<typeof TenantUserCount>;

/** The spec (docs/decisions.md): at most 10 000 counts in one request. */
export const MAX_TENANT_USER_COUNTS = 10_000;

const TenantIdParam = Type.Object({ tenant_id: PathParam });
const MemberParams = Type.Object({ tenant_id: PathParam, user_id: PathParam });
const Users = Type.Object({ users: Type.Array(TenantUser) });

/** A SCIM token as listed: never the token, nor its hash. */
const ScimTokenInfo = Type.Object({ id: Type.String(), created_at: Type.Integer({ description: 'Unix seconds' }) }, { $id: 'ScimTokenInfo' });

export const tenantUserSchemas = {
  getAllTenantUsers: { response: Users },
  getAllTenantUsersCount: {
    response: Type.Object({
      tenant_user_counts: Type.Array(
        Type.Object({ tenant_id: Type.String(), count: Type.Integer(), updated_at: Type.Integer({ description: 'Unix seconds' }) }),
      ),
    }),
  },
  saveTenantUsersCounts: {
    body: Type.Object({ tenant_user_counts: Type.Array(TenantUserCount, { maxItems: MAX_TENANT_USER_COUNTS }) }),
    // 10 000 counts are about 700 KB of JSON: more than the default body limit allows.
    maxBodyBytes: 2 * 1024 * 1024,
  },
  searchTenantUsers: { query: TenantUserSearch, response: Type.Object({ users: Type.Array(TenantUser), cursor: Type.Optional(Type.String()) }) },
  getAllTenantUser: { params: Type.Object({ user_id: PathParam }), response: Users },
  getUserInfoByEmail: { query: Type.Object({ email: Type.String({ maxLength: 254 }) }), response: UserInfo },
  getUserInfoBySignInId: { query: Type.Object({ sign_in_id: Type.String({ maxLength: 50 }) }), response: UserInfo },
  getTenantUsers: { params: TenantIdParam, response: Users },
  createTenantUser: {
    params: TenantIdParam,
    body: Type.Object({
      email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()], { description: 'an e-mail address or null' })),
      sign_in_id: Type.Optional(Type.String({ maxLength: 50 })),
      attributes: AttributeValues,
    }),
    response: TenantUser,
  },
  getTenantUser: { params: MemberParams, response: TenantUser },
  updateTenantUser: { params: MemberParams, body: Type.Object({ attributes: AttributeChanges }) },
  deleteTenantUser: { params: MemberParams },
  createTenantUserRoles: {
    params: Type.Object({ tenant_id: PathParam, user_id: PathParam, env_id: EnvId }),
    // A role assignment is one transaction, with a check per role: 50 stays well inside DynamoDB's 100 items.
    body: Type.Object({ role_names: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50 }) }),
  },
  deleteTenantUserRole: {
    params: Type.Object({ tenant_id: PathParam, user_id: PathParam, env_id: EnvId, role_name: PathParam }),
  },
  getScimTokens: {
    params: TenantIdParam,
    response: Type.Object({ base_url: Type.String(), tokens: Type.Array(ScimTokenInfo) }),
  },
  createScimToken: {
    params: TenantIdParam,
    response: Type.Object({ ...ScimTokenInfo.properties, base_url: Type.String(), token: Type.String({ description: 'shown this once only' }) }),
  },
  deleteScimToken: { params: Type.Object({ tenant_id: PathParam, token_id: PathParam }) },
} satisfies Record<string, OperationSchema>;
