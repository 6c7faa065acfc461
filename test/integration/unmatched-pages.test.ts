/**
 * Addresses that no operation and no entry answers, through the local API, which picks the function as API Gateway
 * does (the `$default` route's public function, or the function whose greedy route's folder the address is under;
 * docs/decisions.md, decision 17): a browser opening one reads the login screen's "page not found" in its language
 * (web/login/unmatched-page.ts), while every program (a JSON client, fetch() with its default Accept, a signed
 * call) keeps the API's error shape exactly as before. `/v1/auth/console/` is the console's: its overview.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { GATEWAY_ROUTES, gatewayGroup, matchRoute, ROUTES, fullPath } from '../../shared/routes.js';
import { EN } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let client: SignedClient;
let origin: string;

/** Every path a person may type that nothing answers (each answered 404 JSON to browsers before). */
const UNMATCHED = [
  '/',
  '/v1',
  '/v1/',
  '/v1/auth',
  '/v1/auth/',
  '/v1/auth/login',
  '/v1/auth/login/',
  '/v1/auth/oauth2/',
  '/v1/auth/saml2/',
  '/v1/auth/nope',
  '/v1/pricing/',
  '/v1/billing',
  '/robots.txt',
];
/** A path of the route table that takes PATCH only. */
const PATCH_ONLY = '/v1/auth/stripe/init';
const NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const open = (path: string, headers: Record<string, string>, method = 'GET') => fetch(`${origin}${path}`, { method, headers, redirect: 'manual' });

async function assertPage(res: Response, status: number, lang: 'ja' | 'en', what: string) {
  const body = await res.text();
  assert.equal(res.status, status, what);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/, what);
  assert.equal(/<html lang="([^"]+)">/.exec(body)?.[1], lang, what);
  assert.equal(/<h1>([^<]*)<\/h1>/.exec(body)?.[1], (lang === 'ja' ? JA : EN).page.notFoundTitle, what);
  // The screen's look, from the login function's shared files; no script may run on it.
  assert.match(body, /href="\/v1\/auth\/login\/assets\/login\.css"/, what);
  assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/, what);
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, what);
  assert.equal(res.headers.get('cache-control'), 'no-store', what);
}

async function assertErrorShape(res: Response, status: number, type: string, message: string, what: string) {
  assert.equal(res.status, status, what);
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8', what);
  assert.deepEqual(await res.json(), { type, message, data: {} }, what);
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, what);
}

beforeAll(async () => {
  h = await startHarness();
  origin = new URL(h.api.baseUrl).origin;
  ({ client } = await h.newSaas());
});
afterAll(async () => {
  await h?.close();
});

