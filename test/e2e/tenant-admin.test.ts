/**
 * A tenant admin in headless Chromium (issue 41; docs/enterprise.md, "Tenant admins"): signed in on the hosted
 * screen, they open their tenant's setup page without a link, go to its members step, invite a colleague by
 * keyboard and remove a member, in English and Japanese; a member without the role gets a page saying so. axe-core
 * on every page.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { DEMO_ENV, DEMO_ROLE, ServiceSetup } from '../../examples/app/demo.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { SETUP_EN } from '../../web/login/texts/en-setup.js';
import { SETUP_JA } from '../../web/login/texts/ja-setup.js';
import { assertAxeClean } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';

const skip = chromiumMissing();
const CALLBACK = 'https://app.acme.test/callback';
const PASSWORD = 'Taro#Secret42';

let h: Harness;
let chromium: Browser;
let api: SignedClient;
let setup: ServiceSetup;
let screen: string;
let acme: string;

let n = 0;
async function member(admin: boolean) {
  const email = `person${++n}.e2e-tadmin@example.com`;
  const id = await setup.createUser(email, PASSWORD);
  if (admin) await setup.addMember(acme, id, email);
  else assert.equal((await api.post(`/tenants/${acme}/users`, { email, attributes: {} })).status, 201);
  return { email, id };
}

/** A new browser signed in on the hosted screen as `email` (the SaaS's callback caught), in `locale`. */
async function signedIn(email: string, locale: string): Promise<Page> {
  const context = await chromium.newContext({ locale });
  await context.route(`${CALLBACK}**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>App</title><h1 id="app">App</h1>' }),
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${screen}?state=e2e`);
  await page.locator('#sign-in-form:not([hidden])').waitFor();
  await page.fill('#username', email);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in-form button[type=submit]');
  await page.locator('#app').waitFor();
  return page;
}

(skip ? describe.skip : describe)('a tenant admin, in Chromium', () => {
  beforeAll(async () => {
    [h, chromium] = await Promise.all([startHarness({ issuerIsApi: true }), launchChromium()]);
    const saas = await h.newSaas();
    api = saas.client;
    screen = `${h.api.baseUrl}/login/${saas.saasId}/`;
    assert.equal((await api.put('/auth-info', { callback_url: CALLBACK })).status, 200);
    setup = new ServiceSetup(api);
    await setup.ensureDefinitions();
    acme = await setup.createTenant('Acme');
  });
  afterAll(async () => {
    await chromium?.close();
    await h?.close();
  });

  for (const [locale, lang, words] of [
    ['en-US', 'en', SETUP_EN],
    ['ja-JP', 'ja', SETUP_JA],
  ] as const) {
    it(`${lang}: opens the page signed in, invites by keyboard and removes a member`, async () => {
      const admin = await member(true);
      const colleague = await member(false);
      const page = await signedIn(admin.email, locale);
      await page.goto(`${screen}setup?tenant=${acme}&lang=${lang}`);
      await page.locator('h1').waitFor();
      assert.equal(new URL(page.url()).search, '', 'the tenant left the address');
      await assertAxeClean(page, `overview ${lang}`);
      await page.click(`nav.setup-steps a[href$="/setup/members"]`);
      assert.equal(await page.textContent('#step-heading'), words.stepMembers);
      assert.ok((await page.textContent('table'))?.includes(colleague.email));
      await assertAxeClean(page, `members ${lang}`);

      const invitee = `invitee.${lang}@example.com`;
      await page.locator('#email').focus();
      await page.keyboard.type(invitee);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.locator('#notice').waitFor();
      assert.equal(await page.textContent('#notice'), words.invited.replace('{email}', invitee));
      assert.ok((await page.textContent('main'))?.includes(invitee), 'the invitation is listed');
      await assertAxeClean(page, `invited ${lang}`);
      assert.equal(await page.inputValue('#role'), `${DEMO_ENV.id}:${DEMO_ROLE.role_name}`);

      await page.click(`button[aria-label="${words.removeMember.replace('{email}', colleague.email)}"]`);
      await page.locator('#notice').waitFor();
      assert.equal(await page.textContent('#notice'), words.memberRemoved.replace('{email}', colleague.email));
      const members = (await api.get<{ users: { id: string }[] }>(`/tenants/${acme}/users`)).body.users.map((u) => u.id);
      assert.ok(!members.includes(colleague.id) && members.includes(admin.id));
      await page.context().close();
    });

    it(`${lang}: a member without the role is told so on a page`, async () => {
      const plain = await member(false);
      const page = await signedIn(plain.email, locale);
      const res = await page.goto(`${screen}setup?tenant=${acme}&lang=${lang}`);
      assert.equal(res?.status(), 403);
      assert.equal(await page.textContent('h1'), words.notAdminTitle);
      await assertAxeClean(page, `refused ${lang}`);
      await page.context().close();
    });
  }
});
