/**
 * What an API key may do: the permissions the route table asks for, and the grants a key holds. A module of
 * its own at the floor of the layers, so the accounts domain and the route table both read it without the
 * domain depending on HTTP routing.
 */
export const PERMISSIONS = [
  'config:read',
  'config:write',
  'user:read',
  'user:write',
  'tenant:read',
  'tenant:write',
  'definition:read',
  'definition:write',
  'sign-in',
  // The Pricing API: the catalogue (units, menus, plans, metering units, tax rates, the Stripe link).
  'pricing:read',
  'pricing:write',
  // The Pricing API's metering counts: a key that records usage needs nothing else.
  'metering:read',
  'metering:write',
  // The Billing API: the Stripe connection (its secret key).
  'billing:read',
  'billing:write',
  // The ApiLog API: the record of signed calls (no change operation exists).
  'apilog:read',
  // The Communication API: the feedback portal (feedback, votes, comments, status).
  'communication:read',
  'communication:write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];
/**
 * What an API key may hold: a permission, `group:*` style wildcards of a prefix, or `*`: every permission of
 * every API (Auth, Pricing, Billing, ApiLog, Communication), including those added later.
 */
export type PermissionGrant = Permission | '*' | `${string}:*`;

/** Whether `grants` include `needed`: itself, its area's wildcard (`user:*`), or everything (`*`). */
export function hasPermission(grants: readonly string[], needed: Permission): boolean {
  const [area] = needed.split(':');
  return grants.some((grant) => grant === '*' || grant === needed || grant === `${area}:*`);
}
