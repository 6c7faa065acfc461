/** Definitions a test SaaS needs before memberships or invitations can name envs and roles. */
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';

export const PROD_AND_DEV = [
  { id: 1, name: 'prod', display_name: 'Production' },
  { id: 2, name: 'dev', display_name: 'Development' },
];
export const ADMIN = { role_name: 'admin', display_name: 'Administrator' };
export const VIEWER = { role_name: 'viewer', display_name: 'Viewer' };

export async function defineEnvsAndRoles(client: SignedClient, envs = PROD_AND_DEV, roles = [ADMIN, VIEWER]): Promise<void> {
  for (const env of envs) assert.equal((await client.post('/envs', env)).status, 201);
  for (const role of roles) assert.equal((await client.post('/roles', role)).status, 201);
}
