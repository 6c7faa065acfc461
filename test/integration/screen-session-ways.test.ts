/**
 * Every way of signing in on the hosted screen opens a screen session (docs/login-screen.md, "Signed in once";
 * web/login/screen/finish.ts): a passkey, a tenant's SAML identity provider and Google, each followed by a later
 * authorization for the same SaaS answered without asking, and the session listed with the methods of that way
 * (OpenID Connect's `amr` names, RFC 8176). The ID tokens carry them as `amr`, with `acr` (docs/federation.md,
 * "acr and amr"): a password's, a password and code's, a passkey's, a provider's, and the ones traded from a code
 * the session answered.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { startGoogleStandIn, type GoogleStandIn } from '../../local/google-stand-in.js';
import { config, resetConfigForTests } from '../../shared/config.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { MULTI_FACTOR_ACR } from '../../web/login/oidc/authorization-server.js';
import { CookieBrowser } from '../support/cookie-browser.js';
import { Browser } from '../support/screen-browser.js';
import { deliveredMail } from '../support/mail.js';
import { startTestIdp, type TestIdp } from '../support/saml-idp.js';
import { connectTenantSaml } from '../support/tenant-providers.js';
import { openScreen, screenStep, signInOnScreen } from '../support/screen-client.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const CALLBACK = 'https://app.acme.test/callback';
const PASSWORD = 'Mio#Secret42';
const GOOGLE_PERSON = {
  sub: 'google-rin',
  email: 'rin.ways@acme.test',
  email_verified: true,
};
const SAML_PERSON = { nameId: 'sora-at-t1', email: 'sora.ways@acme.test' };

let h: Harness;
let admin: SignedClient;
let saasId: string;
let screen: string;
let tenant: string;
let samlUserId: string;
let idp: TestIdp;
let google: GoogleStandIn;

const isCallback = (url: string) => url.startsWith(`${CALLBACK}?`);
const pageData = (html: string) =>
  JSON.parse(/<script id="page-data" type="application\/json">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '{}') as {
    csrf: string;
    link?: { ticket: string };
  };

/** The ID token a callback's temporary code stands for. */
async function idTokenOf(callback: string): Promise<Record<string, unknown>> {
  const code = new URL(callback).searchParams.get('code');
  const traded = await admin.get<{ id_token: string }>(`/credentials?code=${code}`);
  assert.equal(traded.status, 200, traded.text);
  return decodeJwt(traded.body.id_token);
}

/**
 * The screen's entry opened again in `browser` (tenant-bound sessions name their tenant): answered without a
 * page, straight to the callback with a code; the ID token that code stands for.
 */
async function answeredAgain(browser: CookieBrowser, query = ''): Promise<Record<string, unknown>> {
  const again = await browser.request(`${screen}?state=again${query}`);
  assert.equal(again.status, 302, `asked again: ${again.status}`);
  const location = again.headers.get('location') ?? '';
  assert.ok(isCallback(location), location);
  assert.equal(new URL(location).searchParams.get('state'), 'again');
  return idTokenOf(location);
}

/**
 * A step's answer that offers passkeys holds its code back until the page leaves the offer (api/passkey/continue,
 * as "Continue to the application" does): left here, so the code can be traded.
 */
async function leaveOffer(browser: CookieBrowser, csrf: string, answer: { passkeys?: { hold?: string } }): Promise<void> {
  if (answer.passkeys?.hold === undefined) return;
  const left = await browser.request(`${screen}api/passkey/continue`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
    body: JSON.stringify({ hold: answer.passkeys.hold }),
  });
  assert.equal(left.status, 200, await left.text());
}

/** The callback a screen answer redirects to, answered from a session without a page. */
function callbackOfScreen(res: Response): string {
  assert.equal(res.status, 302, `asked again: ${res.status}`);
  const location = res.headers.get('location') ?? '';
  assert.ok(isCallback(location), location);
  return location;
}

/** The methods of the user's one live session, as the API lists them. */
async function sessionMethods(userId: string): Promise<string[]> {
  const listed = await admin.get<{ sessions: { methods: string[] }[] }>(`/users/${userId}/sessions`);
  assert.equal(listed.status, 200, listed.text);
  assert.equal(listed.body.sessions.length, 1, listed.text);
  return listed.body.sessions[0]?.methods ?? [];
}

const userIdOf = async (email: string) => {
  const found = await admin.get<{ id: string }>(`/userinfo/search/email?email=${encodeURIComponent(email)}`);
  return found.status === 200 ? found.body.id : undefined;
};

