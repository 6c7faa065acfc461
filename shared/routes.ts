/**
 * The route table: the single source for the CDK routes, the local server, the permission check and the
 * published OpenAPI document (docs/decisions.md, decision 7). Methods and paths are the SaaSus Auth API's, so the existing
 * SDKs work unchanged.
 */

import type { Permission } from './permissions.js';

export const BASE_PATH = '/v1/auth';

/**
 * The hosted login screen (functions/login), beside the API and outside its route table: its pages are HTML
 * for people, not operations for SDKs. `{BASE_PATH}/login/{saas id}/…`.
 */
export const LOGIN_PATH = '/login';
/** The OpenID Connect authorization server's endpoints (functions/login/authorization-server.ts). */
export const OAUTH2_PATH = '/oauth2';
/** The SAML service provider's endpoints (functions/login/saml.ts). */
export const SAML2_PATH = '/saml2';

/** A SaaS's login screen under the service's public URL (`https://host/v1/auth`), ending in `/`. */
export const loginScreenUrl = (publicBaseUrl: string, saasId: string) => `${publicBaseUrl}${LOGIN_PATH}/${encodeURIComponent(saasId)}/`;

export const GROUPS = [
  'configuration',
  'saas-users',
  'tenant-users',
  'definitions',
  'tenants',
  'invitations',
  'sign-in',
  'infrastructure',
  'public',
] as const;
export type Group = (typeof GROUPS)[number];

/**
 * What each group's code does with the table and the secret box, which the stack grants and nothing more
 * (lib/service-stack.ts): `writes` (else read-only) and `seals` (makes new secrets: kms:GenerateDataKey; the
 * rest only open them).
 */
export const GROUP_ACCESS: Readonly<Record<Group, { writes: boolean; seals: boolean }>> = {
  // The Google application secret.
  configuration: { writes: true, seals: true },
  // Temporary passwords and codes in the mail outbox, TOTP secrets.
  'saas-users': { writes: true, seals: true },
  'tenant-users': { writes: true, seals: true },
  definitions: { writes: true, seals: false },
  tenants: { writes: true, seals: false },
  // Invitation mails.
  invitations: { writes: true, seals: true },
  // Signing keys, MFA and sign-up codes.
  'sign-in': { writes: true, seals: true },
  infrastructure: { writes: true, seals: false },
  // JWKS and discovery: reads only.
  public: { writes: false, seals: false },
};

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** Relative to BASE_PATH, with `{param}` placeholders. */
  path: string;
  operationId: string;
  summary: string;
  group: Group;
  /** null: public, unsigned. */
  permission: Permission | null;
  status: 200 | 201;
  /** The success answer carries no body. */
  noBody?: boolean;
}

type Row = [HttpMethod, string, string, string, Permission | null, (200 | 201)?, 'no body'?];

function rows(group: Group, list: Row[]): Route[] {
  return list.map(([method, path, operationId, summary, permission, status = 200, noBody]) => ({
    method,
    path,
    operationId,
    summary,
    group,
    permission,
    status,
    ...(noBody ? { noBody: true } : {}),
  }));
}

