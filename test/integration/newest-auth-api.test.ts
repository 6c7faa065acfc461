/**
 * What the newest Auth API added (issue 25), through the local HTTP API over DynamoDB Local: the sign-in-ID
 * lookup, PKCE-bound temporary codes and their exchange, with every refusal, and nothing across SaaS; the
 * caller's X-SaaSus-Trace-Id in the logs and the answer.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { setLogLevel } from '../../shared/log.js';
import type { Credentials } from '../../shared/schemas/sign-in.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../support/harness.js';
import { srpSignIn } from '../support/sign-in.js';

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
