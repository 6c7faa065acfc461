/**
 * The route table: the single source for the CDK routes, the local server, the permission check and the
 * published OpenAPI document (docs/decisions.md, decision 7). Methods and paths are the SaaSus Auth, Pricing,
 * Billing, ApiLog, Communication, Integration and Analysis APIs', each under its own base path, so the existing SDKs work unchanged.
 */

import type { Permission } from './permissions.js';

/** The APIs this service serves, each under its own base path, as the SaaSus SDKs call them. */
export const API_BASE_PATHS = {
  auth: '/v1/auth',
  pricing: '/v1/pricing',
  billing: '/v1/billing',
  apilog: '/v1/apilog',
  communication: '/v1/communication',
  integration: '/v1/integration',
  analysis: '/v1/analysis',
} as const;
export type Api = keyof typeof API_BASE_PATHS;

/** The Auth API's base: the login screen, OpenID Connect and SAML live under it too. */
export const BASE_PATH = API_BASE_PATHS.auth;

/**
 * The hosted login screen (web/login, ENTRIES below), beside the API and outside its route table: its pages are HTML
 * for people, not operations for SDKs. `{BASE_PATH}/login/{saas id}/…`.
 */
export const LOGIN_PATH = '/login';
/** The OpenID Connect authorization server's endpoints (web/login/oidc/authorization-server.ts). */
export const OAUTH2_PATH = '/oauth2';
/** The SAML service provider's endpoints (web/login/saml/service-provider.ts). */
export const SAML2_PATH = '/saml2';
/**
 * SCIM 2.0 (RFC 7644), one base URL per tenant: `{BASE_PATH}/scim/v2/{saas id}/{tenant id}/Users` and so on. Not
 * the route table's: its callers are directories (Okta, Entra ID) with a bearer token, its errors SCIM's. The
 * tenant-users function serves it (shared/domain/scim), so it costs one API Gateway route and no function.
 */
export const SCIM_PATH = '/scim/v2';
/** The operator console (web/console), a function of its own like the login screen: `{BASE_PATH}/console/…`. */
export const CONSOLE_PATH = '/console';

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
  'pricing',
  'metering',
  'billing',
  'apilog',
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
  // A tenant's OpenID Connect client secret (issue 41).
  tenants: { writes: true, seals: true },
  // Invitation mails.
  invitations: { writes: true, seals: true },
  // Signing keys, MFA and sign-up codes.
  'sign-in': { writes: true, seals: true },
  infrastructure: { writes: true, seals: false },
  // JWKS and discovery: reads only.
  public: { writes: false, seals: false },
  // The catalogue; Connect to Stripe opens the sealed key but makes no new secret. Also the Communication API's
  // feedback portal and the Analysis API: small writes and reads, not worth a function (and its resources) of its own.
  pricing: { writes: true, seals: false },
  // Metering counts only: the hot path gets a function of its own, so its cold starts load nothing else.
  metering: { writes: true, seals: false },
  // The Stripe secret key: sealed here.
  billing: { writes: true, seals: true },
  // Reads the API log; like every group with signed routes, it may add its own calls' records and nothing else.
  apilog: { writes: false, seals: false },
};

/**
 * What an entry function may be granted, as GROUP_ACCESS grants the groups (lib/group-function.ts): `writes`
 * (else read-only), `seals` (kms:GenerateDataKey: new secrets), `opens` (kms:Decrypt; on unless false),
 * `managesMailIdentities` (SES identities), `servesSaasDomains` (ACM and API Gateway custom domains).
 */
export interface EntryGrants {
  writes: boolean;
  seals: boolean;
  opens?: boolean;
  managesMailIdentities?: boolean;
  servesSaasDomains?: boolean;
  /**
   * For a function that writes nothing else (`writes` false): the partitions whose items it may update, as IAM
   * patterns of partition keys (dynamodb:LeadingKeys); the key shapes are shared/store/keys.ts'.
   */
  updatesOnly?: readonly string[];
  /**
   * The app under web/ whose page is built beside the bundle (web/page-assets.ts): `web/<app>/page/main.ts`
   * and `page/<app>.css` become `<app>.js` and `<app>.css` in the function's `public/`.
   */
  page?: string;
}

/**
 * The functions outside the route table: the browser-facing apps of web/ (pages for people, not operations for
 * SDKs), each entered through `functions/<name>/handler.ts`. With ENTRIES, the one list that the stack
 * (functions, routes, grants), the local server and the handlers (their prefixes) read: an app is a row here,
 * its paths in ENTRIES, and its handler.
 */
