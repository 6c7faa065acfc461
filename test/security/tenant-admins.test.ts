/**
 * Red team, tenant admins (issue 41; web/login/setup, docs/enterprise.md "Tenant admins"): a member holding the role
 * `admin` in tenant T opens T's setup page signed in on the hosted screen, and manages T's members and invitations
 * there. Attacked: another tenant's id in the address and in the forms, a member without the role, a screen session
 * ended (signed out, by the API) or a role taken away while the page is open, a form without the page's CSRF token,
 * and a setup link's holder reaching for the members step.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { DEMO_ENV, DEMO_ROLE, ServiceSetup } from '../../examples/app/demo.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { Browser } from '../support/screen-browser.js';
import { createSetupLink, csrfOf, SetupBrowser } from '../support/setup-page.js';

const CALLBACK = 'https://app.acme.test/auth/callback';
const PASSWORD = 'Taro#Secret42';

let h: Harness;
let api: SignedClient;
let setup: ServiceSetup;
let screen: string;
let saasId: string;
let acme: string;
let globex: string;

let n = 0;
/** A user, a member of `tenant` (with the admin role when `admin`), signed in on the screen in a browser of their own. */
async function person(tenant: string, admin: boolean) {
  const email = `person${++n}.tadmin@example.com`;
  const id = await setup.createUser(email, PASSWORD);
  if (admin) await setup.addMember(tenant, id, email);
  else assert.equal((await api.post(`/tenants/${tenant}/users`, { email, attributes: {} })).status, 201);
  const browser = new Browser(screen);
  await browser.signIn(`${screen}?state=s`, email, PASSWORD);
  assert.ok(browser.cookies.get('login_session'), 'signed in on the screen');
  return { email, id, browser };
}

const setupUrl = (query = '') => `${screen}setup${query}`;

/** A form of the members step, posted with `csrf` (the page's own unless given). */
async function postMembers(browser: Browser, fields: Record<string, string>, csrf?: string) {
  const token = csrf ?? csrfOf(await (await browser.get(setupUrl('/members'))).text());
  const res = await fetch(setupUrl('/members'), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: browser.header(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, csrf: token }).toString(),
  });
  browser.take(res);
  return { status: res.status, html: await res.text() };
}

const memberIds = async (tenant: string) => (await api.get<{ users: { id: string }[] }>(`/tenants/${tenant}/users`)).body.users.map((u) => u.id);
const invitedTo = async (tenant: string) =>
  (await api.get<{ invitations: { email: string }[] }>(`/tenants/${tenant}/invitations`)).body.invitations.map((i) => i.email);

