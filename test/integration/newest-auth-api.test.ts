/**
 * What the newest Auth API added (issue 25), through the local HTTP API over DynamoDB Local: the sign-in-ID
 * lookup, PKCE-bound temporary codes and their exchange, with every refusal, and nothing across SaaS; the
 * caller's X-SaaSus-Trace-Id in the logs and the answer; the SaaS's own single-tenant templates.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { setLogLevel } from '../../shared/log.js';
import type { Credentials } from '../../shared/schemas/sign-in.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

let h: Harness;
let api: SignedClient;
let other: SignedClient;

const PASSWORD = 'Correct-horse-9';

beforeAll(async () => {
  h = await startHarness();
  api = (await h.newSaas()).client;
  other = (await h.newSaas()).client;
});
afterAll(async () => {
  resetClockForTests();
  await h.close();
});
afterEach(() => resetClockForTests());

/** A new user, signed in: their credentials. */
async function signedIn(client = api): Promise<Credentials> {
  const created = await client.post<{ email: string }>('/users', { email: `pkce-${randomUUID().slice(0, 8)}@example.test`, password: PASSWORD });
  assert.equal(created.status, 201, created.text);
  const res = await srpSignIn(client, created.body.email, PASSWORD);
  assert.equal(res.status, 200, res.text);
  return res.body.credentials as Credentials;
}

const newVerifier = () => randomBytes(32).toString('base64url');
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

async function saveWithChallenge(credentials: Credentials, verifier: string, client = api): Promise<string> {
  const saved = await client.post<{ code: string }>('/credentials', {
    ...credentials,
    code_challenge: challengeOf(verifier),
    code_challenge_method: 'S256',
  });
  assert.equal(saved.status, 201, saved.text);
  return saved.body.code;
}

const exchange = (code: string, verifier: string, client = api) =>
  client.post<Credentials>('/credentials/exchange', { auth_flow: 'tempCodeAuth', code, code_verifier: verifier });

describe('GET /userinfo/search/sign-in-id', () => {
  it('finds a user by sign-in ID in any case, with their tenants; 404 for nobody and for an e-mail address', async () => {
    const created = await api.post<{ id: string }>('/users', { sign_in_id: 'Finder_01', password: PASSWORD });
    assert.equal(created.status, 201, created.text);
    const tenant = await api.post<{ id: string }>('/tenants', { name: 'Lookup Co', attributes: {}, back_office_staff_email: 'staff@example.test' });
    assert.equal(tenant.status, 201, tenant.text);
    assert.equal((await api.post(`/tenants/${tenant.body.id}/users`, { email: '', sign_in_id: 'finder_01', attributes: {} })).status, 201);
    const found = await api.get<{ id: string; sign_in_id: string; tenants: { id: string }[] }>('/userinfo/search/sign-in-id?sign_in_id=FINDER_01');
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.id, created.body.id);
    assert.equal(found.body.sign_in_id, 'Finder_01');
    assert.deepEqual(
      found.body.tenants.map((t) => t.id),
      [tenant.body.id],
    );
    await expectError(api.get('/userinfo/search/sign-in-id?sign_in_id=nobody_here'), 404, 'user_not_found', 'sign_in_id');
    const byMail = await api.post<{ email: string }>('/users', { email: 'mailer@example.test', password: PASSWORD });
    assert.equal(byMail.status, 201);
    await expectError(api.get('/userinfo/search/sign-in-id?sign_in_id=mailer%40example.test'), 404, 'user_not_found', 'sign_in_id');
    await expectError(api.get('/userinfo/search/sign-in-id'), 400, 'invalid_parameter');
  });

  it('needs user:read, and never finds a user of another SaaS', async () => {
    const created = await other.post<{ id: string }>('/users', { sign_in_id: 'elsewhere_01', password: PASSWORD });
    assert.equal(created.status, 201, created.text);
    assert.equal((await other.get('/userinfo/search/sign-in-id?sign_in_id=elsewhere_01')).status, 200);
    await expectError(api.get('/userinfo/search/sign-in-id?sign_in_id=elsewhere_01'), 404, 'user_not_found', 'sign_in_id');
    const { saasId } = await h.newSaas();
    const configOnly = await h.newKey(saasId, ['config:read']);
    assert.equal((await configOnly.get('/userinfo/search/sign-in-id?sign_in_id=elsewhere_01')).status, 403);
  });
});