export const ENTRY_FUNCTIONS = {
  // The screen, the OpenID provider and Google's return: sign-in state, temporary codes, accepted invitations;
  // e-mail codes and signing keys are sealed.
  login: { writes: true, seals: true, page: 'login' },
  // The SAML service provider, apart so the XML signature stack loads for SAML only (docs/decisions.md, decision
  // 11): used assertions (replay protection); the SP key is made and sealed on first use.
  saml: { writes: true, seals: true },
  // The operator console: seals its sessions and opens them; writes only its failed sign-in counts and its
  // signed-out sessions (shared/store/keys.ts, CONSOLE_THROTTLE_PARTITIONS and CONSOLE_SESSION_PARTITIONS), since
  // every data call it makes goes through the API.
  console: { writes: false, seals: true, updatesOnly: ['CONSOLE#THROTTLE#*', 'CONSOLE#SESSION#*'], page: 'console' },
} as const satisfies Record<string, EntryGrants>;
export type EntryFunction = keyof typeof ENTRY_FUNCTIONS;

/**
 * Each entry's path: a prefix ending in `/` takes every method and path below it (never the bare prefix, as
 * `{proxy+}` needs a character); any other path is exact.
 */
export const ENTRY_PATHS = {
  login: `${BASE_PATH}${LOGIN_PATH}/`,
  oauth2: `${BASE_PATH}${OAUTH2_PATH}/`,
  saml2: `${BASE_PATH}${SAML2_PATH}/`,
  favicon: '/favicon.ico',
  console: `${BASE_PATH}${CONSOLE_PATH}/`,
  scim: `${BASE_PATH}${SCIM_PATH}/`,
  /** The console's own name, which `{proxy+}` never matches: it sends the browser to the overview. */
  consoleEntry: `${BASE_PATH}${CONSOLE_PATH}`,
} as const;

export interface Entry {
  path: string;
  /** Every method unless named. */
  method?: HttpMethod;
  /** An entry function, or a group's function that answers the entry beside its routes (SCIM: tenant-users). */
  fn: EntryFunction | Group;
}

/** The non-API entries, each one API Gateway route to its function; everything else is the route table's. */
export const ENTRIES: readonly Entry[] = [
  { path: ENTRY_PATHS.login, fn: 'login' },
  { path: ENTRY_PATHS.oauth2, fn: 'login' },
  // Browsers ask every host for its icon by themselves: the screen's, not a JSON 404 (web/login/dead-ends.ts).
  { path: ENTRY_PATHS.favicon, method: 'GET', fn: 'login' },
  { path: ENTRY_PATHS.saml2, fn: 'saml' },
  { path: ENTRY_PATHS.console, fn: 'console' },
  { path: ENTRY_PATHS.consoleEntry, fn: 'console' },
  { path: ENTRY_PATHS.scim, fn: 'tenant-users' },
];

/**
 * The entry a request goes to, as API Gateway picks it; undefined for the route table's paths and the rest.
 * A prefix's bare path (`/v1/auth/console/`) is its function's only when that function also answers the name
 * without the slash (the console's 308 to its overview): a person who types either means the same place, and the
 * console function sends both on (web/console/console-function.ts), whichever of `{proxy+}` and the named route
 * API Gateway picks for it. The other bare prefixes (`/v1/auth/login/`, `/oauth2/`, `/saml2/`) name no page and
 * stay `$default`'s: programs keep the JSON 404 they get today, browsers its "page not found" page.
 */
export function matchEntry(method: string, rawPath: string): Entry | undefined {
  return ENTRIES.find((entry) =>
    entry.path.endsWith('/')
      ? rawPath.startsWith(entry.path) && (rawPath.length > entry.path.length || hasName(entry))
      : rawPath === entry.path && (entry.method ?? method) === method,
  );
}

/** Whether a prefix's function also has the prefix without its slash as an entry of every method. */
const hasName = (prefix: Entry) => ENTRIES.some((entry) => entry.fn === prefix.fn && !entry.method && `${entry.path}/` === prefix.path);

/**
 * A group's function timeout, in seconds (lib/service-stack.ts; the local runner gives handlers the same). The
 * groups that answer whole lists (Get Users, Get Tenants) or delete a tenant with every membership may use
 * all of API Gateway's 30 s; the rest answer in well under a second and stop at 10.
 */
export const groupTimeoutSeconds = (group: string): number =>
  // The console forwards those same calls (web/console), so it waits as long as they may take.
  ['saas-users', 'tenant-users', 'tenants', 'console'].includes(group) ? 29 : 10;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  /** The API the route belongs to: its path is relative to that API's base (API_BASE_PATHS). */
  api: Api;
  method: HttpMethod;
  /** Relative to the API's base path, with `{param}` placeholders. */
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

