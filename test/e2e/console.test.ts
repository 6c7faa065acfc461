/**
 * The operator console in headless Chromium against the local stack: sign-in with an API key, each page's main
 * task end to end, axe-core on every page, and the refusals (a signed-out browser, a key without the
 * permission, a forged CSRF token). Screenshots go to .test-results/console/.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { onApi } from '../support/other-api.js';
import { chromiumMissing } from '../support/chromium.js';
import { axeClean, consoleUrlOf, signInConsole, startConsoleBrowser, stopConsoleBrowser, type ConsoleSaas } from '../support/console-browser.js';
import type { Harness } from '../../dev-support/harness.js';
import { defineEnvsAndRoles } from '../support/definitions.js';
import { accessTokenOf } from '../support/tokens.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { offerDemoOperator } from '../../web/console/console-function.js';
import { nowSeconds, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { newOutboxMail } from '../../shared/domain/mail/mail.js';
import { utcDay } from '../../shared/domain/users/sign-in-counts.js';
import { outboxRepository, secretBox, signInCountsRepository } from '../../shared/wiring.js';
import { EN as EN_CONSOLE } from '../../web/console/texts/en.js';
import { JA as JA_CONSOLE } from '../../web/console/texts/ja.js';
import { Browser as ScreenBrowser } from '../support/screen-browser.js';

const skip = chromiumMissing();

let h: Harness;
let browser: Browser;
let saas: ConsoleSaas;
let shop: ConsoleSaas;

const consoleUrl = (page?: string) => consoleUrlOf(h, page);
const signedIn = (credentials: { saasId: string; apiKey: string; secret: string }, lang = 'en') => signInConsole(browser, h, credentials, { lang });

(skip ? describe.skip : describe)('the operator console in Chromium', () => {
  beforeAll(async () => {
    ({ h, browser, saas } = await startConsoleBrowser());
    // The catalogue and the tenants pages work on a SaaS of their own, with environments and roles.
    shop = await h.newSaas();
    await defineEnvsAndRoles(shop.client);
  });
  afterAll(() => stopConsoleBrowser(h, browser));

  it('shows a signed-out browser the sign-in form, and its API calls are refused', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const answer = await page.goto(consoleUrl('definitions'));
    assert.equal(answer?.status(), 200);
    assert.match(answer?.headers()['content-security-policy'] ?? '', /script-src 'self'; style-src 'self'/);
    await page.waitForSelector('#sign-in');
    assert.equal(await page.locator('#sign-out').count(), 0);
    const refused = await page.evaluate(
      async (url) => (await fetch(url, { headers: { 'x-console-csrf': 'x' } })).status,
      consoleUrl('api/auth/roles'),
    );
    assert.equal(refused, 401);
    await axeClean(page, 'sign-in');
    await context.close();
  });

  it('refuses a wrong secret with the one sentence every failed sign-in gets', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(consoleUrl());
    await page.fill('#sign-in-saas_id', saas.saasId);
    await page.fill('#sign-in-api_key', saas.apiKey);
    await page.fill('#sign-in-client_secret', `${saas.secret}x`);
    await page.click('#sign-in button[type=submit]');
    const error = await page.waitForSelector('#sign-in .error');
    assert.match((await error.textContent()) ?? '', /not right/);
    assert.equal(await page.locator('#sign-out').count(), 0);
    await context.close();
  });

  it('signs in, shows the overview, creates a role and shows a refusal next to its field', async () => {
    const { context, page } = await signedIn(saas);
    await page.waitForSelector('#stat-users .figure');
    assert.equal(await page.textContent('#stat-users .figure'), '0');
    assert.match((await page.textContent('#who')) ?? '', new RegExp(saas.apiKey));
    await page.waitForSelector('#sign-ins-chart');
    await page.waitForSelector('#mail-none');
    await axeClean(page, 'overview-new-saas');

    await page.click('nav >> text=Environments and roles');
    await page.waitForSelector('#roles, #create-role');
    // The API refuses a role name it does not take: the refusal is shown at the field.
    await page.fill('#create-role-role_name', 'bad/name');
    await page.fill('#create-role-display_name', 'Bad');
    await page.click('#create-role button[type=submit]');
    await page.waitForSelector('#create-role-role_name-error');
    assert.equal(await page.getAttribute('#create-role-role_name', 'aria-invalid'), 'true');

    await page.fill('#create-role-role_name', 'auditor');
    await page.fill('#create-role-display_name', 'Auditor');
    await page.click('#create-role button[type=submit]');
    await page.waitForSelector('#create-role .done');
    await page.waitForSelector('#roles >> text=auditor');
    const roles = await saas.client.get<{ roles: { role_name: string }[] }>('/roles');
    assert.ok(roles.body.roles.some((r) => r.role_name === 'auditor'));
    await axeClean(page, 'definitions');
    await context.close();
  });

  it("shows the SaaS's sign-ins, refusals and lockouts per day and its mail backlog on the overview", async () => {
    const busy = await h.newSaas();
    const now = nowSeconds();
    const day = (ago: number) => utcDay(now - ago * 86_400);
    const counts = signInCountsRepository();
    await counts.add(busy.saasId, day(0), { sign_in_succeeded: 12, sign_in_failed: 3, locked_out: 1 });
    await counts.add(busy.saasId, day(2), { sign_in_succeeded: 30, sign_in_failed: 5 });
    await counts.add(busy.saasId, day(9), { sign_in_succeeded: 7 });
    // Another SaaS's counts never show.
    await counts.add(saas.saasId, day(0), { sign_in_succeeded: 500 });
    const outbox = outboxRepository();
    for (const [i, changes] of [{ createdAt: now - 7200 }, {}, { nextAttemptAt: now + 600 }].entries()) {
      const mail = await newOutboxMail(secretBox(), busy.saasId, 'forgot_password', `waiting-${i}@example.test`, '123456');
      await outbox.enqueue({ ...mail, ...changes });
    }

    const { context, page } = await signedIn(busy);
    await page.waitForSelector('#sign-ins-chart');
    assert.equal(await page.getAttribute('#sign-ins-chart', 'aria-label'), 'Sign-ins per day over 14 days: sign-ins 49, refused 8, lockouts 1');
    const bars = (series: string) =>
      page.$$eval(`#sign-ins-chart rect.series-${series}`, (rects) => rects.map((r) => Number(r.getAttribute('data-count'))));
    const succeeded = await bars('sign_in_succeeded');
    assert.equal(succeeded.length, 14, 'every day has its bar');
    assert.deepEqual([succeeded[13], succeeded[11], succeeded[4]], [12, 30, 7]);
    assert.equal(succeeded.filter((n) => n === 0).length, 11);
    assert.deepEqual((await bars('sign_in_failed')).slice(11), [5, 0, 3]);
    assert.deepEqual((await bars('locked_out')).slice(12), [0, 1]);

    // The same figures as a table, opened from the keyboard.
    await page.focus('#sign-ins-table-summary');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#sign-ins-table', { state: 'visible' });
    assert.equal(await page.locator('#sign-ins-table tbody tr').count(), 14);
    assert.deepEqual(await page.$$eval('#sign-ins-table tbody tr:last-child td', (cells) => cells.map((c) => c.textContent)), [
      day(0),
      '12',
      '3',
      '1',
    ]);

    await page.waitForSelector('#stat-mail-waiting .figure');
    const figure = (id: string) => page.textContent(`#stat-${id} .figure`);
    assert.equal(await figure('mail-waiting'), '3');
    assert.equal(await figure('mail-due'), '2');
    assert.equal(await figure('mail-sending'), '0');
    assert.equal(await figure('mail-scheduled'), '1');
    assert.equal(await figure('mail-oldest'), '2 h');
    await axeClean(page, 'overview', true);
    await context.close();
  });

  it("shows today's and this month's active users, counted from real sign-ins, in en and ja", async () => {
    const active = await h.newSaas();
    const password = 'Act1ve-Users-Passw0rd!';
    for (const email of ['one@active.test', 'two@active.test', 'three@active.test']) {
      assert.equal((await active.client.post('/users', { email, password, attributes: {} })).status, 201);
    }
    const now = nowSeconds();
    const day = (ago: number) => utcDay(now - ago * 86_400);
    // Two users today (one of them twice: still one), and a third two days ago on the moved clock.
    for (const email of ['one@active.test', 'one@active.test', 'two@active.test']) {
      assert.equal((await srpSignIn(active.client, email, password)).status, 200);
    }
    const twoDaysAgo = (now - 2 * 86_400) * 1000;
    setClockForTests(twoDaysAgo);
    try {
      assert.equal((await srpSignIn(active.client, 'three@active.test', password, { at: new Date(twoDaysAgo) })).status, 200);
    } finally {
      resetClockForTests();
    }
    // A refused sign-in makes nobody active.
    assert.notEqual((await srpSignIn(active.client, 'three@active.test', 'Wr0ng-Passw0rd!')).status, 200);
    // The API log writer marks the users from the sign-ins' lines; locally its sink flushes on demand.
    await h.flush();
    // On the first two days of a month, the third user's sign-in falls in the month before.
    const month = day(2).slice(0, 7) === day(0).slice(0, 7) ? '3' : '2';

    const { context, page } = await signedIn(active);
    await page.waitForSelector('#active-users-chart');
    const figure = (id: string) => page.textContent(`#stat-${id} .figure`);
    assert.equal(await figure('active-today'), '2');
    assert.equal(await figure('active-month'), month);
    assert.equal(await page.getAttribute('#active-users-chart', 'aria-label'), 'Daily active users over 30 days: 2 today, 2 on the busiest day');
    const bars = await page.$$eval('#active-users-chart rect', (rects) => rects.map((r) => Number(r.getAttribute('data-count'))));
    assert.equal(bars.length, 30, 'every day has its bar');
    assert.deepEqual(bars.slice(27), [1, 0, 2]);
    assert.equal(bars.filter((n) => n === 0).length, 28);
    await axeClean(page, 'overview-active-users', true);
    // The same figures as a table, opened from the keyboard.
    await page.focus('#active-users-table-summary');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#active-users-table', { state: 'visible' });
    assert.equal(await page.locator('#active-users-table tbody tr').count(), 30);
    const row = (n: number) => page.$$eval(`#active-users-table tbody tr:nth-child(${n}) td`, (cells) => cells.map((c) => c.textContent));
    assert.deepEqual(await row(30), [day(0), '2']);
    assert.deepEqual(await row(28), [day(2), '1']);
    await axeClean(page, 'overview-active-users-table');
    await context.close();

    const ja = JA_CONSOLE.overview;
    const inJapanese = await signedIn(active, 'ja');
    await inJapanese.page.waitForSelector(`#active-users h2 >> text=${ja.activeHeading}`);
    assert.equal(await inJapanese.page.textContent('#stat-active-today .figure'), '2');
    assert.match((await inJapanese.page.textContent('#stat-active-today')) ?? '', new RegExp(ja.activeToday));
    assert.equal(await inJapanese.page.textContent('#stat-active-month .figure'), month);
    assert.equal(
      await inJapanese.page.getAttribute('#active-users-chart', 'aria-label'),
      '30 日間の日ごとのアクティブユーザー：今日 2 人、最も多い日 2 人',
    );
    await axeClean(inJapanese.page, 'overview-active-users-ja', true);
    await inJapanese.context.close();
  });

  it('refuses a forged CSRF token and changes nothing', async () => {
    const { context, page } = await signedIn(saas);
    const status = await page.evaluate(async (url) => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-console-csrf': 'forged-token' },
        body: JSON.stringify({ role_name: 'forged', display_name: 'Forged' }),
      });
      return answer.status;
    }, consoleUrl('api/auth/roles'));
    assert.equal(status, 403);
    const roles = await saas.client.get<{ roles: { role_name: string }[] }>('/roles');
    assert.ok(!roles.body.roles.some((r) => r.role_name === 'forged'));
    await context.close();
  });

  it('shows a key without the permission its refusal, and signs out', async () => {
    const reader = await h.newKey(saas.saasId, ['user:read']);
    const { context, page } = await signedIn(reader.credentials);
    // The overview shows what the key may read; the mail backlog (config:read) says why it is missing.
    await page.waitForSelector('#sign-ins-chart');
    assert.match((await (await page.waitForSelector('#mail-backlog .error')).textContent()) ?? '', /may not/);
    // So do the active users (analysis:read).
    assert.match((await (await page.waitForSelector('#active-users .error')).textContent()) ?? '', /may not/);
    await page.click('nav >> text=Environments and roles');
    await page.waitForSelector('#mail-backlog', { state: 'detached' });
    const note = await page.waitForSelector('main .error');
    assert.match((await note.textContent()) ?? '', /may not/);
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in');
    const refused = await page.evaluate(
      async (url) => (await fetch(url, { headers: { 'x-console-csrf': 'x' } })).status,
      consoleUrl('api/auth/users'),
    );
    assert.equal(refused, 401);
    await context.close();
  });
  it('reads the activity of a call just made', async () => {
    const { context, page } = await signedIn(saas);
    await page.goto(consoleUrl('definitions'));
    await page.fill('#create-role-role_name', 'reviewer');
    await page.fill('#create-role-display_name', 'Reviewer');
    await page.click('#create-role button[type=submit]');
    await page.click('#create-role .see-activity');
    const row = await page.waitForSelector('#call-detail tbody tr');
    const text = (await row.textContent()) ?? '';
    assert.match(text, /POST/);
    assert.match(text, /\/v1\/auth\/roles/);
    assert.match(text, /201/);
    assert.match(text, new RegExp(saas.apiKey));
    await page.waitForSelector('#activity-log tbody tr');
    // The filter narrows the list on the page.
    await page.fill('#activity-filter', 'no-such-call-anywhere');
    await page.waitForSelector('#activity-log', { state: 'detached' });
    await page.fill('#activity-filter', '');
    await axeClean(page, 'activity');
    await context.close();
  });

  it('builds a plan from units and menus, assigns it to a new tenant, and edits its billing info', async () => {
    const { context, page } = await signedIn(shop);
    await page.click('nav >> text=Pricing');
    await page.fill('#create-unit-name', 'base_fee');
    await page.fill('#create-unit-display_name', 'Base fee');
    await page.fill('#create-unit-unit_amount', '1000');
    await page.click('#create-unit button[type=submit]');
    await page.waitForSelector('#units >> text=base_fee');
    await page.fill('#create-menu-name', 'basic_menu');
    await page.fill('#create-menu-display_name', 'Basic menu');
    await page.check('#create-menu-units >> text=Base fee');
    await page.click('#create-menu button[type=submit]');
    await page.waitForSelector('#menus >> text=basic_menu');
    await page.fill('#create-plan-name', 'basic_plan');
    await page.fill('#create-plan-display_name', 'Basic plan');
    await page.check('#create-plan-menus >> text=Basic menu');
    await page.click('#create-plan button[type=submit]');
    await page.waitForSelector('#plans >> text=basic_plan');
    await page.fill('#create-tax-rate-name', 'jp_consumption');
    await page.fill('#create-tax-rate-display_name', 'Consumption tax');
    await page.fill('#create-tax-rate-percentage', '10');
    await page.fill('#create-tax-rate-country', 'JP');
    await page.click('#create-tax-rate button[type=submit]');
    await page.waitForSelector('#tax-rates >> text=jp_consumption');
    await axeClean(page, 'pricing');

    await page.click('nav >> text=Tenants');
    await page.fill('#create-tenant-name', 'Acme Corp');
    await page.fill('#create-tenant-back_office_staff_email', 'staff@acme.test');
    await page.click('#create-tenant button[type=submit]');
    await page.waitForSelector('#tenants >> text=Acme Corp');
    await page.fill('#tenant-search', 'acme');
    await page.waitForSelector('#tenants >> text=Acme Corp');
    await page.selectOption('#change-plan-tenant', { label: 'Acme Corp' });
    await page.selectOption('#change-plan-next_plan_id', { label: 'Basic plan' });
    await page.selectOption('#change-plan-next_plan_tax_rate_id', { label: 'Consumption tax' });
    await page.click('#change-plan button[type=submit]');
    await page.waitForSelector('#change-plan .done');
    await page.waitForSelector('#tenants >> text=Basic plan');
    const tenants = await shop.client.get<{ tenants: { id: string; name: string; plan_id?: string }[] }>('/tenants');
    const plans = await onApi(shop.client, 'pricing').get<{
      pricing_plans: { id: string; name: string }[];
    }>('/plans');
    const plan = plans.body.pricing_plans.find((p) => p.name === 'basic_plan');
    assert.equal(tenants.body.tenants.find((x) => x.name === 'Acme Corp')?.plan_id, plan?.id);
    await axeClean(page, 'tenants');

    // Its own page: the plan history names the plan just applied; billing info refused at the country, then saved.
    await page.click('#tenants >> text=Acme Corp');
    await page.waitForSelector('h1 >> text=Acme Corp');
    await page.waitForSelector('#plan-history >> text=Basic plan');
    await page.waitForSelector('#plan-history >> text=Consumption tax');
    await page.fill('#billing-info-name', 'Acme Corp K.K.');
    await page.fill('#billing-info-street', '1-2-3 Chiyoda');
    await page.fill('#billing-info-city', 'Chiyoda-ku');
    await page.fill('#billing-info-state', 'Tokyo');
    await page.fill('#billing-info-postal_code', '100-0001');
    await page.fill('#billing-info-country', 'Japan');
    await page.click('#billing-info button[type=submit]');
    await page.waitForSelector('#billing-info-country-error');
    const acme = tenants.body.tenants.find((x) => x.name === 'Acme Corp') as { id: string };
    const before = await shop.client.get<{ billing_info?: unknown }>(`/tenants/${acme.id}`);
    assert.equal(before.body.billing_info, undefined, 'a refused change changes nothing');
    await page.fill('#billing-info-country', 'JP');
    await page.selectOption('#billing-info-invoice_language', 'en-US');
    await page.click('#billing-info button[type=submit]');
    await page.waitForSelector('#billing-info .done');
    const after = await shop.client.get<{ billing_info?: { name: string; address: { country: string }; invoice_language: string } }>(
      `/tenants/${acme.id}`,
    );
    assert.equal(after.body.billing_info?.name, 'Acme Corp K.K.');
    assert.equal(after.body.billing_info?.address.country, 'JP');
    assert.equal(after.body.billing_info?.invoice_language, 'en-US');

    // Passkeys required by this tenant: refused at the field while the SaaS has passkeys off, then saved.
    assert.equal((await shop.client.put('/sign-in-settings', { passkeys: { enable: false } })).status, 200);
    await page.check('#tenant-passkeys-passkeys_required');
    await page.click('#tenant-passkeys button[type=submit]');
    await page.waitForSelector('#tenant-passkeys-passkeys_required-error');
    assert.equal((await shop.client.get<{ passkeys_required?: boolean }>(`/tenants/${acme.id}`)).body.passkeys_required, undefined);
    assert.equal((await shop.client.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    await page.click('#tenant-passkeys button[type=submit]');
    await page.waitForSelector('#tenant-passkeys .done');
    const strict = await shop.client.get<{ passkeys_required?: boolean; name: string; billing_info?: unknown }>(`/tenants/${acme.id}`);
    assert.equal(strict.body.passkeys_required, true);
    assert.equal(strict.body.name, 'Acme Corp', 'the rest of the tenant as it was');
    assert.ok(strict.body.billing_info);
    await axeClean(page, 'tenant', true);
    assert.equal((await shop.client.put('/sign-in-settings', { passkeys: { enable: false } })).status, 200);
    await context.close();
  });

  it('invites a user to a tenant with a role', async () => {
    const tenant = await shop.client.post<{ id: string }>('/tenants', {
      name: 'Invite Co',
      back_office_staff_email: 'staff@invite.test',
      attributes: {},
    });
    const inviter = await shop.client.post<{ id: string; email: string; sign_in_id: string }>('/users', {
      email: 'inviter@invite.test',
      password: 'Str0ng-Passw0rd!',
    });
    assert.equal((await shop.client.post(`/tenants/${tenant.body.id}/users`, { email: 'inviter@invite.test', attributes: {} })).status, 201);
    const token = await accessTokenOf(shop.saasId, inviter.body);
    const { context, page } = await signedIn(shop);
    await page.click('nav >> text=Invitations');
    await page.waitForSelector('#invite');
    await page.selectOption('#invite-tenant', { label: 'Invite Co' });
    await page.fill('#invite-email', 'newcomer@invite.test');
    await page.selectOption('#invite-env', { label: 'Production' });
    await page.selectOption('#invite-role', { label: 'Administrator' });
    await page.fill('#invite-access_token', token);
    await page.click('#invite button[type=submit]');
    await page.waitForSelector('#invite .done');
    await page.waitForSelector('#invitations >> text=newcomer@invite.test');
    const invitations = await shop.client.get<{ invitations: { email: string; envs: { id: number; roles: { role_name: string }[] }[] }[] }>(
      `/tenants/${tenant.body.id}/invitations`,
    );
    const invitation = invitations.body.invitations.find((i) => i.email === 'newcomer@invite.test');
    assert.deepEqual(
      invitation?.envs.map((e) => [e.id, e.roles.map((r) => r.role_name)]),
      [[1, ['admin']]],
    );
    await axeClean(page, 'invitations');
    await context.close();
  });

  it('creates a user, finds them, resets their password, and deletes them after a typed confirmation', async () => {
    const { context, page } = await signedIn(shop);
    await page.click('nav >> text=Users');
    await page.fill('#create-user-email', 'ada@users.test');
    await page.fill('#create-user-password', 'short');
    await page.click('#create-user button[type=submit]');
    // The password policy's refusal, at the password field.
    await page.waitForSelector('#create-user-password-error');
    // A breached one, in words that say so (the same in Japanese: web/console/texts/ja.ts).
    await page.fill('#create-user-password', 'Password123!');
    await page.click('#create-user button[type=submit]');
    await page.waitForSelector(`#create-user-password-error >> text=${EN_CONSOLE.common.passwordBreached}`);
    await page.fill('#create-user-password', 'Str0ng-Passw0rd!');
    await page.click('#create-user button[type=submit]');
    await page.waitForSelector('#create-user .done');
    await page.fill('#user-search-email', 'ada@');
    await page.click('#user-search button[type=submit]');
    await page.waitForSelector('#users >> text=ada@users.test');
    // Only the user whose address begins so (the inviter of the test before is left out).
    await page.waitForFunction(() => document.querySelectorAll('#users tbody tr').length === 1);
    await axeClean(page, 'users');

    // She signs in through the API, then mistypes her password once: both land in her security activity.
    assert.equal((await srpSignIn(shop.client, 'ada@users.test', 'Str0ng-Passw0rd!')).status, 200);
    assert.notEqual((await srpSignIn(shop.client, 'ada@users.test', 'Wr0ng-Passw0rd!')).status, 200);

    await page.click('button[aria-label="Reset password: ada@users.test"]');
    const done = await page.waitForSelector('.done >> text=temporary password');
    assert.match((await done.textContent()) ?? '', /new temporary password was made: \S+/);

    // Her own page: MFA off, in no tenant, and the reset among the calls that named her.
    await page.click('#users >> text=ada@users.test');
    await page.waitForSelector('h1 >> text=ada@users.test');
    await page.waitForSelector('#user-mfa');
    await page.waitForSelector('#user-calls >> text=password/reset');
    // Her security activity in words, newest first: the reset, the refused password, the sign-in.
    await page.waitForSelector('#user-activity');
    const events = await page.$$eval('#user-activity tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent));
    assert.deepEqual(events, ['Password reset by the operator', 'Sign-in refused (wrong password)', 'Signed in (password)']);
    assert.match((await page.textContent('#user-activity tbody tr:last-child')) ?? '', /127\.0\.0\.1|::1/, 'with the address it came from');
    await axeClean(page, 'user', true);
    // MFA on with codes by e-mail, then off again (a user who lost their second factor), each through the API.
    await page.click('#user-mfa-email');
    await page.waitForSelector('#user-mfa >> text=On (codes by e-mail)');
    const ada = (await shop.client.get<{ users: { id: string; email: string }[] }>('/users')).body.users.find((u) => u.email === 'ada@users.test');
    const on = await shop.client.get<{ enabled: boolean }>(`/users/${ada?.id}/mfa/preference`);
    assert.equal(on.body.enabled, true);
    await page.click('#user-mfa-off');
    await page.waitForSelector('#user-mfa >> text=Off');
    assert.equal((await shop.client.get<{ enabled: boolean }>(`/users/${ada?.id}/mfa/preference`)).body.enabled, false);
    await page.click('main >> text=All users');

    await page.click('button[aria-label="Delete user: ada@users.test"]');
    await page.fill('#delete-confirm', 'ada@users.tes');
    await page.click('#delete-user button[type=submit]');
    await page.waitForSelector('#delete-confirm-error');
    const still = await shop.client.get<{ users: { email: string }[] }>('/users');
    assert.ok(
      still.body.users.some((u) => u.email === 'ada@users.test'),
      'a mistyped confirmation deletes nothing',
    );
    await page.fill('#delete-confirm', 'ada@users.test');
    await page.click('#delete-user button[type=submit]');
    await page.waitForSelector('.done >> text=was deleted');
    const after = await shop.client.get<{ users: { email: string }[] }>('/users');
    assert.ok(!after.body.users.some((u) => u.email === 'ada@users.test'));
    await context.close();
  });

  it("pages a user's security activity with its cursor, older events after the newest ten", async () => {
    const made = await shop.client.post<{ id: string }>('/users', { email: 'grace@users.test', password: 'Str0ng-Passw0rd!' });
    assert.equal(made.status, 201, made.text);
    // Eleven events: a refused password first, then ten sign-ins; the oldest is on the second page only.
    assert.notEqual((await srpSignIn(shop.client, 'grace@users.test', 'Wr0ng-Passw0rd!')).status, 200);
    for (let i = 0; i < 10; i++) assert.equal((await srpSignIn(shop.client, 'grace@users.test', 'Str0ng-Passw0rd!')).status, 200);
    const { context, page } = await signedIn(shop);
    await page.goto(consoleUrl(`users/${made.body.id}`));
    await page.waitForSelector('#user-activity tbody tr');
    assert.equal(await page.locator('#user-activity tbody tr').count(), 10);
    assert.equal(await page.locator('#user-activity >> text=Sign-in refused').count(), 0);
    await page.focus('#user-activity-more');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#user-activity tbody tr:nth-child(11)');
    assert.match((await page.textContent('#user-activity tbody tr:last-child')) ?? '', /Sign-in refused \(wrong password\)/);
    assert.equal(await page.locator('#user-activity-more').count(), 0, 'no third page');
    await context.close();
  });

  it("lists a user's sessions on the login screen and ends one by keyboard, in Japanese and English", async () => {
    // A SaaS of its own with a callback, so its screen completes sign-ins (and opens sessions) for it.
    const own = await h.newSaas();
    assert.equal((await own.client.put('/auth-info', { callback_url: 'https://app.own.test/callback' })).status, 200);
    const made = await own.client.post<{ id: string }>('/users', { email: 'lin@users.test', password: 'Str0ng-Passw0rd!' });
    assert.equal(made.status, 201, made.text);
    const screen = `${h.api.baseUrl}/login/${own.saasId}/`;
    const browsers = [new ScreenBrowser(screen), new ScreenBrowser(screen)];
    for (const b of browsers) await b.signIn(`${screen}?state=s`, 'lin@users.test', 'Str0ng-Passw0rd!');
    const listed = () => own.client.get<{ sessions: { id: string }[] }>(`/users/${made.body.id}/sessions`);
    assert.equal((await listed()).body.sessions.length, 2);

    const ja = JA_CONSOLE.userSessions;
    const { context, page } = await signedIn(own, 'ja');
    await page.goto(consoleUrl(`users/${made.body.id}`));
    await page.waitForSelector(`h2 >> text=${ja.heading}`);
    await page.waitForFunction(() => document.querySelectorAll('#user-sessions tbody tr').length === 2);
    const row = (await page.textContent('#user-sessions tbody tr:first-child')) ?? '';
    assert.ok(row.includes('Test browser/1.0') && row.includes(ja.kinds.pwd), row);
    assert.match(row, /127\.0\.0\.1|::1/, 'with the address it came from');
    await axeClean(page, 'user-sessions-ja', true);
    // Ended by keyboard alone: the button named for the session, then Enter.
    await page.focus(`#user-sessions tbody tr:first-child button`);
    assert.match(
      (await page.getAttribute('#user-sessions tbody tr:first-child button', 'aria-label')) ?? '',
      new RegExp(`^${ja.end}: Test browser/1.0 \\(`),
    );
    await page.keyboard.press('Enter');
    await page.waitForSelector(`.done >> text=${ja.ended}`);
    await page.waitForFunction(() => document.querySelectorAll('#user-sessions tbody tr').length === 1);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'user-sessions-heading', 'the keyboard stays in the section');
    assert.equal((await listed()).body.sessions.length, 1, 'ended through the API');
    await context.close();

    const en = await signedIn(own);
    await en.page.goto(consoleUrl(`users/${made.body.id}`));
    await en.page.waitForSelector(`h2 >> text=${EN_CONSOLE.userSessions.heading}`);
    await en.page.waitForSelector(`#user-sessions >> text=${EN_CONSOLE.userSessions.kinds.pwd}`);
    assert.equal(await en.page.locator('#user-sessions tbody tr').count(), 1);
    await axeClean(en.page, 'user-sessions', true);
    await en.context.close();
  });

  it('themes the login screen and the preview, the real screen, changes with it', async () => {
    const { context, page } = await signedIn(saas);
    await page.click('nav >> text=Login screen');
    await page.waitForSelector('#theme-primary_color');
    const frame = page.frameLocator('#theme-preview');
    const buttonColour = () => frame.locator('#sign-in-form button[type=submit]').evaluate((b) => getComputedStyle(b).backgroundColor);
    await frame.locator('#sign-in-form button[type=submit]').waitFor();
    const before = await buttonColour();
    await page.fill('#theme-primary_color', '#0f766e');
    await page.click('#theme button[type=submit]');
    await page.waitForSelector('#theme .done');
    await page.waitForFunction(
      () => {
        const frame = document.querySelector<HTMLIFrameElement>('#theme-preview');
        const button = frame?.contentDocument?.querySelector('#sign-in-form button[type=submit]');
        return button ? getComputedStyle(button).backgroundColor === 'rgb(15, 118, 110)' : false;
      },
      undefined,
      { timeout: 10_000 },
    );
    assert.notEqual(before, 'rgb(15, 118, 110)');
    assert.equal((await saas.client.get<{ primary_color: string }>('/login-theme')).body.primary_color, '#0f766e');
    await axeClean(page, 'theme');
    await context.close();
  });

  it('changes the sign-in settings, a refusal shown at its field', async () => {
    const { context, page } = await signedIn(shop);
    await page.click('nav >> text=Sign-in settings');
    await page.waitForSelector('#sign-in-settings-minimum_length');
    await page.fill('#sign-in-settings-minimum_length', '3');
    await page.click('#sign-in-settings button[type=submit]');
    await page.waitForSelector('#sign-in-settings-minimum_length-error');
    await page.fill('#sign-in-settings-minimum_length', '12');
    await page.check('#sign-in-settings-self_regist');
    await page.check('#sign-in-settings-password_length_first');
    await page.click('#sign-in-settings button[type=submit]');
    await page.waitForSelector('#sign-in-settings .done');
    const settings = await shop.client.get<{
      password_policy: { minimum_length: number };
      self_regist: { enable: boolean };
      password_length_first: { enable: boolean };
    }>('/sign-in-settings');
    assert.equal(settings.body.password_policy.minimum_length, 12);
    assert.equal(settings.body.self_regist.enable, true);
    assert.equal(settings.body.password_length_first.enable, true);
    assert.equal((await shop.client.put('/sign-in-settings', { password_length_first: { enable: false } })).status, 200);
    // MFA: the API's fixed setting, said in words.
    await page.waitForSelector('#mfa-configuration >> text=Available to every user');
    await axeClean(page, 'sign-in-settings');
    await context.close();
  });

  it('sets the callback URL in the basic settings, a refusal shown at its field', async () => {
    const { context, page } = await signedIn(shop);
    await page.click('nav >> text=Basic settings');
    await page.waitForSelector('#auth-info-callback_url');
    await page.fill('#auth-info-callback_url', 'not a url');
    await page.click('#auth-info button[type=submit]');
    await page.waitForSelector('#auth-info-callback_url-error');
    await page.fill('#auth-info-callback_url', 'https://app.shop.test/callback');
    await page.click('#auth-info button[type=submit]');
    await page.waitForSelector('#auth-info .done');
    assert.equal((await shop.client.get<{ callback_url: string }>('/auth-info')).body.callback_url, 'https://app.shop.test/callback');
    await page.waitForSelector('#dns-state');
    await axeClean(page, 'basics');
    await context.close();
  });

  it('sets Google as an identity provider; the secret is never shown back', async () => {
    const { context, page } = await signedIn(shop);
    await page.click('nav >> text=Identity providers');
    await page.waitForSelector('#google-application_id');
    assert.match((await page.textContent('#google-redirect')) ?? '', new RegExp(`${h.api.baseUrl}/oauth2/idpresponse$`));
    await page.fill('#google-application_id', 'shop.apps.googleusercontent.com');
    await page.fill('#google-application_secret', 'google-secret-value');
    await page.click('#google button[type=submit]');
    await page.waitForSelector('#google .done');
    const stored = await shop.client.get<{ google: { application_id: string } }>('/identity-providers');
    assert.equal(stored.body.google.application_id, 'shop.apps.googleusercontent.com');
    await page.reload();
    await page.waitForSelector('#google-remove');
    assert.equal(await page.inputValue('#google-application_secret'), '');
    assert.ok(!(await page.content()).includes('google-secret-value'));
    await axeClean(page, 'providers');
    await context.close();
  });

  it('edits a mail template with its rendered preview', async () => {
    const { context, page } = await signedIn(shop);
    await page.click('nav >> text=Mail templates');
    await page.waitForSelector('#mail-template');
    await page.selectOption('#mail-template', 'forgot_password');
    await page.fill('#mail-subject', ' ');
    await page.click('#mail button[type=submit]');
    await page.waitForSelector('#mail-subject-error');
    await page.fill('#mail-subject', 'Your Shop code: {####}');
    await page.fill('#mail-message', 'Use {####} to choose a new password.');
    assert.equal(await page.textContent('#mail-preview-subject'), 'Your Shop code: 123456');
    assert.equal(await page.textContent('#mail-preview-text'), 'Use 123456 to choose a new password.');
    await page.click('#mail button[type=submit]');
    await page.waitForSelector('#mail .done');
    const stored = await shop.client.get<{ forgot_password: { subject: string } }>('/notification-messages');
    assert.equal(stored.body.forgot_password.subject, 'Your Shop code: {####}');
    await axeClean(page, 'mail');
    await context.close();
  });

  it('speaks Japanese, signs in by keyboard alone, and offers the demo operator to this computer', async () => {
    offerDemoOperator({ saasId: saas.saasId, apiKey: saas.apiKey, secret: saas.secret });
    const context = await browser.newContext({ locale: 'ja-JP' });
    const page = await context.newPage();
    await page.goto(consoleUrl());
    await page.waitForSelector('#sign-in');
    assert.equal(await page.getAttribute('html', 'lang'), 'ja');
    assert.equal(await page.textContent('h1'), '運用コンソールにログイン');
    await page.focus('#sign-in-saas_id');
    await page.keyboard.type(saas.saasId);
    await page.keyboard.press('Tab');
    await page.keyboard.type(saas.apiKey);
    await page.keyboard.press('Tab');
    await page.keyboard.type(saas.secret);
    await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
    await page.waitForSelector('#sign-out');
    assert.equal(await page.textContent('nav a[aria-current="page"]'), '概要');
    await axeClean(page, 'overview-ja');
    await context.close();

    const demo = await browser.newContext();
    const demoPage = await demo.newPage();
    await demoPage.goto(consoleUrl());
    await Promise.all([demoPage.waitForEvent('load'), demoPage.click('#demo-sign-in')]);
    await demoPage.waitForSelector('#sign-out');
    assert.match((await demoPage.textContent('#who')) ?? '', new RegExp(saas.apiKey));
    await demo.close();
  });
});