export const ROUTES: readonly Route[] = [
  ...rows('configuration', [
    // The payment provider: the configuration group holds its sealed key and opens it.
    ['PATCH', '/stripe/init', 'createTenantAndPricing', 'Connect the payment provider (a customer for every tenant)', 'tenant:write', 200, 'no body'],
    ['DELETE', '/stripe', 'deleteStripeTenantAndPricing', 'Disconnect the payment provider', 'tenant:write', 200, 'no body'],
    ['GET', '/payment-provider', 'getPaymentProvider', 'Get the payment provider (extension; the key masked)', 'config:read'],
    ['PUT', '/payment-provider', 'updatePaymentProvider', 'Set the payment provider key (extension)', 'config:write', 200, 'no body'],
    // For SDK error-handling tests: always answers 500 in the error shape.
    ['GET', '/errors/internal-server-error', 'returnInternalServerError', 'Return an Internal Server Error', 'config:read'],
    ['GET', '/basic-info', 'getBasicInfo', 'Get Basic Configurations', 'config:read'],
    ['PUT', '/basic-info', 'updateBasicInfo', 'Update Basic Configurations', 'config:write', 200, 'no body'],
    ['GET', '/notification-messages', 'findNotificationMessages', 'Get notification templates', 'config:read'],
    ['PUT', '/notification-messages', 'updateNotificationMessages', 'Update Notification Email Template', 'config:write', 200, 'no body'],
    ['GET', '/customize-pages', 'getCustomizePages', 'Get Authentication Page Setting', 'config:read'],
    ['PATCH', '/customize-pages', 'updateCustomizePages', 'Authentication Page Setting', 'config:write', 200, 'no body'],
    ['GET', '/customize-page-settings', 'getCustomizePageSettings', 'Get Authentication Authorization Basic Information', 'config:read'],
    [
      'PATCH',
      '/customize-page-settings',
      'updateCustomizePageSettings',
      'Update Authentication Authorization Basic Information',
      'config:write',
      200,
      'no body',
    ],
    ['GET', '/auth-info', 'getAuthInfo', 'Get Authentication Info', 'config:read'],
    ['PUT', '/auth-info', 'updateAuthInfo', 'Update Authentication Info', 'config:write', 200, 'no body'],
    ['GET', '/identity-providers', 'getIdentityProviders', 'Get Sign-In Information Via External Provider', 'config:read'],
    ['PUT', '/identity-providers', 'updateIdentityProvider', 'Update Sign-In Information', 'config:write', 200, 'no body'],
    ['GET', '/sign-in-settings', 'getSignInSettings', 'Get Password Requirements', 'config:read'],
    ['PUT', '/sign-in-settings', 'updateSignInSettings', 'Update Password Requirements', 'config:write', 200, 'no body'],
  ]),
  ...rows('saas-users', [
    ['GET', '/users', 'getSaasUsers', 'Get SaaS users', 'user:read'],
    ['POST', '/users', 'createSaasUser', 'Create SaaS User', 'user:write', 201],
    ['GET', '/users/count', 'getSaasUsersCount', 'Get SaaS Users Count', 'user:read'],
    ['POST', '/users/count', 'saveSaasUsersCount', 'Save SaaS Users Count', 'user:write', 200, 'no body'],
    ['GET', '/users/search', 'searchSaasUsers', 'Search SaaS Users', 'user:read'],
    ['GET', '/users/{user_id}', 'getSaasUser', 'Get User', 'user:read'],
    ['DELETE', '/users/{user_id}', 'deleteSaasUser', 'Delete User', 'user:write'],
    ['PATCH', '/users/{user_id}/password', 'updateSaasUserPassword', 'Change Password', 'user:write', 200, 'no body'],
    ['POST', '/users/{user_id}/password/reset', 'resetSaasUserPassword', 'Reset Password', 'user:write'],
    ['PATCH', '/users/{user_id}/email', 'updateSaasUserEmail', 'Change Email', 'user:write', 200, 'no body'],
    ['PATCH', '/users/{user_id}/sign-in-id', 'updateSaasUserSignInId', 'Change Sign-in ID', 'user:write', 200, 'no body'],
    ['POST', '/users/{user_id}/email/request', 'requestEmailUpdate', 'Request User Email Update', 'user:write', 200, 'no body'],
    ['POST', '/users/{user_id}/email/confirm', 'confirmEmailUpdate', 'Confirm User Email Update', 'user:write', 200, 'no body'],
    ['PATCH', '/users/{user_id}/attributes', 'updateSaasUserAttributes', 'Update SaaS User Attributes', 'user:write', 200, 'no body'],
    [
      'POST',
      '/users/{user_id}/mfa/software-token/secret-code',
      'createSecretCode',
      'Create secret code for authentication application registration',
      'user:write',
      201,
    ],
    ['PUT', '/users/{user_id}/mfa/software-token', 'updateSoftwareToken', 'Register Authentication Application', 'user:write', 200, 'no body'],
    ['GET', '/users/{user_id}/mfa/preference', 'getUserMfaPreference', "Get User's MFA Settings", 'user:read'],
    ['PATCH', '/users/{user_id}/mfa/preference', 'updateUserMfaPreference', "Update User's MFA Settings", 'user:write', 200, 'no body'],
    ['DELETE', '/users/{user_id}/providers/{provider_name}', 'unlinkProvider', 'Unlink external identity providers', 'user:write', 200, 'no body'],
    ['POST', '/external-users/request', 'requestExternalUserLink', 'Request External User Account Link', 'user:write', 200, 'no body'],
    ['POST', '/external-users/confirm', 'confirmExternalUserLink', 'Confirm External User Account Link', 'user:write', 200, 'no body'],
  ]),
  ...rows('sign-in', [
    ['POST', '/sign-in', 'signIn', 'Sign In', 'sign-in'],
    ['POST', '/sign-in/challenge', 'respondToSignInChallenge', 'Respond to Sign In Challenge', 'sign-in'],
    ['POST', '/device/confirm', 'confirmDevice', 'Confirm Device', 'sign-in'],
    ['POST', '/device/status', 'updateDeviceStatus', 'Update Device Status', 'sign-in', 200, 'no body'],
    ['POST', '/sign-up', 'signUp', 'Sign Up', 'sign-in', 201],
    ['POST', '/sign-up/resend', 'resendSignUpConfirmationEmail', 'Resend Sign Up Confirmation Email', 'sign-in', 200, 'no body'],
    ['POST', '/aws-marketplace/sign-up', 'signUpWithAwsMarketplace', 'Sign Up with marketplace', 'sign-in', 201],
    ['POST', '/aws-marketplace/sign-up-confirm', 'confirmSignUpWithAwsMarketplace', 'Confirm Sign Up with marketplace', 'sign-in', 201],
    ['PATCH', '/aws-marketplace/link', 'linkAwsMarketplace', 'Link an existing tenant with marketplace', 'sign-in', 200, 'no body'],
    ['GET', '/credentials', 'getAuthCredentials', 'Get Authentication/Authorization Information', 'sign-in'],
    ['POST', '/credentials', 'createAuthCredentials', 'Save Authentication/Authorization Information', 'sign-in', 201],
    ['POST', '/credentials/exchange', 'exchangeAuthCredentials', 'Exchange a PKCE-bound temporary code for credentials', 'sign-in'],
    ['POST', '/token/revoke', 'revokeToken', 'Revoke Token', 'sign-in', 200, 'no body'],
    ['GET', '/userinfo', 'getUserInfo', 'Get the signed-in user', 'sign-in'],
  ]),
  ...rows('tenant-users', [
    ['GET', '/tenants/all/users', 'getAllTenantUsers', 'Get Users', 'user:read'],
    ['GET', '/userinfo/search/email', 'getUserInfoByEmail', 'Get User Info by E-mail', 'user:read'],
    ['GET', '/userinfo/search/sign-in-id', 'getUserInfoBySignInId', 'Get User Info by Sign-In ID', 'user:read'],
    ['GET', '/tenants/all/users/count', 'getAllTenantUsersCount', 'Get Tenant Users Count', 'user:read'],
    ['POST', '/tenants/all/users/count', 'saveTenantUsersCounts', 'Save Tenant Users Count', 'user:write', 200, 'no body'],
    ['GET', '/tenants/all/users/search', 'searchTenantUsers', 'Search Tenant Users', 'user:read'],
    ['GET', '/tenants/all/users/{user_id}', 'getAllTenantUser', 'Get User Info', 'user:read'],
    ['GET', '/tenants/{tenant_id}/users', 'getTenantUsers', 'Get Tenant Users', 'user:read'],
    ['POST', '/tenants/{tenant_id}/users', 'createTenantUser', 'Create Tenant User', 'user:write', 201],
    ['GET', '/tenants/{tenant_id}/users/{user_id}', 'getTenantUser', 'Get Tenant User', 'user:read'],
    ['PATCH', '/tenants/{tenant_id}/users/{user_id}', 'updateTenantUser', 'Update Tenant User Attribute', 'user:write', 200, 'no body'],
    ['DELETE', '/tenants/{tenant_id}/users/{user_id}', 'deleteTenantUser', 'Delete Tenant User', 'user:write', 200, 'no body'],
    [
      'POST',
      '/tenants/{tenant_id}/users/{user_id}/envs/{env_id}/roles',
      'createTenantUserRoles',
      'Create Tenant User Role',
      'user:write',
      201,
      'no body',
    ],
    [
      'DELETE',
      '/tenants/{tenant_id}/users/{user_id}/envs/{env_id}/roles/{role_name}',
      'deleteTenantUserRole',
      'Remove Role From Tenant User',
      'user:write',
      200,
      'no body',
    ],
  ]),
  ...rows('definitions', [
    ['GET', '/user-attributes', 'getUserAttributes', 'Get User Attributes', 'definition:read'],
    ['POST', '/user-attributes', 'createUserAttribute', 'Create User Attributes', 'definition:write', 201],
    ['DELETE', '/user-attributes/{attribute_name}', 'deleteUserAttribute', 'Delete User Attribute', 'definition:write', 200, 'no body'],
    ['GET', '/saas-user-attributes', 'getSaasUserAttributes', 'Get SaaS User Attributes', 'definition:read'],
    ['POST', '/saas-user-attributes', 'createSaasUserAttribute', 'Create SaaS User Attributes', 'definition:write', 201],
    ['DELETE', '/saas-user-attributes/{attribute_name}', 'deleteSaasUserAttribute', 'Delete SaaS User Attribute', 'definition:write', 200, 'no body'],
    ['GET', '/tenant-attributes', 'getTenantAttributes', 'Get Tenant Attributes', 'definition:read'],
    ['POST', '/tenant-attributes', 'createTenantAttribute', 'Create Tenant Attribute', 'definition:write', 201],
    ['DELETE', '/tenant-attributes/{attribute_name}', 'deleteTenantAttribute', 'Delete Tenant Attribute', 'definition:write', 200, 'no body'],
    ['GET', '/roles', 'getRoles', 'Get Roles', 'definition:read'],
    ['POST', '/roles', 'createRole', 'Create Role', 'definition:write', 201],
    ['PATCH', '/roles/{role_name}', 'updateRole', 'Update Role', 'definition:write', 200, 'no body'],
    ['DELETE', '/roles/{role_name}', 'deleteRole', 'Delete Role', 'definition:write', 200, 'no body'],
    ['GET', '/envs', 'getEnvs', 'Get Env Info', 'definition:read'],
    ['POST', '/envs', 'createEnv', 'Create Env Info', 'definition:write', 201],
    ['GET', '/envs/{env_id}', 'getEnv', 'Get Env', 'definition:read'],
    ['PATCH', '/envs/{env_id}', 'updateEnv', 'Update Env Info', 'definition:write', 200, 'no body'],
    ['DELETE', '/envs/{env_id}', 'deleteEnv', 'Delete Env', 'definition:write', 200, 'no body'],
  ]),
  ...rows('tenants', [
    ['GET', '/tenants', 'getTenants', 'Get tenants', 'tenant:read'],
    ['POST', '/tenants', 'createTenant', 'Create Tenant', 'tenant:write', 201],
    ['GET', '/tenants/{tenant_id}', 'getTenant', 'Get Tenant Details', 'tenant:read'],
    ['PATCH', '/tenants/{tenant_id}', 'updateTenant', 'Update Tenant Details', 'tenant:write', 200, 'no body'],
    ['DELETE', '/tenants/{tenant_id}', 'deleteTenant', 'Delete Tenant', 'tenant:write', 200, 'no body'],
    ['PUT', '/tenants/{tenant_id}/plans', 'updateTenantPlan', 'Update Tenant Plan Information', 'tenant:write', 200, 'no body'],
    ['PUT', '/tenants/{tenant_id}/billing-info', 'updateTenantBillingInfo', 'Update Tenant Billing Information', 'tenant:write', 200, 'no body'],
    ['GET', '/tenants/{tenant_id}/identity-providers', 'getTenantIdentityProviders', 'Get identity provider per tenant', 'tenant:read'],
    [
      'PUT',
      '/tenants/{tenant_id}/identity-providers',
      'updateTenantIdentityProvider',
      'Update identity provider per tenant',
      'tenant:write',
      200,
      'no body',
    ],
    ['PUT', '/plans/reset', 'resetPlan', 'Delete all information related to rate plans', 'tenant:write', 200, 'no body'],
    ['GET', '/tenants/{tenant_id}/stripe-customer', 'getStripeCustomer', 'Get payment-provider customer', 'tenant:read'],
    // Extension: the SaaSus API links a payment provider from its console; here an operation does it.
    [
      'PUT',
      '/tenants/{tenant_id}/stripe-customer',
      'updateStripeCustomer',
      'Link a payment-provider customer (extension)',
      'tenant:write',
      200,
      'no body',
    ],
  ]),
  ...rows('invitations', [
    ['GET', '/tenants/{tenant_id}/invitations', 'getTenantInvitations', 'Get Tenant Invitations', 'user:read'],
    ['POST', '/tenants/{tenant_id}/invitations', 'createTenantInvitation', 'Create Tenant Invitation', 'user:write', 201],
    ['GET', '/tenants/{tenant_id}/invitations/{invitation_id}', 'getTenantInvitation', 'Get Tenant Invitation', 'user:read'],
    [
      'DELETE',
      '/tenants/{tenant_id}/invitations/{invitation_id}',
      'deleteTenantInvitation',
      'Delete Tenant Invitation',
      'user:write',
      200,
      'no body',
    ],
    ['PATCH', '/invitations/{invitation_id}/validate', 'validateInvitation', 'Validate Invitation', 'user:write', 200, 'no body'],
    ['GET', '/invitations/{invitation_id}/validity', 'getInvitationValidity', 'Get Invitation Validity', 'user:read'],
  ]),
  ...rows('infrastructure', [
    ['GET', '/single-tenant/settings', 'getSingleTenantSettings', 'Get infrastructure configuration', 'config:read'],
    ['PATCH', '/single-tenant/settings', 'updateSingleTenantSettings', 'Update infrastructure configuration', 'config:write', 200, 'no body'],
    [
      'GET',
      '/single-tenant/cloudformation-launch-stack-link',
      'getCloudFormationLaunchStackLinkForSingleTenant',
      'Get CloudFormation Launch Stack Link',
      'config:read',
    ],
  ]),
  ...rows('public', [
    ['GET', '/.well-known/jwks.json', 'getJwks', 'JSON Web Key Set of the token signing keys', null],
    ['GET', '/.well-known/openid-configuration', 'getOpenIdConfiguration', 'OpenID Provider metadata', null],
    ['GET', '/openapi.json', 'getOpenApiDocument', 'This OpenAPI document', null],
    ['GET', '/single-tenant/role-template', 'getRoleTemplate', 'CloudFormation template of the cross-account role (signed URL)', null],
  ]),
];

