/**
 * The example application's backend over HTTP, against the real service: the spec's POST /challenge-id
 * errors and answer, the session cookies (HttpOnly, SameSite=Strict, tokens never in a body), CSRF on
 * every route that reads or sets them, /me's token verification, refresh and sign-out. Sign-ins run the
 * login page's own SRP code (client/srp.ts) in Node.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { onApi } from '../support/other-api.js';
import { SrpClient, type PasswordChallenge } from '../../client/srp.js';
import { ID_LOGIN_ERRORS } from '../../examples/app/server/sign-in.js';
import { AppSession, type AppAnswer } from '../support/app-session.js';
import { setTemporaryPassword, startAppWorld, type AppWorld } from '../support/example-app.js';
import { deliveredMail } from '../support/mail.js';
import { mintTokens } from '../support/tokens.js';

let world: AppWorld;
let tenantId: string;
let taroId: string;
const PASSWORD = 'Taro#Secret42';

beforeAll(async () => {
  world = await startAppWorld();
  tenantId = await world.setup.createTenant('Example', '@example.com');
  taroId = await world.setup.createUser('taro@example.com', PASSWORD);
  await world.setup.addMember(tenantId, taroId, 'taro@example.com');
});
afterAll(() => world.close());

const session = () => new AppSession(world.app.url);

function assertFailure(answer: AppAnswer, status: number, message: string) {
  assert.equal(answer.status, status, answer.text);
  assert.deepEqual(answer.body, { success: false, message });
}

/** The page's steps, in Node: SRP_A out, the challenge back, the proof to /sign-in/challenge. */
async function signIn(browser: AppSession, path: '/sign-in' | '/challenge-id', fields: Record<string, string>, password: string) {
  const srp = new SrpClient();
  const challenge = await browser.request('POST', path, { body: { ...fields, srp_a: await srp.srpA() } });
  assert.equal(challenge.status, 200, challenge.text);
  const claim = await srp.passwordClaim(challenge.body as unknown as PasswordChallenge, password);
  return browser.request('POST', '/sign-in/challenge', { body: claim });
}

async function signedInSession(): Promise<AppSession> {
  const browser = session();
  await browser.fetchCsrfToken();
  const answer = await signIn(browser, '/sign-in', { username: 'taro@example.com' }, PASSWORD);
  assert.equal(answer.status, 200, answer.text);
  return browser;
}

describe('POST /challenge-id (the application-side ID login of the spec)', () => {
  const challengeId = (body: unknown) => session().request('POST', '/challenge-id', { body });
  const srpA = new SrpClient().srpA();

  it('answers 400 Invalid request format for a body it cannot read', async () => {
    for (const body of [
      '{not json',
      '[]',
      '"text"',
      'null',
      { user_id: 'taro', tenant_id: tenantId },
      { user_id: 'taro', tenant_id: 7, srp_a: 'ab' },
      { user_id: '', tenant_id: tenantId, srp_a: 'ab' },
    ]) {
      assertFailure(await challengeId(body), 400, ID_LOGIN_ERRORS.invalidRequest);
    }
  });

  it('answers 400 Tenant not found for an unknown or malformed tenant id', async () => {
    for (const id of [randomUUID(), 'not-a-tenant', '../users']) {
      assertFailure(await challengeId({ user_id: 'taro', tenant_id: id, srp_a: await srpA }), 400, ID_LOGIN_ERRORS.tenantNotFound);
    }
  });

  it('answers 400 when the tenant has no login_domain', async () => {
    const bare = await world.setup.createTenant('No domain');
    assertFailure(await challengeId({ user_id: 'taro', tenant_id: bare, srp_a: await srpA }), 400, ID_LOGIN_ERRORS.noLoginDomain);
    const empty = await world.setup.createTenant('Empty domain', '');
    assertFailure(await challengeId({ user_id: 'taro', tenant_id: empty, srp_a: await srpA }), 400, ID_LOGIN_ERRORS.noLoginDomain);
  });

  it('answers 500 SignIn challenge failed when the service refuses the sign-in', async () => {
    assertFailure(await challengeId({ user_id: 'taro', tenant_id: tenantId, srp_a: '0' }), 500, ID_LOGIN_ERRORS.challengeFailed);
  });

  it('answers 200 with the challenge for username + login_domain, USER_ID_FOR_SRP as the username', async () => {
    const answer = await challengeId({ user_id: 'taro', tenant_id: tenantId, srp_a: await srpA });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.body).sort(), ['message', 'pool_name', 'salt', 'secret_block', 'session', 'srp_b', 'success', 'username']);
    assert.equal(answer.body.success, true);
    assert.equal(answer.body.username, taroId, 'the USER_ID_FOR_SRP of taro@example.com');
    assert.match(String(answer.body.srp_b), /^[0-9a-f]+$/);
    assert.match(String(answer.body.pool_name), /^[0-9A-Za-z]+$/);
    assert.equal(typeof answer.body.session, 'string');
  });
});

