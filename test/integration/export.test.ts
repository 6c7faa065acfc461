/**
 * The export (our extension, issue 39) and its round trip through DynamoDB Local: a SaaS with definitions, a
 * tenant, members with roles, users with passwords (one signed in here, one still on an imported hash, one with a
 * sign-in ID) is exported with a seal key, imported into a fresh SaaS, and every user signs in there with the old
 * password (first through USER_PASSWORD_AUTH, then SRP); memberships and roles arrive. No file holds a verifier
 * in the clear: sealed under the key, or (GET /migration/export, no key) left behind, the users then mailed a
 * link to set one; a sealed password opens only with the key and on its own row. `*` and
 * `migration:write` do not reach the export; another SaaS's export holds nothing of this one. A user's
 * authenticator app goes out sealed under the operator's seal key and signs in there with the same codes; a
 * passkey arrives with its credential id and public key.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { externalId } from '../../shared/domain/migration/external-id.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { answerChallenge, srpSignIn } from '../../dev-support/sign-in.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { nowSeconds } from '../../shared/clock.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { passkeyId } from '../../shared/domain/sign-in/passkeys.js';
import { keys } from '../../shared/store/keys.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { committer, configurationReader, dynamo, exportService, passkeyRepository, tableName, userRepository } from '../../shared/wiring.js';
import { openPasswordHash } from '../../shared/domain/migration/password-seal.js';
import type { SealedPasswordHash } from '../../shared/schemas/migration.js';
import { deliveredMail } from '../support/mail.js';
import { onApi } from '../support/other-api.js';
import { accessTokenOf } from '../support/tokens.js';

let h: Harness;
let source: SignedClient;
let sourceId: string;
const ids: Record<string, string> = {};
let tenantId: string;
/** Carol's authenticator app (second factors, below): the round trip of settings signs her in with it too. */
let carolTotp: Buffer | undefined;

const BCRYPT = { algorithm: 'bcrypt', hash: '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' };
const PASSWORDS = { ann: 'Ann-old-pass-1', bob: 'Bob-old-pass-2', imported: 'U*U' };

const passwordSignIn = (client: SignedClient, USERNAME: string, PASSWORD: string) =>
  client.post<SignInResult>('/sign-in', { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME, PASSWORD } });

/** The file as `npm run admin -- export --seal-key-file KEY` writes it. */
async function exportedWith(sealKey: Buffer): Promise<string> {
  const rows: string[] = [];
  for await (const row of exportService().rows(sourceId, { sealKey })) rows.push(`${JSON.stringify(row)}\n`);
  return rows.join('');
}

