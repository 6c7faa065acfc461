/**
 * The operator console's backend over HTTP (web/console/console.ts, session.ts, the sign-in throttle): the
 * session cookie's flags, idle and absolute ends, sign-out, the CSRF check, failed sign-ins answered alike and
 * counted per key and per address, and the forwarding of signed routes only.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { DEFAULT_THROTTLE_LIMITS } from '../../shared/domain/console/sign-in-throttle.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { ENTRY_PATHS } from '../../shared/routes.js';
import { consoleSignInThrottle, secretBox } from '../../shared/wiring.js';
import { ConsoleBackend } from '../../web/console/console.js';

let h: Harness;
let saas: { saasId: string; apiKey: string; secret: string };
let other: { saasId: string; apiKey: string; secret: string };
const base = () => `${h.api.baseUrl}/console/`;

beforeAll(async () => {
  h = await startHarness();
  saas = await h.newSaas();
  other = await h.newSaas();
});
afterAll(() => h.close());
afterEach(() => resetClockForTests());

const JSON_HEADERS = { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' };

async function signIn(credentials: { saasId: string; apiKey: string; secret: string }, headers: Record<string, string> = JSON_HEADERS) {
  return fetch(`${base()}session`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ saas_id: credentials.saasId, api_key: credentials.apiKey, client_secret: credentials.secret }),
  });
}

/** The session cookie a sign-in set, and the CSRF token the shell hands its page. */
async function session(credentials = saas): Promise<{ cookie: string; csrf: string }> {
  const answer = await signIn(credentials);
  assert.equal(answer.status, 200, await answer.clone().text());
  const cookie = cookieOf(answer);
  assert.ok(cookie);
  return { cookie, csrf: await csrfOf(cookie) };
}

function cookieOf(answer: Response): string | undefined {
  const set = answer.headers.getSetCookie().find((c) => c.startsWith('console_session='));
  return set?.split(';')[0];
}

async function csrfOf(cookie: string): Promise<string> {
  const html = await (await fetch(`${base()}overview`, { headers: { cookie } })).text();
  const data = JSON.parse(/<script id="page-data" type="application\/json">(.*?)<\/script>/.exec(html)?.[1] ?? '{}') as {
    session?: { csrf: string };
  };
  assert.ok(data.session, 'the shell of a live session names it');
  return data.session.csrf;
}

const roles = (s: { cookie: string; csrf: string }, csrf = s.csrf) =>
  fetch(`${base()}api/auth/roles`, { headers: { cookie: s.cookie, 'x-console-csrf': csrf } });

