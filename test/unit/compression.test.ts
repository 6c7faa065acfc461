/** The pipeline's answer size rules, on a public route so no store is involved: compression and Lambda's 6 MB. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { Type } from '@sinclair/typebox';
import { apiGatewayEvent } from '../../local/server.js';
import { chooseEncoding, LAMBDA_RESPONSE_LIMIT_BYTES } from '../../shared/http/compression.js';
import { createGroupHandler } from '../../shared/http/pipeline.js';
import { operation } from '../../shared/schemas/operation.js';

const jwks = (keys: unknown[]) =>
  createGroupHandler(
    'public',
    { getJwks: operation({ response: Type.Object({ keys: Type.Array(Type.Unknown()) }) }, async () => ({ keys })) },
    async () => undefined,
    { signatureWindowMinutes: 3, maxBodyBytes: 256 * 1024 },
  );

const get = (headers: Record<string, string>): APIGatewayProxyEventV2 =>
  apiGatewayEvent({ method: 'GET', url: '/v1/auth/.well-known/jwks.json', headers: { host: 'localhost', ...headers }, body: Buffer.alloc(0) });

const context = {} as Context;

describe('chooseEncoding', () => {
  it('takes gzip where the client weighs it at least as high as br, br where only br, none otherwise', () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['', undefined],
      ['identity', undefined],
      ['gzip, compress, deflate, br', 'gzip'],
      ['gzip', 'gzip'],
      ['GZIP;q=0.8', 'gzip'],
      ['br', 'br'],
      ['gzip;q=0.5, br', 'br'],
      ['br;q=0.5, gzip;q=0.5', 'gzip'],
      ['*', 'gzip'],
      ['*;q=0', undefined],
      ['gzip;q=0, br;q=0', undefined],
      ['gzip;q=0, *', 'br'],
      ['deflate', undefined],
    ];
    for (const [header, expected] of cases) assert.equal(chooseEncoding(header), expected, String(header));
  });
});

describe('answer size', () => {
  it('refuses an answer past 6 MB in the error shape, naming the way out, rather than letting Lambda fail it', async () => {
    // Random text compresses to about its own size: too large either way.
    const keys = Array.from({ length: 80 }, () => randomBytes(60_000).toString('base64'));
    for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
      const res = await jwks(keys)(get(headers), context);
      assert.equal(res.statusCode, 406);
      const body = JSON.parse(res.body!) as { type: string; message: string; data: unknown };
      assert.equal(body.type, 'response_too_large');
      assert.match(body.message, new RegExp(`larger than the ${LAMBDA_RESPONSE_LIMIT_BYTES} bytes`));
      assert.equal(/Accept-Encoding: gzip/.test(body.message), !('accept-encoding' in headers), body.message);
      assert.deepEqual(body.data, {});
    }
  });

  it('answers compressed what would pass 6 MB plain but not compressed', async () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => ({ kid: `key-${i}`, kty: 'RSA', alg: 'RS256', use: 'sig' }));
    const plain = await jwks(keys)(get({}), context);
    assert.equal(plain.statusCode, 406, 'plain, the answer is over the limit');
    const res = await jwks(keys)(get({ 'accept-encoding': 'gzip' }), context);
    assert.equal(res.statusCode, 200);
    assert.equal(res.isBase64Encoded, true);
    assert.ok(JSON.stringify(res).length <= LAMBDA_RESPONSE_LIMIT_BYTES);
    assert.deepEqual(JSON.parse(gunzipSync(Buffer.from(res.body!, 'base64')).toString('utf8')), { keys });
  });
});
