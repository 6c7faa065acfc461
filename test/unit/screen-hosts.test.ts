/**
 * The host rule (shared/screen-hosts.ts) and how the login and SAML functions name the SaaS of a path
 * (web/login/host-gate.ts): each SaaS's screen on its own hosts, the API's host sending pages there, any
 * other host refused.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { ownScriptOnlyAtHome, pathOwner } from '../../web/login/host-gate.js';
import { config, ConfigError, resetConfigForTests } from '../../shared/config.js';
import { hostKind, isReturnHost, judgeHost, perSaasHost, screenHostPlan, screenOrigin, type HostQuestion } from '../../shared/screen-hosts.js';

const A = '3f2a6c1e-0000-4000-8000-00000000000a';
const B = '3f2a6c1e-0000-4000-8000-00000000000b';
const API = { publicBaseUrl: 'https://api.example.com/v1/auth', tokenIssuer: 'https://id.example.com/v1/auth' };
const withHosts = screenHostPlan({ ...API, loginDomain: 'login.example.com' });
const without = screenHostPlan(API);

const ask = (over: Partial<HostQuestion>): HostQuestion => ({
  host: `${A}.login.example.com`,
  method: 'GET',
  saasId: A,
  canonicalOrigin: screenOrigin(withHosts, A),
  use: 'screen',
  pathAndQuery: `/v1/auth/login/${A}/?state=x`,
  ...over,
});

describe('screen origins', () => {
  it('are <saas id>.<login domain> with a login domain, else the API’s own origin', () => {
    assert.equal(screenOrigin(withHosts, A), `https://${A}.login.example.com`);
    assert.equal(screenOrigin(without, A), 'https://api.example.com');
    assert.equal(perSaasHost(withHosts, 'Upper-Case'), 'upper-case.login.example.com');
    assert.equal(perSaasHost(withHosts, 'x'.repeat(64)), undefined, 'not a DNS label');
    const local = screenHostPlan({
      publicBaseUrl: 'http://127.0.0.1:8080/v1/auth',
      tokenIssuer: 'http://127.0.0.1:8080/v1/auth',
      loginDomain: 'localhost:8080',
    });
    assert.equal(screenOrigin(local, A), `http://${A}.localhost:8080`);
  });
});

describe('LOGIN_DOMAIN', () => {
  it('is a lower-case host name with an optional port, else a start-up error naming it', () => {
    const before = process.env.LOGIN_DOMAIN;
    try {
      for (const good of ['login.example.com', 'localhost:8080', 'screens']) {
        process.env.LOGIN_DOMAIN = good;
        resetConfigForTests();
        assert.equal(config().loginDomain, good);
      }
      for (const bad of ['Login.example.com', 'https://login.example.com', '*.login.example.com', 'login.example.com/', '.example.com', 'a..b']) {
        process.env.LOGIN_DOMAIN = bad;
        resetConfigForTests();
        assert.throws(
          () => config(),
          (e: Error) => e instanceof ConfigError && /LOGIN_DOMAIN/.test(e.message),
          bad,
        );
      }
      process.env.LOGIN_DOMAIN = '';
      resetConfigForTests();
      assert.equal(config().loginDomain, undefined);
    } finally {
      if (before === undefined) delete process.env.LOGIN_DOMAIN;
      else process.env.LOGIN_DOMAIN = before;
      resetConfigForTests();
    }
  });
});

describe('the host rule', () => {
  it('serves a SaaS’s screen on its own host, as its own origin, whatever the case of the host', () => {
    assert.deepEqual(judgeHost(withHosts, ask({})), { kind: 'serve', ownOrigin: true });
    assert.deepEqual(judgeHost(withHosts, ask({ host: `${A.toUpperCase()}.LOGIN.example.com` })), { kind: 'serve', ownOrigin: true });
  });

  it('refuses a SaaS’s path on another SaaS’s host, and on any host that is neither the SaaS’s nor the API’s', () => {
    for (const host of [
      `${B}.login.example.com`,
      `${A}.login.example.com.evil.example`,
      `x.${A}.login.example.com`,
      'evil.example',
      'login.acme.com',
      '',
    ]) {
      for (const use of ['screen', 'handoff', 'return'] as const) {
        assert.equal(judgeHost(withHosts, ask({ host, use })).kind, 'refuse', `${host} ${use}`);
        assert.equal(judgeHost(without, ask({ host, use, canonicalOrigin: 'https://api.example.com' })).kind, 'refuse', `${host} ${use}`);
      }
    }
  });

  it('sends a page from the API’s hosts to the SaaS’s own, path and query kept, and refuses a step posted there', () => {
    for (const host of ['api.example.com', 'id.example.com', 'login.example.com', 'abc123.execute-api.eu-west-1.amazonaws.com']) {
      assert.deepEqual(judgeHost(withHosts, ask({ host })), {
        kind: 'redirect',
        location: `https://${A}.login.example.com/v1/auth/login/${A}/?state=x`,
      });
      assert.equal(judgeHost(withHosts, ask({ host, method: 'POST' })).kind, 'refuse');
      // Redirects and files are served there: no script of the screen runs on them.
      assert.deepEqual(judgeHost(withHosts, ask({ host, use: 'handoff' })), { kind: 'serve', ownOrigin: false });
    }
  });

  it('serves on the API’s host when the SaaS has no host of its own, as a shared origin', () => {
    const question = ask({ host: 'api.example.com', canonicalOrigin: 'https://api.example.com' });
    assert.deepEqual(judgeHost(without, question), { kind: 'serve', ownOrigin: false });
    assert.deepEqual(judgeHost(without, { ...question, method: 'POST' }), { kind: 'serve', ownOrigin: false });
  });

  it('takes the SaaS’s live domain as its own, and sends the API’s host and its login-domain host there', () => {
    const canonicalOrigin = 'https://login.acme.com';
    assert.deepEqual(judgeHost(withHosts, ask({ host: 'login.acme.com', canonicalOrigin })), { kind: 'serve', ownOrigin: true });
    assert.deepEqual(judgeHost(without, ask({ host: 'login.acme.com', canonicalOrigin })), { kind: 'serve', ownOrigin: true });
    assert.deepEqual(judgeHost(without, ask({ host: 'api.example.com', canonicalOrigin })), {
      kind: 'redirect',
      location: `https://login.acme.com/v1/auth/login/${A}/?state=x`,
    });
    // Its host under the login domain is still its own origin.
    assert.deepEqual(judgeHost(withHosts, ask({ canonicalOrigin })), { kind: 'serve', ownOrigin: true });
    // Another SaaS's path on that domain is not served.
    assert.equal(judgeHost(withHosts, ask({ host: 'login.acme.com', saasId: B, canonicalOrigin: screenOrigin(withHosts, B) })).kind, 'refuse');
  });

  it('sends the start of a flow that returns to the deployment’s one address to the API’s host', () => {
    assert.deepEqual(judgeHost(withHosts, ask({ use: 'return' })), {
      kind: 'redirect',
      location: `https://api.example.com/v1/auth/login/${A}/?state=x`,
    });
    assert.deepEqual(judgeHost(withHosts, ask({ use: 'return', host: 'api.example.com' })), { kind: 'serve', ownOrigin: false });
    // The other shared hosts send it on too: its cookie must be set where the provider returns.
    for (const host of ['id.example.com', 'login.example.com', 'abc123.execute-api.eu-west-1.amazonaws.com']) {
      assert.deepEqual(judgeHost(withHosts, ask({ use: 'return', host })), {
        kind: 'redirect',
        location: `https://api.example.com/v1/auth/login/${A}/?state=x`,
      });
    }
  });

  it('has one host the providers return to: PUBLIC_BASE_URL’s, whatever the case, never a SaaS’s or another shared one', () => {
    assert.ok(isReturnHost(withHosts, 'API.example.com'));
    for (const host of [`${A}.login.example.com`, 'login.example.com', 'id.example.com', 'api.example.com.evil.example', 'login.acme.com']) {
      assert.ok(!isReturnHost(withHosts, host), host);
    }
  });
});

describe('the SaaS a path names', () => {
  it('is the screen’s, the OpenID Connect client’s or the SAML path’s, with how the path uses its host', () => {
    const q = new URLSearchParams();
    assert.deepEqual(pathOwner(`/v1/auth/login/${A}/`, q), { saasId: A, use: 'screen', step: false });
    assert.deepEqual(pathOwner(`/v1/auth/login/${A}`, q), { saasId: A, use: 'screen', step: false });
    assert.deepEqual(pathOwner(`/v1/auth/login/${A}/api/start`, q), { saasId: A, use: 'screen', step: true });
    assert.deepEqual(pathOwner(`/v1/auth/login/${A}/link`, q), { saasId: A, use: 'screen', step: false });
    assert.deepEqual(pathOwner(`/v1/auth/login/${A}/federated/google`, q), { saasId: A, use: 'return', step: false });
    for (const page of ['saml', 'saml/continue', 'sign-out', 'assets/login.js']) {
      assert.deepEqual(pathOwner(`/v1/auth/login/${A}/${page}`, q), { saasId: A, use: 'handoff', step: false }, page);
    }
    assert.deepEqual(pathOwner('/v1/auth/oauth2/authorize', new URLSearchParams({ client_id: A })), { saasId: A, use: 'handoff', step: false });
    assert.deepEqual(pathOwner('/v1/auth/oauth2/logout', new URLSearchParams({ client_id: B })), { saasId: B, use: 'handoff', step: false });
    assert.deepEqual(pathOwner(`/v1/auth/saml2/metadata/${A}`, q), { saasId: A, use: 'handoff', step: false });
    assert.deepEqual(pathOwner(`/v1/auth/saml2/login/${A}/tenant-1`, q), { saasId: A, use: 'handoff', step: false });
    // Paths that name no SaaS pass: the return addresses, the token and userinfo endpoints, malformed ids.
    for (const path of [
      '/v1/auth/oauth2/idpresponse',
      '/v1/auth/oauth2/token',
      '/v1/auth/saml2/idpresponse',
      '/v1/auth/login/a%2Fb/',
      '/v1/auth/login/',
      // The screen's shared style: the product's look on any host, a refusal page's too.
      '/v1/auth/login/assets/login.css',
      '/v1/auth/login/assets/theme.css',
    ]) {
      assert.equal(pathOwner(path, q), undefined, path);
    }
    assert.equal(pathOwner('/v1/auth/oauth2/authorize', new URLSearchParams({ client_id: '../x' })), undefined);
  });

  it('keeps the SaaS’s own script off any origin but its own', () => {
    const look = { tagManagerId: 'GTM-1', title: 't' };
    assert.deepEqual(ownScriptOnlyAtHome(look, true), look);
    assert.deepEqual(ownScriptOnlyAtHome(look, false), { tagManagerId: '', title: 't' });
  });

  it('reads whose host a host is, for what browsers ask of the host itself (its /favicon.ico)', () => {
    assert.deepEqual(hostKind(withHosts, `${A}.login.example.com`), { kind: 'saas', saasId: A });
    assert.deepEqual(hostKind(withHosts, `${A.toUpperCase()}.Login.Example.com`), { kind: 'saas', saasId: A });
    for (const host of ['api.example.com', 'id.example.com', 'login.example.com', 'abc123.execute-api.ap-northeast-1.amazonaws.com']) {
      assert.deepEqual(hostKind(withHosts, host), { kind: 'shared' }, host);
    }
    // Deeper names, other domains, and any host of a deployment without a login domain: not a SaaS's by name.
    for (const host of [`x.${A}.login.example.com`, `${A}.login.example.com.evil.test`, 'login.acme.com', `${A}.login.example.co`]) {
      assert.deepEqual(hostKind(withHosts, host), { kind: 'other' }, host);
    }
    assert.deepEqual(hostKind(without, `${A}.login.example.com`), { kind: 'other' });
  });
});