describe('CSRF', () => {
  const guarded: [string, string, unknown?][] = [
    ['POST', '/sign-in/challenge', {}],
    ['POST', '/verify', {}],
    ['POST', '/refresh'],
    ['POST', '/sign-out'],
    ['GET', '/me'],
  ];

  it('hands out one token per browser in an HttpOnly, SameSite=Strict cookie (not Secure on 127.0.0.1)', async () => {
    const browser = session();
    const first = await browser.request('GET', '/csrf', { csrf: false });
    assert.equal(first.status, 200);
    assert.match(String(first.body.csrf_token), /^[A-Za-z0-9_-]{43}$/);
    const [cookie] = first.setCookies;
    assert.equal(cookie?.name, 'csrf');
    assert.equal(cookie?.value, first.body.csrf_token);
    assert.ok(cookie?.attributes.has('httponly'));
    assert.equal(cookie?.attributes.get('samesite'), 'Strict');
    assert.equal(cookie?.attributes.has('secure'), false);
    const again = await browser.request('GET', '/csrf', { csrf: false });
    assert.equal(again.body.csrf_token, first.body.csrf_token);
    assert.deepEqual(again.setCookies, []);
  });

  it('refuses every cookie route without the header, with a wrong one, or without the cookie, and changes nothing', async () => {
    const browser = await signedInSession();
    const before = browser.cookieNames();
    const stranger = session();
    const altered = browser.csrfToken.slice(0, -1) + (browser.csrfToken.endsWith('A') ? 'B' : 'A');
    for (const [method, path, body] of guarded) {
      for (const csrf of [false, altered, 'short'] as const) {
        const answer = await browser.request(method, path, { body, csrf });
        assertFailure(answer, 403, 'Missing or wrong CSRF token: reload the page');
        assert.deepEqual(answer.setCookies, []);
      }
      // The right value, but from a browser that never got the cookie.
      assertFailure(await stranger.request(method, path, { body, csrf: browser.csrfToken }), 403, 'Missing or wrong CSRF token: reload the page');
    }
    assert.deepEqual(browser.cookieNames(), before);
    assert.equal((await browser.request('GET', '/me')).status, 200, 'still signed in');
  });
});

