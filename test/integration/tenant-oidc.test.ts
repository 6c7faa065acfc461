/**
 * A tenant's own OpenID Connect provider (web/login/screen/tenant-oidc.ts), with `oidc-provider` standing in
 * for Okta or Entra ID (test/support/oidc-idp.ts), over HTTP the way a browser goes: the screen's `oidc` page,
 * the provider, the screen's `oidc/callback`. As with a tenant's SAML: the first sign-in of a tenant user links
 * the account with a mailed code, then the provider alone signs in; nobody else's user, and no new user.
 * The ID token is refused for a wrong issuer, audience or nonce, an expired one, and one signed by a key the
 * provider never published; a rotated key is fetched. The screen session such a sign-in opens answers only a
 * request naming that tenant.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { JWKS_COOLDOWN_SECONDS } from '../../web/login/screen/tenant-oidc.js';
import { deliveredMail } from '../support/mail.js';
import { followRedirects, type TestOidcIdp } from '../support/oidc-idp.js';
import { openScreen } from '../support/screen-client.js';
import { connectTenantOidc, tenantSaas } from '../support/tenant-providers.js';

const CALLBACK = 'https://app.acme.test/callback';
const KIM = { sub: 'okta-kim', email: 'kim.oidc@acme.test', name: 'Kim', groups: ['engineering'] };
const LEE = { sub: 'okta-lee', email: 'lee.oidc@beta.test' };

let h: Harness;
let admin: SignedClient;
let saasId: string;
let tenantA: string;
let tenantB: string;
let idp: TestOidcIdp;
let screen: string;

/** The whole way from the screen's `oidc` page: where the browser is sent once back at the screen. */
async function signIn(tenantId: string, headers: Record<string, string> = {}) {
  const jar = new Map<string, Map<string, string>>();
  const done = await followRedirects(
    `${screen}oidc?tenant_id=${tenantId}&state=s-1`,
    jar,
    (url) => !url.startsWith(`${screen}oidc`) && !url.startsWith(idp.issuer),
    headers,
  );
  return { ...done, jar };
}

const put = (tenantId: string, oidc: unknown) => admin.put(`/tenants/${tenantId}/identity-providers/oidc`, { oidc });

beforeAll(async () => {
  h = await startHarness();
  const members = { Acme: { email: KIM.email, password: 'Kim#Secret42' }, Beta: { email: LEE.email, password: 'Lee#Secret42' } };
  ({
    saasId,
    admin,
    screen,
    tenants: { Acme: tenantA, Beta: tenantB },
  } = await tenantSaas(h, ['Acme', 'Beta'], CALLBACK, members));
  idp = await connectTenantOidc(admin, screen, tenantA);
});
afterAll(async () => {
  resetClockForTests();
  await idp?.close();
  await h?.close();
});

