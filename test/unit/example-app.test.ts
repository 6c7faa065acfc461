/**
 * The example backend's pure parts: cookie attributes and lifetimes, the CSRF check, reading request
 * bodies and Cookie headers, and the Lambda adapter's translation of API Gateway events.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { clearedSessionCookies, secondsUntilExpiry, serializeCookie, sessionCookies } from '../../examples/app/server/cookies.js';
import { csrfHolds, csrfToken } from '../../examples/app/server/csrf.js';
import { parseCookieHeader, readStringFields, type AppRequest } from '../../examples/app/server/http.js';
import { lambdaHandler } from '../../examples/app/server/lambda-adapter.js';

const LOCAL = { secure: false, refreshMaxAgeSeconds: 600 };
const DEPLOYED = { secure: true, refreshMaxAgeSeconds: 600 };
const NOW = 1_700_000_000;

/** An unsigned JWT-shaped string with this payload: enough for the cookie lifetime, which never verifies. */
const jwt = (payload: object) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;

const request = (over: Partial<AppRequest> = {}): AppRequest => ({
  method: 'POST',
  path: '/sign-out',
  query: new URLSearchParams(),
  headers: {},
  cookies: {},
  body: '',
  ...over,
});

describe('cookies', () => {
  it('are HttpOnly and SameSite=Strict, Secure except on localhost', () => {
    assert.equal(
      serializeCookie('id_token', 'a b;c', { maxAgeSeconds: 60 }, LOCAL),
      'id_token=a%20b%3Bc; Path=/; Max-Age=60; HttpOnly; SameSite=Strict',
    );
    assert.equal(serializeCookie('csrf', 'x', {}, DEPLOYED), 'csrf=x; Path=/; HttpOnly; SameSite=Strict; Secure');
  });

  it('last as long as the token they hold', () => {
    assert.equal(secondsUntilExpiry(jwt({ exp: NOW + 3599 }), NOW), 3599);
    assert.equal(secondsUntilExpiry(jwt({ exp: NOW - 5 }), NOW), 0, 'an expired token: a cookie that is dropped at once');
    assert.equal(secondsUntilExpiry('not-a-jwt', NOW), 3600, 'unreadable: the service default');
    assert.equal(secondsUntilExpiry(jwt({ exp: 'soon' }), NOW), 3600);
  });

  it('hold the refresh token for /refresh only, and keep the old one when a refresh returns none', () => {
    const credentials = { id_token: jwt({ exp: Math.floor(Date.now() / 1000) + 100 }), access_token: jwt({}), refresh_token: 'r' };
    const cookies = sessionCookies(credentials, LOCAL);
    assert.equal(cookies.length, 3);
    assert.match(cookies[0] ?? '', /^id_token=.*; Path=\/; Max-Age=(99|100); HttpOnly/);
    assert.equal(cookies[2], 'refresh_token=r; Path=/refresh; Max-Age=600; HttpOnly; SameSite=Strict');
    const { refresh_token: _dropped, ...withoutRefresh } = credentials;
    assert.deepEqual(
      sessionCookies(withoutRefresh, LOCAL).map((c) => c.split('=')[0]),
      ['id_token', 'access_token'],
    );
  });

  it('are all cleared on the paths they were set on', () => {
    assert.deepEqual(clearedSessionCookies(DEPLOYED), [
      'id_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure',
      'access_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure',
      'refresh_token=; Path=/refresh; Max-Age=0; HttpOnly; SameSite=Strict; Secure',
    ]);
  });
});

