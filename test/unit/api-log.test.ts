/**
 * The API log's rules without a store: what a record keeps of a call (redaction), the ids that name their
 * time, and the pipeline's hook: only verified calls are recorded, once each, and a record that cannot be told
 * is not the call's failure.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { Type } from '@sinclair/typebox';
import { apiLogRecord, millisOfApiLogId, newApiLogId, redactedReferer, redactedUri, REDACTED } from '../../shared/domain/apilog/api-log.js';
import type { SignedCall } from '../../shared/schemas/apilog.js';
import { createGroupHandler, type PipelineSettings } from '../../shared/http/pipeline.js';
import { authorizationHeader } from '../../shared/http/signature.js';
import { operation } from '../../shared/schemas/operation.js';

describe('what a record keeps of a call', () => {
  it('redacts the values of credential-like and personal query parameters, keeps the rest as sent', () => {
    assert.equal(
      redactedUri('/v1/auth/credentials', 'code=0d6b5a38-1a2b-4c3d-8e4f-5a6b7c8d9e0f&auth-flow=tempCodeAuth'),
      `/v1/auth/credentials?code=${REDACTED}&auth-flow=tempCodeAuth`,
    );
    assert.equal(
      redactedUri('/v1/auth/credentials', 'auth-flow=refreshTokenAuth&refresh-token=abc'),
      `/v1/auth/credentials?auth-flow=refreshTokenAuth&refresh-token=${REDACTED}`,
    );
    assert.equal(redactedUri('/v1/auth/userinfo', 'token=eyJ.x.y'), `/v1/auth/userinfo?token=${REDACTED}`);
    assert.equal(redactedUri('/v1/auth/tenants/t/userinfo', 'email=alice%40example.com'), `/v1/auth/tenants/t/userinfo?email=${REDACTED}`);
    // Names are compared decoded and without case; a name that does not decode is redacted whole.
    assert.equal(redactedUri('/p', 'Refresh%2DToken=abc&limit=10'), `/p?Refresh%2DToken=${REDACTED}&limit=10`);
    assert.equal(redactedUri('/p', '%E0%A4%A=abc'), `/p?%E0%A4%A=${REDACTED}`);
    // A bare word may itself be a credential, and no operation takes one.
    assert.equal(redactedUri('/p', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln&limit=2'), `/p?${REDACTED}&limit=2`);
    assert.equal(redactedUri('/v1/pricing/plans', ''), '/v1/pricing/plans');
    assert.equal(redactedUri('/v1/apilog/logs', 'limit=5&created_date=2026-11-26'), '/v1/apilog/logs?limit=5&created_date=2026-11-26');
  });

  it("keeps a Referer's origin and path only", () => {
    assert.equal(redactedReferer('https://app.example.com/callback?code=abc#access_token=xyz'), 'https://app.example.com/callback');
    assert.equal(redactedReferer('not a url'), '');
    assert.equal(redactedReferer(undefined), '');
  });

  it('makes an id that names its time, and reads no time from other UUIDs', () => {
    const at = Date.UTC(2026, 10, 26, 6, 0, 0, 123);
    const id = newApiLogId(at);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(millisOfApiLogId(id), at);
    assert.notEqual(newApiLogId(at), id);
    assert.equal(millisOfApiLogId('0d6b5a38-1a2b-4c3d-8e4f-5a6b7c8d9e0f'), undefined);
  });

  it('expires a record the retention period after its call', () => {
    const call: SignedCall = {
      saasId: 's',
      apiKey: 'k',
      requestId: 'r',
      method: 'GET',
      rawPath: '/v1/auth/roles',
      rawQuery: '',
      status: 200,
      sourceIp: '192.0.2.1',
      referer: undefined,
      at: 1_800_000_000_500,
      latencyMs: 12.6,
    };
    const record = apiLogRecord(call, 90 * 86400);
    assert.equal(record.expiresAt, 1_800_000_000 + 90 * 86400);
    assert.equal(record.latencyMs, 13);
  });
});

const KEY = { saasId: 'saas-1', apiKey: 'key-1', permissions: ['*'], secret: 'a'.repeat(32) };

function signedEvent(rawPath: string, rawQuery: string, secret = KEY.secret): APIGatewayProxyEventV2 {
  const authorization = authorizationHeader(secret, KEY.saasId, KEY.apiKey, {
    method: 'GET',
    host: 'localhost',
    path: rawPath,
    query: rawQuery,
    body: Buffer.alloc(0),
  });
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: rawQuery,
    queryStringParameters: Object.fromEntries(new URLSearchParams(rawQuery)),
    headers: { host: 'localhost', authorization, referer: 'https://console.example.com/activity?code=secret-code' },
    requestContext: {
      accountId: 'a',
      apiId: 'a',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'GET', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '198.51.100.7', userAgent: 'test' },
      requestId: 'req-log-1',
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

/** The deployment's defaults (shared/config.ts). */
const SETTINGS: PipelineSettings = { signatureWindowMinutes: 3, maxBodyBytes: 256 * 1024 };

const operations = {
  getLogs: operation({ query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) }) }, async () => undefined),
};

describe("the pipeline's API log hook", () => {
  it('records a verified call once, with its answer status and nothing of its credentials', async () => {
    const calls: SignedCall[] = [];
    const handler = createGroupHandler(
      'apilog',
      operations,
      async () => KEY,
      SETTINGS,
      (call) => void calls.push(call),
    );
    const res = await handler(signedEvent('/v1/apilog/logs', 'limit=0'), {} as Context);
    assert.equal(res.statusCode, 400);
    assert.equal(calls.length, 1);
    const [call] = calls as [SignedCall];
    assert.deepEqual(
      { ...call, at: 0, latencyMs: 0 },
      {
        saasId: 'saas-1',
        apiKey: 'key-1',
        requestId: 'req-log-1',
        method: 'GET',
        rawPath: '/v1/apilog/logs',
        rawQuery: 'limit=0',
        status: 400,
        sourceIp: '198.51.100.7',
        referer: 'https://console.example.com/activity?code=secret-code',
        at: 0,
        latencyMs: 0,
      },
    );
    assert.ok(call.latencyMs >= 0 && call.at > 0);
    // The record made of it drops the Referer's query.
    assert.equal(apiLogRecord(call, 1).referer, 'https://console.example.com/activity');
  });

  it('records nothing of a call whose signature does not verify: an unsigned caller cannot write into a log', async () => {
    const calls: SignedCall[] = [];
    const handler = createGroupHandler(
      'apilog',
      operations,
      async () => KEY,
      SETTINGS,
      (call) => void calls.push(call),
    );
    const res = await handler(signedEvent('/v1/apilog/logs', '', 'b'.repeat(32)), {} as Context);
    assert.equal(res.statusCode, 401);
    assert.equal(calls.length, 0);
  });

  it('answers the call as its operation did when its record cannot be told', async () => {
    let attempts = 0;
    const handler = createGroupHandler(
      'apilog',
      operations,
      async () => KEY,
      SETTINGS,
      () => {
        attempts++;
        throw new Error('EPIPE');
      },
    );
    const res = await handler(signedEvent('/v1/apilog/logs', 'limit=3'), {} as Context);
    assert.equal(attempts, 1);
    assert.equal(res.statusCode, 200);
  });
});
