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
  // The Integration API: EventBridge settings, the events a SaaS sends itself, the kept events.
  'integration:read',
  'integration:write',
  // The Analysis API: active users, page histories and statistics, counts per day.
  'analysis:read',
  'analysis:write',
  // Import (write) and export (read) of a whole SaaS, password hashes and verifiers included (our extension,
  // issue 39). Not part of `*`: each must be named (EXPLICIT_ONLY below, docs/decisions.md).
  'migration:write',
  'migration:read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];
/**
 * What an API key may hold: a permission, `group:*` style wildcards of a prefix, or `*`: every permission of
 * every API (Auth, Pricing, Billing, ApiLog, Communication, Integration, Analysis), including those added later, except EXPLICIT_ONLY's.
 */
export type PermissionGrant = Permission | '*' | `${string}:*`;

/**
 * The permissions `*` does not cover: a key holds them only when they (or their area's wildcard) are named.
 * `migration:write` writes users in bulk with credentials never checked here, `migration:read` reads out every
 * user's verifier; the keys that hold `*` were
 * made before it existed, for everyday calls, and must not gain that by an upgrade (docs/decisions.md).
 */
export const EXPLICIT_ONLY: ReadonlySet<Permission> = new Set(['migration:write', 'migration:read']);

/** Whether `grants` include `needed`: itself, its area's wildcard (`user:*`), or everything (`*`) but EXPLICIT_ONLY. */
export function hasPermission(grants: readonly string[], needed: Permission): boolean {
  const [area] = needed.split(':');
  return grants.some((grant) => (grant === '*' && !EXPLICIT_ONLY.has(needed)) || grant === needed || grant === `${area}:*`);
}
