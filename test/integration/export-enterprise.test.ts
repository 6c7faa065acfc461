/**
 * Each tenant's enterprise directory set-up through the export and the import (issue 39; shared/domain/migration/
 * enterprise-rows.ts): a SaaS whose tenant Acme has its own OpenID Connect provider (oidc-provider standing in for
 * Okta), a verified domain, SCIM tokens, a group and a member its directory suspended, and whose tenant Beta has a
 * SAML provider, a pending domain, passkeys required and billing information, is exported with a seal key and
 * imported into a fresh SaaS. There: Acme's people sign in through the same provider with the same client secret,
 * the directory's token still opens Acme's SCIM (the suspended member still suspended, their user signed out of
 * everything), the domain routes an address to Acme's provider and no other tenant can take it, Beta reads back
 * the same. A re-run writes nothing; without the key, or with another, the rows holding secrets are refused by
 * line with the reason and nothing of them is written; another SaaS's set-up never appears in the file.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { setTxtRecordsForTests } from '../../shared/adapters/dns-txt.js';
import { externalId } from '../../shared/domain/migration/external-id.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import { exportService } from '../../shared/wiring.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { followRedirects, startTestOidcIdp, type TestOidcIdp } from '../support/oidc-idp.js';
import { startTestIdp } from '../support/saml-idp.js';
import { openScreen } from '../support/screen-client.js';
import { scimClient, turnScimOn, USER_SCHEMA, type ScimClient } from '../support/scim.js';
import { connectTenantSaml, tenantSaas, verifyDomain } from '../support/tenant-providers.js';

const CALLBACK = 'https://app.acme.test/callback';
const KIM = { sub: 'okta-kim', email: 'kim.oidc@acme.test', name: 'Kim' };
const SAM = { email: 'sam@acme.test', password: 'Sam#Secret42' };
const BILLING = {
  name: 'Beta KK',
  address: { street: '1-2-3 Chiyoda', city: 'Chiyoda-ku', state: 'Tokyo', country: 'JP', postal_code: '100-0001' },
  invoice_language: 'ja-JP',
};

let h: Harness;
let admin: SignedClient;
let sourceId: string;
let acme: string;
let beta: string;
let idp: TestOidcIdp;
let scim: ScimClient;
let samId: string;
/** The target SaaS, made first so that the provider knows its callback as it knows the source's. */
let targetId: string;
let target: SignedClient;
const published: Record<string, string[] | 'failing'> = {};
const sealKey = randomBytes(32);

const screenOf = (saasId: string) => `${h.api.baseUrl}/login/${saasId}/`;

async function exported(key: Buffer | 'no key' = sealKey): Promise<string> {
  const rows: string[] = [];
  for await (const row of exportService().rows(sourceId, key === 'no key' ? {} : { sealKey: key })) rows.push(`${JSON.stringify(row)}\n`);
  return rows.join('');
}

/** Imports `file` into the SaaS through the API and the scheduled worker; the job's report. */
async function importInto(saasId: string, client: SignedClient, file: string, body: Record<string, unknown>): Promise<ImportJob> {
  const started = await client.post<ImportJob>('/migration/imports', { jsonl: file, ...body });
  assert.equal(started.status, 201, started.text);
  await runScheduledWork();
  return (await client.get<ImportJob>(`/migration/imports/${started.body.job_id}`)).body;
}

async function freshSaas(): Promise<{ saasId: string; client: SignedClient }> {
  const { saasId } = await h.newSaas();
  return { saasId, client: await h.newKey(saasId, ['*', 'migration:write']) };
}

/** The screen's OpenID Connect sign-in for the tenant, as far as the screen's own next page. */
const oidcSignIn = (saasId: string, tenantId: string) =>
  followRedirects(
    `${screenOf(saasId)}oidc?tenant_id=${tenantId}&state=s-1`,
    new Map(),
    (url) => !url.startsWith(`${screenOf(saasId)}oidc`) && !url.startsWith(idp.issuer),
  );

/** The screen's `api/discover` step: where an address is sent. */
async function discover(saasId: string, email: string): Promise<{ redirect?: string }> {
  const page = await openScreen(screenOf(saasId));
  const res = await fetch(`${screenOf(saasId)}api/discover`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: page.cookie, 'x-csrf-token': String(page.data?.csrf) },
    body: JSON.stringify({ email, state: 's-1' }),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as { redirect?: string };
}

