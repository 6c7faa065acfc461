/**
 * The request pipeline end to end, over HTTP through the local server and the Lambda handlers: signature
 * rules, permissions, error shape, routing, body limits.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { SignedClient } from '../../client/signed-fetch.js';
import { revokeApiKey } from '../../shared/domain/accounts/accounts.js';
import { signatureTime } from '../../shared/http/signature.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let saas: Awaited<ReturnType<Harness['newSaas']>>;

beforeAll(async () => {
  h = await startHarness();
  saas = await h.newSaas(['*']);
});
afterAll(() => h.close());

function assertErrorShape(body: unknown, type: string): void {
  const error = body as { type: unknown; message: string; data: unknown };
  assert.equal(error.type, type);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.equal(typeof error.data, 'object');
  assert.notEqual(error.data, null);
}

/** Signs by hand, the way an SDK builds the string, so the test does not share the client's code path. */
async function rawSigned(
  method: string,
  pathAndQuery: string,
  body: string | undefined,
  opts: { saasId?: string; apiKey?: string; secret?: string; host?: string; at?: Date } = {},
) {
  const url = new URL(h.api.baseUrl + pathAndQuery);
  const host = opts.host ?? url.host;
  const apiKey = opts.apiKey ?? saas.apiKey;
  const message = signatureTime(opts.at ?? new Date()) + apiKey + method + host + url.pathname + url.search + (body ?? '');
  const sig = createHmac('sha256', opts.secret ?? saas.secret)
    .update(message)
    .digest('hex');
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `SAASUSSIGV1 Sig=${sig}, SaaSID=${opts.saasId ?? saas.saasId}, APIKey=${apiKey}`,
      'content-type': 'application/json',
    },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

describe('signature', () => {
  it('accepts a GET signed with a query string and the port in the host', async () => {
    assert.match(new URL(h.api.baseUrl).host, /:\d+$/);
    const res = await rawSigned('GET', '/roles?limit=10&name=a%20b+c', undefined);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { roles: [] });
  });

  it('accepts a JSON body exactly as sent, whatever its spacing', async () => {
    const body = '{"role_name": "spaced",  "display_name": "With spaces"}';
    const res = await rawSigned('POST', '/roles', body);
    assert.equal(res.status, 201);
    assert.deepEqual(res.body, { role_name: 'spaced', display_name: 'With spaces' });
  });

  it('accepts a time two minutes off, refuses ten minutes off', async () => {
    assert.equal((await rawSigned('GET', '/roles', undefined, { at: new Date(Date.now() - 2 * 60_000) })).status, 200);
    assert.equal((await rawSigned('GET', '/roles', undefined, { at: new Date(Date.now() + 2 * 60_000) })).status, 200);
    const old = await rawSigned('GET', '/roles', undefined, { at: new Date(Date.now() - 10 * 60_000) });
    assert.equal(old.status, 401);
    assertErrorShape(old.body, 'invalid_signature');
  });

  it('refuses a signature over another host, path, query or body', async () => {
    const wrongHost = await rawSigned('GET', '/roles', undefined, { host: 'example.com' });
    assert.equal(wrongHost.status, 401);
    // Signed for one body, sent with another.
    const url = new URL(`${h.api.baseUrl}/roles`);
    const signedBody = '{"role_name":"a","display_name":"A"}';
    const message = signatureTime(new Date()) + saas.apiKey + 'POST' + url.host + url.pathname + signedBody;
    const sig = createHmac('sha256', saas.secret).update(message).digest('hex');
    const tampered = await fetch(url, {
      method: 'POST',
      headers: { authorization: `SAASUSSIGV1 Sig=${sig}, SaaSID=${saas.saasId}, APIKey=${saas.apiKey}` },
      body: '{"role_name":"b","display_name":"A"}',
    });
    assert.equal(tampered.status, 401);
    const roles = await saas.client.get<{ roles: { role_name: string }[] }>('/roles');
    assert.ok(!roles.body.roles.some((r) => r.role_name === 'b'), 'the tampered request changed nothing');
  });

  it('refuses a missing header, an unknown key, a wrong secret and another SaaS id', async () => {
    const missing = await fetch(`${h.api.baseUrl}/roles`);
    assert.equal(missing.status, 401);
    assertErrorShape(await missing.json(), 'invalid_signature');
    assert.equal((await rawSigned('GET', '/roles', undefined, { apiKey: 'nope' })).status, 401);
    assert.equal((await rawSigned('GET', '/roles', undefined, { secret: 'wrong' })).status, 401);
    const other = await h.newSaas(['*']);
    // A valid key of SaaS A presented under SaaS B's id.
    assert.equal((await rawSigned('GET', '/roles', undefined, { saasId: other.saasId })).status, 401);
  });

  it('refuses a revoked key at once', async () => {
    const s = await h.newSaas(['*']);
    assert.equal((await s.client.get('/roles')).status, 200);
    await revokeApiKey(h.accounts, s.saasId, s.apiKey);
    const res = await s.client.get('/roles');
    assert.equal(res.status, 401);
    assertErrorShape(res.body, 'invalid_signature');
  });
});