async function created(response: Promise<{ status: number; text: string; body: { id: string } }>): Promise<string> {
  const res = await response;
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

beforeAll(async () => {
  h = await startHarness();
  ({ saasId: sourceId } = await h.newSaas());
  source = await h.newKey(sourceId, ['*', 'migration:read', 'migration:write']);
  assert.equal(
    (await source.post('/saas-user-attributes', { attribute_name: 'nickname', display_name: 'Nickname', attribute_type: 'string' })).status,
    201,
  );
  assert.equal((await source.post('/envs', { id: 5, name: 'prod', display_name: 'Production' })).status, 201);
  assert.equal((await source.post('/roles', { role_name: 'editor', display_name: 'Editor' })).status, 201);
  ids.ann = await created(source.post('/users', { email: 'ann@source.example.test', password: PASSWORDS.ann }));
  assert.equal((await source.patch(`/users/${ids.ann}/attributes`, { attributes: { nickname: 'Annie' } })).status, 200);
  ids.bob = await created(source.post('/users', { sign_in_id: 'bob', password: PASSWORDS.bob }));
  // Ann signs in here before the export: her password goes out as this stack's verifier.
  assert.equal((await srpSignIn(source, 'ann@source.example.test', PASSWORDS.ann)).status, 200);
  // One user still on an imported hash: it goes out as it came in.
  const started = await source.post<ImportJob>('/migration/imports', {
    jsonl: JSON.stringify({ type: 'user', external_id: 'old-1', email: 'imported@source.example.test', password_hash: BCRYPT }),
  });
  assert.equal(started.status, 201, started.text);
  await runScheduledWork();
  ids.imported = externalId(sourceId, 'user', 'old-1');
  tenantId = await created(source.post('/tenants', { name: 'Acme', attributes: {}, back_office_staff_email: 'ops@acme.example.test' }));
  assert.equal((await source.post(`/tenants/${tenantId}/users`, { email: 'ann@source.example.test', attributes: {} })).status, 201);
  assert.equal((await source.post(`/tenants/${tenantId}/users/${ids.ann}/envs/5/roles`, { role_names: ['editor'] })).status, 201);
});
afterAll(() => h.close());

interface Target {
  saasId: string;
  target: SignedClient;
}

/** Imports `file` into `saas` (a fresh SaaS when not given) through the API and the scheduled worker; the job's report. */
async function importFile(file: string, body: Record<string, unknown>, saas?: Target): Promise<Target & { job: ImportJob }> {
  const { saasId } = saas ?? (await h.newSaas());
  const target = saas?.target ?? (await h.newKey(saasId, ['*', 'migration:write']));
  const started = await target.post<ImportJob>('/migration/imports', { jsonl: file, ...body });
  assert.equal(started.status, 201, started.text);
  await runScheduledWork();
  const job = (await target.get<ImportJob>(`/migration/imports/${started.body.job_id}`)).body;
  return { saasId, target, job };
}

describe('export', () => {
  const sealKey = randomBytes(32);
  /** As `npm run admin -- export --seal-key-file KEY` writes it. */
  let jsonl: string;
  /** `GET /migration/export`'s answer: it takes no seal key. */
  let bare: { jsonl: string; rows: number; passwords_withheld: number };
  const lineOf = (file: string, userId: string) =>
    file
      .trimEnd()
      .split('\n')
      .findIndex((l) => l.includes(`"external_id":"${userId}"`) && l.includes('"type":"user"')) + 1;

  beforeAll(async () => {
    jsonl = await exportedWith(sealKey);
    const res = await source.get<typeof bare>('/migration/export');
    assert.equal(res.status, 200, res.text);
    bare = res.body;
    assert.equal(bare.jsonl.trimEnd().split('\n').length, bare.rows);
  });

  it('writes the import format, passwords (SRP verifiers or the imported hash) sealed, never a password or a verifier in the clear', async () => {
    const rows = jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const users = rows.filter((row) => row.type === 'user');
    const ann = users.find((row) => row.external_id === ids.ann) as { password_hash: SealedPasswordHash; attributes: object };
    assert.equal(ann.password_hash.algorithm, 'sealed');
    const annHash = openPasswordHash(ann.password_hash, ids.ann as string, sealKey) as { algorithm: string; user_id: string };
    assert.deepEqual([annHash.algorithm, annHash.user_id], ['srp', ids.ann]);
    assert.deepEqual(ann.attributes, { nickname: 'Annie' });
    const imported = users.find((row) => row.external_id === ids.imported) as { password_hash: SealedPasswordHash };
    assert.deepEqual(openPasswordHash(imported.password_hash, ids.imported as string, sealKey), BCRYPT);
    assert.deepEqual(
      rows.find((row) => row.type === 'membership'),
      {
        type: 'membership',
        user: ids.ann,
        tenant: tenantId,
        envs: [{ id: 5, role_names: ['editor'] }],
        attributes: {},
      },
    );
    // Neither file holds a password, a verifier as stored here, or the imported hash.
    for (const id of [ids.ann, ids.bob] as string[]) {
      const verifier = (await userRepository().get(sourceId, id))?.password.verifier;
      assert.ok(verifier && /^[0-9a-f]{64,}$/.test(verifier), id);
      for (const file of [jsonl, bare.jsonl]) assert.ok(!file.toLowerCase().includes(verifier.toLowerCase()), id);
    }
    for (const file of [jsonl, bare.jsonl]) {
      for (const secret of [...Object.values(PASSWORDS), BCRYPT.hash, BCRYPT.hash.slice(-31)]) assert.ok(!file.includes(secret), secret);
    }
    // What a row names comes before it.
    const order = rows.map((row) => row.type);
    assert.ok(order.lastIndexOf('attribute') < order.indexOf('tenant') && order.lastIndexOf('user') < order.indexOf('membership'), order.join());
  });

  it('GET /migration/export takes no seal key: every password stays behind, counted; the users arrive without one and are mailed a link', async () => {
    const users = bare.jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; password_hash?: object })
      .filter((row) => row.type === 'user');
    assert.deepEqual(
      users.map((row) => row.password_hash),
      users.map(() => undefined),
    );
    assert.equal(bare.passwords_withheld, 3);
    const { saasId, target, job } = await importFile(bare.jsonl, { mail_set_password: true });
    assert.equal(job.failed, 0, JSON.stringify(job.errors));
    assert.equal((await passwordSignIn(target, 'ann@source.example.test', PASSWORDS.ann)).status, 401);
    assert.equal((await srpSignIn(target, 'ann@source.example.test', PASSWORDS.ann)).status, 401);
    const mailed = await deliveredMail(h.sesUrl, saasId, 'ann@source.example.test');
    assert.ok(
      mailed.some((mail) => (mail.body.html ?? mail.body.text ?? '').includes(`/login/${saasId}/set-password#`)),
      JSON.stringify(mailed.map((m) => m.body)),
    );
  });

  it('a sealed password opens only with the seal key, and only on its own row: refused by line, nothing of the row written', async () => {
    const annLine = lineOf(jsonl, ids.ann as string);
    const bobLine = lineOf(jsonl, ids.bob as string);
    // Ann's sealed hash on Bob's row: the key is right, the row is not.
    const lines = jsonl.trimEnd().split('\n');
    const annRow = JSON.parse(lines[annLine - 1] as string) as { password_hash: object };
    const moved = lines.map((line, i) => (i === bobLine - 1 ? JSON.stringify({ ...JSON.parse(line), password_hash: annRow.password_hash }) : line));
    for (const [file, body, refused, reason] of [
      [jsonl, {}, [annLine, bobLine], /^password_hash: is sealed; start the job with the seal_key of the export$/],
      [jsonl, { seal_key: randomBytes(32).toString('base64') }, [annLine, bobLine], /^password_hash: does not open with the seal_key/],
      [moved.join('\n'), { seal_key: sealKey.toString('base64') }, [bobLine], /^password_hash: does not open with the seal_key/],
    ] as const) {
      const { saasId, target, job } = await importFile(file, body);
      for (const line of refused) assert.match(job.errors?.find((e) => e.line === line)?.reason ?? '', reason, JSON.stringify(job.errors));
      for (const line of refused) {
        const user = line === annLine ? ids.ann : ids.bob;
        assert.equal((await target.get(`/users/${externalId(saasId, 'user', user as string)}`)).status, 404, `line ${line}`);
      }
    }
  });

  it('round trip: imported into a fresh SaaS, every user signs in there with the old password, then by SRP', async () => {
    const { saasId: targetId, target, job } = await importFile(jsonl, { seal_key: sealKey.toString('base64') });
    assert.equal(job.failed, 0, JSON.stringify(job.errors));

    for (const [name, password] of [
      ['ann@source.example.test', PASSWORDS.ann],
      ['bob', PASSWORDS.bob],
      ['imported@source.example.test', PASSWORDS.imported],
    ]) {
      assert.equal((await passwordSignIn(target, name as string, 'wrong-password')).status, 401, name);
      const first = await passwordSignIn(target, name as string, password as string);
      assert.equal(first.status, 200, `${name}: ${first.text}`);
      assert.equal((await srpSignIn(target, name as string, password as string)).status, 200, name);
    }
    const annHere = externalId(targetId, 'user', ids.ann as string);
    const members = await target.get<{ users: { id: string; envs: { id: number; roles: { role_name: string }[] }[] }[] }>(
      `/tenants/${externalId(targetId, 'tenant', tenantId)}/users`,
    );
    assert.equal(members.status, 200, members.text);
    assert.deepEqual(
      members.body.users.map((u) => [u.id, u.envs.map((env) => [env.id, env.roles.map((r) => r.role_name)])]),
      [[annHere, [[5, ['editor']]]]],
    );
    assert.deepEqual((await target.get<{ attributes: object }>(`/users/${annHere}`)).body.attributes, { nickname: 'Annie' });
  });

  it('`*` and migration:write do not reach it; a new SaaS exports only its own defaults', async () => {
    for (const grants of [['*'], ['*', 'migration:write']]) {
      assert.equal((await (await h.newKey(sourceId, grants)).get('/migration/export')).status, 403, grants.join());
    }
    const other = await h.newSaas(['migration:read']);
    const theirs = await other.client.get<{ jsonl: string }>('/migration/export');
    assert.equal(theirs.status, 200);
    assert.ok(!theirs.body.jsonl.includes('source.example.test'));
    assert.ok(!theirs.body.jsonl.includes(ids.ann as string));
  });
});

