/**
 * The OpenID Connect authorization server (web/login/oidc/authorization-server.ts) as a relying party from
 * npm sees it: openid-client discovers the service, sends the person to the authorization endpoint (the hosted
 * screen, signed in over HTTP as its page does: test/support/screen-client.ts), trades the code with PKCE,
 * checks the ID token against the published JWKS, reads userinfo, refreshes, and logs out. Then what it must
 * refuse: unregistered clients and redirect URIs, requests without PKCE, a wrong verifier, a code used twice or
 * at the wrong door, another SaaS's code, a forged request, a response_mode it does not speak, a forged
 * id_token_hint. Refresh tokens rotate: one used again revokes its grant (RFC 9700 section 4.14.2), and so
 * does a code redeemed twice (RFC 6749 section 4.1.2). Claims follow the scopes.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import type { SignedClient } from '../../client/signed-fetch.js';
import { config } from '../../shared/config.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { authorizationAttempt } from '../support/oidc-request.js';
import { openScreen, signInOnScreen } from '../support/screen-client.js';

const TARO = { email: 'taro.oidc@example.com', password: 'Taro#Secret42' };
const CALLBACK = 'https://app.acme.test/auth/callback';

let h: Harness;
let admin: SignedClient;
let saasId: string;
let taroId: string;
let client: oidc.Configuration;

/** The authorization endpoint's answer for these parameters, not followed. */
const authorize = (params: Record<string, string>) =>
  fetch(`${h.api.baseUrl}/oauth2/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });

const token = (form: Record<string, string>) =>
  fetch(`${h.api.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });

/** A full run of the front channel: PKCE values, the authorization URL, the sign-in on the screen, the callback URL. */
async function signInThroughScreen(scope?: string) {
  const { url, verifier, state, nonce } = await authorizationAttempt(client, CALLBACK, scope);
  const sent = await fetch(url, { redirect: 'manual' });
  assert.equal(sent.status, 302);
  const screen = sent.headers.get('location') ?? '';
  assert.ok(screen.startsWith(`${h.api.baseUrl}/login/${saasId}/?authorization=`), screen);
  const visit = await openScreen(screen);
  assert.equal(visit.status, 200);
  const answer = await signInOnScreen(screen, visit, TARO.email, TARO.password);
  return { callback: new URL(String(answer.redirect)), verifier, state, nonce };
}

