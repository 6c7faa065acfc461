/**
 * The hosted screen's session (docs/login-screen.md, "Signed in once"; web/login/screen/screen-session.ts,
 * resume.ts; shared/domain/sign-in/screen-sessions.ts), over HTTP through the real handlers on DynamoDB Local:
 * one sign-in opens it, and later authorizations complete from it (the SaaS's own entry with its state, and
 * openid-client's code flow, silent with prompt=none too); prompt=login, max_age, a second factor turned on
 * since, and its lifetimes ask again; signing out, a password change or reset, Delete User, SCIM deprovisioning and the API's
 * DELETE /users/{id}/sessions/{session_id} end it.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { config, resetConfigForTests } from '../../shared/config.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { Browser } from '../support/screen-browser.js';
import { MULTI_FACTOR_ACR } from '../../web/login/oidc/authorization-server.js';
import { deliveredMail } from '../support/mail.js';
import { authorizationAttempt } from '../support/oidc-request.js';
import { DeleteCommand } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { countStoreRequests, type StoreRequestCounter } from '../support/store-requests.js';
import { PATCH_OP, turnScimOn, USER_SCHEMA } from '../support/scim.js';

const CALLBACK = 'https://app.acme.test/auth/callback';
const PASSWORD = 'Taro#Secret42';

let h: Harness;
let admin: SignedClient;
let saasId: string;
let client: oidc.Configuration;
let screen: string;
let counter: StoreRequestCounter;

let n = 0;
async function newUser() {
  const email = `person${++n}.sessions@example.com`;
  const created = await admin.post<{ id: string }>('/users', { email, password: PASSWORD, attributes: {} });
  assert.equal(created.status, 201, created.text);
  return { email, id: created.body.id };
}

const TENANT = { name: 'T', attributes: {}, back_office_staff_email: 'ops@example.com' };

async function newTenant(props: object = {}): Promise<string> {
  const created = await admin.post<{ id: string }>('/tenants', { ...TENANT, ...props });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

const join = async (tenantId: string, email: string) =>
  assert.equal((await admin.post(`/tenants/${tenantId}/users`, { email, attributes: {} })).status, 201);

/** A browser signed in once through the SaaS's own entry. */
async function signedIn() {
  const user = await newUser();
  const browser = new Browser(screen, client, CALLBACK);
  const { answer, setCookie } = await browser.signIn(`${screen}?state=first`, user.email, PASSWORD);
  assert.ok(String(answer.redirect).startsWith(`${CALLBACK}?code=`));
  return { user, browser, setCookie };
}

/** The callback a screen answer sends the browser to, with its code. */
function callbackOf(res: Response): URL {
  assert.equal(res.status, 302, `expected a redirect, got ${res.status}`);
  const url = new URL(res.headers.get('location') ?? '');
  assert.equal(url.origin + url.pathname, CALLBACK);
  return url;
}

/** A session that no longer answers for want of a second factor: the page says so; prompt=none, login_required. */
async function asksForSecondFactor(browser: Browser) {
  const asked = await browser.get(`${screen}?state=s`);
  assert.equal(asked.status, 200);
  assert.match(await asked.text(), /now uses a second factor/);
  assert.equal(callbackOf((await browser.authorize({ prompt: 'none' })).answer).searchParams.get('error'), 'login_required');
}

/** The client's tokens for the code an authorization was answered with, traded as openid-client does. */
const grantOf = (attempt: Awaited<ReturnType<Browser['authorize']>>) =>
  oidc.authorizationCodeGrant(client, callbackOf(attempt.answer), {
    pkceCodeVerifier: attempt.verifier,
    expectedState: attempt.state,
    expectedNonce: attempt.nonce,
    idTokenExpected: true,
  });