describe('a browser opening an address nothing answers', () => {
  it('reads the "page not found" page, in Japanese for accept-language ja and in English otherwise', async () => {
    for (const path of UNMATCHED) {
      await assertPage(await open(path, { accept: NAVIGATION, 'accept-language': 'ja' }), 404, 'ja', `${path} ja`);
      await assertPage(await open(path, { accept: NAVIGATION, 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.8' }), 404, 'ja', `${path} ja-JP`);
      await assertPage(await open(path, { accept: NAVIGATION, 'accept-language': 'en-US,en;q=0.9' }), 404, 'en', `${path} en`);
      await assertPage(await open(path, { accept: NAVIGATION }), 404, 'en', `${path} no language`);
      await assertPage(await open(path, { accept: NAVIGATION, 'accept-language': 'fr' }), 404, 'en', `${path} fr`);
    }
  });

  it("takes the screen's language choice (?lang=, its cookie) as the screen does", async () => {
    await assertPage(await open('/v1/auth/nope?lang=ja', { accept: NAVIGATION, 'accept-language': 'en' }), 404, 'ja', '?lang=ja');
    await assertPage(await open('/', { accept: NAVIGATION, 'accept-language': 'en', cookie: 'login_lang=ja' }), 404, 'ja', 'cookie');
  });

  it('keeps 405 and its Allow for a path of another method, as a page', async () => {
    const res = await open(PATCH_ONLY, { accept: NAVIGATION, 'accept-language': 'ja' });
    assert.equal(res.headers.get('allow'), 'PATCH');
    await assertPage(res, 405, 'ja', PATCH_ONLY);
    // A form posted to it is a navigation too.
    await assertPage(await open(PATCH_ONLY, { accept: NAVIGATION }, 'POST'), 405, 'en', `POST ${PATCH_ONLY}`);
  });

  it("sends /v1/auth/console/ to the console's overview, as /v1/auth/console", async () => {
    for (const path of ['/v1/auth/console/', '/v1/auth/console']) {
      for (const accept of [NAVIGATION, 'application/json']) {
        const res = await open(path, { accept });
        assert.equal(res.status, 308, `${path} ${accept}`);
        assert.equal(res.headers.get('location'), '/v1/auth/console/overview', `${path} ${accept}`);
      }
    }
  });
});

describe('a program calling an address nothing answers', () => {
  it('gets the error shape unchanged: a JSON client, fetch() as it comes, a browser-like Accept with an Authorization header', async () => {
    for (const path of UNMATCHED) {
      const requests: [string, Record<string, string>][] = [
        ['json', { accept: 'application/json', 'accept-language': 'ja' }],
        ['default', {}],
        ['any type', { accept: '*/*' }],
        ['authorized', { accept: NAVIGATION, 'accept-language': 'ja', authorization: 'SAASUSSIGV1 Sig=x, SaasID=y, APIKey=z' }],
      ];
      for (const [name, headers] of requests) {
        await assertErrorShape(await open(path, headers), 404, 'not_found', `no route for ${path}`, `${path} ${name}`);
      }
    }
    const wrong = await open(PATCH_ONLY, { accept: 'application/json' });
    assert.equal(wrong.headers.get('allow'), 'PATCH');
    await assertErrorShape(wrong, 405, 'method_not_allowed', `GET is not allowed on ${PATCH_ONLY}`, PATCH_ONLY);
  });

  it('gets the error shape for a signed call that asks for HTML', async () => {
    const res = await client.get('/nope', { headers: { accept: NAVIGATION } });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(res.body, { type: 'not_found', message: 'no route for /v1/auth/nope', data: {} });
  });

  it('leaves every operation as it was, whatever the Accept', async () => {
    const jwks = await open('/v1/auth/.well-known/jwks.json', { accept: NAVIGATION });
    assert.equal(jwks.status, 200);
    assert.match(jwks.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(Array.isArray(((await jwks.json()) as { keys: unknown[] }).keys));
    // A signed route opened by a browser is refused as before: 401 in the error shape, not a page.
    const unsigned = await open('/v1/auth/roles', { accept: NAVIGATION });
    assert.equal(unsigned.status, 401);
    assert.equal(unsigned.headers.get('content-type'), 'application/json; charset=utf-8');
  });
});

describe("an address under a function's folder that no operation answers (its greedy route brings it there)", () => {
  /** One unknown address under each greedy route's folder: every function a greedy route reaches answers one. */
  const underFolders = GATEWAY_ROUTES.filter((route) => route.path.endsWith('/{proxy+}')).map((route) => ({
    fn: route.fn,
    path: route.path.replace('{proxy+}', 'no/such/place'),
  }));

  it('reaches the function of the folder, not $default', () => {
    for (const { fn, path } of underFolders) assert.equal(gatewayGroup('GET', path), fn, path);
    assert.ok(new Set(underFolders.map(({ fn }) => fn)).size >= 10);
  });

  it('answers as $default did: the page for a browser, the error shape for programs, before any signature', async () => {
    for (const { path } of underFolders) {
      await assertPage(await open(path, { accept: NAVIGATION, 'accept-language': 'ja' }), 404, 'ja', path);
      await assertErrorShape(await open(path, { accept: 'application/json' }), 404, 'not_found', `no route for ${path}`, path);
      const signed = await open(path, { accept: 'application/json', authorization: 'SAASUSSIGV1 Sig=x, SaasID=y, APIKey=z' });
      await assertErrorShape(signed, 404, 'not_found', `no route for ${path}`, `${path} signed`);
    }
  });

  const METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'] as const;

  it("answers another method on an operation's path, and a CORS preflight, with 405 and its Allow, in every function", async () => {
    const seen = new Set<string>();
    for (const route of ROUTES) {
      if (seen.has(route.group) || route.path.includes('{')) continue;
      seen.add(route.group);
      const path = fullPath(route);
      // Every method of the rows whose path matches it (`/tenants/all/users` is also `/tenants/{tenant_id}/users`).
      const allow = METHODS.filter((method) => matchRoute(method, path).kind === 'match');
      const wrong = METHODS.find((method) => !allow.includes(method))!;
      for (const method of [wrong, 'OPTIONS']) {
        const res = await open(
          path,
          { accept: 'application/json', origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
          method,
        );
        assert.deepEqual(res.headers.get('allow')?.split(', ').sort(), [...allow].sort(), `${method} ${path}`);
        assert.equal(res.headers.get('access-control-allow-origin'), null, `${method} ${path}: no CORS, as before`);
        await assertErrorShape(res, 405, 'method_not_allowed', `${method} is not allowed on ${path}`, `${method} ${path}`);
      }
    }
    assert.ok(seen.size >= 10);
  });
});
