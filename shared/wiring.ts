/**
 * Services over the store, for the handlers and the scheduled worker, split by noun in shared/wiring/: one file
 * per noun says in its header what belongs there. Callers import from here; a new service goes in its noun's
 * file (a new noun gets a file and a line below), a new repository in shared/wiring/repositories.ts.
 */
export * from './wiring/clients.js';
export * from './wiring/repositories.js';
export * from './wiring/pipeline.js';
export * from './wiring/api-log.js';
export * from './wiring/accounts.js';
export * from './wiring/keys.js';
export * from './wiring/configuration.js';
export * from './wiring/mail.js';
export * from './wiring/pricing.js';
export * from './wiring/tenants.js';
export * from './wiring/users.js';
export * from './wiring/sign-in.js';
export * from './wiring/federation.js';
export * from './wiring/invitations.js';
export * from './wiring/migration.js';
export * from './wiring/scheduled.js';
export * from './wiring/scim.js';
export * from './wiring/integration.js';
export * from './wiring/enterprise.js';