describe("a tenant's OpenID Connect provider: its settings", () => {
  it('answers what the provider needs and never the secret; the SaaSus answer for the tenant is unchanged', async () => {
    const read = await admin.get<{ oidc: Record<string, unknown> }>(`/tenants/${tenantA}/identity-providers/oidc`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.oidc, {
      discovery_url: idp.discoveryUrl,
      issuer: idp.issuer,
      client_id: idp.clientId,
      has_client_secret: true,
      scopes: 'openid email profile',
      claims: { email: 'email', name: 'name', groups: 'groups' },
      callback_url: `${screen}oidc/callback`,
      sign_in_url: `${screen}oidc?tenant_id=${tenantA}`,
    });
    assert.doesNotMatch(JSON.stringify(read.body), new RegExp(idp.clientSecret));
    // The SaaSus operation knows SAML only: a tenant with OpenID Connect alone has none to show.
    assert.deepEqual((await admin.get(`/tenants/${tenantA}/identity-providers`)).body, {});
    assert.deepEqual((await admin.get(`/tenants/${tenantB}/identity-providers/oidc`)).body, {});
  });

  it('refuses a discovery URL that is no provider, not https, or not a public address, changing nothing', async () => {
    const cases = [
      'http://idp.example.com/.well-known/openid-configuration',
      'https://10.0.0.1/.well-known/openid-configuration',
      'https://localhost/.well-known/openid-configuration',
      `${idp.issuer}/no-such-document/.well-known/openid-configuration`,
      `${idp.issuer}/other-issuer`,
    ];
    for (const discovery_url of cases) {
      const res = await put(tenantB, { discovery_url, client_id: 'x' });
      assert.equal(res.status, 400, `${discovery_url}: ${JSON.stringify(res.body)}`);
      assert.equal((res.body as { type: string }).type, 'invalid_parameter', discovery_url);
    }
    assert.equal((await put(tenantB, { discovery_url: idp.issuer, client_id: 'x', unknown: 1 })).status, 400);
    assert.equal((await put('no-such-tenant', { discovery_url: idp.issuer, client_id: 'x' })).status, 404);
    assert.deepEqual((await admin.get(`/tenants/${tenantB}/identity-providers/oidc`)).body, {});
  });

  it('keeps the sealed secret when it is left out, and refuses to keep it for another client id', async () => {
    assert.equal((await put(tenantB, { discovery_url: idp.issuer, client_id: 'beta', client_secret: 's3cret' })).status, 200);
    assert.equal((await put(tenantB, { discovery_url: idp.issuer, client_id: 'beta', scopes: 'email' })).status, 200);
    const read = (await admin.get<{ oidc: { has_client_secret: boolean; scopes: string } }>(`/tenants/${tenantB}/identity-providers/oidc`)).body;
    assert.equal(read.oidc.has_client_secret, true);
    assert.equal(read.oidc.scopes, 'email openid');
    assert.equal((await put(tenantB, { discovery_url: idp.issuer, client_id: 'another' })).status, 400);
    assert.equal((await put(tenantB, null)).status, 200);
    assert.deepEqual((await admin.get(`/tenants/${tenantB}/identity-providers/oidc`)).body, {});
  });
});