beforeAll(async () => {
  h = await startHarness({ issuerIsApi: true });
  ({ saasId, client: admin } = await h.newSaas());
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  screen = `${h.api.baseUrl}/login/${saasId}/`;
  client = await oidc.discovery(new URL(h.api.baseUrl), saasId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  counter = countStoreRequests();
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => resetClockForTests());

describe('one sign-in on the screen', () => {
  it('sets a sealed, HttpOnly, SameSite=Lax session cookie scoped to the SaaS screen', async () => {
    const { setCookie } = await signedIn();
    const line = setCookie.find((c) => c.startsWith('login_session='));
    assert.ok(line, setCookie.join('\n'));
    assert.match(line, /; Path=\/v1\/auth\/login\/[^/]+\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    assert.ok(line.includes(`/login/${saasId}/`));
    // Plain HTTP on a laptop: no Secure (the deployed service's HTTPS sets it, secureCookies).
    assert.doesNotMatch(line, /Secure/);
  });

  it("answers the SaaS's own entry again at once: the callback with a code the SDK trades, and the state", async () => {
    const { user, browser } = await signedIn();
    const back = callbackOf(await browser.get(`${screen}?state=second`));
    assert.equal(back.searchParams.get('state'), 'second');
    const traded = await admin.get<{ id_token: string; refresh_token: string }>(`/credentials?code=${back.searchParams.get('code')}`);
    assert.equal(traded.status, 200, traded.text);
    const me = await admin.get<{ email: string }>(`/userinfo?token=${traded.body.id_token}`);
    assert.equal(me.body.email, user.email);
  });

  it('answers an OpenID Connect client without a prompt, and prompt=none silently, with the first auth_time', async () => {
    const { browser } = await signedIn();
    const tokens = await grantOf(await browser.authorize());
    const again = await grantOf(await browser.authorize({ prompt: 'none' }));
    assert.equal(again.claims()?.sub, tokens.claims()?.sub);
    assert.equal(again.claims()?.auth_time, tokens.claims()?.auth_time);
  });
});

describe('what a session costs (the sign-in bench: docs/proof.md)', () => {
  // The clock stands still: the settings the screen reads stay in this instance's kept copy, as in a warm function.
  it('an authorization answered from a live session: one read (the SaaS, the profile, the session) and one write', async () => {
    setClockForTests(Date.now());
    const { browser } = await signedIn();
    callbackOf(await browser.get(`${screen}?state=warm`));
    const own = await counter.requestsOf(async () => callbackOf(await browser.get(`${screen}?state=counted`)));
    assert.deepEqual(own, ['BatchGetItem', 'TransactWriteItems']);
    // Through the OpenID Connect authorize endpoint and then the screen: the same two, the client check kept as
    // its redirect URI is (docs/decisions.md, "The OpenID Connect client kept per instance").
    callbackOf((await browser.authorize()).answer);
    const viaOidc = await counter.requestsOf(async () => callbackOf((await browser.authorize()).answer));
    assert.deepEqual(viaOidc, ['BatchGetItem', 'TransactWriteItems']);
  });

  it('the kept client: a changed redirect URI refused at once, a removed account no longer a client after the settings cache', async () => {
    const start = Date.now();
    setClockForTests(start);
    const kept = await h.newSaas();
    assert.equal((await kept.client.put('/auth-info', { callback_url: CALLBACK })).status, 200);
    const email = 'kept.client@example.com';
    assert.equal((await kept.client.post('/users', { email, password: PASSWORD, attributes: {} })).status, 201);
    const keptScreen = `${h.api.baseUrl}/login/${kept.saasId}/`;
    const keptClient = await oidc.discovery(new URL(h.api.baseUrl), kept.saasId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const browser = new Browser(keptScreen, keptClient, CALLBACK);
    await browser.signIn(`${keptScreen}?state=first`, email, PASSWORD);
    callbackOf((await browser.authorize()).answer);
    const authorize = async () => browser.get((await authorizationAttempt(keptClient, CALLBACK)).url.toString());

    assert.equal((await kept.client.put('/auth-info', { callback_url: 'https://app.acme.test/moved/callback' })).status, 200);
    const moved = await authorize();
    assert.equal(moved.status, 400);
    assert.match(await moved.text(), /redirect_uri: is not the callback URL registered/);
    assert.equal((await kept.client.put('/auth-info', { callback_url: CALLBACK })).status, 200);

    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.saas(kept.saasId) }));
    // Within the settings cache the endpoint still sends the browser on; the screen reads the account and issues no code.
    const sent = await authorize();
    assert.equal(sent.status, 302);
    const screenAnswer = await browser.get(sent.headers.get('location') ?? '');
    assert.equal(screenAnswer.status, 404);
    setClockForTests(start + (config().settingsCacheSeconds + 1) * 1000);
    const gone = await authorize();
    assert.equal(gone.status, 400);
    assert.match(await gone.text(), /client_id: there is no such client/);
  });

  it('a SaaS gone since the sign-in (its account item removed): the 404 page, nothing of the session used', async () => {
    const gone = await h.newSaas();
    assert.equal((await gone.client.put('/auth-info', { callback_url: CALLBACK })).status, 200);
    const email = 'gone.sessions@example.com';
    assert.equal((await gone.client.post('/users', { email, password: PASSWORD, attributes: {} })).status, 201);
    const goneScreen = `${h.api.baseUrl}/login/${gone.saasId}/`;
    const browser = new Browser(goneScreen);
    await browser.signIn(`${goneScreen}?state=first`, email, PASSWORD);
    callbackOf(await browser.get(`${goneScreen}?state=live`));
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.saas(gone.saasId) }));
    const res = await browser.get(`${goneScreen}?state=after`);
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.deepEqual(res.headers.getSetCookie(), []);
  });
});