beforeAll(async () => {
  h = await startHarness();
  google = await startGoogleStandIn({
    returnUrl: `${config().publicBaseUrl}/oauth2/idpresponse`,
    accounts: [GOOGLE_PERSON],
  });
  process.env.GOOGLE_ISSUER = google.issuer;
  resetConfigForTests();
  ({ saasId, client: admin } = await h.newSaas());
  screen = `${h.api.baseUrl}/login/${saasId}/`;
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  // Passkeys on; self sign-up too, so that Google's new account is made at its first sign-in.
  assert.equal(
    (
      await admin.put('/sign-in-settings', {
        passkeys: { enable: true },
        self_regist: { enable: true },
      })
    ).status,
    200,
  );
  const googleClient = {
    application_id: google.clientId,
    application_secret: google.clientSecret,
    approval_scope: 'openid email',
    is_button_hidden: false,
  };
  assert.equal(
    (
      await admin.put('/identity-providers', {
        provider: 'Google',
        identity_provider_props: googleClient,
      })
    ).status,
    200,
  );
  const setup = new ServiceSetup(admin);
  await setup.ensureDefinitions();
  tenant = await setup.createTenant('Ways');
  samlUserId = await setup.createUser(SAML_PERSON.email, PASSWORD);
  await setup.addMember(tenant, samlUserId, SAML_PERSON.email);
  idp = startTestIdp('ways');
  await connectTenantSaml(admin, tenant, idp.metadata);
});
afterAll(async () => {
  await google?.close();
  await h?.close();
  delete process.env.GOOGLE_ISSUER;
  resetConfigForTests();
});

describe('each way of signing in opens a screen session', () => {
  it('a passkey: the next authorization answers without asking; the session and the tokens say hwk', async () => {
    const email = 'mio.ways@acme.test';
    const created = await admin.post<{ id: string }>('/users', {
      email,
      password: PASSWORD,
    });
    assert.equal(created.status, 201, created.text);
    // A password sign-in's ticket registers the passkey (another browser: its session is not the one tested).
    const visit = await openScreen(screen);
    const { ticket } = (await signInOnScreen(screen, visit, email, PASSWORD)).passkeys as { ticket: string };
    const authenticator = new SoftAuthenticator();
    const origin = new URL(screen).origin;
    const creation = (await (await screenStep(screen, visit, 'passkey/register-options', { ticket })).json()) as {
      challenge_id: string;
      options: Parameters<SoftAuthenticator['register']>[0];
    };
    const registered = await screenStep(screen, visit, 'passkey/register', {
      ticket,
      challenge_id: creation.challenge_id,
      response: authenticator.register(creation.options, { origin }),
    });
    assert.equal(registered.status, 200, await registered.text());
    await admin.delete(
      `/users/${created.body.id}/sessions/${(await admin.get<{ sessions: { id: string }[] }>(`/users/${created.body.id}/sessions`)).body.sessions[0]?.id}`,
    );

    const browser = new CookieBrowser();
    const page = await browser.request(`${screen}?state=first`);
    const { csrf } = pageData(await page.text());
    const post = (step: string, body: object) =>
      browser.request(`${screen}api/${step}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ ...body, state: 'first' }),
      });
    const options = (await (await post('passkey/sign-in-options', {})).json()) as {
      challenge_id: string;
      options: Parameters<SoftAuthenticator['authenticate']>[0];
    };
    const signedIn = await post('passkey/sign-in', {
      challenge_id: options.challenge_id,
      response: authenticator.authenticate(options.options, { origin }),
    });
    const answer = (await signedIn.json()) as { redirect?: string; passkeys?: { hold?: string } };
    assert.equal(signedIn.status, 200, JSON.stringify(answer));
    assert.ok(isCallback(String(answer.redirect)), JSON.stringify(answer));
    await leaveOffer(browser, csrf, answer);
    const first = await idTokenOf(String(answer.redirect));
    assert.deepEqual(first.amr, ['hwk', 'mfa']);
    assert.equal(first.acr, MULTI_FACTOR_ACR);

    const again = await answeredAgain(browser);
    assert.deepEqual(await sessionMethods(created.body.id), ['hwk', 'mfa']);
    assert.deepEqual(again.amr, ['hwk', 'mfa'], 'the token from the session carries its methods');
    assert.equal(again.acr, MULTI_FACTOR_ACR);
    assert.equal(again.auth_time, first.auth_time);
  });

  it("a member signing in through their tenant's SAML identity provider: the next authorization for that tenant answers; the session says fed", async () => {
    const browser = new CookieBrowser();
    const atIdp = await browser.follow(`${screen}saml?tenant_id=${tenant}&state=first`, (url) => url.startsWith('https://idp-ways.test/'));
    const spMetadata = await (await fetch(`${h.api.baseUrl}/saml2/metadata/${saasId}`)).text();
    const { acs, SAMLResponse } = await idp.respond(atIdp.url, spMetadata, SAML_PERSON);
    const form = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ SAMLResponse }).toString(),
    };
    // A person who has an account already links the provider's with the code mailed to them, which signs them in.
    const linkPage = await browser.follow(acs, (url) => url.startsWith(`${screen}link?`), form);
    assert.ok(linkPage.url.startsWith(`${screen}link?`), `${linkPage.url} ${linkPage.res.status}`);
    const { csrf, link } = pageData(await (await browser.request(linkPage.url)).text());
    const [mail] = await deliveredMail(h.sesUrl, saasId, SAML_PERSON.email);
    const code = /(\d{6})/.exec(mail?.body.text ?? '')?.[1] ?? '';
    const linked = await browser.request(`${screen}api/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ ticket: link?.ticket, code }),
    });
    const answer = (await linked.json()) as { redirect?: string; passkeys?: { hold?: string } };
    assert.equal(linked.status, 200, JSON.stringify(answer));
    assert.ok(isCallback(String(answer.redirect)), JSON.stringify(answer));
    await leaveOffer(browser, csrf, answer);
    assert.deepEqual((await idTokenOf(String(answer.redirect))).amr, ['fed']);

    const again = await answeredAgain(browser, `&tenant_id=${tenant}`);
    assert.deepEqual(await sessionMethods(samlUserId), ['fed']);
    assert.deepEqual(again.amr, ['fed']);
  });

  it('Google: the next authorization answers without asking; the session says fed', async () => {
    const browser = new CookieBrowser();
    const atProvider = await browser.follow(`${screen}federated/google?state=first`);
    assert.equal(atProvider.res.status, 200, await atProvider.res.clone().text());
    const form = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ sub: GOOGLE_PERSON.sub }).toString(),
    };
    const back = await browser.follow(atProvider.url, isCallback, form);
    assert.ok(isCallback(back.url), `${back.url} ${back.res.status} ${await back.res.text()}`);
    assert.deepEqual((await idTokenOf(back.url)).amr, ['fed']);

    const again = await answeredAgain(browser);
    const userId = await userIdOf(GOOGLE_PERSON.email);
    assert.ok(userId, 'Google made the user');
    assert.deepEqual(await sessionMethods(userId), ['fed']);
    assert.deepEqual(again.amr, ['fed']);
  });
});

