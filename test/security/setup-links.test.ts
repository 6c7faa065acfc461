/**
 * Red team, setup links (issue 41; shared/domain/tenants/setup-links.ts, web/login/setup): a link opened twice, after
 * its end, after it was revoked, or with its secret guessed; the page's cookie carried to another tenant or another
 * SaaS; a form without the page's CSRF token; a domain another tenant verified claimed through the page.
 * The session a link's first opening starts lives on (docs/decisions.md): until the link's end, at most 8 hours.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import { setTxtRecordsForTests } from '../../shared/adapters/dns-txt.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { SESSION_SECONDS } from '../../shared/domain/tenants/setup-links.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { createSetupLink, csrfOf, SetupBrowser, type SetupLinkAnswer } from '../support/setup-page.js';

let h: Harness;
let admin: SignedClient;
let acme: string;
let mallory: string;
const published: Record<string, string[]> = {};

const stateOf = async (tenant: string, id: string) =>
  (await admin.get<{ setup_links: SetupLinkAnswer[] }>(`/tenants/${tenant}/setup-links`)).body.setup_links.find((l) => l.id === id)?.state;
const domainsOf = async (api: SignedClient, tenant: string) =>
  (await api.get<{ domains: { domain: string; status: string }[] }>(`/tenants/${tenant}/domains`)).body.domains;
const scimTokensOf = async (api: SignedClient, tenant: string) =>
  (await api.get<{ tokens: unknown[] }>(`/tenants/${tenant}/scim/tokens`)).body.tokens;

async function opened(tenant: string): Promise<SetupBrowser> {
  const page = new SetupBrowser();
  assert.equal((await page.open((await createSetupLink(admin, tenant)).url)).status, 303);
  return page;
}

beforeAll(async () => {
  h = await startHarness();
  ({ client: admin } = await h.newSaas());
  const setup = new ServiceSetup(admin);
  await setup.ensureDefinitions();
  acme = await setup.createTenant('Acme');
  mallory = await setup.createTenant('Mallory');
  setTxtRecordsForTests(published);
});
afterEach(() => resetClockForTests());
afterAll(async () => {
  setTxtRecordsForTests(undefined);
  await h?.close();
});

describe('a setup link', () => {
  it('opens once: a replay is refused and sets no cookie, while the first session lives on', async () => {
    const link = await createSetupLink(admin, acme);
    const first = new SetupBrowser();
    assert.equal((await first.open(link.url)).status, 303);
    const replay = await fetch(link.url, { redirect: 'manual' });
    assert.equal(replay.status, 401);
    assert.deepEqual(replay.headers.getSetCookie(), []);
    assert.match(await replay.text(), /used already, revoked, or has expired/);
    assert.equal((await first.get()).status, 200, 'the first opening keeps its session');
  });

  it('does not open with a wrong secret, and a wrong guess does not use it up', async () => {
    const link = await createSetupLink(admin, acme);
    const key = new URL(link.url).searchParams.get('key') ?? '';
    const parts = key.split('.');
    const guessed = [...parts.slice(0, 3), 'A'.repeat(43)].join('.');
    const otherTenant = [parts[0], mallory, ...parts.slice(2)].join('.');
    for (const wrong of [guessed, otherTenant, `${key}x`, parts.slice(0, 3).join('.'), '']) {
      const res = await fetch(`${link.url.split('?')[0]}?key=${encodeURIComponent(wrong)}`, { redirect: 'manual' });
      assert.ok([401, 404].includes(res.status), `${wrong}: ${res.status}`);
      assert.deepEqual(res.headers.getSetCookie(), []);
    }
    assert.equal(await stateOf(acme, link.id), 'unused');
    assert.equal((await new SetupBrowser().open(link.url)).status, 303);
  });

  it('does not open after its days are over', async () => {
    const link = await createSetupLink(admin, acme, 1);
    setClockForTests((link.expires_at + 1) * 1000);
    assert.equal((await new SetupBrowser().open(link.url)).status, 401);
    assert.equal(await stateOf(acme, link.id), 'expired');
  });

  it('ends its page after 8 hours, or at the link’s end: the page is refused and forgets its cookie', async () => {
    const page = await opened(acme);
    setClockForTests(Date.now() + (SESSION_SECONDS + 1) * 1000);
    const res = await page.browser.request(page.page);
    assert.equal(res.status, 401);
    assert.match(res.headers.getSetCookie().join('\n'), /setup=; .*Max-Age=0/);
  });

  it('does not open once revoked, and revoking it ends a page it opened', async () => {
    const unopened = await createSetupLink(admin, acme);
    assert.equal((await admin.delete(`/tenants/${acme}/setup-links/${unopened.id}`)).status, 200);
    assert.equal((await new SetupBrowser().open(unopened.url)).status, 401);

    const link = await createSetupLink(admin, acme);
    const page = new SetupBrowser();
    await page.open(link.url);
    const csrf = csrfOf((await page.get('domain')).html);
    assert.equal((await admin.delete(`/tenants/${acme}/setup-links/${link.id}`)).status, 200);
    assert.equal((await page.get()).status, 401);
    const after = await page.post('domain', { action: 'claim', domain: 'revoked.test' }, csrf);
    assert.equal(after.status, 401);
    assert.ok(!(await domainsOf(admin, acme)).some((d) => d.domain === 'revoked.test'));
  });
});

describe("the setup page's cookie", () => {
  it("acts on its own tenant only: a tenant id slipped into a form is ignored, and Mallory's settings stay untouched", async () => {
    const page = await opened(acme);
    assert.equal((await page.post('domain', { action: 'claim', domain: 'acme-only.test', tenant_id: mallory })).status, 200);
    assert.equal((await page.post('scim', { action: 'create', tenant_id: mallory })).status, 200);
    assert.deepEqual(await domainsOf(admin, mallory), []);
    assert.deepEqual(await scimTokensOf(admin, mallory), []);
    assert.ok((await domainsOf(admin, acme)).some((d) => d.domain === 'acme-only.test'));
  });

  it('opens nothing of another SaaS, even carried there by hand', async () => {
    const page = await opened(acme);
    const other = await h.newSaas();
    const sealed = page.sealed;
    assert.ok(sealed);
    const elsewhere = `${h.api.baseUrl}/login/${other.saasId}/setup`;
    const res = await fetch(elsewhere, { headers: { cookie: `setup=${sealed}` }, redirect: 'manual' });
    assert.equal(res.status, 401);
    const posted = await fetch(`${elsewhere}/domain`, {
      method: 'POST',
      headers: { cookie: `setup=${sealed}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ action: 'claim', domain: 'cross-saas.test', csrf: csrfOf((await page.get('domain')).html) }).toString(),
    });
    assert.equal(posted.status, 401);
    assert.equal((await other.client.get<{ tenants: unknown[] }>('/tenants')).body.tenants.length, 0);
  });

  it('refuses a form without the page’s CSRF token, or with another page’s, changing nothing', async () => {
    const page = await opened(acme);
    const another = await opened(acme);
    const othersToken = csrfOf((await another.get('domain')).html);
    for (const csrf of ['', 'forged', othersToken]) {
      const res = await page.post('domain', { action: 'claim', domain: 'forged.test' }, csrf);
      assert.equal(res.status, 403, `${csrf}: ${res.status}`);
    }
    assert.ok(!(await domainsOf(admin, acme)).some((d) => d.domain === 'forged.test'));
  });

  it('cannot claim a domain another tenant verified', async () => {
    const claim = await admin.post<{ record: { name: string; value: string } }>(`/tenants/${mallory}/domains`, { domain: 'taken.test' });
    published[claim.body.record.name] = [claim.body.record.value];
    assert.equal((await admin.post(`/tenants/${mallory}/domains/taken.test/verify`, {})).status, 200);
    const page = await opened(acme);
    const res = await page.post('domain', { action: 'claim', domain: 'taken.test' });
    assert.equal(res.status, 400);
    assert.match(res.html, /role="alert"/);
    assert.ok(!(await domainsOf(admin, acme)).some((d) => d.domain === 'taken.test'));
  });
});
