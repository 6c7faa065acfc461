/**
 * Per-tenant SAML sign-in (web/login/saml/service-provider.ts) against identity providers from npm (samlify, in
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
import { setHostsForTests } from '../../shared/http/public-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { EMAIL_ATTRIBUTE, startTestIdp, type TestIdp } from '../support/saml-idp.js';
import { openScreen } from '../support/screen-client.js';
import { connectTenantSaml, tenantSaas } from '../support/tenant-providers.js';

const CALLBACK = 'https://app.acme.test/callback';
/** 93.184.215.14 is a public address (example.com's); the rest are not. */
const HOSTS: Record<string, string | string[]> = {
  'idp.example.com': '93.184.215.14',
  'internal.idp.test': '10.0.0.1',
  'cgnat.idp.test': '100.64.0.1',
  'cloud.idp.test': '169.254.169.254',
  'v6.idp.test': 'fd00::1',
  'mixed.idp.test': ['93.184.215.14', '192.168.1.10'],
  'rebind.idp.test': '93.184.215.14',
};
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
  ({
    saasId,
    admin,
    screen,
    tenants: { Acme: tenantA, Beta: tenantB },
  } = await tenantSaas(h, ['Acme', 'Beta'], CALLBACK, { Acme: KIM, Beta: LEE }));
  // The only names that resolve in this file (no test depends on external DNS, and none is ever connected to).
  setHostsForTests(HOSTS);
  idpA = startTestIdp('a');
  idpB = startTestIdp('b');
  await connectTenantSaml(admin, tenantA, idpA.metadata);
  await connectTenantSaml(admin, tenantB, idpB.metadata);
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

    // Both sign-ins are in the user's activity (GET /users/{user_id}/activity), as federated ones.
    const kim = (await admin.get<{ users: { id: string; email: string }[] }>('/users')).body.users.find(
      (user) => user.email.toLowerCase() === KIM.email.toLowerCase(),
    );
    const activity = await admin.get<{ activities: { kind: string; method?: string; provider?: string }[] }>(`/users/${kim?.id}/activity`);
    assert.equal(activity.status, 200, activity.text);
    const signIns = activity.body.activities.filter((event) => event.kind === 'sign_in_succeeded');
    assert.equal(signIns.length, 2);
    for (const event of signIns) {
      assert.equal(event.method, 'federated');
      assert.ok(event.provider, 'names the identity provider');
    }
  });

  it('refuses a tampered response, a replayed one, and one signed by another tenant’s identity provider', async () => {
    const { location } = await startAt(tenantA);
    const spMetadata = await serviceProviderMetadata();
    const { acs, SAMLResponse } = await idpA.respond(location, spMetadata, KIM);
    const tampered = Buffer.from(Buffer.from(SAMLResponse, 'base64').toString('utf8').replace(KIM.email, LEE.email)).toString('base64');
    const refusedTamper = await post(acs, tampered);
    assert.equal(refusedTamper.status, 400);
    assert.match(await refusedTamper.text(), /refused/);

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

describe('what the assertion consumer service and the screen refuse', () => {
  const MAY = { email: 'may.saml@acme.test', password: 'May#Secret42', nameId: 'may@idp-a' };

  it('answers a 400 page for an empty, non-base64 or non-XML SAMLResponse, and for none at all', async () => {
    const acs = `${h.api.baseUrl}/saml2/idpresponse`;
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    for (const body of [
      'SAMLResponse=',
      'SAMLResponse=%25%25%25not-base64',
      `SAMLResponse=${encodeURIComponent(b64('not XML at all'))}`,
      `SAMLResponse=${encodeURIComponent(b64('<?xml version="1.0"?><unclosed'))}`,
      `SAMLResponse=${encodeURIComponent(b64('<Response/>'))}`,
      `SAMLResponse=${encodeURIComponent(b64('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>'))}`,
      '',
      'RelayState=x',
    ]) {
      const res = await fetch(acs, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      const page = await res.text();
      assert.equal(res.status, 400, `${body}: ${res.status} ${page}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, body);
    }
  });

  it('refuses an assertion whose Recipient, or a response whose Destination, is another service provider', async () => {
    const spMetadata = await serviceProviderMetadata();
    for (const aimedAt of [{ recipient: 'https://other-sp.test/acs' }, { destination: 'https://other-sp.test/acs' }]) {
      const { location } = await startAt(tenantA);
      const { acs, SAMLResponse } = await idpA.respond(location, spMetadata, KIM, aimedAt);
      const res = await post(acs, SAMLResponse);
      const page = await res.text();
      assert.equal(res.status, 400, `${JSON.stringify(aimedAt)}: ${page}`);
      assert.match(page, /another (recipient|destination) \(https:\/\/other-sp\.test\/acs\)/);
    }
  });

  it('takes the sealed ticket once: replayed within its minute, it mails no second code', async () => {
    const setup = new ServiceSetup(admin);
    await setup.addMember(tenantA, await setup.createUser(MAY.email, MAY.password), MAY.email);
    const { location, cookie } = await startAt(tenantA);
    const { acs, SAMLResponse } = await idpA.respond(location, await serviceProviderMetadata(), MAY);
    const consumed = await post(acs, SAMLResponse);
    assert.equal(consumed.status, 303);
    const ticketUrl = consumed.headers.get('location') ?? '';
    const first = await fetch(ticketUrl, { redirect: 'manual', headers: { cookie } });
    assert.equal(first.status, 302, await first.text());
    assert.match(first.headers.get('location') ?? '', /\/link\?ticket=/);
    assert.equal((await deliveredMail(h.sesUrl, saasId, MAY.email)).length, 1);
    const replayed = await fetch(ticketUrl, { redirect: 'manual', headers: { cookie } });
    const page = await replayed.text();
    assert.equal(replayed.status, 400, page);
    assert.match(page, /used already/);
    assert.equal((await deliveredMail(h.sesUrl, saasId, MAY.email)).length, 1, 'no second code');
  });
});

describe('metadata_url', () => {
  const put = (tenantId: string, metadata_url: string) =>
    admin.put<{ type: string; message: string; data: Record<string, unknown> }>(`/tenants/${tenantId}/identity-providers`, {
      provider_type: 'SAML',
      identity_provider_props: { email_attribute: EMAIL_ATTRIBUTE, metadata_url },
    });

  it('is refused when saved unless its host is a public address: loopback, private, link-local, CGNAT, IPv6, other spellings, localhost', async () => {
    for (const url of [
      'https://127.0.0.1/metadata',
      'https://169.254.169.254/latest/meta-data/',
      'https://2130706433/metadata',
      'https://0x7f.0.0.1/metadata',
      'https://017700000001/metadata',
      'https://127.1:8443/metadata',
      'https://[::1]/metadata',
      'https://[::ffff:127.0.0.1]/metadata',
      'https://[fe80::1]/metadata',
      'https://localhost/metadata',
      'https://idp.localhost/metadata',
      'https://internal.idp.test/metadata',
      'https://cgnat.idp.test/metadata',
      'https://cloud.idp.test/metadata',
      'https://v6.idp.test/metadata',
      'https://mixed.idp.test/metadata',
      'https://unknown.idp.test/metadata',
    ]) {
      const res = await put(tenantB, url);
      assert.equal(res.status, 400, `${url}: ${res.status} ${res.text}`);
      assert.equal(res.body.type, 'invalid_parameter', url);
      assert.match(res.body.message, /^identity_provider_props\.metadata_url: /, url);
    }
    // Nothing changed: the tenant keeps the identity provider it had.
    const kept = await admin.get<{ saml: { metadata_xml?: string; metadata_url?: string } }>(`/tenants/${tenantB}/identity-providers`);
    assert.equal(kept.body.saml.metadata_xml, idpB.metadata);
    assert.equal(kept.body.saml.metadata_url, undefined);
  });

  it('is checked again when read at sign-in: a name that now resolves to a closed address, or to nothing, is a 400 page', async () => {
    const setup = new ServiceSetup(admin);
    const tenant = await setup.createTenant('Rebind');
    assert.equal((await put(tenant, 'https://rebind.idp.test/metadata')).status, 200);
    for (const now of ['169.254.169.254', undefined]) {
      setHostsForTests({ ...HOSTS, 'rebind.idp.test': now ?? [] });
      const fromScreen = await fetch(`${screen}saml?tenant_id=${tenant}`, { redirect: 'manual' });
      const res = await fetch(fromScreen.headers.get('location') ?? '', { redirect: 'manual' });
      const page = await res.text();
      assert.equal(res.status, 400, page);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(page, now ? /rebind\.idp\.test resolves to 169\.254\.169\.254, which is not a public address/ : /does not resolve/);
    }
    setHostsForTests(HOSTS);
  });
});
