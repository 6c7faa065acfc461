/**
 * Attacks on a tenant's directory through the export and the import (issue 39, shared/domain/migration/
 * enterprise-rows.ts). (1) A person the tenant's directory deprovisioned (SCIM `active: false`) must not come back
 * to life on the new stack: before the SCIM member rows, the export carried their membership and user as any other,
 * and they signed in there with their old password. (2) A file edited so that one tenant's sealed SCIM token hash
 * names another tenant, to open that tenant's SCIM with the first one's token, is refused: the seal is bound to the
 * tenant and token it was made for.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { externalId } from '../../shared/domain/migration/external-id.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import { exportService } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { defineEnvsAndRoles } from '../support/definitions.js';
import { scimClient, turnScimOn, USER_SCHEMA, type ScimClient } from '../support/scim.js';

const GONE = { userName: 'gone@acme.test', password: 'Gone#Secret42' };
const sealKey = randomBytes(32);
let h: Harness;
let sourceId: string;
let acme: string;
let beta: string;
let scim: ScimClient;
let rows: (Record<string, unknown> & { type: string })[];

async function importInto(file: string): Promise<{ saasId: string; client: SignedClient; job: ImportJob }> {
  const { saasId } = await h.newSaas();
  const client = await h.newKey(saasId, ['*', 'migration:write']);
  const started = await client.post<ImportJob>('/migration/imports', { jsonl: file, seal_key: sealKey.toString('base64') });
  assert.equal(started.status, 201, started.text);
  await runScheduledWork();
  return { saasId, client, job: (await client.get<ImportJob>(`/migration/imports/${started.body.job_id}`)).body };
}

const fileOf = (list: readonly object[]) => list.map((row) => `${JSON.stringify(row)}\n`).join('');

beforeAll(async () => {
  h = await startHarness();
  let admin: SignedClient;
  ({ saasId: sourceId, client: admin } = await h.newSaas());
  await defineEnvsAndRoles(admin);
  const tenant = async (name: string) =>
    (await admin.post<{ id: string }>('/tenants', { name, attributes: {}, back_office_staff_email: 'ops@acme.test' })).body.id;
  [acme, beta] = [await tenant('Acme'), await tenant('Beta')];
  scim = await turnScimOn(admin, acme);
  await turnScimOn(admin, beta);
  const made = await scim.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], ...GONE });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const off = await scim.call('PATCH', `/Users/${made.body.id}`, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations: [{ op: 'replace', value: { active: false } }],
  });
  assert.equal(off.status, 200, JSON.stringify(off.body));
  rows = [];
  for await (const row of exportService().rows(sourceId, { sealKey })) rows.push(row as (typeof rows)[number]);
});
afterAll(() => h?.close());

describe('the export and import of a tenant directory', () => {
  it('keeps a deprovisioned person out on the new stack', async () => {
    const { client, job } = await importInto(fileOf(rows));
    assert.equal(job.failed, 0, JSON.stringify(job.errors));
    const signIn = await client.post('/sign-in', {
      sign_in_flow: 'USER_PASSWORD_AUTH',
      sign_in_parameters: { USERNAME: GONE.userName, PASSWORD: GONE.password },
    });
    assert.equal(signIn.status, 401, signIn.text);
  });

  it("refuses a sealed SCIM token hash moved onto another tenant's row", async () => {
    const acmeTokens = rows.find((row) => row.type === 'scim_tokens' && row.tenant === acme);
    const edited = rows
      .filter((row) => !(row.type === 'scim_tokens' && row.tenant === beta))
      .map((row) => (row === acmeTokens ? { ...row, tenant: beta } : row));
    const { saasId, client, job } = await importInto(fileOf(edited));
    assert.deepEqual(
      job.errors?.map((e) => e.reason),
      ['tokens.0.hash: does not open with the seal_key'],
    );
    const betaThere = externalId(saasId, 'tenant', beta);
    assert.deepEqual((await client.get<{ tokens: unknown[] }>(`/tenants/${betaThere}/scim/tokens`)).body.tokens, []);
    const base = scim.base.replace(`/${sourceId}/${acme}`, `/${saasId}/${betaThere}`);
    assert.equal((await scimClient(base, scim.token).call('GET', '/Users')).status, 401);
  });
});
