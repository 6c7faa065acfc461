/**
 * Per-tenant SAML sign-in (functions/login/saml.ts) against identity providers from npm (samlify, in
 * test/support/saml-idp.ts), over HTTP the way a browser goes: the screen's `saml` page to the identity provider
 * with a signed AuthnRequest, its signed response posted to the service's ACS, then `continue` with the browser's
 * cookie. The first sign-in of an existing user links the account with a mailed code; after that the identity
 * provider alone signs in. Refused: a tampered response, a replayed one, one signed by another tenant's identity
 * provider, a person who is not the tenant's user, and a browser that did not start the sign-in.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { startHarness, type Harness } from '../support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { EMAIL_ATTRIBUTE, startTestIdp, type TestIdp } from '../support/saml-idp.js';
import { openScreen } from '../support/screen-client.js';

const CALLBACK = 'https://app.acme.test/callback';
const KIM = { email: 'kim.saml@acme.test', password: 'Kim#Secret42', nameId: 'kim@idp-a' };
const LEE = { email: 'lee.saml@beta.test', password: 'Lee#Secret42', nameId: 'lee@idp-a' };

let h: Harness;
let admin: SignedClient;
let saasId: string;
let tenantA: string;
let tenantB: string;
let idpA: TestIdp;
let idpB: TestIdp;
let screen: string;

const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

/** The screen's `saml` page: the identity provider's URL with the AuthnRequest, and the browser's cookie. */
async function startAt(tenantId: string) {
  const fromScreen = await fetch(`${screen}saml?tenant_id=${tenantId}&state=s-1`, { redirect: 'manual' });
  assert.equal(fromScreen.status, 302, await fromScreen.text());
  // The screen sends the browser to the SAML function, which signs the AuthnRequest and sets the flow's cookie.
  const res = await fetch(fromScreen.headers.get('location') ?? '', { redirect: 'manual' });
  assert.equal(res.status, 302, await res.text());
  return { location: res.headers.get('location') ?? '', cookie: cookieOf(res) };
}

/** The service's SP metadata, as an identity provider reads it. */
const serviceProviderMetadata = async () => (await fetch(`${h.api.baseUrl}/saml2/metadata/${saasId}`)).text();

async function post(acs: string, SAMLResponse: string) {
  return fetch(acs, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ SAMLResponse }).toString(),
  });
}

/** The whole way: start, the identity provider's answer, the ACS, `continue`; where the browser ends up. */
async function signIn(tenantId: string, idp: TestIdp, person: { nameId: string; email: string }) {
  const { location, cookie } = await startAt(tenantId);
  const spMetadata = await serviceProviderMetadata();
  const { acs, SAMLResponse } = await idp.respond(location, spMetadata, person);
  const consumed = await post(acs, SAMLResponse);
  if (consumed.status !== 303) return { status: consumed.status, text: await consumed.text(), SAMLResponse, acs };
  const done = await fetch(consumed.headers.get('location') ?? '', { redirect: 'manual', headers: { cookie } });
  const to = done.headers.get('location');
  return { status: done.status, location: to ? new URL(to, h.api.baseUrl).toString() : '', text: await done.text(), SAMLResponse, acs };
}

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, client: admin } = await h.newSaas());
  screen = `${h.api.baseUrl}/login/${saasId}/`;
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  const setup = new ServiceSetup(admin);
  await setup.ensureDefinitions();
  tenantA = await setup.createTenant('Acme');
  tenantB = await setup.createTenant('Beta');
  await setup.addMember(tenantA, await setup.createUser(KIM.email, KIM.password), KIM.email);
  await setup.addMember(tenantB, await setup.createUser(LEE.email, LEE.password), LEE.email);
  idpA = startTestIdp('a');
  idpB = startTestIdp('b');
  for (const [tenant, idp] of [
    [tenantA, idpA],
    [tenantB, idpB],
  ] as const) {
    const props = { email_attribute: EMAIL_ATTRIBUTE, metadata_xml: idp.metadata };
    assert.equal((await admin.put(`/tenants/${tenant}/identity-providers`, { provider_type: 'SAML', identity_provider_props: props })).status, 200);
  }
});
afterAll(async () => {
  await h?.close();
});