describe('what asks again', () => {
  it('prompt=none without a session: login_required back to the registered redirect URI, with the state', async () => {
    const browser = new Browser(screen, client, CALLBACK);
    const { answer, state } = await browser.authorize({ prompt: 'none' });
    const back = callbackOf(answer);
    assert.equal(back.searchParams.get('error'), 'login_required');
    assert.equal(back.searchParams.get('state'), state);
    assert.equal(back.searchParams.get('code'), null);
  });

  it('prompt=login: the sign-in page, saying who is signed in, and signing in again answers the client', async () => {
    const { user, browser } = await signedIn();
    const { answer, screenUrl } = await browser.authorize({ prompt: 'login' });
    assert.equal(answer.status, 200);
    const html = await answer.text();
    assert.match(html, new RegExp(`Signed in as ${user.email.replace(/\./g, '\\.')}`));
    assert.match(html, /href="sign-out\?again=1&amp;authorization=[^"]+" id="not-you"/);
    const { answer: signed } = await browser.signIn(screenUrl, user.email, PASSWORD);
    assert.ok(String(signed.redirect).startsWith(`${CALLBACK}?code=`));
  });

  it('max_age: an authentication older asks again; a younger one answers', async () => {
    const { browser } = await signedIn();
    const now = Date.now();
    setClockForTests(now + 120_000);
    assert.equal((await browser.authorize({ max_age: '60' })).answer.status, 200);
    callbackOf((await browser.authorize({ max_age: '600' })).answer);
    const silent = callbackOf((await browser.authorize({ prompt: 'none', max_age: '60' })).answer);
    assert.equal(silent.searchParams.get('error'), 'login_required');
  });

  it('a second factor turned on since the sign-in: step-up (the page), and login_required for prompt=none', async () => {
    const { user, browser } = await signedIn();
    assert.equal((await admin.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    await asksForSecondFactor(browser);
  });

  it('acr_values asking for a second factor: a password session asks again (prompt=none: login_required), a session with one answers', async () => {
    const acr = { acr_values: MULTI_FACTOR_ACR };
    const { browser } = await signedIn();
    const asked = (await browser.authorize(acr)).answer;
    assert.equal(asked.status, 200);
    assert.match(await asked.text(), /The application asks for a sign-in with a second factor/);
    assert.equal(callbackOf((await browser.authorize({ ...acr, prompt: 'none' })).answer).searchParams.get('error'), 'login_required');
    // Another acr value is a voluntary claim: the session answers as without it.
    callbackOf((await browser.authorize({ acr_values: 'urn:example:silver' })).answer);

    // A session whose sign-in gave a second factor (the mailed code) meets it.
    const user = await newUser();
    assert.equal((await admin.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    const twoFactor = new Browser(screen, client, CALLBACK);
    const { answer: challenged } = await twoFactor.signIn(`${screen}?state=first`, user.email, PASSWORD);
    assert.equal(challenged.challenge_name, 'EMAIL_OTP', JSON.stringify(challenged));
    const [mail] = await deliveredMail(h.sesUrl, saasId, user.email);
    const code = /(\d{6})/.exec(mail?.body.text ?? '')?.[1] as string;
    const { answer: done } = await twoFactor.answer({
      challenge_name: 'EMAIL_OTP',
      session: challenged.session,
      responses: { USERNAME: challenged.username, EMAIL_OTP_CODE: code },
    });
    assert.ok(String(done.redirect).startsWith(`${CALLBACK}?code=`), JSON.stringify(done));
    callbackOf((await twoFactor.authorize({ ...acr, prompt: 'none' })).answer);
  });

  it('a SaaS that now requires a second factor of everyone (passkeys required): a password session asks again', async () => {
    const { browser } = await signedIn();
    callbackOf(await browser.get(`${screen}?state=s`));
    assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: true, required: true } })).status, 200);
    try {
      await asksForSecondFactor(browser);
    } finally {
      assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: false } })).status, 200);
    }
  });

  it("a tenant of the person's that now requires passkeys, or one they joined since: a password session asks again", async () => {
    assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    try {
      const [turning, strict] = [await newTenant(), await newTenant({ passkeys_required: true })];
      const member = await signedIn();
      await join(turning, member.user.email);
      const joining = await signedIn();
      // Nothing required yet of either: their sessions answer.
      callbackOf(await member.browser.get(`${screen}?state=s`));
      callbackOf(await joining.browser.get(`${screen}?state=s`));

      assert.equal((await admin.patch(`/tenants/${turning}`, { ...TENANT, passkeys_required: true })).status, 200);
      await join(strict, joining.user.email);
      for (const { browser } of [member, joining]) {
        await asksForSecondFactor(browser);
      }
    } finally {
      assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: false } })).status, 200);
    }
  });

  it("what the tenants' rule costs a password session where passkeys are on: the memberships, and a read per tenant", async () => {
    assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    try {
      setClockForTests(Date.now());
      const relaxed = await newTenant();
      const { user, browser } = await signedIn();
      callbackOf(await browser.get(`${screen}?state=warm`));
      const alone = await counter.requestsOf(async () => callbackOf(await browser.get(`${screen}?state=counted`)));
      assert.deepEqual(alone, ['BatchGetItem', 'Query', 'TransactWriteItems']);
      await join(relaxed, user.email);
      const member = await counter.requestsOf(async () => callbackOf(await browser.get(`${screen}?state=counted`)));
      assert.deepEqual(member, ['BatchGetItem', 'Query', 'GetItem', 'TransactWriteItems']);
    } finally {
      assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: false } })).status, 200);
    }
  });

  it('idle for longer than the idle lifetime, or past the absolute one, ends it', async () => {
    const { browser } = await signedIn();
    const start = Date.now();
    setClockForTests(start + 59 * 60_000);
    callbackOf(await browser.get(`${screen}?state=s`)); // used: its idle time starts again
    setClockForTests(start + 118 * 60_000);
    callbackOf(await browser.get(`${screen}?state=s`));
    setClockForTests(start + 180 * 60_000);
    const idle = await browser.get(`${screen}?state=s`);
    assert.equal(idle.status, 200);
    assert.ok(!browser.cookies.has('login_session'), 'the ended session is forgotten');

    resetClockForTests();
    const other = await signedIn();
    const at = Date.now();
    // Used every 50 minutes, it lives its 12 hours and no longer.
    for (let minutes = 50; minutes < 720; minutes += 50) {
      setClockForTests(at + minutes * 60_000);
      callbackOf(await other.browser.get(`${screen}?state=s`));
    }
    setClockForTests(at + 721 * 60_000);
    assert.equal((await other.browser.get(`${screen}?state=s`)).status, 200);
  });

  it('lifetimes are sign-in settings (our extension), bounded, idle not past absolute', async () => {
    const read = await admin.get<{ screen_session: object }>('/sign-in-settings');
    assert.deepEqual(read.body.screen_session, { idle_minutes: 60, absolute_minutes: 720 });
    const bad = await admin.put('/sign-in-settings', { screen_session: { idle_minutes: 600, absolute_minutes: 60 } });
    assert.equal(bad.status, 400);
    assert.equal((await admin.put('/sign-in-settings', { screen_session: { idle_minutes: 3, absolute_minutes: 60 } })).status, 400);
    assert.deepEqual((await admin.get<{ screen_session: object }>('/sign-in-settings')).body.screen_session, {
      idle_minutes: 60,
      absolute_minutes: 720,
    });
  });
});

