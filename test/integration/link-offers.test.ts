/**
 * The link-code confusion of issue 24, over HTTP as browsers go: a user of tenants T1 and T2 signs in with
 * their own Google account (a real OpenID Connect provider from npm stands in, local/google-stand-in.ts) and
 * meets the link page and a mailed code. Meanwhile T1's SAML identity provider, which T1's administrator
 * controls, posts a signed assertion with the user's address and a NameID of the administrator's choosing: a
 * second code goes to the user. Whatever code the user types on their own page, only the Google account they
 * met links; the SAML offer neither replaces the Google one nor is confirmed by the API's link operations.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { startGoogleStandIn, type GoogleStandIn } from '../../local/google-stand-in.js';
import { config, resetConfigForTests } from '../../shared/config.js';
import type { UserRecord } from '../../shared/domain/users/users.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import { CookieBrowser } from '../support/cookie-browser.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { startTestIdp, type TestIdp } from '../support/saml-idp.js';
import { connectTenantSaml } from '../support/tenant-providers.js';
import { accessTokenOf } from '../support/tokens.js';

const CALLBACK = 'https://app.acme.test/callback';
const USER = { email: 'noa.link@acme.test', password: 'Noa#Secret42', googleSub: 'google-noa' };
const ADMINS_NAME_ID = 'chosen-by-t1-admin';

let h: Harness;
let admin: SignedClient;
let saasId: string;
let userId: string;
let tenant1: string;
let idp1: TestIdp;
let google: GoogleStandIn;
let screen: string;

const stored = (id: string) => new DynamoUserRepository(dynamo(), tableName()).get(saasId, id) as Promise<UserRecord>;
const codesMailedTo = async (email: string) =>
  (await deliveredMail(h.sesUrl, saasId, email)).map((m) => /(\d{6})/.exec(m.body.text ?? '')?.[1] ?? '');
const codesMailed = () => codesMailedTo(USER.email);
const isLinkPage = (url: string) => url.startsWith(`${screen}link?`);

/** A browser signs in with the stand-in Google account `sub`; the link page it lands on. */
async function googleSignIn(browser: CookieBrowser, sub: string): Promise<string> {
  const atProvider = await browser.follow(`${screen}federated/google?state=s-google`);
  assert.equal(atProvider.res.status, 200, await atProvider.res.clone().text());
  const chosen = await browser.follow(
    atProvider.url,
    isLinkPage,
    // The stand-in's sign-in page: a form posting the chosen account.
    { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sub }).toString() },
  );
  assert.ok(isLinkPage(chosen.url), `${chosen.url} ${chosen.res.status} ${await chosen.res.text()}`);
  return chosen.url;
}

/** A browser signs in through tenant 1's identity provider, which asserts `person`; the link page it lands on. */
async function samlSignIn(browser: CookieBrowser, person: { nameId: string; email: string }): Promise<string> {
  const atIdp = await browser.follow(`${screen}saml?tenant_id=${tenant1}&state=s-saml`, (url) => url.startsWith('https://idp-t1.test/'));
  const spMetadata = await (await fetch(`${h.api.baseUrl}/saml2/metadata/${saasId}`)).text();
  const { acs, SAMLResponse } = await idp1.respond(atIdp.url, spMetadata, person);
  const form = {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ SAMLResponse }).toString(),
  };
  const back = await browser.follow(acs, isLinkPage, form);
  assert.ok(isLinkPage(back.url), `${back.url} ${back.res.status} ${await back.res.text()}`);
  return back.url;
}