describe('the console session', () => {
  it('is an HttpOnly, SameSite=Strict cookie on the console path (not Secure on plain HTTP at 127.0.0.1), the secret sealed', async () => {
    const answer = await signIn(saas);
    assert.equal(answer.status, 200);
    const set = answer.headers.getSetCookie().find((c) => c.startsWith('console_session='));
    assert.ok(set);
    assert.match(set, /; Path=\/v1\/auth\/console\/; HttpOnly; SameSite=Strict; Max-Age=1800$/);
    assert.ok(!set.includes(saas.secret), 'the secret is never in the cookie as it is');
    const html = await (await fetch(`${base()}overview`, { headers: { cookie: set.split(';')[0]! } })).text();
    assert.ok(!html.includes(saas.secret), 'nor in the page');
    assert.ok(html.includes(saas.apiKey));
  });

  it('forwards a signed route with the session and the CSRF token, and refuses without either or with a forged one', async () => {
    const s = await session();
    assert.equal((await roles(s)).status, 200);
    assert.equal((await fetch(`${base()}api/auth/roles`, { headers: { cookie: s.cookie } })).status, 403);
    assert.equal((await roles(s, `${s.csrf.slice(1)}x`)).status, 403);
    assert.equal((await fetch(`${base()}api/auth/roles`, { headers: { 'x-console-csrf': s.csrf } })).status, 401);
    const forgedCookie = `${s.cookie.slice(0, -4)}AAAA`;
    assert.equal((await roles({ cookie: forgedCookie, csrf: s.csrf })).status, 401);
    // Another session's token does not fit this one.
    const second = await session();
    assert.equal((await roles(s, second.csrf)).status, 403);
  });

  it('answers the API’s own status and body, and calls signed routes only', async () => {
    const s = await session();
    const created = await fetch(`${base()}api/auth/roles`, {
      method: 'POST',
      headers: { cookie: s.cookie, 'x-console-csrf': s.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ role_name: 'a/b', display_name: 'x' }),
    });
    assert.equal(created.status, 400);
    const problem = (await created.json()) as { type: string; data: { field?: string } };
    assert.equal(problem.data.field, 'role_name');
    assert.ok(created.headers.get('x-request-id'));
    for (const path of ['api/auth/openapi.json', 'api/auth/.well-known/jwks.json', 'api/nothing/roles']) {
      assert.equal((await fetch(`${base()}${path}`, { headers: { cookie: s.cookie, 'x-console-csrf': s.csrf } })).status, 404, path);
    }
    const signInRoute = await fetch(`${base()}api/auth/sign-in`, {
      method: 'POST',
      headers: { cookie: s.cookie, 'x-console-csrf': s.csrf, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(signInRoute.status, 404);
  });

  it('ends 30 minutes after its last use', async () => {
    // Moves are measured from this held instant, not from a real clock that a busy machine runs on past them.
    const start = Date.now();
    setClockForTests(start);
    const s = await session();
    setClockForTests(start + 29 * 60_000);
    const used = await roles(s);
    assert.equal(used.status, 200);
    const renewed = cookieOf(used);
    assert.ok(renewed, 'a use renews the cookie');
    setClockForTests(start + 29 * 60_000 + 31 * 60_000);
    assert.equal((await roles(s)).status, 401, 'the old cookie is past its idle end');
    assert.equal((await roles({ cookie: renewed, csrf: s.csrf })).status, 401, 'and so is the renewed one, unused for 31 minutes');
  });

  it('ends 12 hours after sign-in however often it is used', async () => {
    let s = await session();
    const start = Date.now();
    let minutes = 0;
    for (; minutes < 12 * 60 - 20; minutes += 20) {
      setClockForTests(start + minutes * 60_000);
      const answer = await roles(s);
      assert.equal(answer.status, 200, `at ${minutes} minutes`);
      const renewed = cookieOf(answer);
      if (renewed) s = { ...s, cookie: renewed };
    }
    setClockForTests(start + (12 * 60 + 1) * 60_000);
    assert.equal((await roles(s)).status, 401);
  });

  it('signs out: the cookie is forgotten, and sign-out itself needs the CSRF token', async () => {
    const s = await session();
    const refused = await fetch(`${base()}session/sign-out`, { method: 'POST', headers: { cookie: s.cookie } });
    assert.equal(refused.status, 403);
    const out = await fetch(`${base()}session/sign-out`, { method: 'POST', headers: { cookie: s.cookie, 'x-console-csrf': s.csrf } });
    assert.equal(out.status, 200);
    assert.match(out.headers.getSetCookie().find((c) => c.startsWith('console_session=')) ?? '', /^console_session=; .*Max-Age=0/);
  });

  it('signs out every copy of the cookie, while another session of the same key keeps working', async () => {
    const s = await session();
    const other = await session();
    // A copy taken before sign-out, renewed by a use after a minute: both are the same session.
    setClockForTests(Date.now() + 2 * 60_000);
    const used = await roles(s);
    assert.equal(used.status, 200);
    const renewed = cookieOf(used);
    assert.ok(renewed && renewed !== s.cookie, 'a use after a minute renews the cookie');
    const out = await fetch(`${base()}session/sign-out`, { method: 'POST', headers: { cookie: renewed, 'x-console-csrf': s.csrf } });
    assert.equal(out.status, 200);
    for (const copy of [s.cookie, renewed]) {
      const refused = await roles({ cookie: copy, csrf: s.csrf });
      assert.equal(refused.status, 401);
      assert.equal(((await refused.json()) as { type: string }).type, 'signed_out', 'the answer a signed-out browser gets');
      const shell = await (await fetch(`${base()}overview`, { headers: { cookie: copy } })).text();
      assert.ok(!shell.includes(s.csrf), 'the shell no longer hands the page the session');
    }
    assert.equal((await roles(other)).status, 200, 'the other session of the same key');
  });

  it('clears the cookie and says so when the sign-out cannot be recorded', async () => {
    const s = await session();
    const api = new URL(h.api.baseUrl);
    const storeDown = new ConsoleBackend({
      basePath: ENTRY_PATHS.console,
      apiOrigin: api.origin,
      box: secretBox(),
      throttle: consoleSignInThrottle(),
      revocations: {
        revoked: () => Promise.resolve(false),
        revoke: () => Promise.reject(new Error('the store is down')),
      },
      asset: () => Promise.resolve(''),
    });
    const out = await storeDown.handle({
      method: 'POST',
      path: 'session/sign-out',
      query: '',
      headers: { host: api.host, cookie: s.cookie, 'x-console-csrf': s.csrf, 'content-type': 'application/json' },
      body: Buffer.from('{}'),
      sourceIp: '127.0.0.1',
    });
    assert.equal(out.status, 503);
    assert.equal((JSON.parse(out.body) as { type: string }).type, 'sign_out_unrecorded');
    assert.match(out.cookies.find((c) => c.startsWith('console_session=')) ?? '', /^console_session=; .*Max-Age=0/, 'this browser is signed out');
  });
});

describe('console sign-in', () => {
  it('answers every failure alike: unknown SaaS, unknown key, wrong secret, a key of another SaaS, malformed input', async () => {
    const failures = [
      { ...saas, saasId: '00000000-0000-4000-8000-000000000000' },
      { ...saas, apiKey: 'NoSuchKey123' },
      { ...saas, secret: `${saas.secret}x` },
      { ...saas, apiKey: other.apiKey, secret: other.secret },
      { ...saas, secret: 'has spaces and ; semicolons' },
    ];
    const answers = await Promise.all(
      failures.map(async (c) => {
        const answer = await signIn(c);
        return { status: answer.status, body: await answer.text(), cookie: cookieOf(answer) };
      }),
    );
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal(answers[0]!.status, 401);
    assert.equal(answers[0]!.cookie, undefined);
  });

  it('refuses a sign-in that is not the console page’s own: a form post, or one marked cross-site', async () => {
    assert.equal((await signIn(saas, { 'content-type': 'text/plain' })).status, 403);
    assert.equal((await signIn(saas, { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' })).status, 403);
    assert.equal((await signIn(saas, { 'content-type': 'application/json', origin: 'https://evil.example' })).status, 403);
  });

  it('answers only on the service’s own host', async () => {
    const elsewhere = h.api.baseUrl.replace('127.0.0.1', 'localhost');
    const answer = await fetch(`${elsewhere}/console/overview`);
    assert.equal(answer.status, 404);
    assert.match(answer.headers.get('content-type') ?? '', /text\/html/);
  });

  it('stops checking a key after its failures fill the window, even with the right secret', async () => {
    // A window of its own, so the other tests' failures do not count here.
    const start = (Math.floor(Date.now() / 1000 / DEFAULT_THROTTLE_LIMITS.windowSeconds) + 10) * DEFAULT_THROTTLE_LIMITS.windowSeconds * 1000;
    setClockForTests(start);
    const victim = await h.newSaas();
    for (let i = 0; i < DEFAULT_THROTTLE_LIMITS.perKey; i++) assert.equal((await signIn({ ...victim, secret: `wrong${i}` })).status, 401);
    const blocked = await signIn(victim);
    assert.equal(blocked.status, 429);
    assert.equal(cookieOf(blocked), undefined);
    // Another key from the same address is still checked (the address has room left).
    assert.equal((await signIn(saas)).status, 200);
    // The next window forgets.
    setClockForTests(start + DEFAULT_THROTTLE_LIMITS.windowSeconds * 1000);
    assert.equal((await signIn(victim)).status, 200);
  });

  it('stops checking an address after its failures fill the window, whatever key it tries', async () => {
    const start = (Math.floor(Date.now() / 1000 / DEFAULT_THROTTLE_LIMITS.windowSeconds) + 20) * DEFAULT_THROTTLE_LIMITS.windowSeconds * 1000;
    setClockForTests(start);
    for (let i = 0; i < DEFAULT_THROTTLE_LIMITS.perAddress; i++) {
      assert.equal((await signIn({ ...saas, apiKey: `Guess${i}`, secret: 'x' })).status, 401);
    }
    assert.equal((await signIn(saas)).status, 429);
    assert.equal((await signIn(other)).status, 429);
  });
});