describe('what ends a session', () => {
  it("signing out, and the OpenID Connect client's logout", async () => {
    const { browser } = await signedIn();
    const saved = browser.header();
    const out = await browser.get(`${screen}sign-out?redirect_uri=${encodeURIComponent(`${CALLBACK}/bye`)}`);
    assert.equal(out.headers.get('location'), `${CALLBACK}/bye`);
    assert.ok(!browser.cookies.has('login_session'));
    // The cookie kept by someone else no longer answers either: the session is gone from the store.
    const replay = await fetch(`${screen}?state=s`, { redirect: 'manual', headers: { cookie: saved } });
    assert.equal(replay.status, 200);

    const other = await signedIn();
    const end = oidc.buildEndSessionUrl(client, { post_logout_redirect_uri: `${CALLBACK}/bye` });
    const first = await other.browser.get(end.toString());
    await other.browser.get(first.headers.get('location') ?? '');
    assert.equal((await other.browser.get(`${screen}?state=s`)).status, 200);
  });

  it('a password change, a reset, Delete User', async () => {
    const changed = await signedIn();
    assert.equal((await admin.patch(`/users/${changed.user.id}/password`, { password: 'Other#Secret42' })).status, 200);
    assert.equal((await changed.browser.get(`${screen}?state=s`)).status, 200);

    const reset = await signedIn();
    assert.equal((await admin.post(`/users/${reset.user.id}/password/reset`, {})).status, 200);
    assert.equal((await reset.browser.get(`${screen}?state=s`)).status, 200);

    const deleted = await signedIn();
    assert.equal((await admin.delete(`/users/${deleted.user.id}`)).status, 200);
    assert.equal((await deleted.browser.get(`${screen}?state=s`)).status, 200);
  });

  it("a user deprovisioned by their tenant's directory (SCIM active false), and enabled again: the session stays ended", async () => {
    const tenant = await admin.post<{ id: string }>('/tenants', { name: 'Leavers', attributes: {}, back_office_staff_email: 'ops@acme.test' });
    assert.equal(tenant.status, 201, tenant.text);
    const scim = await turnScimOn(admin, tenant.body.id);
    const email = `leaver${++n}.sessions@example.com`;
    const created = await scim.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], userName: email, password: PASSWORD });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const browser = new Browser(screen, client, CALLBACK);
    await browser.signIn(`${screen}?state=first`, email, PASSWORD);
    callbackOf(await browser.get(`${screen}?state=live`));
    const active = (value: boolean) =>
      scim.call('PATCH', `/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value }] });
    assert.equal((await active(false)).status, 200);
    assert.equal((await browser.get(`${screen}?state=s`)).status, 200);
    assert.equal((await active(true)).status, 200);
    assert.equal((await browser.get(`${screen}?state=s`)).status, 200);
    assert.deepEqual((await admin.get(`/users/${created.body.id}/sessions`)).body, { sessions: [] });
  });

  it('signing out with revoke_tokens=true (off by default) also ends the refresh tokens issued from that session', async () => {
    /** A browser signed in, with every kind of refresh token its session issued: the sign-in's, an answer's, a client's. */
    const withTokens = async (user?: { email: string }) => {
      const person = user ?? (await newUser());
      const browser = new Browser(screen, client, CALLBACK);
      const { answer } = await browser.signIn(`${screen}?state=first`, person.email, PASSWORD);
      const trade = async (code: string | null) => {
        const traded = await admin.get<{ refresh_token: string }>(`/credentials?code=${code}`);
        assert.equal(traded.status, 200, traded.text);
        return traded.body.refresh_token;
      };
      const signIn = await trade(new URL(String(answer.redirect)).searchParams.get('code'));
      const answered = await trade(callbackOf(await browser.get(`${screen}?state=second`)).searchParams.get('code'));
      const grant = await grantOf(await browser.authorize());
      return { person, browser, saasus: [signIn, answered], rotating: String(grant.refresh_token) };
    };
    const refreshes = async ({ saasus, rotating }: { saasus: string[]; rotating: string }) => {
      const statuses = await Promise.all(
        saasus.map(async (token) => (await admin.get(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${encodeURIComponent(token)}`)).status),
      );
      const client_ = await oidc.refreshTokenGrant(client, rotating).then(
        () => 'refreshed',
        () => 'refused',
      );
      return [...statuses, client_];
    };

    const kept = await withTokens();
    await kept.browser.get(`${screen}sign-out`);
    assert.deepEqual(await refreshes(kept), [200, 200, 'refreshed'], 'a plain sign-out leaves the tokens');

    const revoked = await withTokens();
    const elsewhere = await withTokens(revoked.person);
    const end = oidc.buildEndSessionUrl(client, { post_logout_redirect_uri: `${CALLBACK}/bye`, revoke_tokens: 'true' });
    const out = await revoked.browser.get(end.toString());
    await revoked.browser.get(out.headers.get('location') ?? '');
    assert.deepEqual(await refreshes(revoked), [401, 401, 'refused']);
    assert.deepEqual(await refreshes(elsewhere), [200, 200, 'refreshed'], "the same person's other session keeps its tokens");
  });

  it('GET /users/{id}/sessions lists them; DELETE ends one, which then asks again', async () => {
    const { user, browser } = await signedIn();
    // The list is newest first by the second: two sign-ins within one second would tie.
    setClockForTests(Date.now() + 2000);
    const second = new Browser(screen, client, CALLBACK);
    await second.signIn(`${screen}?state=x`, user.email, PASSWORD);
    const listed = await admin.get<{ sessions: { id: string; user_agent: string; ip: string; methods: string[]; created_at: number }[] }>(
      `/users/${user.id}/sessions`,
    );
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.sessions.length, 2);
    for (const session of listed.body.sessions) {
      assert.equal(session.user_agent, 'Test browser/1.0');
      assert.deepEqual(session.methods, ['pwd']);
      assert.ok(session.ip.length > 0);
    }
    const [newest] = listed.body.sessions;
    assert.equal((await admin.delete(`/users/${user.id}/sessions/${newest?.id}`)).status, 200);
    assert.equal((await second.get(`${screen}?state=s`)).status, 200);
    callbackOf(await browser.get(`${screen}?state=s`));
    const after = await admin.get<{ sessions: unknown[] }>(`/users/${user.id}/sessions`);
    assert.equal(after.body.sessions.length, 1);
    // Ended already, unknown, or not a session id: 404 or 400 in the error shape, nothing changed.
    const again = await admin.delete<{ type: string }>(`/users/${user.id}/sessions/${newest?.id}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.type, 'session_not_found');
    assert.equal((await admin.delete(`/users/${user.id}/sessions/not-an-id`)).status, 400);
    assert.equal((await admin.get(`/users/no-such-user/sessions`)).status, 404);
  });
});

describe('the cookie over HTTPS (the deployed service)', () => {
  let plainHttp: string;
  /** The service as deployed: its public URL https (secureCookies), the same handlers and store. */
  const overHttps = (on: boolean) => {
    process.env.PUBLIC_BASE_URL = on ? plainHttp.replace(/^http:/, 'https:') : plainHttp;
    resetConfigForTests();
  };
  beforeAll(() => {
    plainHttp = String(process.env.PUBLIC_BASE_URL);
  });
  afterEach(() => overHttps(false));

  it('is __Host-login_session-<saas id>: Secure, Path=/, no Domain; and the old name is forgotten', async () => {
    overHttps(true);
    const { setCookie, browser } = await signedIn();
    const name = `__Host-login_session-${saasId}`;
    const line = setCookie.find((c) => c.startsWith(`${name}=`));
    assert.ok(line, setCookie.join('\n'));
    assert.match(line, /; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200; Secure$/);
    assert.doesNotMatch(line, /Domain=/i);
    assert.ok(
      setCookie.some((c) => /^login_session=; Path=\/v1\/auth\/login\/[^/]+\/; .*Max-Age=0; Secure$/.test(c)),
      setCookie.join('\n'),
    );
    callbackOf(await browser.get(`${screen}?state=s`));
    const out = await browser.get(`${screen}sign-out`);
    assert.ok(out.headers.getSetCookie().some((c) => c.startsWith(`${name}=;`) && c.includes('Max-Age=0')));
    assert.equal((await browser.get(`${screen}?state=s`)).status, 200);
  });

  it('a live session under the old name answers once more, and that answer moves it to the new name', async () => {
    const { browser } = await signedIn();
    const old = browser.cookies.get('login_session');
    assert.ok(old);
    overHttps(true);
    const moved = await browser.get(`${screen}?state=moved`);
    assert.equal(callbackOf(moved).searchParams.get('state'), 'moved');
    const set = moved.headers.getSetCookie();
    assert.ok(
      set.some((c) => c.startsWith(`__Host-login_session-${saasId}=`) && c.endsWith('; Secure')),
      set.join('\n'),
    );
    assert.ok(
      set.some((c) => c.startsWith('login_session=;') && c.includes('Max-Age=0')),
      set.join('\n'),
    );
    assert.deepEqual(
      [...browser.cookies.keys()].filter((c) => c.includes('session')),
      [`__Host-login_session-${saasId}`],
    );
    callbackOf(await browser.get(`${screen}?state=again`));
    // Another SaaS's screen on the same host: neither name opens there.
    const other = await h.newSaas();
    assert.equal((await other.client.put('/auth-info', { callback_url: CALLBACK })).status, 200);
    const elsewhere = await fetch(`${h.api.baseUrl}/login/${other.saasId}/?state=s`, {
      redirect: 'manual',
      headers: { cookie: `${browser.header()}; login_session=${old}` },
    });
    assert.equal(elsewhere.status, 200);
  });
});