describe("signing in through a tenant's OpenID Connect provider", () => {
  it('signs a tenant user in: the first time with the code mailed to them, then with the provider alone', async () => {
    idp.signInAs(KIM);
    const first = await signIn(tenantA);
    assert.equal(first.status, 302, first.text);
    assert.match(first.location ?? '', new RegExp(`^${screen}link\\?ticket=`));
    const page = await openScreen(first.location as string);
    const [mail] = await deliveredMail(h.sesUrl, saasId, KIM.email);
    const code = /(\d{6})/.exec(mail?.body.text ?? '')?.[1] as string;
    const linked = await fetch(`${screen}api/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: page.cookie, 'x-csrf-token': String(page.data?.csrf) },
      body: JSON.stringify({ ticket: (page.data?.link as { ticket: string }).ticket, code }),
    });
    const answer = (await linked.json()) as { redirect: string };
    assert.equal(linked.status, 200, JSON.stringify(answer));
    assert.equal(new URL(answer.redirect).searchParams.get('state'), 's-1');

    const again = await signIn(tenantA);
    assert.equal(again.status, 302, again.text);
    const back = new URL(again.location ?? '');
    assert.equal(back.origin + back.pathname, CALLBACK);
    assert.equal(back.searchParams.get('state'), 's-1');
    const tokens = await admin.get<{ id_token: string }>(`/credentials?code=${back.searchParams.get('code')}`);
    assert.equal(tokens.status, 200);
  });

  it("opens a screen session used for that tenant only: the SaaS's entry naming it answers, any other request asks again", async () => {
    idp.signInAs(KIM);
    const { status, jar } = await signIn(tenantA);
    assert.equal(status, 302);
    const cookie = [...(jar.get(new URL(screen).origin) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
    assert.match(cookie, /login_session=/);
    const open = (query: string) => fetch(`${screen}?${query}`, { redirect: 'manual', headers: { cookie } });
    const answered = await open(`state=s-2&tenant_id=${tenantA}`);
    assert.equal(answered.status, 302);
    const back = new URL(answered.headers.get('location') ?? '');
    assert.equal(back.origin + back.pathname, CALLBACK);
    assert.equal(back.searchParams.get('state'), 's-2');
    assert.ok(back.searchParams.get('code'));
    for (const query of ['state=s-3', `state=s-3&tenant_id=${tenantB}`]) {
      const asked = await open(query);
      assert.equal(asked.status, 200, query);
      assert.match(await asked.text(), /Your sign-in was through another organisation: sign in again\./, query);
    }
  });

  it('reads the JWKS again when the provider rotated its keys', async () => {
    idp.signInAs(KIM);
    const before = idp.kid;
    idp.rotateKeys();
    assert.notEqual(idp.kid, before);
    // The JWKS read for the last sign-in is within its cooldown a moment later: the clock is moved past it.
    const now = Date.now();
    setClockForTests(() => now + (JWKS_COOLDOWN_SECONDS + 1) * 1000);
    try {
      const rotated = await signIn(tenantA);
      assert.equal(rotated.status, 302, rotated.text);
      assert.ok(rotated.location?.startsWith(`${CALLBACK}?code=`), rotated.location);
    } finally {
      resetClockForTests();
    }
  });

  const refusals: [string, Parameters<TestOidcIdp['tamper']>[0], RegExp][] = [
    ['a wrong issuer', { claims: (c) => ({ ...c, iss: 'https://evil.example' }) }, /refused|issuer|iss/],
    ['a wrong audience', { claims: (c) => ({ ...c, aud: 'another-client' }) }, /aud/],
    ['a wrong nonce', { claims: (c) => ({ ...c, nonce: 'someone-elses-nonce' }) }, /nonce/],
    [
      'an expired token',
      { claims: (c) => ({ ...c, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }) },
      /exp|expired|timestamp/,
    ],
    ['a key the provider never published', { claims: (c) => c, foreignKey: true }, /signature|ERR_JWS/],
  ];
  for (const [what, tamper, why] of refusals) {
    it(`refuses an ID token with ${what}, signing nobody in`, async () => {
      idp.signInAs(KIM);
      idp.tamper(tamper);
      try {
        const refused = await signIn(tenantA);
        assert.equal(refused.status, 400, refused.text);
        assert.match(refused.text, /Could not sign in with your organization/);
        assert.match(refused.text, why);
        assert.equal(refused.location, undefined);
      } finally {
        idp.tamper(undefined);
      }
    });
  }

  it("refuses, in the person's language, someone who is not the tenant's user", async () => {
    idp.signInAs(LEE);
    const refused = await signIn(tenantA, { 'accept-language': 'ja' });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.text, /組織のアカウントでログインできませんでした/);
    assert.match(refused.text, /no user of this tenant/);
    assert.equal((await deliveredMail(h.sesUrl, saasId, LEE.email)).length, 0, 'no code mailed');
  });

  it('refuses a return this browser did not start, and a tenant with no provider is a 404', async () => {
    idp.signInAs(KIM);
    const jar = new Map<string, Map<string, string>>();
    const atProvider = await followRedirects(`${screen}oidc?tenant_id=${tenantA}`, jar, (url) => url.startsWith(`${screen}oidc/callback`));
    // Another browser (no flow cookie) brings the code back.
    const elsewhere = await fetch(atProvider.location as string, { redirect: 'manual' });
    assert.equal(elsewhere.status, 400);
    assert.match(await elsewhere.text(), /started in another browser/);
    assert.equal((await fetch(`${screen}oidc?tenant_id=${tenantB}`, { redirect: 'manual' })).status, 404);
    assert.equal((await fetch(`${screen}oidc?tenant_id=../x`, { redirect: 'manual' })).status, 404);
  });
});