const lines = (file: string) =>
  file
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
const passwordSignIn = (client: SignedClient, USERNAME: string, PASSWORD: string) =>
  client.post('/sign-in', { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME, PASSWORD } });
const lineOf = (file: string, type: string) => lines(file).findIndex((row) => row.type === type) + 1;

beforeAll(async () => {
  h = await startHarness();
  setTxtRecordsForTests(published);
  ({ saasId: targetId } = await h.newSaas());
  target = await h.newKey(targetId, ['*', 'migration:write']);
  let tenants: Record<'Acme' | 'Beta', string>;
  ({ saasId: sourceId, admin, tenants } = await tenantSaas(h, ['Acme', 'Beta'], CALLBACK, { Acme: { email: KIM.email, password: 'Kim#Secret42' } }));
  [acme, beta] = [tenants.Acme, tenants.Beta];
  idp = await startTestOidcIdp({ redirectUris: [`${screenOf(sourceId)}oidc/callback`, `${screenOf(targetId)}oidc/callback`] });
  const saved = await admin.put(`/tenants/${acme}/identity-providers/oidc`, {
    oidc: { discovery_url: idp.discoveryUrl, client_id: idp.clientId, client_secret: idp.clientSecret, claims: { name: 'name' } },
  });
  assert.equal(saved.status, 200, saved.text);
  await verifyDomain(admin, acme, 'acme.test', published, { jit_role_name: 'admin' });
  assert.equal((await admin.post(`/tenants/${beta}/domains`, { domain: 'beta.test' })).status, 201);
  await connectTenantSaml(admin, beta, startTestIdp('beta').metadata);
  // Beta requires passkeys (the SaaS offers them) and has billing information.
  assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
  const betaProps = { name: 'Beta', attributes: {}, back_office_staff_email: 'staff@example.com', passkeys_required: true };
  assert.equal((await admin.patch(`/tenants/${beta}`, betaProps)).status, 200);
  assert.equal((await admin.put(`/tenants/${beta}/billing-info`, BILLING)).status, 200);
  // Acme's directory: two tokens (a rotation), a group, a member it provisioned and then suspended.
  scim = await turnScimOn(admin, acme);
  await turnScimOn(admin, acme);
  assert.equal((await scim.call('POST', '/Groups', { displayName: 'Administrator', externalId: 'okta-group-1' })).status, 201);
  const sam = await scim.call<{ id: string }>('POST', '/Users', {
    schemas: [USER_SCHEMA],
    userName: SAM.email,
    externalId: 'okta-sam',
    password: SAM.password,
  });
  assert.equal(sam.status, 201, JSON.stringify(sam.body));
  samId = sam.body.id;
  assert.equal(
    (await scim.call('PUT', `/Users/${samId}`, { schemas: [USER_SCHEMA], userName: SAM.email, externalId: 'okta-sam', active: false })).status,
    200,
  );
  assert.equal((await srpSignIn(admin, SAM.email, SAM.password)).status, 401);
});
afterAll(async () => {
  setTxtRecordsForTests(undefined);
  await idp?.close();
  await h?.close();
});

describe("a tenant's enterprise set-up: export", () => {
  it('writes each kind after the rows it names, secrets only sealed', async () => {
    const file = await exported();
    const rows = lines(file);
    const types = rows.map((row) => row.type);
    const last = (type: string) => types.lastIndexOf(type);
    for (const type of ['tenant_saml', 'tenant_oidc', 'tenant_domain', 'scim_tokens', 'scim_group', 'scim_member'])
      assert.ok(types.indexOf(type) > Math.max(last('tenant'), last('user'), last('membership')), type);
    const oidc = rows.find((row) => row.type === 'tenant_oidc') as unknown as { tenant: string; oidc: Record<string, unknown> };
    assert.equal(oidc.tenant, acme);
    assert.match(String(oidc.oidc.client_secret), /^v1\./);
    const domains = rows
      .filter((row) => row.type === 'tenant_domain')
      .map(({ tenant, domain, verified, jit_role_name }) => ({ tenant, domain, verified, jit_role_name }));
    assert.deepEqual(
      domains.sort((a, b) => String(a.domain).localeCompare(String(b.domain))),
      [
        { tenant: acme, domain: 'acme.test', verified: true, jit_role_name: 'admin' },
        { tenant: beta, domain: 'beta.test', verified: false, jit_role_name: undefined },
      ],
    );
    const tenantBeta = rows.find((row) => row.type === 'tenant' && row.external_id === beta);
    assert.equal(tenantBeta?.passkeys_required, true);
    assert.deepEqual(tenantBeta?.billing_info, BILLING);
    // Neither the client secret, nor a token, nor a token's hash is in the file in the clear.
    assert.doesNotMatch(file, new RegExp(idp.clientSecret));
    assert.doesNotMatch(file, new RegExp(scim.token));
    assert.doesNotMatch(file, new RegExp(createHash('sha256').update(scim.token).digest('hex')));
  });

  it("holds nothing of another SaaS's tenants", async () => {
    const other = await tenantSaas(h, ['Other'], CALLBACK);
    await verifyDomain(other.admin, other.tenants.Other, 'other.test', published);
    await turnScimOn(other.admin, other.tenants.Other);
    const file = await exported();
    assert.doesNotMatch(file, /other\.test/);
    assert.doesNotMatch(file, new RegExp(other.tenants.Other));
    const named = new Set(lines(file).flatMap((row) => (typeof row.tenant === 'string' ? [row.tenant] : [])));
    assert.deepEqual([...named].sort(), [acme, beta].sort());
  });
});