describe('second factors', () => {
  const sealKey = randomBytes(32);
  const PASSWORD = 'Carol-old-pass-3';
  const PASSKEY = { credential_id: randomBytes(32).toString('base64url'), public_key: randomBytes(77).toString('base64url') };
  let carol: { id: string; email: string; sign_in_id: string };
  let secret: string;
  let jsonl: string;
  const codeNow = () => totpCodeAt(base32Decode(secret) as Buffer, totpStep(nowSeconds()));

  beforeAll(async () => {
    const made = await source.post<{ id: string; email: string; sign_in_id: string }>('/users', {
      email: 'carol@source.example.test',
      password: PASSWORD,
    });
    assert.equal(made.status, 201, made.text);
    carol = made.body;
    const token = await accessTokenOf(sourceId, carol);
    secret = (await source.post<{ secret_code: string }>(`/users/${carol.id}/mfa/software-token/secret-code`, { access_token: token })).body
      .secret_code;
    assert.equal((await source.put(`/users/${carol.id}/mfa/software-token`, { access_token: token, verification_code: codeNow() })).status, 200);
    carolTotp = base32Decode(secret) as Buffer;
    assert.equal((await source.patch(`/users/${carol.id}/mfa/preference`, { enabled: true, method: 'softwareToken' })).status, 200);
    // A passkey as a registration leaves it (passkeys.test.ts goes through the ceremony itself).
    const passkey = {
      ...PASSKEY,
      id: passkeyId(PASSKEY.credential_id),
      counter: 3,
      transports: ['internal'],
      device_type: 'multiDevice' as const,
      backed_up: true,
      rp_id: '127.0.0.1',
      aaguid: '00000000-0000-0000-0000-000000000000',
      created_at: 1_700_000_000,
      last_used_at: 0,
    };
    assert.ok((await committer().commit(passkeyRepository().addWrite(sourceId, carol.id, passkey))).committed);
    jsonl = await exportedWith(sealKey);
  });

  const importInto = (body: Record<string, unknown>, file = jsonl) => importFile(file, body);

  it('the seed goes out sealed, never in the clear; the passkey with its credential id and public key', () => {
    const row = jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { external_id?: string; mfa?: { totp_secret?: string }; passkeys?: object[] })
      .find((r) => r.external_id === carol.id);
    assert.ok(row?.mfa?.totp_secret?.startsWith('v1.'), JSON.stringify(row?.mfa));
    assert.ok(!jsonl.includes(secret));
    assert.deepEqual(row?.passkeys?.[0], {
      ...PASSKEY,
      counter: 3,
      transports: ['internal'],
      device_type: 'multiDevice',
      backed_up: true,
      rp_id: '127.0.0.1',
      aaguid: '00000000-0000-0000-0000-000000000000',
      created_at: 1_700_000_000,
    });
  });

  it('round trip with the seal key: the same password and the same authenticator app sign in, the passkey is there', async () => {
    const { saasId, target, job } = await importInto({ seal_key: sealKey.toString('base64') });
    assert.equal(job.failed, 0, JSON.stringify(job.errors));
    const asked = await passwordSignIn(target, 'carol@source.example.test', PASSWORD);
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.body.challenge_name, 'SOFTWARE_TOKEN_MFA');
    const wrong = await answerChallenge(
      target,
      'SOFTWARE_TOKEN_MFA',
      { USERNAME: 'carol@source.example.test', SOFTWARE_TOKEN_MFA_CODE: '000000' },
      asked.body.session,
    );
    assert.notEqual(wrong.status, 200);
    const again = await passwordSignIn(target, 'carol@source.example.test', PASSWORD);
    const answered = await answerChallenge(
      target,
      'SOFTWARE_TOKEN_MFA',
      { USERNAME: 'carol@source.example.test', SOFTWARE_TOKEN_MFA_CODE: codeNow() },
      again.body.session,
    );
    assert.equal(answered.status, 200, answered.text);
    assert.ok(answered.body.credentials?.access_token, answered.text);
    const carolHere = externalId(saasId, 'user', carol.id);
    const passkeys = await target.get<{ passkeys: { id: string }[] }>(`/users/${carolHere}/passkeys`);
    assert.equal(passkeys.status, 200, passkeys.text);
    assert.deepEqual(
      passkeys.body.passkeys.map((p) => p.id),
      [passkeyId(PASSKEY.credential_id)],
    );
    const stored = (
      await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.passkey(saasId, carolHere, passkeyId(PASSKEY.credential_id)) }))
    ).Item;
    assert.equal(stored?.public_key, PASSKEY.public_key);
    // The operator's key is kept no longer than the job.
    const jobItem = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.importJob(saasId, job.job_id) }))).Item;
    assert.equal(jobItem?.sealed_key, undefined);
  });

  it('without the seal key, or with another, the row is refused by line and nothing of it arrives; a bad key is a 400', async () => {
    const line =
      jsonl
        .trimEnd()
        .split('\n')
        .findIndex((l) => l.includes(carol.id) && l.includes('"type":"user"')) + 1;
    // Her password is sealed too, and refused first: the seed's own refusals are seen on her row without it.
    const withoutPassword = jsonl
      .split('\n')
      .map((l, i) => (i === line - 1 ? JSON.stringify({ ...JSON.parse(l), password_hash: undefined }) : l))
      .join('\n');
    for (const [body, file, reason] of [
      [{}, jsonl, /^password_hash: is sealed; start the job with the seal_key/],
      [{}, withoutPassword, /mfa\.totp_secret: is sealed; start the job with the seal_key/],
      [{ seal_key: randomBytes(32).toString('base64url') }, withoutPassword, /mfa\.totp_secret: does not open/],
    ] as const) {
      const { saasId, target, job } = await importInto(body, file);
      assert.deepEqual(
        job.errors?.filter((e) => e.line === line).map((e) => e.line),
        [line],
        JSON.stringify(job.errors),
      );
      assert.match(job.errors?.find((e) => e.line === line)?.reason ?? '', reason);
      assert.equal((await target.get(`/users/${externalId(saasId, 'user', carol.id)}`)).status, 404);
    }
    const { client } = await h.newSaas(['migration:write']);
    const bad = await client.post<{ type: string; data: { field?: string } }>('/migration/imports', { jsonl, seal_key: 'c2hvcnQ=' });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.data.field, 'seal_key');
  });
});