beforeAll(async () => {
  h = await startHarness({ issuerIsApi: true });
  ({ saasId, client: admin } = await h.newSaas());
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  const created = await admin.post<{ id: string }>('/users', { email: TARO.email, password: TARO.password, attributes: {} });
  assert.equal(created.status, 201, created.text);
  taroId = created.body.id;
  client = await oidc.discovery(new URL(h.api.baseUrl), saasId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
});
afterAll(async () => {
  await h?.close();
});

describe('an OpenID Connect relying party (openid-client)', () => {
  it('discovers the endpoints under the configured public URL', () => {
    const metadata = client.serverMetadata();
    assert.equal(metadata.issuer, config().tokenIssuer);
    assert.equal(metadata.authorization_endpoint, `${config().publicBaseUrl}/oauth2/authorize`);
    assert.equal(metadata.token_endpoint, `${config().publicBaseUrl}/oauth2/token`);
    assert.ok(metadata.supportsPKCE());
  });

  it('signs a user in with the code flow and PKCE, verifies the ID token with the JWKS, reads userinfo, refreshes', async () => {
    const { callback, verifier, state, nonce } = await signInThroughScreen();
    assert.equal(callback.origin + callback.pathname, CALLBACK);
    const tokens = await oidc.authorizationCodeGrant(client, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.equal(tokens.scope, 'openid email');
    const claims = tokens.claims();
    assert.equal(claims?.sub, taroId);
    assert.equal(claims?.nonce, nonce);
    assert.equal(claims?.email, TARO.email);

    // Anyone can check the ID token with the published keys.
    const jwks = createRemoteJWKSet(new URL(client.serverMetadata().jwks_uri as string));
    const { payload } = await jwtVerify(tokens.id_token as string, jwks, { issuer: config().tokenIssuer, audience: saasId });
    assert.equal(payload.sub, taroId);

    const info = await oidc.fetchUserInfo(client, tokens.access_token, taroId);
    assert.deepEqual({ ...info }, { sub: taroId, email: TARO.email, email_verified: true });

    const refreshed = await oidc.refreshTokenGrant(client, tokens.refresh_token as string);
    assert.notEqual(refreshed.access_token, tokens.access_token);
    assert.equal(refreshed.claims()?.sub, taroId);
    assert.equal((await oidc.fetchUserInfo(client, refreshed.access_token, taroId)).email, TARO.email);

    // The code was used: a second trade is refused.
    await assert.rejects(
      oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce }),
      (error: oidc.ResponseBodyError) => error.error === 'invalid_grant',
    );
  });

  it('logs out back to a page on the callback origin, with the state', async () => {
    const url = oidc.buildEndSessionUrl(client, { post_logout_redirect_uri: 'https://app.acme.test/signed-out', state: 'bye' });
    const first = await fetch(url, { redirect: 'manual' });
    assert.equal(first.status, 302);
    const signOut = await fetch(first.headers.get('location') ?? '', { redirect: 'manual' });
    assert.equal(signOut.headers.get('location'), 'https://app.acme.test/signed-out?state=bye');
    // Anywhere else: the sign-in page.
    const away = await fetch(oidc.buildEndSessionUrl(client, { post_logout_redirect_uri: 'https://evil.test/' }), { redirect: 'manual' });
    const elsewhere = await fetch(away.headers.get('location') ?? '', { redirect: 'manual' });
    assert.match(elsewhere.headers.get('location') ?? '', /\/login\/[^/]+\/sign-in$/);
  });
});

describe('the authorization endpoint refuses', () => {
  const valid = () => ({
    response_type: 'code',
    client_id: saasId,
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 's1',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });

  it('an unknown client or an unregistered redirect URI with a page, never a redirect', async () => {
    for (const params of [
      { ...valid(), client_id: 'no-such-saas' },
      { ...valid(), redirect_uri: 'https://evil.test/callback' },
      { ...valid(), redirect_uri: `${CALLBACK}/more` },
      { ...valid(), redirect_uri: '' },
    ]) {
      const res = await authorize(params);
      assert.equal(res.status, 400, JSON.stringify(params));
      assert.equal(res.headers.get('location'), null);
      assert.match(await res.text(), /sign-in request is not valid/);
    }
  });

  it('bad requests of the registered client by sending the error back to it, with the state', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ ...valid(), response_type: 'token' }, 'unsupported_response_type'],
      [{ ...valid(), scope: 'email' }, 'invalid_scope'],
      [{ ...valid(), code_challenge_method: 'plain' }, 'invalid_request'],
      [{ ...valid(), code_challenge: '' }, 'invalid_request'],
      // prompt=none alone goes to the screen, which answers from its session (test/integration/screen-sessions.test.ts).
      [{ ...valid(), prompt: 'none login' }, 'invalid_request'],
      [{ ...valid(), max_age: 'soon' }, 'invalid_request'],
      [{ ...valid(), request: 'eyJ' }, 'request_not_supported'],
    ];
    for (const [params, error] of cases) {
      const res = await authorize(params);
      assert.equal(res.status, 302);
      const back = new URL(res.headers.get('location') ?? '');
      assert.equal(back.origin + back.pathname, CALLBACK);
      assert.equal(back.searchParams.get('error'), error, JSON.stringify(params));
      assert.equal(back.searchParams.get('state'), 's1');
      assert.equal(back.searchParams.get('iss'), config().tokenIssuer);
    }
  });

  it('a forged or foreign authorization parameter on the screen', async () => {
    const forged = await openScreen(`${h.api.baseUrl}/login/${saasId}/?authorization=forged`);
    assert.equal(forged.status, 400);
    assert.match(forged.html, /sign-in request is not valid/);
    // A request sealed for this SaaS does not open on another's screen.
    const sent = await authorize(valid());
    const sealed = new URL(sent.headers.get('location') ?? '').searchParams.get('authorization') ?? '';
    const other = await h.newSaas();
    const foreign = await openScreen(`${h.api.baseUrl}/login/${other.saasId}/?authorization=${encodeURIComponent(sealed)}`);
    assert.equal(foreign.status, 400);
  });
});