/** Operations whose answer is a 500 by design (the SDKs' error-handling tests call it): checks for 5xx skip them. */
export const FAILS_BY_DESIGN: ReadonlySet<string> = new Set(['returnInternalServerError']);

/** API Gateway's route key for a route: `GET /v1/auth/roles/{role_name}`. */
export function routeKey(route: Route): string {
  return `${route.method} ${BASE_PATH}${route.path}`;
}

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
  /** Literal segments first, like API Gateway: `/users/count` wins over `/users/{user_id}`. */
  literalSegments: number;
}

const compiled: CompiledRoute[] = ROUTES.map((route) => {
  const names = pathParamNames(route.path);
  const source = route.path
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '([^/]+)' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('/');
  return {
    route,
    pattern: new RegExp(`^${BASE_PATH}${source}$`),
    names,
    literalSegments: route.path.split('/').filter((s) => s && !s.startsWith('{')).length,
  };
}).sort((a, b) => b.literalSegments - a.literalSegments);

export type MatchResult = { kind: 'match'; match: RouteMatch } | { kind: 'method-not-allowed'; allowed: HttpMethod[] } | { kind: 'not-found' };

/** Finds the route for a method and a raw (still percent-encoded) path. */
export function matchRoute(method: string, rawPath: string): MatchResult {
  const allowed = new Set<HttpMethod>();
  for (const candidate of compiled) {
    const m = candidate.pattern.exec(rawPath);
    if (!m) continue;
    if (candidate.route.method !== method.toUpperCase()) {
      allowed.add(candidate.route.method);
      continue;
    }
    const pathParameters: Record<string, string> = {};
    try {
      candidate.names.forEach((name, i) => {
        pathParameters[name] = decodeURIComponent(m[i + 1] as string);
      });
    } catch {
      return { kind: 'not-found' };
    }
    return { kind: 'match', match: { route: candidate.route, pathParameters } };
  }
  return allowed.size > 0 ? { kind: 'method-not-allowed', allowed: [...allowed] } : { kind: 'not-found' };
}

export function routeByOperationId(operationId: string): Route {
  const route = ROUTES.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route for operation ${operationId}`);
  return route;
}
