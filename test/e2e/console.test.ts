/**
 * The operator console in headless Chromium against the local stack: sign-in with an API key, each page's main
 * task end to end, axe-core on every page, and the refusals (a signed-out browser, a key without the
 * permission, a forged CSRF token). Screenshots go to .test-results/console/.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startHarness, type Harness } from '../support/harness.js';

const skip = chromiumMissing();
const IMAGES = '.test-results/console';

let h: Harness;
let browser: Browser;
let saas: { saasId: string; apiKey: string; secret: string; client: SignedClient };

const consoleUrl = (page = 'overview') => `${h.api.baseUrl}/console/${page}`;

async function axeClean(page: Page, name: string) {
  await page.screenshot({ path: `${IMAGES}/${name}.png`, fullPage: true });
  assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
}

/** A fresh browser signed in with the key's id and secret through the sign-in form. */
async function signedIn(
  credentials: { saasId: string; apiKey: string; secret: string },
  lang = 'en',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: lang === 'ja' ? 'ja-JP' : 'en-US' });
  const page = await context.newPage();
  await page.goto(consoleUrl());
  await page.fill('#sign-in-saas_id', credentials.saasId);
  await page.fill('#sign-in-api_key', credentials.apiKey);
  await page.fill('#sign-in-client_secret', credentials.secret);
  await Promise.all([page.waitForURL(/overview/), page.click('#sign-in button[type=submit]')]);
  await page.waitForSelector('#sign-out');
  return { context, page };
}

(skip ? describe.skip : describe)('the operator console in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(IMAGES, { recursive: true });
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    saas = await h.newSaas();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

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
    await axeClean(page, 'overview');

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
    await page.click('nav >> text=Environments and roles');
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
});