describe('the ID token says how the person signed in (amr, RFC 8176; acr when with a second factor)', () => {
  // Passkeys off: the page offers none, so the sign-in's code is saved at once.
  beforeAll(async () => {
    assert.equal((await admin.put('/sign-in-settings', { passkeys: { enable: false } })).status, 200);
  });

  const newUser = async (name: string) => {
    const email = `${name}.ways@acme.test`;
    const created = await admin.post<{ id: string }>('/users', { email, password: PASSWORD });
    assert.equal(created.status, 201, created.text);
    return { email, id: created.body.id };
  };

  it('a password alone: amr pwd, no acr; kept by a refresh, and by a token from the session it opened', async () => {
    const { email } = await newUser('kai');
    const browser = new Browser(screen);
    const { answer } = await browser.signIn(`${screen}?state=first`, email, PASSWORD);
    const code = new URL(String(answer.redirect)).searchParams.get('code');
    const traded = await admin.get<{ id_token: string; refresh_token: string }>(`/credentials?code=${code}`);
    assert.equal(traded.status, 200, traded.text);
    const claims = decodeJwt(traded.body.id_token);
    assert.deepEqual(claims.amr, ['pwd']);
    assert.equal(claims.acr, undefined);
    // The Cognito-shaped claims the SaaSus SDKs read are all still there.
    for (const name of ['sub', 'email', 'cognito:username', 'token_use', 'auth_time', 'aud', 'iss'] as const)
      assert.ok(claims[name] !== undefined, name);
    const refreshed = await admin.get<{ id_token: string }>(
      `/credentials?auth-flow=refreshTokenAuth&refresh-token=${encodeURIComponent(traded.body.refresh_token)}`,
    );
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.deepEqual(decodeJwt(refreshed.body.id_token).amr, ['pwd']);
    const fromSession = callbackOfScreen(await browser.get(`${screen}?state=again`));
    assert.deepEqual((await idTokenOf(fromSession)).amr, ['pwd']);
  });

  it('a password and a mailed code: amr pwd, otp, mfa and the multi-factor acr; the session gives its tokens the same', async () => {
    const { email, id } = await newUser('yui');
    assert.equal((await admin.patch(`/users/${id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    const browser = new Browser(screen);
    const { answer: challenged } = await browser.signIn(`${screen}?state=first`, email, PASSWORD);
    assert.equal(challenged.challenge_name, 'EMAIL_OTP', JSON.stringify(challenged));
    const [mail] = await deliveredMail(h.sesUrl, saasId, email);
    const code = /(\d{6})/.exec(mail?.body.text ?? '')?.[1] ?? '';
    const { answer } = await browser.answer({
      challenge_name: 'EMAIL_OTP',
      session: challenged.session,
      responses: { USERNAME: challenged.username, EMAIL_OTP_CODE: code },
    });
    const first = await idTokenOf(String(answer.redirect));
    assert.deepEqual(first.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(first.acr, MULTI_FACTOR_ACR);
    const again = await idTokenOf(callbackOfScreen(await browser.get(`${screen}?state=again`)));
    assert.deepEqual(again.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(again.acr, MULTI_FACTOR_ACR);
  });

  it('the discovery document names the acr it issues and the two claims', async () => {
    const metadata = (await (await fetch(`${h.api.baseUrl}/.well-known/openid-configuration`)).json()) as {
      acr_values_supported: string[];
      claims_supported: string[];
    };
    assert.deepEqual(metadata.acr_values_supported, [MULTI_FACTOR_ACR]);
    assert.ok(metadata.claims_supported.includes('acr') && metadata.claims_supported.includes('amr'));
  });
});