describe("a tenant's enterprise set-up: the round trip", () => {
  let file: string;
  let job: ImportJob;
  const acmeThere = () => externalId(targetId, 'tenant', acme);
  const betaThere = () => externalId(targetId, 'tenant', beta);

  beforeAll(async () => {
    file = await exported();
    job = await importInto(targetId, target, file, { seal_key: sealKey.toString('base64') });
  });

  it('imports every row', () => {
    assert.deepEqual(job.errors ?? [], []);
    assert.equal(job.failed, 0);
    assert.equal(job.imported, lines(file).length);
  });

  it("signs Acme's people in through the same provider with the same client secret", async () => {
    const read = (saasId: string, client: SignedClient, tenantId: string) =>
      client.get<{ oidc: Record<string, unknown> }>(`/tenants/${tenantId}/identity-providers/oidc`);
    const [there, here] = [(await read(targetId, target, acmeThere())).body.oidc, (await read(sourceId, admin, acme)).body.oidc];
    assert.deepEqual({ ...there, callback_url: undefined, sign_in_url: undefined }, { ...here, callback_url: undefined, sign_in_url: undefined });
    assert.equal(there.has_client_secret, true);
    assert.equal(there.sign_in_url, `${screenOf(targetId)}oidc?tenant_id=${acmeThere()}`);
    // The code is exchanged with the client secret: a secret the provider refuses would stop here.
    idp.signInAs(KIM);
    const signedIn = await oidcSignIn(targetId, acmeThere());
    assert.equal(signedIn.status, 302, signedIn.text);
    assert.match(signedIn.location ?? '', new RegExp(`^${screenOf(targetId)}link\\?ticket=`));
  });

  it("reads Beta's SAML provider, passkeys requirement and billing information back the same", async () => {
    const saml = async (client: SignedClient, tenantId: string) =>
      (await client.get<{ saml: Record<string, unknown> }>(`/tenants/${tenantId}/identity-providers`)).body.saml;
    const [there, here] = [await saml(target, betaThere()), await saml(admin, beta)];
    assert.deepEqual({ ...there, sign_in_url: undefined }, { ...here, sign_in_url: undefined });
    assert.ok(there?.metadata_xml);
    const tenant = (await target.get<{ passkeys_required?: boolean; billing_info?: unknown }>(`/tenants/${betaThere()}`)).body;
    assert.equal(tenant.passkeys_required, true);
    assert.deepEqual(tenant.billing_info, BILLING);
  });

  it("lets the directory's token go on: Acme's SCIM answers it, with its group and the suspended member", async () => {
    const base = scim.base.replace(`/${sourceId}/${acme}`, `/${targetId}/${acmeThere()}`);
    const directory = scimClient(base, scim.token);
    const users = await directory.call<{ Resources: { id: string; userName: string; active: boolean; externalId?: string }[] }>('GET', '/Users');
    assert.equal(users.status, 200, JSON.stringify(users.body));
    const sam = users.body.Resources.find((user) => user.userName === SAM.email);
    assert.deepEqual({ active: sam?.active, externalId: sam?.externalId }, { active: false, externalId: 'okta-sam' });
    const groups = await directory.call<{ Resources: { id: string; displayName: string; externalId?: string }[] }>('GET', '/Groups');
    assert.deepEqual(
      groups.body.Resources.map(({ id, displayName, externalId: ext }) => ({ id, displayName, ext })),
      [{ id: 'admin', displayName: 'Administrator', ext: 'okta-group-1' }],
    );
    // Another tenant's base URL does not open with it; nor does a made-up token open Acme's.
    assert.equal((await scimClient(base.replace(acmeThere(), betaThere()), scim.token).call('GET', '/Users')).status, 401);
    assert.equal((await scimClient(base, `scim_${randomBytes(32).toString('base64url')}`).call('GET', '/Users')).status, 401);
    // The member the directory suspended is suspended here too: their user cannot sign in, where Kim can.
    assert.equal((await passwordSignIn(target, KIM.email, 'Kim#Secret42')).status, 200);
    assert.equal((await passwordSignIn(target, SAM.email, SAM.password)).status, 401);
  });

  it("routes an address of the verified domain to Acme's provider, whose newcomer joins with the role; no other tenant can take it", async () => {
    const routed = await discover(targetId, 'newcomer@acme.test');
    assert.ok(routed.redirect, JSON.stringify(routed));
    const to = new URL(routed.redirect, h.api.baseUrl);
    assert.equal(to.pathname, new URL(`${screenOf(targetId)}oidc`).pathname);
    assert.equal(to.searchParams.get('tenant_id'), acmeThere());
    idp.signInAs({ sub: 'okta-new', email: 'newcomer@acme.test', name: 'New Comer' });
    const done = await followRedirects(to.toString(), new Map(), (url) => url.startsWith(CALLBACK));
    assert.ok(done.location?.startsWith(`${CALLBACK}?code=`), done.location ?? done.text);
    const members = await target.get<{ users: { email: string; envs: { roles: { role_name: string }[] }[] }[] }>(`/tenants/${acmeThere()}/users`);
    const newcomer = members.body.users.find((u) => u.email === 'newcomer@acme.test');
    assert.deepEqual(
      newcomer?.envs.flatMap((env) => env.roles.map((r) => r.role_name)),
      ['admin'],
    );
    const domains = (await target.get<{ domains: { domain: string; status: string; jit_role_name?: string }[] }>(`/tenants/${acmeThere()}/domains`))
      .body;
    assert.deepEqual(
      domains.domains.map(({ domain, status, jit_role_name }) => ({ domain, status, jit_role_name })),
      [{ domain: 'acme.test', status: 'verified', jit_role_name: 'admin' }],
    );
    const taken = await target.post<{ type: string }>(`/tenants/${betaThere()}/domains`, { domain: 'acme.test' });
    assert.equal(taken.status, 400, taken.text);
    assert.equal(taken.body.type, 'domain_claimed');
    const pending = (await target.get<{ domains: { domain: string; status: string }[] }>(`/tenants/${betaThere()}/domains`)).body.domains;
    assert.deepEqual(
      pending.map(({ domain, status }) => ({ domain, status })),
      [{ domain: 'beta.test', status: 'pending' }],
    );
  });

  it('reads the proof in DNS at its first use there: a record gone since the export lapses the domain', async () => {
    const { saasId, client } = await freshSaas();
    assert.equal((await importInto(saasId, client, file, { seal_key: sealKey.toString('base64') })).failed, 0);
    const record = Object.keys(published).find((name) => name.endsWith('.acme.test')) as string;
    const kept = published[record] as string[];
    delete published[record];
    try {
      assert.deepEqual(await discover(saasId, 'someone@acme.test'), {});
    } finally {
      published[record] = kept;
    }
    const tenantThere = externalId(saasId, 'tenant', acme);
    const domains = (await client.get<{ domains: { status: string }[] }>(`/tenants/${tenantThere}/domains`)).body.domains;
    assert.deepEqual(
      domains.map((d) => d.status),
      ['lapsed'],
    );
  });

  it('writes nothing on a re-run, and keeps what was changed there since', async () => {
    assert.equal((await target.put(`/tenants/${acmeThere()}/identity-providers/oidc`, { oidc: null })).status, 200);
    assert.equal(
      (await target.put(`/tenants/${acmeThere()}/identity-providers/oidc`, { oidc: { discovery_url: idp.discoveryUrl, client_id: 'changed' } }))
        .status,
      200,
    );
    const again = await importInto(targetId, target, file, { seal_key: sealKey.toString('base64') });
    assert.deepEqual(
      { imported: again.imported, failed: again.failed, unchanged: again.unchanged },
      { imported: 0, failed: 0, unchanged: lines(file).length },
    );
    const read = await target.get<{ oidc: { client_id: string } }>(`/tenants/${acmeThere()}/identity-providers/oidc`);
    assert.equal(read.body.oidc.client_id, 'changed');
  });
});