describe('the session cookies', () => {
  it('holds the three tokens in HttpOnly, SameSite=Strict cookies and never in a body', async () => {
    const browser = session();
    await browser.fetchCsrfToken();
    const answer = await signIn(browser, '/sign-in', { username: 'taro@example.com' }, PASSWORD);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { success: true, message: 'Signed in', signed_in: true });
    const byName = new Map(answer.setCookies.map((c) => [c.name, c]));
    assert.deepEqual([...byName.keys()].sort(), ['access_token', 'id_token', 'refresh_token']);
    for (const cookie of byName.values()) {
      assert.ok(cookie.attributes.has('httponly'), cookie.raw);
      assert.equal(cookie.attributes.get('samesite'), 'Strict', cookie.raw);
      assert.ok(Number(cookie.attributes.get('max-age')) > 0, cookie.raw);
      assert.ok(!answer.text.includes(cookie.value), 'no token in the body');
    }
    assert.equal(byName.get('id_token')?.attributes.get('path'), '/');
    assert.equal(byName.get('refresh_token')?.attributes.get('path'), '/refresh', 'the refresh token goes to /refresh only');

    const me = await browser.request('GET', '/me');
    assert.equal(me.status, 200, me.text);
    const user = me.body.user as { id: string; email: string; tenants: { id: string; envs: { roles: { role_name: string }[] }[] }[] };
    assert.equal(user.id, taroId);
    assert.equal(user.email, 'taro@example.com');
    assert.deepEqual(
      user.tenants.map((t) => [t.id, t.envs.flatMap((e) => e.roles.map((r) => r.role_name))]),
      [[tenantId, ['admin']]],
    );
    for (const token of ['id_token', 'access_token', 'refresh_token']) assert.ok(!me.text.includes(browser.cookie(token) as string));
    // No plan yet: no plan member (the service's /userinfo leaves plan_id out), and this month's usage of no unit.
    assert.deepEqual(
      (me.body.user as { tenants: Record<string, unknown>[] }).tenants.map((t) => [t.plan_id, t.plan, t.usage]),
      [[undefined, undefined, []]],
    );
  });

  it("shows the tenant's plan and this month's metered usage", async () => {
    const pricing = onApi(world.admin, 'pricing');
    const plan = await pricing.post<{ id: string }>('/plans', { name: 'gold', display_name: 'Gold Plan', description: '', menu_ids: [] });
    assert.equal(plan.status, 201, plan.text);
    assert.equal((await pricing.post('/metering/units', { unit_name: 'app_calls', display_name: '', description: '' })).status, 201);
    assert.equal((await pricing.put(`/metering/tenants/${tenantId}/units/app_calls/now`, { method: 'add', count: 7 })).status, 200);
    assert.equal((await world.admin.put(`/tenants/${tenantId}/plans`, { next_plan_id: plan.body.id })).status, 200);
    const browser = session();
    await browser.fetchCsrfToken();
    assert.equal((await signIn(browser, '/sign-in', { username: 'taro@example.com' }, PASSWORD)).status, 200);
    const me = await browser.request('GET', '/me');
    assert.deepEqual(
      (me.body.user as { tenants: Record<string, unknown>[] }).tenants.map((t) => [t.plan, t.usage]),
      [[{ id: plan.body.id, display_name: 'Gold Plan' }, [{ metering_unit_name: 'app_calls', count: 7 }]]],
    );
  });

  it('signs in by ID login: username + tenant id', async () => {
    const browser = session();
    await browser.fetchCsrfToken();
    const answer = await signIn(browser, '/challenge-id', { user_id: 'taro', tenant_id: tenantId }, PASSWORD);
    assert.equal(answer.status, 200, answer.text);
    assert.equal((await browser.request('GET', '/me')).status, 200);
  });

  it('answers a wrong password with 401 and sets no cookie', async () => {
    const browser = session();
    await browser.fetchCsrfToken();
    const answer = await signIn(browser, '/sign-in', { username: 'taro@example.com' }, `${PASSWORD}!`);
    assertFailure(answer, 401, 'Incorrect username or password.');
    assert.deepEqual(answer.setCookies, []);
  });

  it('refreshes the ID and access tokens with the refresh cookie', async () => {
    const browser = await signedInSession();
    const oldId = browser.cookie('id_token');
    const answer = await browser.request('POST', '/refresh');
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { success: true, message: 'Session refreshed' });
    assert.notEqual(browser.cookie('id_token'), oldId);
    assert.equal((await browser.request('GET', '/me')).status, 200);
  });

  it('ends the session when the refresh token is refused', async () => {
    const browser = session();
    await browser.fetchCsrfToken();
    assertFailure(await browser.request('POST', '/refresh'), 401, 'Not signed in');
    const forged = new AppSession(world.app.url);
    await forged.fetchCsrfToken();
    // A refresh cookie the service never issued.
    forged.plantCookie('refresh_token', 'forged', '/refresh');
    const answer = await forged.request('POST', '/refresh');
    assertFailure(answer, 401, 'Your session has ended. Sign in again.');
    assert.deepEqual(answer.setCookies.map((c) => [c.name, c.attributes.get('max-age')]).sort(), [
      ['access_token', '0'],
      ['id_token', '0'],
      ['refresh_token', '0'],
    ]);
  });

  it('signs out: every session cookie is cleared, and /me answers 401', async () => {
    const browser = await signedInSession();
    const answer = await browser.request('POST', '/sign-out');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { success: true, message: 'Signed out' });
    assert.deepEqual(
      answer.setCookies.map((c) => [c.name, c.attributes.get('max-age'), c.attributes.get('path'), c.attributes.has('httponly')]).sort(),
      [
        ['access_token', '0', '/', true],
        ['id_token', '0', '/', true],
        ['refresh_token', '0', '/refresh', true],
      ],
    );
    assert.deepEqual(browser.cookieNames(), ['csrf']);
    assertFailure(await browser.request('GET', '/me'), 401, 'Not signed in');
  });
});