describe('the token endpoint refuses', () => {
  it('a wrong verifier, and the code is spent by the attempt', async () => {
    const { callback, verifier } = await signInThroughScreen();
    const code = callback.searchParams.get('code') ?? '';
    const wrong = await token({
      grant_type: 'authorization_code',
      client_id: saasId,
      code,
      redirect_uri: CALLBACK,
      code_verifier: oidc.randomPKCECodeVerifier(),
    });
    assert.equal(wrong.status, 400);
    assert.equal(((await wrong.json()) as { error: string }).error, 'invalid_grant');
    const right = await token({ grant_type: 'authorization_code', client_id: saasId, code, redirect_uri: CALLBACK, code_verifier: verifier });
    assert.equal(((await right.json()) as { error: string }).error, 'invalid_grant');
  });

  it("another redirect URI, another SaaS's client id, and the SaaSus temporary-code door", async () => {
    const { callback, verifier } = await signInThroughScreen();
    const code = callback.searchParams.get('code') ?? '';
    const other = await h.newSaas();
    const foreign = await token({ grant_type: 'authorization_code', client_id: other.saasId, code, redirect_uri: CALLBACK, code_verifier: verifier });
    assert.equal(((await foreign.json()) as { error: string }).error, 'invalid_grant');
    // An authorization code is not a temporary code: GET /credentials does not take it.
    const second = await signInThroughScreen();
    const asTempCode = await admin.get(`/credentials?code=${encodeURIComponent(second.callback.searchParams.get('code') ?? '')}`);
    assert.equal(asTempCode.status, 404);
    const third = await signInThroughScreen();
    const elsewhere = await token({
      grant_type: 'authorization_code',
      client_id: saasId,
      code: third.callback.searchParams.get('code') ?? '',
      redirect_uri: 'https://app.acme.test/other',
      code_verifier: third.verifier,
    });
    assert.equal(((await elsewhere.json()) as { error: string }).error, 'invalid_grant');
  });

  it('a plain screen code (no PKCE), unknown grants and clients, client secrets, and form-less bodies', async () => {
    const screen = `${h.api.baseUrl}/login/${saasId}/`;
    const plain = await signInOnScreen(screen, await openScreen(screen), TARO.email, TARO.password);
    const code = new URL(String(plain.redirect)).searchParams.get('code') ?? '';
    const cases: [RequestInit, number, string][] = [
      [
        {
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            client_id: saasId,
            code,
            redirect_uri: CALLBACK,
            code_verifier: 'a'.repeat(43),
          }),
        },
        400,
        'invalid_grant',
      ],
      [{ body: new URLSearchParams({ grant_type: 'password', client_id: saasId }) }, 400, 'unsupported_grant_type'],
      [{ body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'nobody', refresh_token: 'x' }) }, 401, 'invalid_client'],
      [{ body: new URLSearchParams({ grant_type: 'refresh_token', client_id: saasId, refresh_token: 'not-a-token' }) }, 400, 'invalid_grant'],
      [{ body: new URLSearchParams({ grant_type: 'refresh_token', client_id: saasId }) }, 400, 'invalid_request'],
      [
        { body: new URLSearchParams({ grant_type: 'refresh_token', client_id: saasId }), headers: { authorization: 'Basic eDp5' } },
        401,
        'invalid_client',
      ],
      [{ body: JSON.stringify({ grant_type: 'refresh_token' }), headers: { 'content-type': 'application/json' } }, 400, 'invalid_request'],
    ];
    for (const [init, status, error] of cases) {
      const res = await fetch(`${h.api.baseUrl}/oauth2/token`, { method: 'POST', ...init });
      assert.equal(res.status, status, String(init.body));
      assert.equal(((await res.json()) as { error: string }).error, error);
      assert.equal(res.headers.get('cache-control'), 'no-store');
    }
  });
});