describe('per-tenant SAML sign-in', () => {
  it('publishes SP metadata at the entity id the settings show, with the ACS and the signing certificate', async () => {
    const settings = (await admin.get<{ identity_provider_configuration: { entity_id: string; reply_url: string } }>('/sign-in-settings')).body;
    const { entity_id, reply_url } = settings.identity_provider_configuration;
    const res = await fetch(entity_id);
    assert.equal(res.status, 200);
    const xml = await res.text();
    assert.match(xml, new RegExp(`entityID="${entity_id}"`));
    assert.match(xml, new RegExp(`AssertionConsumerService[^>]*Location="${reply_url}"`));
    assert.match(xml, /<(ds:)?X509Certificate>MII/);
    const read = (await admin.get<{ saml: { sign_in_url: string } }>(`/tenants/${tenantA}/identity-providers`)).body;
    assert.equal(read.saml.sign_in_url, `${screen}saml?tenant_id=${tenantA}`);
  });

  it('signs a tenant user in: the first time with the code mailed to them, then with the identity provider alone', async () => {
    const first = await signIn(tenantA, idpA, KIM);
    assert.equal(first.status, 302, first.text);
    assert.match(first.location ?? '', new RegExp(`^${screen}link\\?ticket=`));
    const page = await openScreen(first.location as string);
    const link = page.data?.link as { ticket: string };
    const [mail] = await deliveredMail(h.sesUrl, saasId, KIM.email);
    const code = /(\d{6})/.exec(mail?.body.text ?? '')?.[1] as string;
    const linked = await fetch(`${screen}api/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: page.cookie, 'x-csrf-token': String(page.data?.csrf) },
      body: JSON.stringify({ ticket: link.ticket, code }),
    });
    const answer = (await linked.json()) as { redirect: string };
    assert.equal(linked.status, 200, JSON.stringify(answer));
    const back = new URL(answer.redirect);
    assert.equal(back.origin + back.pathname, CALLBACK);
    assert.equal(back.searchParams.get('state'), 's-1');
    const tokens = await admin.get<{ id_token: string }>(`/credentials?code=${back.searchParams.get('code')}`);
    assert.equal(tokens.status, 200);

    const again = await signIn(tenantA, idpA, KIM);
    assert.equal(again.status, 302, again.text);
    assert.ok(again.location?.startsWith(`${CALLBACK}?code=`), again.location);
  });

  it('refuses a tampered response, a replayed one, and one signed by another tenant’s identity provider', async () => {
    const { location } = await startAt(tenantA);
    const spMetadata = await serviceProviderMetadata();
    const { acs, SAMLResponse } = await idpA.respond(location, spMetadata, KIM);
    const tampered = Buffer.from(Buffer.from(SAMLResponse, 'base64').toString('utf8').replace(KIM.email, LEE.email)).toString('base64');
    const refusedTamper = await post(acs, tampered);
    assert.equal(refusedTamper.status, 400);
    assert.match(await refusedTamper.text(), /did not sign you in \(Invalid signature\)/);

    assert.equal((await post(acs, SAMLResponse)).status, 303);
    const replayed = await post(acs, SAMLResponse);
    assert.equal(replayed.status, 400);
    assert.match(await replayed.text(), /used already/);

    const forA = await startAt(tenantA);
    const signedByB = await idpB.respond(forA.location, spMetadata, KIM);
    const wrongIdp = await post(signedByB.acs, signedByB.SAMLResponse);
    assert.equal(wrongIdp.status, 400);
  });

  it("refuses a person who is not the tenant's user, and a browser that did not start the sign-in", async () => {
    const outsider = await signIn(tenantA, idpA, LEE);
    assert.equal(outsider.status, 400);
    assert.match(outsider.text, /no user of this tenant/);

    const { location } = await startAt(tenantA);
    const spMetadata = await serviceProviderMetadata();
    const { acs, SAMLResponse } = await idpA.respond(location, spMetadata, KIM);
    const consumed = await post(acs, SAMLResponse);
    const elsewhere = await fetch(consumed.headers.get('location') ?? '', { redirect: 'manual' });
    assert.equal(elsewhere.status, 400);
    assert.match(await elsewhere.text(), /did not start this sign-in/);
  });

  it('takes metadata XML or a URL, and refuses metadata it cannot use', async () => {
    const put = (props: object) => admin.put(`/tenants/${tenantA}/identity-providers`, { provider_type: 'SAML', identity_provider_props: props });
    assert.equal((await put({ email_attribute: EMAIL_ATTRIBUTE })).status, 400);
    assert.equal((await put({ email_attribute: EMAIL_ATTRIBUTE, metadata_xml: '<not-xml' })).status, 400);
    assert.equal(
      (await put({ email_attribute: EMAIL_ATTRIBUTE, metadata_xml: '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"/>' })).status,
      400,
    );
    assert.equal((await put({ email_attribute: EMAIL_ATTRIBUTE, metadata_url: 'https://idp.example.com/metadata.xml' })).status, 200);
    assert.equal((await put({ email_attribute: EMAIL_ATTRIBUTE, metadata_xml: idpA.metadata })).status, 200);
  });
});
