/**
 * The unpaged lists (GET /users, GET /tenants/all/users) over HTTP through the local server: a large answer
 * goes compressed to a client that accepts gzip or br and decodes to the very users of the plain answer,
 * which a client sending no Accept-Encoding (the Python SDK's urllib3 sends `identity`) still receives.
 * Requests go through node:http, which neither asks for nor decodes compression, so the bytes are the wire's.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { SignedClient } from '../../client/signed-fetch.js';
import { COMPRESS_FROM_BYTES } from '../../shared/http/compression.js';
import { authorizationHeader } from '../../shared/http/signature.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

/** Long addresses (about 200 characters), so 80 users make an answer past COMPRESS_FROM_BYTES. */
const USERS = 80;
let h: Harness;
let saas: Awaited<ReturnType<Harness['newSaas']>>;
let api: SignedClient;
const emails: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  saas = await h.newSaas();
  api = saas.client;
  const tenant = await api.post<{ id: string }>('/tenants', { name: 'Large', attributes: {}, back_office_staff_email: 'ops@example.com' });
  assert.equal(tenant.status, 201);
  const run = randomUUID().slice(0, 8);
  for (let i = 0; i < USERS; i++)
    emails.push(`${'a'.repeat(50)}-${run}-${String(i).padStart(3, '0')}@${'b'.repeat(60)}.${'c'.repeat(60)}.example.com`);
  // Ten at a time: the users' passwords are made on the server, a few milliseconds each.
  for (let i = 0; i < USERS; i += 10) {
    await Promise.all(
      emails.slice(i, i + 10).map(async (email) => {
        assert.equal((await api.post('/users', { email, password: 'Large-pass-1' })).status, 201);
        assert.equal((await api.post(`/tenants/${tenant.body.id}/users`, { email, attributes: {} })).status, 201);
      }),
    );
  }
});
afterAll(() => h.close());

/** A signed GET with exactly these headers; the raw answer. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }> {
  const url = new URL(h.api.baseUrl + path);
  const authorization = authorizationHeader(saas.secret, saas.saasId, saas.apiKey, {
    method: 'GET',
    host: url.host,
    path: url.pathname,
    query: '',
    body: Buffer.alloc(0),
  });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { authorization, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each([
  ['GET /users', '/users'],
  ['GET /tenants/all/users', '/tenants/all/users'],
])('%s', (_name, path) => {
  it('answers plain JSON to a client that sends no Accept-Encoding, and to one that sends identity', async () => {
    for (const headers of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'gzip;q=0, br;q=0' }] as Record<string, string>[]) {
      const plain = await rawGet(path, headers);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers['vary'], 'accept-encoding', 'caches keep the plain and the compressed answer apart');
      assert.ok(plain.bytes.length >= COMPRESS_FROM_BYTES, `the answer is large enough to be compressed (${plain.bytes.length} bytes)`);
      const users = (JSON.parse(plain.bytes.toString('utf8')) as { users: { email: string }[] }).users;
      assert.deepEqual(new Set(users.map((u) => u.email)), new Set(emails));
    }
  });

  it('answers gzip or br to a client that accepts it, decoding to the same users', async () => {
    const plain = JSON.parse((await rawGet(path, {})).bytes.toString('utf8')) as { users: unknown[] };
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br', 'gzip', gunzipSync],
      ['gzip', 'gzip', gunzipSync],
      ['br', 'br', brotliDecompressSync],
      ['gzip;q=0.5, br', 'br', brotliDecompressSync],
    ] as const) {
      const res = await rawGet(path, { 'accept-encoding': accept });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], encoding, accept);
      assert.equal(res.headers['vary'], 'accept-encoding');
      assert.equal(Number(res.headers['content-length']), res.bytes.length);
      const decoded = JSON.parse(decode(res.bytes).toString('utf8')) as { users: unknown[] };
      assert.deepEqual(decoded, plain, `${accept}: the same users, in the same order`);
      assert.ok(res.bytes.length * 3 < JSON.stringify(plain).length, `${accept}: ${res.bytes.length} bytes compressed`);
    }
  });
});

it('leaves a small answer plain whatever the client accepts', async () => {
  const res = await rawGet('/roles', { 'accept-encoding': 'gzip, br' });
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-encoding'], undefined);
  assert.deepEqual(JSON.parse(res.bytes.toString('utf8')), { roles: [] });
});