describe('the userinfo endpoint', () => {
  it('refuses a missing, malformed or foreign bearer token with WWW-Authenticate', async () => {
    const { callback, verifier, state, nonce } = await signInThroughScreen();
    const tokens = await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    const cases: [Record<string, string>, string][] = [
      [{}, 'invalid_request'],
      [{ authorization: 'Bearer not-a-jwt' }, 'invalid_token'],
      // The ID token is not an access token.
      [{ authorization: `Bearer ${tokens.id_token}` }, 'invalid_token'],
    ];
    for (const [headers, error] of cases) {
      const res = await fetch(`${h.api.baseUrl}/oauth2/userinfo`, { headers });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', new RegExp(`^Bearer error="${error}"`));
    }
    const ok = await fetch(`${h.api.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), '*');
  });
});

/** What the userinfo endpoint answers for an access token: its status and claims. */
async function userInfoWith(accessToken: string) {
  const res = await fetch(`${h.api.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function codeGrant(scope?: string) {
  const { callback, verifier, state, nonce } = await signInThroughScreen(scope);
  const tokens = await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
  return { tokens, callback, verifier };
}

const refreshWith = (refreshToken: string) => token({ grant_type: 'refresh_token', client_id: saasId, refresh_token: refreshToken });

describe('refresh-token rotation (RFC 9700 section 4.14.2)', () => {
  it('answers a new refresh token on each refresh; the one it replaced, used again, revokes the whole grant', async () => {
    const { tokens } = await codeGrant();
    const first = tokens.refresh_token as string;
    const second = await oidc.refreshTokenGrant(client, first);
    assert.ok(second.refresh_token && second.refresh_token !== first, 'a new refresh token');
    const third = await oidc.refreshTokenGrant(client, second.refresh_token);
    assert.ok(third.refresh_token && third.refresh_token !== second.refresh_token);
    assert.equal((await userInfoWith(third.access_token)).status, 200);

    // Someone replays the first token (stolen earlier): refused, and the grant ends for everyone.
    const replay = await refreshWith(first);
    assert.equal(replay.status, 400);
    assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant');
    const latest = await refreshWith(third.refresh_token as string);
    assert.equal(((await latest.json()) as { error: string }).error, 'invalid_grant', 'the latest token of the grant is revoked too');
    for (const access of [tokens.access_token, second.access_token, third.access_token]) {
      assert.equal((await userInfoWith(access)).status, 401, 'every access token of the grant is refused');
    }
    // Another sign-in of the same user is another grant.
    const other = await codeGrant();
    assert.equal((await userInfoWith(other.tokens.access_token)).status, 200);
    assert.ok((await oidc.refreshTokenGrant(client, other.tokens.refresh_token as string)).refresh_token);
  });

  it('lets one of several parallel refreshes with the same token through at most, and then ends the grant', async () => {
    const { tokens } = await codeGrant();
    const answers = await Promise.all(Array.from({ length: 6 }, () => refreshWith(tokens.refresh_token as string)));
    const bodies = (await Promise.all(answers.map((res) => res.json()))) as { error?: string; refresh_token?: string }[];
    const granted = bodies.filter((body) => body.refresh_token);
    assert.ok(granted.length <= 1, `${granted.length} refreshes spent the same token`);
    assert.ok(bodies.some((body) => body.error === 'invalid_grant'));
    for (const body of granted) {
      assert.equal(((await (await refreshWith(body.refresh_token as string)).json()) as { error: string }).error, 'invalid_grant');
    }
  });

  it('is not a SaaSus API refresh: GET /credentials refuses a rotating token, and still answers its own unchanged', async () => {
    const { tokens } = await codeGrant();
    const res = await admin.get(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${encodeURIComponent(tokens.refresh_token as string)}`);
    assert.equal(res.status, 401, res.text);
    assert.ok((await oidc.refreshTokenGrant(client, tokens.refresh_token as string)).refresh_token, 'the refusal spent nothing');
  });
});

describe('an authorization code redeemed twice (RFC 6749 section 4.1.2)', () => {
  it('is refused, and the tokens its first redemption issued are revoked', async () => {
    const { tokens, callback, verifier } = await codeGrant();
    assert.equal((await userInfoWith(tokens.access_token)).status, 200);
    const again = await token({
      grant_type: 'authorization_code',
      client_id: saasId,
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    });
    assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
    assert.equal((await userInfoWith(tokens.access_token)).status, 401);
    assert.equal(((await (await refreshWith(tokens.refresh_token as string)).json()) as { error: string }).error, 'invalid_grant');
  });
});

describe('response_mode', () => {
  const request = (mode: string) => ({
    response_type: 'code',
    client_id: saasId,
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 's2',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    response_mode: mode,
  });

  it('is refused unless it is query, the one this server answers with', async () => {
    for (const mode of ['form_post', 'fragment', 'query.jwt', 'web_message', '']) {
      const res = await authorize(request(mode));
      assert.equal(res.status, 302);
      const back = new URL(res.headers.get('location') ?? '');
      assert.equal(back.origin + back.pathname, CALLBACK, mode);
      assert.equal(back.searchParams.get('error'), 'invalid_request', mode);
      assert.match(back.searchParams.get('error_description') ?? '', /response_mode/);
    }
    const query = await authorize(request('query'));
    assert.ok((query.headers.get('location') ?? '').startsWith(`${h.api.baseUrl}/login/${saasId}/?authorization=`));
  });
});

describe('logout with id_token_hint', () => {
  it('follows a hint this service signed for the client, and refuses a forged, foreign or mismatched one with a page', async () => {
    const { tokens } = await codeGrant();
    const idToken = tokens.id_token as string;
    const logout = (params: Record<string, string>) =>
      fetch(`${h.api.baseUrl}/oauth2/logout?${new URLSearchParams({ post_logout_redirect_uri: 'https://app.acme.test/bye', ...params })}`, {
        redirect: 'manual',
      });
    const good = await logout({ id_token_hint: idToken });
    assert.equal(good.status, 302);
    assert.match(good.headers.get('location') ?? '', new RegExp(`/login/${saasId}/sign-out`));
    assert.equal((await logout({ id_token_hint: idToken, client_id: saasId })).status, 302);

    const [header, payload] = idToken.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const other = await h.newSaas();
    const tampered = (change: Record<string, unknown>) =>
      `${header}.${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${idToken.split('.')[2]}`;
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, aud: other.saasId, saas_id: other.saasId })).toString('base64url')}.`;
    for (const [name, params] of [
      ['another audience, signature kept', { id_token_hint: tampered({ aud: other.saasId, saas_id: other.saasId }) }],
      ['unsigned', { id_token_hint: unsigned }],
      ['not a JWT', { id_token_hint: 'not-a-jwt' }],
      ['an access token', { id_token_hint: tokens.access_token }],
      ['another client named', { id_token_hint: idToken, client_id: other.saasId }],
    ] as [string, Record<string, string>][]) {
      const res = await logout(params);
      assert.equal(res.status, 400, name);
      assert.equal(res.headers.get('location'), null, name);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/, name);
    }
  });
});

describe('claims follow the scopes', () => {
  it('gives no e-mail for scope=openid alone, in the ID token, at userinfo, or after a refresh', async () => {
    const { tokens } = await codeGrant('openid');
    assert.equal(tokens.scope, 'openid');
    assert.equal(tokens.claims()?.email, undefined);
    assert.deepEqual((await userInfoWith(tokens.access_token)).body, { sub: taroId });
    const refreshed = await oidc.refreshTokenGrant(client, tokens.refresh_token as string);
    assert.equal(refreshed.claims()?.email, undefined);
    assert.equal(refreshed.scope, 'openid');
    assert.deepEqual((await userInfoWith(refreshed.access_token)).body, { sub: taroId });
    // With `email`, the e-mail is there.
    const withEmail = await codeGrant('openid email');
    assert.equal(withEmail.tokens.claims()?.email, TARO.email);
    assert.equal((await userInfoWith(withEmail.tokens.access_token)).body.email, TARO.email);
  });
});

describe('the revocation endpoint (RFC 7009)', () => {
  it('ends a refresh token with every token of its grant; unknown ones are no error; access tokens are unsupported', async () => {
    assert.equal(client.serverMetadata().revocation_endpoint, `${config().publicBaseUrl}/oauth2/revoke`);
    const { tokens } = await codeGrant();
    const refreshed = await oidc.refreshTokenGrant(client, tokens.refresh_token as string);
    await oidc.tokenRevocation(client, refreshed.refresh_token as string);
    assert.equal(((await (await refreshWith(refreshed.refresh_token as string)).json()) as { error: string }).error, 'invalid_grant');
    assert.equal((await userInfoWith(refreshed.access_token)).status, 401);
    assert.equal((await userInfoWith(tokens.access_token)).status, 401);
    // Again, unknown, or another client's: 200 and nothing changes.
    await oidc.tokenRevocation(client, refreshed.refresh_token as string);
    await oidc.tokenRevocation(client, 'not-a-token');
    const other = await codeGrant();
    const foreign = await h.newSaas();
    const elsewhere = await fetch(`${h.api.baseUrl}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: foreign.saasId, token: other.tokens.refresh_token as string }).toString(),
    });
    assert.equal(elsewhere.status, 200);
    assert.equal((await userInfoWith(other.tokens.access_token)).status, 200, "another client's call changed nothing");
    await assert.rejects(
      oidc.tokenRevocation(client, other.tokens.access_token),
      (error: oidc.ResponseBodyError) => error.error === 'unsupported_token_type',
    );
  });
});

describe('hostile input at the logout and revocation endpoints', () => {
  it('is refused with a 4xx (or ignored with a 200 where RFC 7009 says so), never a 5xx', async () => {
    const odd = [
      '',
      '.',
      '..',
      'a.b.c',
      'e30.e30.',
      'e30.bnVsbA.AAAA',
      `eyJhbGciOiJSUzI1NiJ9.${'x'.repeat(5000)}.y`,
      'rt2.',
      `rt2.${'A'.repeat(60)}`,
      `rt1.${'_'.repeat(64)}`,
      '\u0000\u202e',
      '%00',
      'é'.repeat(300),
    ];
    for (const value of odd) {
      const logout = await fetch(`${h.api.baseUrl}/oauth2/logout?${new URLSearchParams({ id_token_hint: value })}`, { redirect: 'manual' });
      assert.ok(logout.status >= 400 && logout.status < 500, `logout ${JSON.stringify(value)}: ${logout.status}`);
      const revoked = await fetch(`${h.api.baseUrl}/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: saasId, token: value }).toString(),
      });
      assert.ok(revoked.status < 500, `revoke ${JSON.stringify(value)}: ${revoked.status}`);
      const api = await admin.post('/token/revoke', { refresh_token: value });
      assert.ok(api.status === 200 || api.status === 400, `POST /token/revoke ${JSON.stringify(value)}: ${api.status}`);
    }
  });
});
