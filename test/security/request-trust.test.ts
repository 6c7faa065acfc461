/**
 * Attack replays on what a request carries besides its signed content: the Host and X-Forwarded-* headers
 * (never the source of a URL we hand out), bytes that are not UTF-8, bodies and header sections over the
 * limits (413 and 431 in the error shape, not a 500 or a reset), and the headers every answer carries.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { SignedClient } from '../../client/signed-fetch.js';
import { config } from '../../shared/config.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;

beforeAll(async () => {
  h = await startHarness();
  api = (await h.newSaas()).client;
});
afterAll(() => h.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request as an attacker writes it: any headers, any bytes. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<RawAnswer> {
  const url = new URL(`${h.api.baseUrl}${path}`);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function errorShape(answer: RawAnswer, status: number, type: string) {
  assert.equal(answer.status, status, answer.text);
  const body = JSON.parse(answer.text) as { type: string; message: string; data: unknown };
  assert.equal(body.type, type);
  assert.equal(typeof body.message, 'string');
  assert.deepEqual(body.data, {});
}

describe('public URLs', () => {
  it('come from configuration, whatever Host and X-Forwarded-Proto say', async () => {
    const hostile: Record<string, string>[] = [
      { host: 'evil.example' },
      { host: 'evil.example', 'x-forwarded-proto': 'javascript' },
      { 'x-forwarded-host': 'evil.example' },
    ];
    for (const headers of hostile) {
      const answer = await raw('GET', '/.well-known/openid-configuration', headers);
      assert.equal(answer.status, 200, answer.text);
      const discovery = JSON.parse(answer.text) as Record<string, string>;
      assert.equal(discovery.jwks_uri, `${config().publicBaseUrl}/.well-known/jwks.json`);
      for (const endpoint of ['authorization', 'token', 'userinfo', 'end_session']) {
        assert.match(discovery[`${endpoint}_endpoint`] ?? '', new RegExp(`^${config().publicBaseUrl}/oauth2/[a-z]+$`));
      }
      assert.doesNotMatch(answer.text, /evil|javascript/);
    }
  });
});

describe('bodies that are not UTF-8', () => {
  it('are refused with 400, and nothing is stored', async () => {
    const body = Buffer.concat([Buffer.from('{"role_name":"r'), Buffer.from([0xff, 0xfe]), Buffer.from('","display_name":"x"}')]);
    // Signed over the raw bytes, as an SDK would sign them: the signature holds, the bytes do not.
    const answer = await api.request('POST', '/roles', { body });
    assert.equal(answer.status, 400, answer.text);
    assert.match((answer.body as { message: string }).message, /not valid UTF-8/);
    const roles = await api.get<{ roles: { role_name: string }[] }>('/roles');
    assert.deepEqual(roles.body.roles, []);
  });
});

describe('the local runner', () => {
  it('answers a body over 10 MiB with 413 in the error shape, before reading it or checking a signature', async () => {
    const answer = await raw('POST', '/roles', { 'content-type': 'application/json' }, Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
    errorShape(answer, 413, 'request_too_large');
  });

  it('answers a header section over 16 KiB with 431 in the error shape', async () => {
    const answer = await raw('GET', '/roles', { 'x-padding': 'a'.repeat(20 * 1024) });
    errorShape(answer, 431, 'request_header_fields_too_large');
  });
});

describe('answer headers', () => {
  it('forbid caching and sniffing of every API answer, errors included', async () => {
    for (const answer of [await raw('GET', '/roles'), await raw('GET', '/no-such-route')]) {
      assert.equal(answer.headers['cache-control'], 'no-store');
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    }
    const signed = await api.get('/roles');
    assert.equal(signed.headers.get('cache-control'), 'no-store');
    assert.equal(signed.headers.get('x-content-type-options'), 'nosniff');
  });

  it('let anyone cache and read the JWKS and OpenID discovery from any origin', async () => {
    for (const path of ['/.well-known/jwks.json', '/.well-known/openid-configuration']) {
      const answer = await raw('GET', path);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['cache-control'], 'public, max-age=300');
      assert.equal(answer.headers['access-control-allow-origin'], '*');
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    }
  });
});