function rows(group: Group, list: Row[], api: Api = 'auth'): Route[] {
  return list.map(([method, path, operationId, summary, permission, status = 200, noBody]) => ({
    api,
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
    ['GET', '/login-theme', 'getLoginTheme', "Get the login screen's theme (extension)", 'config:read'],
    ['PATCH', '/login-theme', 'updateLoginTheme', "Update the login screen's theme (extension)", 'config:write', 200, 'no body'],
    // For SDK error-handling tests: always answers 500 in the error shape.
    ['GET', '/errors/internal-server-error', 'returnInternalServerError', 'Return an Internal Server Error', 'config:read'],
    ['GET', '/basic-info', 'getBasicInfo', 'Get Basic Configurations', 'config:read'],
    ['PUT', '/basic-info', 'updateBasicInfo', 'Update Basic Configurations', 'config:write', 200, 'no body'],
    ['GET', '/notification-messages', 'findNotificationMessages', 'Get notification templates', 'config:read'],
    ['GET', '/mail-backlog', 'getMailBacklog', 'Count the mails waiting to be sent (extension)', 'config:read'],
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
    ['GET', '/users/{user_id}/activity', 'getSaasUserActivity', "List the user's security activity (extension)", 'user:read'],
    ['GET', '/sign-in-counts', 'getSignInCounts', "Count the SaaS's sign-ins, failures and lockouts per day (extension)", 'user:read'],
    // Moving a SaaS in (issue 39, shared/domain/migration): a permission `*` does not cover (shared/permissions.ts).
    [
      'POST',
      '/migration/imports',
      'startImport',
      'Start an import of users with password hashes, tenants, memberships, settings, the pricing catalogue and invitations (extension)',
      'migration:write',
      201,
    ],
    ['GET', '/migration/imports', 'getImports', 'List import jobs (extension)', 'migration:write'],
    ['GET', '/migration/imports/{job_id}', 'getImport', "Get an import job's state and report of failed rows (extension)", 'migration:write'],
    [
      'GET',
      '/migration/export',
      'getExport',
      "Export the SaaS's users with their password verifiers, tenants, memberships, settings, pricing catalogue and open invitations as an import file (extension)",
      'migration:read',
    ],
    [
      'POST',
      '/migration/exports',
      'startExport',
      'Start an export job: the import file that rebuilds the SaaS, its secrets sealed under the seal key given (extension)',
      'migration:read',
      201,
    ],
    [
      'GET',
      '/migration/exports/{job_id}',
      'getExportJob',
      "Get an export job's state and counts, and once done a page of its file (extension)",
      'migration:read',
    ],
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
    ['GET', '/users/{user_id}/passkeys', 'getUserPasskeys', "List the user's passkeys (extension)", 'user:read'],
    [
      'DELETE',
      '/users/{user_id}/passkeys/{passkey_id}',
      'deleteUserPasskey',
      "Remove one of the user's passkeys (extension)",
      'user:write',
      200,
      'no body',
    ],
    ['GET', '/users/{user_id}/sessions', 'getUserSessions', "List the user's sessions on the hosted login screen (extension)", 'user:read'],
    [
      'DELETE',
      '/users/{user_id}/sessions/{session_id}',
      'deleteUserSession',
      "End one of the user's sessions on the hosted login screen (extension)",
      'user:write',
      200,
      'no body',
    ],
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
    // A tenant's SCIM bearer tokens (issue 41): they let a directory create users, hence user:write.
    ['GET', '/tenants/{tenant_id}/scim/tokens', 'getScimTokens', "List the tenant's SCIM tokens and its SCIM base URL (extension)", 'user:read'],
    ['POST', '/tenants/{tenant_id}/scim/tokens', 'createScimToken', 'Create a SCIM token, shown once (extension)', 'user:write', 201],
    ['DELETE', '/tenants/{tenant_id}/scim/tokens/{token_id}', 'deleteScimToken', 'Revoke a SCIM token (extension)', 'user:write', 200, 'no body'],
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
    // Extension (issue 41): a tenant's own OpenID Connect provider, beside the SAML one above, which stays as SaaSus answers it.
    [
      'GET',
      '/tenants/{tenant_id}/identity-providers/oidc',
      'getTenantOidcProvider',
      "Get a tenant's OpenID Connect provider (extension)",
      'tenant:read',
    ],
    [
      'PUT',
      '/tenants/{tenant_id}/identity-providers/oidc',
      'updateTenantOidcProvider',
      "Set a tenant's OpenID Connect provider (extension)",
      'tenant:write',
      200,
      'no body',
    ],
    // Extension (issue 41): verified domains, which send their people straight to the tenant's provider.
    ['GET', '/tenants/{tenant_id}/domains', 'getTenantDomains', "Get a tenant's domains (extension)", 'tenant:read'],
    ['POST', '/tenants/{tenant_id}/domains', 'createTenantDomain', 'Claim a domain for a tenant (extension)', 'tenant:write', 201],
    [
      'POST',
      '/tenants/{tenant_id}/domains/{domain}/verify',
      'verifyTenantDomain',
      "Verify a tenant's domain by its DNS record (extension)",
      'tenant:write',
    ],
    ['DELETE', '/tenants/{tenant_id}/domains/{domain}', 'deleteTenantDomain', "Remove a tenant's domain (extension)", 'tenant:write', 200, 'no body'],
    // Extension (issue 41): one-time links that let a tenant's IT admin set up its sign-in, SCIM and domains (web/login/setup).
    ['GET', '/tenants/{tenant_id}/setup-links', 'getTenantSetupLinks', "List a tenant's setup links (extension)", 'tenant:read'],
    [
      'POST',
      '/tenants/{tenant_id}/setup-links',
      'createTenantSetupLink',
      'Create a one-time setup link, its URL shown once (extension)',
      'tenant:write',
      201,
    ],
    [
      'DELETE',
      '/tenants/{tenant_id}/setup-links/{link_id}',
      'deleteTenantSetupLink',
      'Revoke a setup link (extension)',
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
  // The Pricing API (/v1/pricing): the catalogue of units, menus, plans, metering units and tax rates.
  ...rows(
    'pricing',
    [
      ['GET', '/units', 'getPricingUnits', 'Get Pricing Units', 'pricing:read'],
      ['POST', '/units', 'createPricingUnit', 'Create Pricing Unit', 'pricing:write', 201],
      ['GET', '/units/{pricing_unit_id}', 'getPricingUnit', 'Get Pricing Unit', 'pricing:read'],
      ['DELETE', '/units/{pricing_unit_id}', 'deletePricingUnit', 'Delete Pricing Unit', 'pricing:write', 200, 'no body'],
      ['PATCH', '/units/{pricing_unit_id}', 'updatePricingUnit', 'Update Pricing Unit', 'pricing:write', 200, 'no body'],
      ['GET', '/menus', 'getPricingMenus', 'Get Pricing Feature Menus', 'pricing:read'],
      ['POST', '/menus', 'createPricingMenu', 'Create a Pricing Feature Menu', 'pricing:write', 201],
      ['GET', '/menus/{menu_id}', 'getPricingMenu', 'Get Pricing Feature Menu', 'pricing:read'],
      ['DELETE', '/menus/{menu_id}', 'deletePricingMenu', 'Delete Pricing Feature Menu', 'pricing:write', 200, 'no body'],
      ['PATCH', '/menus/{menu_id}', 'updatePricingMenu', 'Update Pricing Feature Menu', 'pricing:write', 200, 'no body'],
      ['GET', '/plans', 'getPricingPlans', 'Get Pricing Plans', 'pricing:read'],
      ['POST', '/plans', 'createPricingPlan', 'Create Pricing Plan', 'pricing:write', 201],
      ['PATCH', '/plans/used', 'updatePricingPlansUsed', 'Update Used Flag', 'pricing:write', 200, 'no body'],
      ['GET', '/plans/{plan_id}', 'getPricingPlan', 'Get Pricing Plan', 'pricing:read'],
      ['DELETE', '/plans/{plan_id}', 'deletePricingPlan', 'Delete Pricing Plan', 'pricing:write', 200, 'no body'],
      ['PATCH', '/plans/{plan_id}', 'updatePricingPlan', 'Update Pricing Plan', 'pricing:write', 200, 'no body'],
      // Through the payment-provider port, like the Auth API's PATCH /stripe/init and DELETE /stripe.
      ['PATCH', '/stripe/init', 'linkPlanToStripe', 'Connect to Stripe', 'pricing:write', 200, 'no body'],
      ['DELETE', '/stripe', 'deleteStripePlan', 'Delete Product Data from Stripe', 'pricing:write', 200, 'no body'],
      [
        'DELETE',
        '/plans-initialization',
        'deleteAllPlansAndMenusAndUnitsAndMetersAndTaxRates',
        'Delete all Plans, Menus, Units, Meters and Tax Rates',
        'pricing:write',
        200,
        'no body',
      ],
      ['POST', '/tax-rates', 'createTaxRate', 'Create Tax Rate', 'pricing:write', 201],
      ['GET', '/tax-rates', 'getTaxRates', 'Get Tax Rates', 'pricing:read'],
      ['PATCH', '/tax-rates/{tax_rate_id}', 'updateTaxRate', 'Update Tax Rate', 'pricing:write', 200, 'no body'],
      ['POST', '/metering/units', 'createMeteringUnit', 'Create Metering Unit', 'pricing:write', 201],
      ['GET', '/metering/units', 'getMeteringUnits', 'Get all metering units', 'pricing:read'],
      ['PATCH', '/metering/units/{metering_unit_id}', 'updateMeteringUnitByID', 'Update Metering Unit', 'pricing:write', 200, 'no body'],
      ['DELETE', '/metering/units/{metering_unit_id}', 'deleteMeteringUnitByID', 'Delete Metering Unit', 'pricing:write', 200, 'no body'],
      ['GET', '/errors/internal-server-error', 'returnPricingInternalServerError', 'Return Internal Server Error', 'pricing:read'],
    ],
    'pricing',
  ),
  // The Pricing API's metering counts: the hot path, in a function of its own.
  ...rows(
    'metering',
    [
      [
        'GET',
        '/metering/tenants/{tenant_id}/units/{metering_unit_name}/date/{date}',
        'getMeteringUnitDateCountByTenantIdAndUnitNameAndDate',
        'Get Metering Unit Count for Specific Date',
        'metering:read',
      ],
      [
        'PUT',
        '/metering/tenants/{tenant_id}/units/{metering_unit_name}/timestamp/{timestamp}',
        'updateMeteringUnitTimestampCount',
        'Update Metering Unit Count for Specified Timestamp',
        'metering:write',
      ],
      [
        'DELETE',
        '/metering/tenants/{tenant_id}/units/{metering_unit_name}/timestamp/{timestamp}',
        'deleteMeteringUnitTimestampCount',
        'Delete Metering Unit Count for Specified Timestamp',
        'metering:write',
        200,
        'no body',
      ],
      [
        'GET',
        '/metering/tenants/{tenant_id}/units/{metering_unit_name}/today',
        'getMeteringUnitDateCountByTenantIdAndUnitNameToday',
        'Get Metering Unit Count for the Current Day',
        'metering:read',
      ],
      [
        'PUT',
        '/metering/tenants/{tenant_id}/units/{metering_unit_name}/now',
        'updateMeteringUnitTimestampCountNow',
        'Update Metering Unit Count for Current Time',
        'metering:write',
      ],
      [
        'GET',
        '/metering/tenants/{tenant_id}/units/{metering_unit_name}/thismonth',
        'getMeteringUnitMonthCountByTenantIdAndUnitNameThisMonth',
        'Get Metering Unit Count for the Current Month',
        'metering:read',
      ],
      [
        'GET',
        '/metering/tenants/{tenant_id}/units/{metering_unit_name}/month/{month}',
        'getMeteringUnitMonthCountByTenantIdAndUnitNameAndMonth',
        'Get the Metering Unit Count for the Specified Month',
        'metering:read',
      ],
      [
        'GET',
        '/metering/tenants/{tenant_id}/units/date/{date}',
        'getMeteringUnitDateCountsByTenantIdAndDate',
        'Get All Metering Unit Counts for a Specified Date',
        'metering:read',
      ],
      [
        'GET',
        '/metering/tenants/{tenant_id}/units/month/{month}',
        'getMeteringUnitMonthCountsByTenantIdAndMonth',
        'Get All Metering Unit Counts for the Specified Month',
        'metering:read',
      ],
      [
        'GET',
        '/metering/tenants/{tenant_id}/units/{metering_unit_name}/date-period',
        'getMeteringUnitDateCountByTenantIdAndUnitNameAndDatePeriod',
        'Obtain metering unit counts for a specified date/time period',
        'metering:read',
      ],
    ],
    'pricing',
  ),
  // The Billing API (/v1/billing): the Stripe connection.
  ...rows(
    'billing',
    [
      ['GET', '/stripe/info', 'getStripeInfo', 'Get Stripe Connection information', 'billing:read'],
      ['PUT', '/stripe/info', 'updateStripeInfo', 'Update Stripe Connection Info', 'billing:write', 200, 'no body'],
      ['DELETE', '/stripe/info', 'deleteStripeInfo', 'Delete Stripe Connection', 'billing:write', 200, 'no body'],
      ['GET', '/errors/internal-server-error', 'returnBillingInternalServerError', 'Return Internal Server Error', 'billing:read'],
    ],
    'billing',
  ),
  // The Communication API (/v1/communication): the feedback portal (shared/domain/communication), served by the
  // pricing group's function (GROUP_ACCESS).
  ...rows(
    'pricing',
    [
      ['POST', '/feedbacks', 'createFeedback', 'Create Feedback', 'communication:write', 201],
      ['GET', '/feedbacks', 'getFeedbacks', 'Get Feedbacks', 'communication:read'],
      ['GET', '/feedbacks/{feedback_id}', 'getFeedback', 'Get Feedback', 'communication:read'],
      ['PATCH', '/feedbacks/{feedback_id}', 'updateFeedback', 'Update Feedback', 'communication:write', 200, 'no body'],
      ['DELETE', '/feedbacks/{feedback_id}', 'deleteFeedback', 'Delete Feedback', 'communication:write', 200, 'no body'],
      ['PATCH', '/feedbacks/{feedback_id}/status', 'updateFeedbackStatus', 'Update Feedback Status', 'communication:write', 200, 'no body'],
      ['POST', '/feedbacks/{feedback_id}/votes/users', 'createVoteUser', 'Create Vote User', 'communication:write', 201],
      [
        'DELETE',
        '/feedbacks/{feedback_id}/votes/users/{user_id}',
        'deleteVoteForFeedback',
        'Delete Vote For Feedback',
        'communication:write',
        200,
        'no body',
      ],
      ['POST', '/feedbacks/{feedback_id}/comments', 'createFeedbackComment', 'Create Feedback Comment', 'communication:write', 201],
      ['GET', '/feedbacks/{feedback_id}/comments/{comment_id}', 'getFeedbackComment', 'Get Feedback Comment', 'communication:read'],
      [
        'PATCH',
        '/feedbacks/{feedback_id}/comments/{comment_id}',
        'updateFeedbackComment',
        'Update Feedback Comment',
        'communication:write',
        200,
        'no body',
      ],
      [
        'DELETE',
        '/feedbacks/{feedback_id}/comments/{comment_id}',
        'deleteFeedbackComment',
        'Delete Feedback Comment',
        'communication:write',
        200,
        'no body',
      ],
      ['GET', '/errors/internal-server-error', 'returnCommunicationInternalServerError', 'Return Internal Server Error', 'communication:read'],
    ],
    'communication',
  ),
  // The Integration API (/v1/integration): where the events of changing calls go (shared/domain/integration), served
  // by the configuration group's function: its settings are the SaaS's configuration.
  ...rows(
    'configuration',
    [
      ['GET', '/eventbridge/info', 'getEventBridgeSettings', 'Get EventBridge Settings', 'integration:read'],
      ['PUT', '/eventbridge/info', 'saveEventBridgeSettings', 'Update EventBridge Settings', 'integration:write', 200, 'no body'],
      ['DELETE', '/eventbridge/info', 'deleteEventBridgeSettings', 'Delete EventBridge Settings', 'integration:write', 200, 'no body'],
      ['POST', '/eventbridge/event', 'createEventBridgeEvent', 'Send Events', 'integration:write', 201, 'no body'],
      ['POST', '/eventbridge/test-event', 'createEventBridgeTestEvent', 'Test EventBridge Connection', 'integration:write', 201, 'no body'],
      ['GET', '/events', 'getEvents', 'The newest events and their delivery (extension)', 'integration:read'],
      ['GET', '/errors/internal-server-error', 'returnIntegrationInternalServerError', 'Return Internal Server Error', 'integration:read'],
      // Signed webhooks (extension, docs/events.md).
      ['POST', '/webhooks', 'createWebhook', 'Create a webhook (extension; its secret shown once)', 'integration:write', 201],
      ['GET', '/webhooks', 'getWebhooks', 'Get webhooks (extension)', 'integration:read'],
      ['GET', '/webhooks/{webhook_id}', 'getWebhook', 'Get a webhook (extension)', 'integration:read'],
      ['PATCH', '/webhooks/{webhook_id}', 'updateWebhook', 'Update, disable or enable a webhook (extension)', 'integration:write', 200, 'no body'],
      ['DELETE', '/webhooks/{webhook_id}', 'deleteWebhook', 'Delete a webhook (extension)', 'integration:write', 200, 'no body'],
      ['POST', '/webhooks/{webhook_id}/secret', 'rotateWebhookSecret', "Rotate a webhook's secret (extension)", 'integration:write'],
      ['GET', '/webhooks/{webhook_id}/deliveries', 'getWebhookDeliveries', "A webhook's deliveries (extension)", 'integration:read'],
      [
        'POST',
        '/webhooks/{webhook_id}/deliveries/{event_id}/replay',
        'replayWebhookDelivery',
        'Send an event to a webhook again (extension)',
        'integration:write',
        200,
        'no body',
      ],
    ],
    'integration',
  ),
  // The Analysis API (/v1/analysis): shared/domain/analysis, served by the pricing group's function (GROUP_ACCESS).
  ...rows(
    'pricing',
    [
      ['PUT', '/user-behavior-day', 'updateUserBehaviorHistoriesByDay', 'Analysis of user behavior on the day', 'analysis:write', 200, 'no body'],
      ['GET', '/users/{user_id}/behavior-histories', 'getUserBehaviorHistories', 'Acquisition of user behavior history', 'analysis:read'],
      ['GET', '/active-users', 'getActiveUsers', 'Get daily or monthly active users', 'analysis:read'],
      ['PUT', '/active-users', 'updateActiveUsers', 'Update or insert active users data', 'analysis:write', 200, 'no body'],
      ['GET', '/metrics/aggregated', 'getAggregatedMetrics', 'Get aggregated metrics', 'analysis:read'],
      ['GET', '/metrics/page-statistics', 'getPageStatistics', 'Get Page Statistics', 'analysis:read'],
      ['GET', '/userinfo/aggregated', 'getAggregatedUserInfo', 'Get aggregated userinfo call count', 'analysis:read'],
      ['GET', '/errors/internal-server-error', 'returnAnalysisInternalServerError', 'Return Internal Server Error', 'analysis:read'],
    ],
    'analysis',
  ),
  // The ApiLog API (/v1/apilog): the record of every signed call (shared/domain/apilog).
  ...rows(
    'apilog',
    [
      ['GET', '/logs', 'getLogs', 'Get API execution log list', 'apilog:read'],
      ['GET', '/logs/{api_log_id}', 'getLog', 'Get API execution log', 'apilog:read'],
      ['GET', '/errors/internal-server-error', 'returnApiLogInternalServerError', 'Return Internal Server Error', 'apilog:read'],
    ],
    'apilog',
  ),
];

/** Operations whose answer is a 500 by design (the SDKs' error-handling tests call it): checks for 5xx skip them. */
export const FAILS_BY_DESIGN: ReadonlySet<string> = new Set([
  'returnInternalServerError',
  'returnPricingInternalServerError',
  'returnBillingInternalServerError',
  'returnApiLogInternalServerError',
  'returnCommunicationInternalServerError',
  'returnIntegrationInternalServerError',
  'returnAnalysisInternalServerError',
]);

/** The route's path from the root: `/v1/pricing/plans/{plan_id}`. */
export const fullPath = (route: Route): string => `${API_BASE_PATHS[route.api]}${route.path}`;

/** API Gateway's route key for a route: `GET /v1/auth/roles/{role_name}`. */
export function routeKey(route: Route): string {
  return `${route.method} ${fullPath(route)}`;
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
    pattern: new RegExp(`^${API_BASE_PATHS[route.api]}${source}$`),
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

/**
 * One route of the HTTP API (lib/service-stack.ts): a method or `ANY`, and a path that may end in `{proxy+}` (every
 * path below it, at least one character). docs/decisions.md, decision 17: a function's routes are one greedy
 * route per folder it owns, not one route per row of the table, and the function's own route table (matchRoute)
 * answers what the greedy route brings it that no row names (404, 405 and its Allow) exactly as the public function
 * behind `$default` does.
 */
export interface GatewayRoute {
  method: HttpMethod | 'ANY';
  path: string;
  fn: Group;
}

const GREEDY = '{proxy+}';
const isParam = (segment: string) => segment.startsWith('{');

/**
 * The API Gateway routes that send every row of the table to its group, folder by folder (`/v1/auth/roles/…`): a
 * folder whose rows are all one group's is one `ANY <folder>/{proxy+}` (and `ANY <folder>` when a row is the folder
 * itself), unless the folder above already sends them there; in a folder of several groups the group with most
 * rows takes the folder and each other group's rows get routes of their own below it. A greedy route never
 * follows a path parameter (`/tenants/{tenant_id}/…`): those rows keep their own route when the folder is another
 * group's. A literal folder beside a parameter is contested (below): its rows get routes of their own instead.
 */
export function gatewayRoutes(routes: readonly Route[]): GatewayRoute[] {
  const own = (row: Route): GatewayRoute => ({ method: row.method, path: fullPath(row), fn: row.group });
  const place = (base: string, prefix: readonly string[], rows: readonly Route[], covered: Group | undefined): GatewayRoute[] => {
    const out: GatewayRoute[] = [];
    const folder = base + prefix.map((segment) => `/${segment}`).join('');
    const depthOf = (row: Route) => row.path.split('/').length - 1;
    const here = rows.filter((row) => depthOf(row) === prefix.length);
    const below = rows.filter((row) => depthOf(row) > prefix.length);
    const counts = new Map<Group, number>();
    for (const row of below) counts.set(row.group, (counts.get(row.group) ?? 0) + 1);
    // Most rows first, then the table's order of groups: the same table always gives the same routes.
    const owner = [...counts].sort(([a, x], [b, y]) => y - x || GROUPS.indexOf(a) - GROUPS.indexOf(b))[0]?.[0];
    if (owner && owner !== covered) out.push({ method: 'ANY', path: `${folder}/${GREEDY}`, fn: owner });
    const hereGroups = new Set(here.map((row) => row.group));
    // The folder's own path: `{proxy+}` of the folder above covers it, the folder's own does not.
    if (hereGroups.size === 1 && !hereGroups.has(covered as Group)) out.push({ method: 'ANY', path: folder, fn: here[0]!.group });
    else if (hereGroups.size > 1) for (const row of here) if (row.group !== covered) out.push(own(row));
    const next = owner ?? covered;
    const children = new Map<string, Route[]>();
    for (const row of below) {
      const segment = row.path.split('/')[prefix.length + 1] as string;
      children.set(segment, [...(children.get(segment) ?? []), row]);
    }
    const parameterRows = [...children].flatMap(([segment, rows]) => (isParam(segment) ? rows : []));
    const parameterRoutes = parameterRows.filter((row) => row.group !== next).map(own);
    for (const [segment, rows] of children) {
      if (isParam(segment)) continue;
      const folderRoutes = place(base, [...prefix, segment], rows, next);
      // Beside a parameter (`/tenants/all` beside `/tenants/{tenant_id}`) a literal folder's routes would also take the
      // requests whose parameter holds its name (`/tenants/all/{proxy+}` of tenant-users, `PUT /tenants/all/plans` of
      // tenants), and a parameter row's route of its own may take one of its rows. Its rows then get routes of their
      // own, each a full match with a literal where the parameter's have none, so API Gateway ranks them first; what
      // no row of it names falls to the route above, the parameter's. Cheaper than routes of their own for every row
      // under the parameter, as there are usually far fewer rows in such a folder.
      const contested =
        parameterRows.length > 0 &&
        (folderRoutes.length > 0 || rows.some((row) => parameterRoutes.some((route) => gatewayMatchRank(route, row.method, fullPath(row)))));
      out.push(...(contested ? rows.map(own) : folderRoutes));
    }
    out.push(...parameterRoutes);
    return out;
  };
  return Object.entries(API_BASE_PATHS).flatMap(([api, base]) =>
    place(
      base,
      [],
      routes.filter((row) => row.api === api),
      undefined,
    ),
  );
}

/** The HTTP API's routes for the route table (ENTRIES add theirs, `$default` the rest). */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = gatewayRoutes(ROUTES);

/**
 * How well a route matches a request, as API Gateway ranks them (the HTTP API routing rules): a full match before a
 * greedy one; among full matches a literal segment before a parameter, left to right; among greedy ones the longest
 * folder; then a named method before `ANY`. undefined: no match. Larger is better, compared element by element.
 */
export function gatewayMatchRank(route: { method: string; path: string }, method: string, rawPath: string): number[] | undefined {
  const methodRank = route.method === method ? 1 : route.method === 'ANY' ? 0 : undefined;
  if (methodRank === undefined) return undefined;
  const asked = rawPath.split('/');
  const own = route.path.split('/');
  if (own.at(-1) === GREEDY) {
    const folder = own.slice(0, -1);
    const rest = asked.slice(folder.length).join('/');
    if (asked.length <= folder.length || rest === '' || !folder.every((segment, i) => segment === asked[i])) return undefined;
    return [0, folder.length, methodRank];
  }
  if (own.length !== asked.length) return undefined;
  const literal: number[] = [];
  for (const [i, segment] of own.entries()) {
    if (isParam(segment)) {
      if (asked[i] === '') return undefined;
      literal.push(0);
    } else if (segment === asked[i]) literal.push(1);
    else return undefined;
  }
  return [1, ...literal, methodRank];
}

const compareRanks = (a: readonly number[], b: readonly number[]) => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};

/**
 * The routes API Gateway may pick for a request, best first: every route of the best rank (more than one only
 * if the routes are ambiguous, which test/unit/gateway-routes.test.ts refuses for every row). Empty: `$default`.
 */
export function selectGatewayRoutes<R extends { method: string; path: string }>(routes: readonly R[], method: string, rawPath: string): R[] {
  let best: number[] | undefined;
  let chosen: R[] = [];
  for (const route of routes) {
    const rank = gatewayMatchRank(route, method.toUpperCase(), rawPath);
    if (!rank) continue;
    const order = best ? compareRanks(rank, best) : 1;
    if (order > 0) [best, chosen] = [rank, [route]];
    else if (order === 0) chosen.push(route);
  }
  return chosen;
}

/** The group whose function API Gateway invokes for a request outside ENTRIES: the greedy routes' or `$default`'s. */
export function gatewayGroup(method: string, rawPath: string): Group {
  return selectGatewayRoutes(GATEWAY_ROUTES, method, rawPath)[0]?.fn ?? 'public';
}