beforeAll(async () => {
  h = await startHarness({ issuerIsApi: true });
  const made = await h.newSaas();
  api = made.client;
  assert.equal((await api.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  saasId = made.saasId;
  screen = `${h.api.baseUrl}/login/${saasId}/`;
  setup = new ServiceSetup(api);
  await setup.ensureDefinitions();
  acme = await setup.createTenant('Acme');
  globex = await setup.createTenant('Globex');
});
afterAll(async () => {
  await h?.close();
});

describe('a tenant admin', () => {
  it("opens their tenant's page signed in, and manages its members and invitations only", async () => {
    const admin = await person(acme, true);
    const colleague = await person(acme, false);
    const outsider = await person(globex, false);
    const opened = await admin.browser.get(setupUrl(`?tenant=${acme}`));
    assert.equal(opened.status, 303);
    assert.ok(admin.browser.cookies.get('setup'));
    const overview = await admin.browser.get(setupUrl());
    assert.equal(overview.status, 200);
    assert.match(await overview.text(), /Members/);
    const page = await (await admin.browser.get(setupUrl('/members'))).text();
    assert.ok(page.includes(colleague.email) && page.includes(admin.email));
    assert.ok(!page.includes(outsider.email), "another tenant's member is not listed");

    const invited = await postMembers(admin.browser, {
      action: 'invite',
      email: 'new.hire@example.com',
      role: `${DEMO_ENV.id}:${DEMO_ROLE.role_name}`,
    });
    assert.equal(invited.status, 200, invited.html);
    assert.deepEqual(await invitedTo(acme), ['new.hire@example.com']);
    assert.ok((await deliveredMail(h.sesUrl, saasId, 'new.hire@example.com')).length > 0, 'the invitation was mailed');

    const removed = await postMembers(admin.browser, { action: 'remove', user_id: colleague.id });
    assert.equal(removed.status, 200, removed.html);
    assert.ok(!(await memberIds(acme)).includes(colleague.id));
  });

  it('cannot reach another tenant: its id in the address, or in the forms, changes nothing there', async () => {
    const admin = await person(acme, true);
    const outsider = await person(globex, false);
    const elsewhere = await admin.browser.get(setupUrl(`?tenant=${globex}`));
    assert.equal(elsewhere.status, 403);
    assert.match(elsewhere.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await elsewhere.text(), /not an administrator/);
    assert.equal(admin.browser.cookies.get('setup'), undefined, 'no page for Globex');

    assert.equal((await admin.browser.get(setupUrl(`?tenant=${acme}`))).status, 303);
    const removal = await postMembers(admin.browser, { action: 'remove', user_id: outsider.id, tenant_id: globex });
    assert.notEqual(removal.status, 200);
    const removalById = await postMembers(admin.browser, { action: 'remove', user_id: outsider.id });
    assert.equal(removalById.status, 404, 'a user of another tenant is no member here');
    assert.ok((await memberIds(globex)).includes(outsider.id), 'still a member of Globex');

    await postMembers(admin.browser, {
      action: 'invite',
      email: 'spy@example.com',
      role: `${DEMO_ENV.id}:${DEMO_ROLE.role_name}`,
      tenant_id: globex,
    });
    assert.deepEqual(await invitedTo(globex), [], 'nothing invited into Globex');
  });

  it('is refused to a member without the role, and to nobody signed in, with a page in their language', async () => {
    const member = await person(acme, false);
    const refused = await member.browser.get(setupUrl(`?tenant=${acme}&lang=ja`));
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /管理者ではありません/);
    assert.equal(member.browser.cookies.get('setup'), undefined);
    const anonymous = await fetch(setupUrl(`?tenant=${acme}`), { redirect: 'manual' });
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await anonymous.text(), /Sign in first/);
    assert.deepEqual(anonymous.headers.getSetCookie(), []);
  });

  it('loses the page when the screen session ends or the role is taken away, at the next request', async () => {
    const admin = await person(acme, true);
    const victim = await person(acme, false);
    assert.equal((await admin.browser.get(setupUrl(`?tenant=${acme}`))).status, 303);
    const token = csrfOf(await (await admin.browser.get(setupUrl('/members'))).text());
    const setupCookie = admin.browser.cookies.get('setup') ?? '';
    const [session] = (await api.get<{ sessions: { id: string }[] }>(`/users/${admin.id}/sessions`)).body.sessions;
    assert.equal((await api.delete(`/users/${admin.id}/sessions/${session?.id}`)).status, 200);
    admin.browser.cookies.set('setup', setupCookie);
    assert.equal((await admin.browser.get(setupUrl('/members'))).status, 401);
    admin.browser.cookies.set('setup', setupCookie);
    const after = await postMembers(admin.browser, { action: 'remove', user_id: victim.id }, token);
    assert.equal(after.status, 401);
    assert.ok((await memberIds(acme)).includes(victim.id));

    const demoted = await person(acme, true);
    assert.equal((await demoted.browser.get(setupUrl(`?tenant=${acme}`))).status, 303);
    const role = `/tenants/${acme}/users/${demoted.id}/envs/${DEMO_ENV.id}/roles/${DEMO_ROLE.role_name}`;
    assert.equal((await api.delete(role)).status, 200);
    assert.equal((await demoted.browser.get(setupUrl('/members'))).status, 401);
  });

  it('changes nothing for a form without the page’s CSRF token', async () => {
    const admin = await person(acme, true);
    const victim = await person(acme, false);
    assert.equal((await admin.browser.get(setupUrl(`?tenant=${acme}`))).status, 303);
    for (const forged of ['', 'A'.repeat(43)]) {
      const res = await postMembers(admin.browser, { action: 'remove', user_id: victim.id }, forged);
      assert.equal(res.status, 403);
    }
    assert.ok((await memberIds(acme)).includes(victim.id));
  });
});

describe("a setup link's holder", () => {
  it('has no members step: neither its page nor its forms', async () => {
    const victim = await person(acme, false);
    const page = new SetupBrowser();
    assert.equal((await page.open((await createSetupLink(api, acme)).url)).status, 303);
    const overview = await page.get();
    assert.doesNotMatch(overview.html, /setup\/members/);
    assert.equal((await page.get('members')).status, 403);
    const res = await page.post('members', { action: 'remove', user_id: victim.id }, csrfOf(overview.html));
    assert.equal(res.status, 403);
    assert.ok((await memberIds(acme)).includes(victim.id));
  });
});
