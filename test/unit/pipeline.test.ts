/** The pipeline's own rules, on public routes so no store is involved. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { Type } from '@sinclair/typebox';
import { operation } from '../../shared/schemas/operation.js';
import { createGroupHandler, type PipelineSettings } from '../../shared/http/pipeline.js';
import { notFound } from '../../shared/errors.js';

function event(method: string, rawPath: string, body?: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: { host: 'localhost' },
    ...(body !== undefined ? { body } : {}),
    requestContext: {
      accountId: 'a',
      apiId: 'a',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'req-123',
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

const context = {} as Context;
/** Public routes take no key; a signed route here would find none. */
const noKeys = async () => undefined;
/** The wiring passes the deployment's limits; these are small enough to reach. */
const settings: PipelineSettings = { signatureWindowMinutes: 3, maxBodyBytes: 64 };

describe('pipeline', () => {
  it('turns an unexpected error into a 500 that says nothing internal', async () => {
    let ran = 0;
    const handler = createGroupHandler(
      'public',
      {
        getJwks: operation({}, async () => {
          ran++;
          throw new Error('connection string postgres://admin:hunter2@db');
        }),
      },
      noKeys,
      settings,
    );
    const res = await handler(event('GET', '/v1/auth/.well-known/jwks.json'), context);
    assert.equal(ran, 1, 'the operation itself threw');
    assert.equal(res.statusCode, 500);
    assert.deepEqual(JSON.parse(res.body!), { type: 'internal_server_error', message: 'Internal server error', data: {} });
    assert.equal(res.headers?.['x-request-id'], 'req-123');
  });

  /** An operation whose own answer is a 404. */
  const keyNotFound = {
    getJwks: operation({}, async () => {
      throw notFound('key_not_found', 'no signing key yet');
    }),
  };

  it('maps a domain error by its kind and keeps its code', async () => {
    const handler = createGroupHandler('public', keyNotFound, noKeys, settings);
    const res = await handler(event('GET', '/v1/auth/.well-known/jwks.json'), context);
    assert.equal(res.statusCode, 404);
    assert.deepEqual(JSON.parse(res.body!), { type: 'key_not_found', message: 'no signing key yet', data: {} });
  });

  it('answers a route without an operation with 501 in the error shape, and shapes the success answer', async () => {
    const handler = createGroupHandler(
      'public',
      {
        getJwks: operation({ response: Type.Object({ keys: Type.Array(Type.Unknown()) }) }, async () => ({ keys: [] })),
      },
      noKeys,
      settings,
    );
    const ok = await handler(event('GET', '/v1/auth/.well-known/jwks.json'), context);
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(JSON.parse(ok.body!), { keys: [] });
    assert.equal(ok.headers?.['content-type'], 'application/json; charset=utf-8');
    const missing = await handler(event('GET', '/v1/auth/.well-known/openid-configuration'), context);
    assert.equal(missing.statusCode, 501);
    const error = JSON.parse(missing.body!) as { type: string; message: string; data: object };
    assert.equal(error.type, 'not_implemented');
    assert.match(error.message, /^getOpenIdConfiguration is not available/);
    assert.deepEqual(error.data, {});
    assert.equal(missing.headers?.['x-request-id'], 'req-123');
  });

  it('refuses a body larger than the limit the wiring passed, before the operation runs', async () => {
    let ran = 0;
    const handler = createGroupHandler('public', { getJwks: operation({}, async () => void ran++) }, noKeys, settings);
    const at = await handler(event('GET', '/v1/auth/.well-known/jwks.json', 'x'.repeat(settings.maxBodyBytes)), context);
    assert.equal(at.statusCode, 200, 'a body of exactly the limit passes');
    const over = await handler(event('GET', '/v1/auth/.well-known/jwks.json', 'x'.repeat(settings.maxBodyBytes + 1)), context);
    assert.equal(over.statusCode, 400);
    assert.deepEqual(JSON.parse(over.body!), {
      type: 'request_too_large',
      message: `body: larger than the ${settings.maxBodyBytes} bytes allowed`,
      data: {},
    });
    assert.equal(ran, 1, 'the operation ran for the body within the limit only');
  });

  it("gives a browser's navigation the unmatched page for no route only: never for an operation's own 404", async () => {
    const asked: string[] = [];
    const page = (e: APIGatewayProxyEventV2) => {
      asked.push(e.rawPath);
      return { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<p>page</p>' };
    };
    const handler = createGroupHandler('public', keyNotFound, noKeys, settings, undefined, page);
    const browse = (method: string, path: string, headers: Record<string, string> = {}) => {
      const e = event(method, path);
      e.headers = { ...e.headers, accept: 'text/html', ...headers };
      return handler(e, context);
    };
    const nowhere = await browse('GET', '/v1/auth/nope');
    assert.equal(nowhere.statusCode, 404);
    assert.equal(nowhere.body, '<p>page</p>');
    assert.equal(nowhere.headers?.['x-request-id'], 'req-123');
    const wrongMethod = await browse('POST', '/v1/auth/.well-known/jwks.json');
    assert.equal(wrongMethod.statusCode, 405);
    assert.equal(wrongMethod.headers?.allow, 'GET');
    assert.equal(wrongMethod.body, '<p>page</p>');
    // An operation's not-found, a signed request and a request that does not ask for HTML keep the error shape.
    const operation404 = await browse('GET', '/v1/auth/.well-known/jwks.json');
    assert.equal(JSON.parse(operation404.body!).type, 'key_not_found');
    assert.equal(JSON.parse((await browse('GET', '/v1/auth/nope', { Authorization: 'SAASUSSIGV1 x' })).body!).type, 'not_found');
    assert.equal(JSON.parse((await handler(event('GET', '/v1/auth/nope'), context)).body!).type, 'not_found');
    assert.deepEqual(asked, ['/v1/auth/nope', '/v1/auth/.well-known/jwks.json']);
  });

  it('refuses to run a route of another group', async () => {
    const handler = createGroupHandler('public', {}, noKeys, settings);
    const res = await handler(event('GET', '/v1/auth/roles'), context);
    assert.equal(res.statusCode, 500);
  });

  it('refuses, at start-up, an operation that is not a route of its group', () => {
    assert.throws(
      () => createGroupHandler('public', { getRoles: operation({}, async () => undefined) }, noKeys, settings),
      /not a route of the public group/,
    );
  });
});