describe('PKCE temporary codes (POST /credentials with a challenge, POST /credentials/exchange)', () => {
  it('trades the code with its verifier for the saved credentials, once', async () => {
    const credentials = await signedIn();
    const verifier = newVerifier();
    const code = await saveWithChallenge(credentials, verifier);
    const back = await exchange(code, verifier);
    assert.equal(back.status, 200, back.text);
    assert.deepEqual(back.body, credentials);
    await expectError(exchange(code, verifier), 404, 'code_not_found', 'code');
  });

  it('refuses a wrong verifier with 401, and the code is used up by it', async () => {
    const verifier = newVerifier();
    const code = await saveWithChallenge(await signedIn(), verifier);
    await expectError(exchange(code, newVerifier()), 401, 'invalid_code_verifier', 'code_verifier');
    await expectError(exchange(code, verifier), 404, 'code_not_found', 'code');
  });

  it('lives 10 seconds: at second 11 the code is refused', async () => {
    const credentials = await signedIn();
    const verifier = newVerifier();
    const start = Date.now();
    setClockForTests(start);
    const live = await saveWithChallenge(credentials, verifier);
    setClockForTests(start + 10_000);
    assert.equal((await exchange(live, verifier)).status, 200);
    setClockForTests(start);
    const late = await saveWithChallenge(credentials, verifier);
    setClockForTests(start + 11_000);
    await expectError(exchange(late, verifier), 404, 'code_not_found', 'code');
  });

  it('never answers a challenge-bound code at GET /credentials, nor a challenge-less one at the exchange', async () => {
    const credentials = await signedIn();
    const verifier = newVerifier();
    const bound = await saveWithChallenge(credentials, verifier);
    await expectError(api.get(`/credentials?code=${bound}`), 404, 'code_not_found', 'code');
    await expectError(exchange(bound, verifier), 404, 'code_not_found', 'code');

    const plain = await api.post<{ code: string }>('/credentials', credentials);
    assert.equal(plain.status, 201, plain.text);
    await expectError(exchange(plain.body.code, verifier), 404, 'code_not_found', 'code');
    await expectError(api.get(`/credentials?code=${plain.body.code}`), 404, 'code_not_found', 'code');
  });

  it('refuses plain, a lone challenge or method, and malformed exchanges, saving nothing', async () => {
    const credentials = await signedIn();
    const verifier = newVerifier();
    await expectError(
      api.post('/credentials', { ...credentials, code_challenge: verifier.slice(0, 43), code_challenge_method: 'plain' }),
      400,
      'unsupported_code_challenge_method',
      'code_challenge_method',
    );
    await expectError(
      api.post('/credentials', { ...credentials, code_challenge: challengeOf(verifier) }),
      400,
      'invalid_parameter',
      'code_challenge_method',
    );
    await expectError(api.post('/credentials', { ...credentials, code_challenge_method: 'S256' }), 400, 'invalid_parameter', 'code_challenge');
    await expectError(api.post('/credentials', { ...credentials, code_challenge: 'short', code_challenge_method: 'S256' }), 400, 'invalid_parameter');
    // Empty strings, as SDKs without optional fields send them, are no challenge: the code is a plain one.
    const blank = await api.post<{ code: string }>('/credentials', { ...credentials, code_challenge: '', code_challenge_method: '' });
    assert.equal(blank.status, 201, blank.text);
    assert.equal((await api.get(`/credentials?code=${blank.body.code}`)).status, 200);
    const code = await saveWithChallenge(credentials, verifier);
    for (const body of [
      { auth_flow: 'refreshTokenAuth', code, code_verifier: verifier },
      { auth_flow: 'tempCodeAuth', code: 'not-a-uuid', code_verifier: verifier },
      { auth_flow: 'tempCodeAuth', code, code_verifier: 'too-short' },
      { auth_flow: 'tempCodeAuth', code },
    ]) {
      await expectError(api.post('/credentials/exchange', body), 400, 'invalid_parameter');
    }
    // None of the refused requests touched the code.
    assert.equal((await exchange(code, verifier)).status, 200);
  });

  it('a code of one SaaS is unknown to another, and stays usable where it was saved', async () => {
    const verifier = newVerifier();
    const code = await saveWithChallenge(await signedIn(), verifier);
    await expectError(exchange(code, verifier, other), 404, 'code_not_found', 'code');
    assert.equal((await exchange(code, verifier)).status, 200);
    // Tokens of one SaaS are not saved by another, challenge or not.
    const foreign = await signedIn(other);
    const refused = await api.post('/credentials', { ...foreign, code_challenge: challengeOf(verifier), code_challenge_method: 'S256' });
    assert.equal(refused.status, 401, refused.text);
  });
});