describe("a tenant's enterprise set-up: the seal key", () => {
  /**
   * The rows that hold a secret, users' sealed passwords among them, refused by line with the reason, and the rows
   * naming a user refused so (no user row, or no membership of it there); nothing of them written.
   */
  async function refusedWith(file: string, body: Record<string, unknown>, reason: RegExp) {
    const { saasId, client } = await freshSaas();
    const job = await importInto(saasId, client, file, body);
    const failed = new Map((job.errors ?? []).map((e) => [e.line, e.reason]));
    const rows = lines(file);
    const sealedUsers = new Set(
      rows
        .filter((row) => row.type === 'user' && (row.password_hash as { algorithm?: string } | undefined)?.algorithm === 'sealed')
        .map((row) => row.external_id),
    );
    const lineWhere = (test: (row: Record<string, unknown>) => boolean) => rows.flatMap((row, i) => (test(row) ? [i + 1] : []));
    const secretRows = [
      lineOf(file, 'tenant_oidc'),
      lineOf(file, 'scim_tokens'),
      ...lineWhere((row) => row.type === 'user' && sealedUsers.has(row.external_id)),
    ];
    const naming = lineWhere((row) => row.type !== 'user' && sealedUsers.has(row.user));
    assert.deepEqual([...failed.keys()].sort(), [...secretRows, ...naming].sort(), JSON.stringify(job.errors));
    for (const line of secretRows) assert.match(failed.get(line) ?? '', reason);
    for (const line of naming) assert.match(failed.get(line) ?? '', /^user: no (user row|membership of user row)/);
    const tenantThere = externalId(saasId, 'tenant', acme);
    assert.deepEqual((await client.get(`/tenants/${tenantThere}/identity-providers/oidc`)).body, {});
    assert.deepEqual((await client.get<{ tokens: unknown[] }>(`/tenants/${tenantThere}/scim/tokens`)).body.tokens, []);
    const base = scim.base.replace(`/${sourceId}/${acme}`, `/${saasId}/${tenantThere}`);
    assert.equal((await scimClient(base, scim.token).call('GET', '/Users')).status, 401);
    // The rest arrived: the domain, the group, Beta's provider.
    assert.equal((await client.get<{ domains: unknown[] }>(`/tenants/${tenantThere}/domains`)).body.domains.length, 1);
  }

  it('refuses the secret rows of a job started without the key', async () => {
    await refusedWith(await exported(), {}, /is sealed; start the job with the seal_key of the export/);
  });

  it('refuses them under another key', async () => {
    await refusedWith(await exported(), { seal_key: randomBytes(32).toString('base64') }, /does not open with the seal_key/);
  });

  it('refuses them from an export made without a key, which leaves every secret out', async () => {
    const file = await exported('no key');
    const rows = lines(file);
    assert.equal('client_secret' in (rows.find((row) => row.type === 'tenant_oidc')?.oidc as object), false);
    assert.deepEqual(
      (rows.find((row) => row.type === 'scim_tokens')?.tokens as object[]).map((t) => 'hash' in t),
      [false, false],
    );
    await refusedWith(file, { seal_key: sealKey.toString('base64') }, /is left out; export with a seal key/);
  });

  it('refuses a sealed secret moved onto another tenant', async () => {
    const rows = lines(await exported());
    const oidc = rows.find((row) => row.type === 'tenant_oidc') as unknown as { tenant: string };
    oidc.tenant = beta;
    const file = rows.map((row) => `${JSON.stringify(row)}\n`).join('');
    const { saasId, client } = await freshSaas();
    const job = await importInto(saasId, client, file, { seal_key: sealKey.toString('base64') });
    assert.deepEqual(job.errors, [{ line: lineOf(file, 'tenant_oidc'), reason: 'oidc.client_secret: does not open with the seal_key' }]);
    assert.deepEqual((await client.get(`/tenants/${externalId(saasId, 'tenant', beta)}/identity-providers/oidc`)).body, {});
  });
});