describe('permissions', () => {
  it('answers 403 for an operation outside the key', async () => {
    const reader = await h.newKey(saas.saasId, ['definition:read']);
    assert.equal((await reader.get('/roles')).status, 200);
    const res = await reader.post('/roles', { role_name: 'forbidden', display_name: 'x' });
    assert.equal(res.status, 403);
    assertErrorShape(res.body, 'permission_denied');
    const roles = await saas.client.get<{ roles: { role_name: string }[] }>('/roles');
    assert.ok(!roles.body.roles.some((r) => r.role_name === 'forbidden'));
  });

  it('lets an area wildcard through and keeps other areas out', async () => {
    const definitions = await h.newKey(saas.saasId, ['definition:*']);
    assert.equal((await definitions.post('/envs', { id: 77, name: 'wild' })).status, 201);
    const tenantsOnly = await h.newKey(saas.saasId, ['tenant:read']);
    assert.equal((await tenantsOnly.get('/envs')).status, 403);
  });
});

describe('routing and error shape', () => {
  it('answers an unknown path with 404 and a wrong method with 405, signed or not', async () => {
    const unknown = await saas.client.get('/no-such-thing');
    assert.equal(unknown.status, 404);
    assertErrorShape(unknown.body, 'not_found');
    const wrong = await saas.client.delete('/roles');
    assert.equal(wrong.status, 405);
    assertErrorShape(wrong.body, 'method_not_allowed');
    assert.equal(wrong.headers.get('allow'), 'GET, POST');
  });

  it('puts a request id on every answer', async () => {
    for (const res of [await saas.client.get('/roles'), await saas.client.get('/nope'), await fetch(`${h.api.baseUrl}/roles`)]) {
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    }
  });

  it('refuses malformed JSON, a non-object body and an extra-large body with 400', async () => {
    const malformed = await saas.client.post('/roles', '{"role_name": "x",');
    assert.equal(malformed.status, 400);
    assertErrorShape(malformed.body, 'invalid_json');
    const array = await saas.client.post('/roles', '[]');
    assert.equal(array.status, 400);
    assertErrorShape(array.body, 'invalid_parameter');
    const empty = await saas.client.post('/roles', '');
    assert.equal(empty.status, 400);
    const huge = await saas.client.post('/roles', { role_name: 'huge', display_name: 'x'.repeat(300 * 1024) });
    assert.equal(huge.status, 400);
    assertErrorShape(huge.body, 'request_too_large');
  });

  it('serves the OpenAPI document without a signature', async () => {
    const res = await fetch(`${h.api.baseUrl}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    assert.equal(doc.openapi, '3.1.0');
    // Paths start from the root: one document covers /v1/auth, /v1/pricing and /v1/billing.
    assert.ok(doc.paths['/v1/auth/roles']);
    assert.ok(doc.paths['/v1/pricing/plans']);
  });

  it('signs through the shared client the same way', async () => {
    const client = new SignedClient(h.api.baseUrl, { saasId: saas.saasId, apiKey: saas.apiKey, secret: saas.secret });
    assert.equal((await client.get('/envs?x=1+2')).status, 200);
  });
});