describe('POST /verify', () => {
  const verify = async (body: unknown) => {
    const browser = session();
    await browser.fetchCsrfToken();
    return browser.request('POST', '/verify', { body });
  };

  it('answers 400 Invalid request format for a challenge it does not answer or an answer without its value', async () => {
    const base = { session: 's', username: taroId };
    for (const body of [
      { ...base, challenge_name: 'SMS_MFA', code: '123456' },
      { ...base, challenge_name: 'PASSWORD_VERIFIER', code: '123456' },
      { ...base, challenge_name: 'SOFTWARE_TOKEN_MFA' },
      { ...base, challenge_name: 'EMAIL_OTP', new_password: 'Abc#12345' },
      { ...base, challenge_name: 'NEW_PASSWORD_REQUIRED', code: '123456' },
      { challenge_name: 'SOFTWARE_TOKEN_MFA', username: taroId, code: '123456' },
      { ...base, challenge_name: 'SOFTWARE_TOKEN_MFA', code: 123456 },
    ]) {
      assertFailure(await verify(body), 400, 'Invalid request format');
    }
  });

  it('answers a session the service never issued as a wrong or expired code', async () => {
    assertFailure(
      await verify({ challenge_name: 'SOFTWARE_TOKEN_MFA', session: 'forged', username: taroId, code: '123456' }),
      401,
      'The code is wrong or has expired.',
    );
  });

  it('takes a new password after a temporary one, and sets the cookies only then', async () => {
    const userId = await world.setup.createUser('temporary@example.com', 'Initial#Pass1');
    await setTemporaryPassword(world.admin, userId, 'Temp#Pass123');
    const browser = session();
    await browser.fetchCsrfToken();
    const step = await signIn(browser, '/sign-in', { username: 'temporary@example.com' }, 'Temp#Pass123');
    assert.equal(step.status, 200, step.text);
    assert.deepEqual(step.setCookies, []);
    assert.deepEqual(
      { ...step.body, session: typeof step.body.session },
      {
        success: true,
        message: 'Choose a new password',
        signed_in: false,
        challenge_name: 'NEW_PASSWORD_REQUIRED',
        session: 'string',
        username: userId,
      },
    );
    const pending = { challenge_name: step.body.challenge_name, session: step.body.session, username: step.body.username };
    assertFailure(
      await browser.request('POST', '/verify', { body: { ...pending, new_password: 'weak' } }),
      400,
      'The new password must be at least 8 characters',
    );
    const done = await browser.request('POST', '/verify', { body: { ...pending, new_password: 'Chosen#Pass456' } });
    assert.deepEqual(done.body, { success: true, message: 'Signed in', signed_in: true });
    assert.deepEqual(done.setCookies.map((c) => c.name).sort(), ['access_token', 'id_token', 'refresh_token']);
    assert.equal((await browser.request('GET', '/me')).status, 200);
  });

  it('takes the code mailed for EMAIL_OTP', async () => {
    const email = 'otp@example.com';
    const userId = await world.setup.createUser(email, 'Otp#Secret42');
    assert.equal((await world.admin.patch(`/users/${userId}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    const browser = session();
    await browser.fetchCsrfToken();
    const step = await signIn(browser, '/sign-in', { username: email }, 'Otp#Secret42');
    assert.equal(step.body.challenge_name, 'EMAIL_OTP', step.text);
    assert.equal(step.body.message, 'Enter the code we sent to your e-mail address');
    const [mail] = await deliveredMail(world.harness.sesUrl, world.saasId, email);
    const code = /\b(\d{6})\b/.exec(`${mail?.body.text ?? ''} ${mail?.body.html ?? ''}`)?.[1];
    assert.ok(code, 'the mail carries a six-digit code');
    const pending = { challenge_name: 'EMAIL_OTP', session: step.body.session, username: step.body.username };
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    assertFailure(await browser.request('POST', '/verify', { body: { ...pending, code: wrong } }), 400, 'The code is wrong or has expired.');
    const done = await browser.request('POST', '/verify', { body: { ...pending, code } });
    assert.deepEqual(done.body, { success: true, message: 'Signed in', signed_in: true });
    assert.equal(((await browser.request('GET', '/me')).body.user as { email: string }).email, email);
  });
});

describe('GET /me', () => {
  /** A browser holding `idToken` as its ID token cookie. */
  async function withIdToken(idToken: string): Promise<AppSession> {
    const browser = session();
    await browser.fetchCsrfToken();
    browser.plantCookie('id_token', idToken);
    return browser;
  }

  it('answers 401 without a cookie or with a token that is not a valid ID token of this SaaS', async () => {
    const browser = session();
    await browser.fetchCsrfToken();
    assertFailure(await browser.request('GET', '/me'), 401, 'Not signed in');
    const own = await mintTokens({ saasId: world.saasId, userId: taroId, email: 'taro@example.com' });
    const other = await mintTokens({ saasId: randomUUID(), userId: taroId, email: 'taro@example.com' });
    const [header, payload] = own.idToken.split('.');
    for (const token of ['garbage', own.accessToken, other.idToken, `${header}.${payload}.c2lnbmF0dXJl`]) {
      assertFailure(await (await withIdToken(token)).request('GET', '/me'), 401, 'Not signed in');
    }
  });

  it('answers the user of a valid ID token with tenants and roles', async () => {
    const own = await mintTokens({ saasId: world.saasId, userId: taroId, email: 'taro@example.com' });
    const answer = await (await withIdToken(own.idToken)).request('GET', '/me');
    assert.equal(answer.status, 200, answer.text);
    assert.equal((answer.body.user as { id: string }).id, taroId);
  });
});

describe('the page and other routes', () => {
  it('serves the login page with its script and a strict content security policy', async () => {
    for (const [path, type] of [
      ['/', 'text/html'],
      ['/app.js', 'text/javascript'],
      ['/styles.css', 'text/css'],
    ] as const) {
      const response = await fetch(world.app.url + path);
      assert.equal(response.status, 200);
      assert.ok(response.headers.get('content-type')?.startsWith(type));
      assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'.*frame-ancestors 'none'/);
      await response.arrayBuffer();
    }
  });

  it('answers 404 for an unknown path and 405 for a known path with another method', async () => {
    assertFailure(await session().request('GET', '/nothing-here'), 404, 'Not found');
    assertFailure(await session().request('GET', '/sign-in'), 405, 'Method not allowed');
  });
});