/** The link page opened in `browser`, and its code posted: the step's status and answer. */
async function enterCode(browser: CookieBrowser, linkPage: string, code: string) {
  const html = await (await browser.request(linkPage)).text();
  const data = JSON.parse(/<script id="page-data" type="application\/json">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '{}') as {
    csrf: string;
    link: { ticket: string };
  };
  const res = await browser.request(`${screen}api/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': data.csrf },
    body: JSON.stringify({ ticket: data.link.ticket, code }),
  });
  return { status: res.status, body: (await res.json()) as { type?: string; redirect?: string } };
}

beforeAll(async () => {
  h = await startHarness();
  google = await startGoogleStandIn({
    returnUrl: `${config().publicBaseUrl}/oauth2/idpresponse`,
    accounts: [{ sub: USER.googleSub, email: USER.email, email_verified: true }],
  });
  process.env.GOOGLE_ISSUER = google.issuer;
  resetConfigForTests();
  ({ saasId, client: admin } = await h.newSaas());
  screen = `${h.api.baseUrl}/login/${saasId}/`;
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  const googleClient = {
    application_id: google.clientId,
    application_secret: google.clientSecret,
    approval_scope: 'openid email',
    is_button_hidden: false,
  };
  assert.equal((await admin.put('/identity-providers', { provider: 'Google', identity_provider_props: googleClient })).status, 200);
  const setup = new ServiceSetup(admin);
  await setup.ensureDefinitions();
  tenant1 = await setup.createTenant('T1');
  const tenant2 = await setup.createTenant('T2');
  userId = await setup.createUser(USER.email, USER.password);
  await setup.addMember(tenant1, userId, USER.email);
  await setup.addMember(tenant2, userId, USER.email);
  idp1 = startTestIdp('t1');
  await connectTenantSaml(admin, tenant1, idp1.metadata);
});
afterAll(async () => {
  await google?.close();
  await h?.close();
  delete process.env.GOOGLE_ISSUER;
  resetConfigForTests();
});

describe('a link code confirms only the provider account the page met', () => {
  it("a tenant's identity provider posting the user's address while they link Google never gets linked", async () => {
    const user = new CookieBrowser();
    const usersPage = await googleSignIn(user, USER.googleSub);
    const [googleCode] = await codesMailed();
    assert.ok(googleCode);

    // T1's administrator makes their identity provider assert the user's address, from a browser of their own.
    const attacker = new CookieBrowser();
    await samlSignIn(attacker, { nameId: ADMINS_NAME_ID, email: USER.email });
    const codes = await codesMailed();
    assert.equal(codes.length, 2, 'the SAML sign-in mails a code of its own');
    const samlCode = codes[1] as string;

    // The user types the newest code on their own page: it is not the code of the account that page met.
    const confused = await enterCode(user, usersPage, samlCode);
    assert.equal(confused.status, 400, JSON.stringify(confused.body));
    // Nor does the SaaS's own link API confirm the SAML account with it.
    const token = await accessTokenOf(saasId, { id: userId, email: USER.email, sign_in_id: '' });
    const viaApi = await admin.post('/external-users/confirm', { access_token: token, code: samlCode });
    assert.equal(viaApi.status, 400, JSON.stringify(viaApi.body));
    assert.deepEqual((await stored(userId)).providers, {}, 'nothing linked');

    // The Google offer was not replaced: its own code still links the Google account, and signs in.
    const linked = await enterCode(user, usersPage, googleCode);
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    assert.ok(linked.body.redirect?.startsWith(`${CALLBACK}?code=`));
    assert.deepEqual(Object.keys((await stored(userId)).providers), ['Google']);
    assert.equal((await stored(userId)).providers.Google?.subject, USER.googleSub);

    // T1's identity provider still signs in as nobody: its account waits for a code only the user holds.
    const again = await samlSignIn(attacker, { nameId: ADMINS_NAME_ID, email: USER.email });
    assert.ok(isLinkPage(again));
    assert.equal((await enterCode(attacker, again, googleCode)).status, 400);
    assert.equal((await stored(userId)).providers[`SAML:${tenant1}`], undefined);
  });

  it('a newer assertion of the same identity provider for another NameID makes the older page refuse the new code', async () => {
    const users = await userOf('ivy.link@acme.test');
    const user = new CookieBrowser();
    const usersPage = await samlSignIn(user, { nameId: 'ivy@t1', email: users.email });
    await samlSignIn(new CookieBrowser(), { nameId: ADMINS_NAME_ID, email: users.email });
    const [, newest] = await codesMailedTo(users.email);
    const refused = await enterCode(user, usersPage, newest as string);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.type, 'link_offer_replaced');
    assert.deepEqual((await stored(users.id)).providers, {});
  });
});

describe('a link confirmed after the user left the tenant', () => {
  it("links nothing: the tenant's identity provider signs in that tenant's members only", async () => {
    const left = await userOf('lou.link@acme.test');
    const browser = new CookieBrowser();
    const page = await samlSignIn(browser, { nameId: 'lou@t1', email: left.email });
    const [code] = await codesMailedTo(left.email);
    assert.equal((await admin.delete(`/tenants/${tenant1}/users/${left.id}`)).status, 200);
    const refused = await enterCode(browser, page, code as string);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.type, 'not_a_tenant_user');
    assert.deepEqual((await stored(left.id)).providers, {});
  });
});

/** A new user of tenant 1. */
async function userOf(email: string) {
  const setup = new ServiceSetup(admin);
  const id = await setup.createUser(email, USER.password);
  await setup.addMember(tenant1, id, email);
  return { id, email };
}