describe('X-SaaSus-Trace-Id', () => {
  /** The log lines written while `run` runs (the logger writes JSON lines to stdout). */
  async function logged(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (!text.startsWith('{"level"')) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
      chunks.push(text);
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof process.stdout.write;
    setLogLevel('debug');
    try {
      await run();
    } finally {
      setLogLevel('silent');
      process.stdout.write = write;
    }
    return chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('is logged as the request’s trace id and echoed, on answers and refusals alike', async () => {
    const traceId = `trace-${randomUUID()}`;
    const refusedTrace = `refused-${randomUUID()}`;
    let ok = await api.get('/roles');
    let refused = ok;
    const lines = await logged(async () => {
      ok = await api.get('/roles', { headers: { 'X-SaaSus-Trace-Id': traceId } });
      refused = await api.get('/users/nobody', { headers: { 'x-saasus-trace-id': refusedTrace } });
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('x-saasus-trace-id'), traceId);
    assert.equal(refused.status, 404);
    assert.equal(refused.headers.get('x-saasus-trace-id'), refusedTrace);
    const answered = lines.filter((l) => l.message === 'request answered');
    assert.deepEqual(
      answered.map((l) => [l.operation, l.traceId]),
      [
        ['getRoles', traceId],
        ['getSaasUser', refusedTrace],
      ],
    );
    assert.ok(
      answered.every((l) => typeof l.requestId === 'string' && l.requestId !== l.traceId),
      'the request id stays the service’s own',
    );
  });

  it('is ignored when malformed: neither logged nor echoed, and the request is answered as without it', async () => {
    for (const bad of ['has space', 'x'.repeat(129), 'caf\u00e9', '-leading-dash', '"quoted"', 'a,b']) {
      let res = await api.get('/roles');
      const lines = await logged(async () => {
        res = await api.get('/roles', { headers: { 'X-SaaSus-Trace-Id': bad } });
      });
      assert.equal(res.status, 200, bad);
      assert.equal(res.headers.get('x-saasus-trace-id'), null, bad);
      assert.ok(
        lines.every((l) => !('traceId' in l)),
        bad,
      );
    }
    const bare = await api.get('/roles');
    assert.equal(bare.headers.get('x-saasus-trace-id'), null);
  });

  it('trusts nothing else: a trace id does not stand in for the signature', async () => {
    const res = await fetch(`${h.api.baseUrl}/roles`, { headers: { 'X-SaaSus-Trace-Id': 'trace-1' } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('x-saasus-trace-id'), 'trace-1');
  });
});

describe('PATCH /single-tenant/settings with the SaaS’s own templates', () => {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const CFN = 'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  Bucket:\n    Type: AWS::S3::Bucket\n';
  const DDL = 'CREATE TABLE notes (id INT PRIMARY KEY, body TEXT); -- ünïcode kept\n';

  interface Settings {
    role_external_id: string;
    stack_template_url: string;
    cloudformation_template_url: string;
    ddl_template_url: string;
  }
  const settingsOf = async (client: SignedClient) => (await client.get<Settings>('/single-tenant/settings')).body;
  const templateAt = (client: SignedClient) => async () => {
    const link = (await client.get<{ link: string }>('/single-tenant/cloudformation-launch-stack-link')).body.link;
    return new URLSearchParams(new URL(link).hash.split('?')[1]).get('templateURL') as string;
  };

  it('keeps both templates and the external id as the SDKs send them, serves them back, and the launch link uses the SaaS’s template', async () => {
    const { client } = await h.newSaas();
    const before = await settingsOf(client);
    assert.equal(before.ddl_template_url, '');
    assert.equal(before.cloudformation_template_url, before.stack_template_url);
    const patched = await client.patch('/single-tenant/settings', {
      enabled: false,
      role_arn: '',
      cloudformation_template: b64(CFN),
      ddl_template: b64(DDL),
      role_external_id: '1234567890',
    });
    assert.equal(patched.status, 200, patched.text);
    const after = await settingsOf(client);
    assert.equal(after.role_external_id, '1234567890');
    assert.notEqual(after.cloudformation_template_url, after.stack_template_url);
    for (const [url, text] of [
      [after.cloudformation_template_url, CFN],
      [after.ddl_template_url, DDL],
    ] as const) {
      const res = await fetch(url);
      assert.equal(res.status, 200, url);
      assert.equal(await res.text(), text);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      assert.equal(res.headers.get('content-disposition'), 'attachment');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    }
    assert.equal(await (await fetch(await templateAt(client)())).text(), CFN, 'the launch-stack link opens the SaaS’s own template');
    // The role template is still served, with the external id as given.
    const role = (await (await fetch(after.stack_template_url)).json()) as {
      Resources: { CrossAccountRole: { Properties: { AssumeRolePolicyDocument: { Statement: { Condition: unknown }[] } } } };
    };
    assert.deepEqual(role.Resources.CrossAccountRole.Properties.AssumeRolePolicyDocument.Statement[0]?.Condition, {
      StringEquals: { 'sts:ExternalId': '1234567890' },
    });
    // Empty strings, as SDKs without optional fields send them, change nothing.
    assert.equal(
      (await client.patch('/single-tenant/settings', { cloudformation_template: '', ddl_template: '', role_external_id: '' })).status,
      200,
    );
    const again = await settingsOf(client);
    assert.equal(again.role_external_id, '1234567890');
    assert.equal(await (await fetch(again.ddl_template_url)).text(), DDL);
    // A new template replaces the old one.
    assert.equal((await client.patch('/single-tenant/settings', { ddl_template: b64('DROP TABLE notes;') })).status, 200);
    assert.equal(await (await fetch((await settingsOf(client)).ddl_template_url)).text(), 'DROP TABLE notes;');
  });

  it('refuses templates over the size cap, not base64 or not text, and changes nothing', async () => {
    const { client } = await h.newSaas();
    assert.equal((await client.patch('/single-tenant/settings', { ddl_template: b64(DDL), role_external_id: 'kept-id' })).status, 200);
    const before = await settingsOf(client);
    await expectError(
      client.patch('/single-tenant/settings', { cloudformation_template: b64('#'.repeat(51_201)), role_external_id: 'other-id' }),
      400,
      'template_too_large',
      'cloudformation_template',
    );
    await expectError(client.patch('/single-tenant/settings', { ddl_template: b64('-'.repeat(65_537)) }), 400, 'template_too_large', 'ddl_template');
    await expectError(client.patch('/single-tenant/settings', { ddl_template: 'not base64!' }), 400, 'invalid_parameter', 'ddl_template');
    await expectError(
      client.patch('/single-tenant/settings', { ddl_template: Buffer.from([0xff, 0xfe, 0x00]).toString('base64') }),
      400,
      'invalid_parameter',
      'ddl_template',
    );
    await expectError(client.patch('/single-tenant/settings', { cloudformation_template: 'A'.repeat(70_004) }), 400, 'invalid_parameter');
    assert.equal(
      (await client.patch('/single-tenant/settings', { cloudformation_template: b64('#'.repeat(51_200)) })).status,
      200,
      'the cap itself is kept',
    );
    const after = await settingsOf(client);
    assert.equal(after.role_external_id, 'kept-id');
    assert.equal(await (await fetch(after.ddl_template_url)).text(), DDL);
    assert.equal(before.cloudformation_template_url, before.stack_template_url);
  });

  it('a template URL opens only its own SaaS’s template, and only signed and in time', async () => {
    const mine = await h.newSaas();
    const theirs = await h.newSaas();
    assert.equal((await mine.client.patch('/single-tenant/settings', { ddl_template: b64('SELECT 1;') })).status, 200);
    assert.equal((await theirs.client.patch('/single-tenant/settings', { ddl_template: b64('SELECT 2;') })).status, 200);
    const url = new URL((await settingsOf(mine.client)).ddl_template_url);
    assert.equal(await (await fetch(url)).text(), 'SELECT 1;');
    const moved = new URL(url);
    moved.searchParams.set('saas_id', theirs.saasId);
    assert.equal((await fetch(moved)).status, 404);
    // The signature names the template: a DDL URL does not open the CloudFormation template, nor the role template.
    for (const template of ['cloudformation', null]) {
      const other = new URL(url);
      if (template) other.searchParams.set('template', template);
      else other.searchParams.delete('template');
      assert.equal((await fetch(other)).status, 404, String(template));
    }
    // A SaaS without a DDL template has no URL for one, and a forged one opens nothing.
    const none = await h.newSaas();
    assert.equal((await settingsOf(none.client)).ddl_template_url, '');
    const forged = new URL((await settingsOf(none.client)).stack_template_url);
    forged.searchParams.set('template', 'ddl');
    assert.equal((await fetch(forged)).status, 404);
    setClockForTests(Date.now() + 2 * 3600 * 1000);
    assert.equal((await fetch(url)).status, 404);
    resetClockForTests();
    assert.equal((await fetch(url)).status, 200);
  });
});