describe('settings, the pricing catalogue and open invitations', () => {
  const sealKey = randomBytes(32);
  const GOOGLE_SECRET = 'GOCSPX-the-client-secret-4242';
  const SETTINGS = {
    'sign-in-settings': {
      password_policy: {
        minimum_length: 14,
        is_require_lowercase: false,
        is_require_numbers: false,
        is_require_symbols: false,
        is_require_uppercase: false,
        temporary_password_validity_days: 3,
      },
      password_length_first: { enable: true },
      passkeys: { enable: true },
      self_regist: { enable: true },
      refresh_token_validity: { value: 7, unit: 'days' },
      screen_session: { idle_minutes: 30, absolute_minutes: 240 },
    },
    'login-theme': { primary_color: '#112233', mode: 'dark', corner_radius: 4 },
    'customize-pages': { sign_in_page: { html_contents: '<p>Welcome back</p>', is_terms_of_service: true, is_privacy_policy: false } },
    'customize-page-settings': {
      icon: '',
      favicon: '',
      title: 'Acme sign-in',
      terms_of_service_url: 'https://acme.example.test/terms',
      privacy_policy_url: '',
      tag_manager_container_id: 'GTM-ACME1',
    },
    'notification-messages': { invite_tenant_user: { subject: 'Join Acme', message: 'Open {####} to join.' } },
    'auth-info': { callback_url: 'https://app.acme.example.test/callback' },
  } as const;
  /** Each setting as its GET answers it, on the SaaS of `client`. */
  const readSettings = async (client: SignedClient) => {
    const read: Record<string, unknown> = {};
    for (const path of [...Object.keys(SETTINGS), 'identity-providers']) {
      const res = await client.get<Record<string, unknown>>(`/${path}`);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      // Where the old and new SaaS's sign-in endpoints are: each its own.
      const { identity_provider_configuration: _own, ...body } = res.body;
      read[path] = body;
    }
    return read;
  };
  const catalogueOf = async (client: SignedClient) => {
    const pricing = onApi(client, 'pricing');
    const lists: Record<string, unknown> = {};
    for (const path of ['/tax-rates', '/metering/units', '/units', '/menus', '/plans']) lists[path] = (await pricing.get(path)).body;
    return lists;
  };
  let jsonl: string;
  let planId: string;
  let invitationId: string;
  let sourceSettings: Record<string, unknown>;

  beforeAll(async () => {
    const paths = { 'login-theme': 'patch', 'customize-pages': 'patch', 'customize-page-settings': 'patch' } as Record<string, 'patch'>;
    for (const [path, body] of Object.entries(SETTINGS)) {
      const res = await source[paths[path] ?? 'put'](`/${path}`, body);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    const google = await source.put('/identity-providers', {
      provider: 'Google',
      identity_provider_props: { application_id: 'acme.apps.example.test', application_secret: GOOGLE_SECRET, approval_scope: 'openid email' },
    });
    assert.equal(google.status, 200, google.text);
    sourceSettings = await readSettings(source);

    const pricing = onApi(source, 'pricing');
    const made = async (path: string, body: object) => {
      const res = await pricing.post<{ id: string }>(path, body);
      assert.equal(res.status, 201, `${path}: ${res.text}`);
      return res.body.id;
    };
    await made('/tax-rates', { name: 'jp', display_name: 'JCT', percentage: 10, inclusive: false, country: 'JP', description: '' });
    const seat = await made('/units', {
      name: 'seat',
      display_name: 'Seat',
      description: '',
      type: 'fixed',
      currency: 'JPY',
      unit_amount: 1000,
      recurring_interval: 'month',
    });
    const calls = await made('/units', {
      name: 'calls',
      display_name: 'API calls',
      description: '',
      type: 'tiered_usage',
      currency: 'JPY',
      upper_count: 0,
      metering_unit_name: 'api_calls',
      tiers: [
        { up_to: 1000, unit_amount: 0, flat_amount: 0, inf: false },
        { up_to: 0, unit_amount: 2, flat_amount: 0, inf: true },
      ],
    });
    const menu = await made('/menus', { name: 'basic', display_name: 'Basic', description: '', unit_ids: [seat, calls] });
    planId = await made('/plans', { name: 'standard', display_name: 'Standard', description: '', menu_ids: [menu] });
    assert.equal((await pricing.patch('/plans/used', { plan_ids: [planId] })).status, 200);
    const planned = await source.put(`/tenants/${tenantId}/plans`, { next_plan_id: planId });
    assert.equal(planned.status, 200, planned.text);
    assert.equal((await source.get<{ plan_id?: string }>(`/tenants/${tenantId}`)).body.plan_id, planId);

    const token = await accessTokenOf(sourceId, { id: ids.ann as string, email: 'ann@source.example.test', sign_in_id: '' });
    const invited = await source.post<{ id: string }>(`/tenants/${tenantId}/invitations`, {
      email: 'dan@invitee.example.test',
      access_token: token,
      envs: [{ id: 5, role_names: ['editor'] }],
    });
    assert.equal(invited.status, 201, invited.text);
    invitationId = invited.body.id;

    jsonl = await exportedWith(sealKey);
  });

  const importInto = (file: string, body: Record<string, unknown> = { seal_key: sealKey.toString('base64') }, saas?: Target) =>
    importFile(file, body, saas);

  it('writes the settings, the catalogue and the invitation as rows, the provider secret sealed', () => {
    const rows = jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; name?: string; value?: { identity_provider_props?: { application_secret?: string } } });
    const types = rows.map((row) => row.type);
    for (const type of ['setting', 'tax_rate', 'metering_unit', 'pricing_unit', 'pricing_menu', 'pricing_plan', 'invitation']) {
      assert.ok(types.includes(type), type);
    }
    assert.deepEqual(
      rows
        .filter((row) => row.type === 'setting')
        .map((row) => row.name)
        .sort(),
      [...Object.keys(SETTINGS), 'identity-providers'].sort(),
    );
    const google = rows.find((row) => row.name === 'identity-providers');
    assert.ok(google?.value?.identity_provider_props?.application_secret?.startsWith('v1.'), JSON.stringify(google));
    assert.ok(!jsonl.includes(GOOGLE_SECRET) && !jsonl.includes('4242'));
    // What a row names comes before it.
    assert.ok(types.indexOf('pricing_plan') < types.indexOf('tenant') && types.lastIndexOf('membership') < types.indexOf('invitation'), types.join());
  });

  it('round trip: every setting, the catalogue, the plan and the invitation arrive; users sign in with the same password and app', async () => {
    const { saasId, target, job } = await importInto(jsonl);
    assert.equal(job.failed, 0, JSON.stringify(job.errors));
    assert.deepEqual(await readSettings(target), sourceSettings);
    assert.equal(await configurationReader().providerSecret(saasId), GOOGLE_SECRET);
    assert.deepEqual(await catalogueOf(target), await catalogueOf(source));
    const tenantHere = externalId(saasId, 'tenant', tenantId);
    assert.equal((await target.get<{ plan_id?: string }>(`/tenants/${tenantHere}`)).body.plan_id, planId);
    const invitations = await target.get<{
      invitations: { id: string; email: string; status: string; envs: { id: number; roles: { role_name: string }[] }[] }[];
    }>(`/tenants/${tenantHere}/invitations`);
    assert.equal(invitations.status, 200, invitations.text);
    assert.deepEqual(
      invitations.body.invitations.map((i) => [i.id, i.email, i.status, i.envs.map((env) => [env.id, env.roles.map((r) => r.role_name)])]),
      [[invitationId, 'dan@invitee.example.test', 'pending', [[5, ['editor']]]]],
    );
    const found = await target.get<{ is_valid: boolean }>(`/invitations/${invitationId}/validity`);
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.is_valid, true);
    // Users still sign in as before: a password, then the same authenticator app.
    assert.equal((await srpSignIn(target, 'ann@source.example.test', PASSWORDS.ann)).status, 401);
    assert.equal((await passwordSignIn(target, 'ann@source.example.test', PASSWORDS.ann)).status, 200);
    const carol = await passwordSignIn(target, 'carol@source.example.test', 'Carol-old-pass-3');
    assert.equal(carol.body.challenge_name, 'SOFTWARE_TOKEN_MFA', carol.text);
    const answered = await answerChallenge(
      target,
      'SOFTWARE_TOKEN_MFA',
      { USERNAME: 'carol@source.example.test', SOFTWARE_TOKEN_MFA_CODE: totpCodeAt(carolTotp as Buffer, totpStep(nowSeconds())) },
      carol.body.session,
    );
    assert.ok(answered.body.credentials?.access_token, answered.text);
  });

  it('a re-run changes nothing, not even a setting changed since; the provider row needs the seal key', async () => {
    const first = await importInto(jsonl);
    assert.equal(first.job.failed, 0, JSON.stringify(first.job.errors));
    assert.equal((await first.target.patch('/login-theme', { primary_color: '#445566' })).status, 200);
    const again = await importInto(jsonl, { seal_key: sealKey.toString('base64') }, first);
    assert.equal(again.job.failed, 0, JSON.stringify(again.job.errors));
    assert.equal(again.job.imported, 0);
    assert.equal((await first.target.get<{ primary_color: string }>('/login-theme')).body.primary_color, '#445566');

    const line =
      jsonl
        .trimEnd()
        .split('\n')
        .findIndex((l) => l.includes('"name":"identity-providers"')) + 1;
    const { target, job } = await importInto(jsonl, {});
    assert.match(job.errors?.find((e) => e.line === line)?.reason ?? '', /application_secret: is sealed; start the job with the seal_key/);
    assert.equal((await target.get<{ google: { application_id: string } }>('/identity-providers')).body.google.application_id, '');
    assert.equal((await target.get<{ primary_color: string }>('/login-theme')).body.primary_color, '#112233');
    const other = await importInto(jsonl, { seal_key: randomBytes(32).toString('base64') });
    assert.match(other.job.errors?.find((e) => e.line === line)?.reason ?? '', /application_secret: does not open with the seal_key/);
  });

  it("sets only what the file names, keeps the target's own choices, and reports each bad row by line", async () => {
    const { saasId } = await h.newSaas();
    const target = await h.newKey(saasId, ['*', 'migration:write']);
    assert.equal((await target.put('/sign-in-settings', { password_breach_range: { enable: true }, passkeys: { enable: true } })).status, 200);
    const file = [
      { type: 'setting', name: 'sign-in-settings', value: { password_length_first: { enable: true } } },
      { type: 'setting', name: 'login-theme', value: { primary_color: 'red' } },
      { type: 'setting', name: 'scim-tokens', value: {} },
      { type: 'setting', name: 'sign-in-settings', value: { mfa_configuration: { mfa_configuration: 'off' } } },
      { type: 'pricing_menu', id: randomUUID(), item: { name: 'm', display_name: 'M', description: '', unit_ids: [randomUUID()] } },
      { type: 'tenant', external_id: 't1', name: 'T1', plan_id: randomUUID() },
      { type: 'tenant', external_id: 't2', name: 'T2' },
      { type: 'invitation', id: randomUUID(), tenant: 't2', email: 'late@x.example.test', envs: [], created_at: 1, expired_at: 2 },
      { type: 'invitation', id: randomUUID(), tenant: 'nobody', email: 'x@x.example.test', envs: [], created_at: 1, expired_at: nowSeconds() + 3600 },
    ]
      .map((row) => JSON.stringify(row))
      .join('\n');
    const { job } = await importInto(file, {}, { saasId, target });
    assert.deepEqual(
      job.errors?.map((e) => e.line),
      [2, 3, 4, 5, 6, 8, 9],
      JSON.stringify(job.errors),
    );
    const reasons = Object.fromEntries((job.errors ?? []).map((e) => [e.line, e.reason]));
    assert.match(reasons[2] as string, /value\.primary_color/);
    assert.match(reasons[3] as string, /^name: /);
    assert.match(reasons[4] as string, /mfa_configuration: cannot be changed/);
    assert.match(reasons[5] as string, /unit_ids\[0\]/);
    assert.match(reasons[6] as string, /plan_id: no plan/);
    assert.match(reasons[8] as string, /expired_at: the invitation expired/);
    assert.match(reasons[9] as string, /tenant: no tenant row nobody/);
    const settings = (
      await target.get<{ password_length_first: { enable: boolean }; password_breach_range: { enable: boolean }; passkeys: { enable: boolean } }>(
        '/sign-in-settings',
      )
    ).body;
    assert.deepEqual(
      [settings.password_length_first, settings.password_breach_range, settings.passkeys],
      [{ enable: true }, { enable: true }, { enable: true }],
    );
  });
});