describe('CSRF', () => {
  const token = 'A'.repeat(43);

  it('holds only when the header equals a well-formed cookie', () => {
    assert.equal(csrfHolds(request({ cookies: { csrf: token }, headers: { 'x-csrf-token': token } })), true);
    assert.equal(csrfHolds(request({ cookies: { csrf: token } })), false, 'no header');
    assert.equal(csrfHolds(request({ headers: { 'x-csrf-token': token } })), false, 'no cookie');
    assert.equal(csrfHolds(request({ cookies: { csrf: token }, headers: { 'x-csrf-token': `${token.slice(1)}B` } })), false, 'another value');
    assert.equal(csrfHolds(request({ cookies: { csrf: 'x' }, headers: { 'x-csrf-token': 'x' } })), false, 'equal but not a token we issue');
  });

  it('keeps the browser token, and replaces a missing or malformed one', () => {
    assert.deepEqual(csrfToken(request({ cookies: { csrf: token } }), LOCAL), { token, cookies: [] });
    for (const cookies of [{}, { csrf: 'short' }] as Record<string, string>[]) {
      const fresh = csrfToken(request({ cookies }), LOCAL);
      assert.match(fresh.token, /^[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(fresh.cookies, [`csrf=${fresh.token}; Path=/; HttpOnly; SameSite=Strict`]);
    }
    assert.notEqual(csrfToken(request(), LOCAL).token, csrfToken(request(), LOCAL).token);
  });
});

describe('reading requests', () => {
  it('parses a Cookie header: first of a name wins, values decoded when they can be', () => {
    assert.deepEqual(parseCookieHeader('a=1; b=x%20y;c=%E0%A4%A; a=2;  ; =v; d'), { a: '1', b: 'x y', c: '%E0%A4%A' });
    assert.deepEqual(parseCookieHeader(undefined), {});
  });

  it('reads string fields, or nothing when the body is not what the route takes', () => {
    assert.deepEqual(readStringFields('{"a":"1","b":"2","x":3}', ['a'], ['b']), { a: '1', b: '2', x: 3 });
    for (const body of ['', '{', '[]', 'null', '"a"', '{"a":""}', '{"a":1}', '{"a":"1","b":2}']) {
      assert.equal(readStringFields(body, ['a'], ['b']), undefined, body);
    }
  });
});

describe('the Lambda adapter', () => {
  const event = (over: Partial<APIGatewayProxyEventV2>): APIGatewayProxyEventV2 =>
    ({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/me',
      rawQueryString: '',
      headers: {},
      requestContext: { http: { method: 'get', path: '/me' } },
      isBase64Encoded: false,
      ...over,
    }) as APIGatewayProxyEventV2;

  it('passes method, path, query, lower-case headers, payload 2.0 cookies and a decoded body', async () => {
    let seen: AppRequest | undefined;
    const handler = lambdaHandler(async (req) => {
      seen = req;
      return { status: 201, headers: { 'content-type': 'application/json' }, cookies: ['a=1', 'b=2'], body: '{"success":true}' };
    });
    const result = await handler(
      event({
        headers: { 'X-CSRF-Token': 't' },
        cookies: ['csrf=t', 'id_token=x%20y'],
        rawQueryString: 'code=c&state=s%20t',
        body: Buffer.from('{"a":"é"}').toString('base64'),
        isBase64Encoded: true,
      }),
    );
    const { query, ...rest } = seen as AppRequest;
    assert.deepEqual(
      [...query],
      [
        ['code', 'c'],
        ['state', 's t'],
      ],
    );
    assert.deepEqual(rest, {
      method: 'GET',
      path: '/me',
      headers: { 'x-csrf-token': 't' },
      cookies: { csrf: 't', id_token: 'x y' },
      body: '{"a":"é"}',
    });
    assert.deepEqual(result, {
      statusCode: 201,
      headers: { 'content-type': 'application/json' },
      cookies: ['a=1', 'b=2'],
      body: '{"success":true}',
      isBase64Encoded: false,
    });
  });

  it('answers bytes base64-encoded', async () => {
    const handler = lambdaHandler(async () => ({ status: 200, headers: {}, cookies: [], body: new Uint8Array([0, 255]) }));
    const result = await handler(event({}));
    assert.equal(result.isBase64Encoded, true);
    assert.equal(result.body, 'AP8=');
  });
});
