/**
 * The console's events page in headless Chromium against the local stack (docs/events.md): the EventBridge bus set
 * and a test event sent, a webhook made from the keyboard with its secret shown once, the newest events with their
 * delivery; in English and Japanese, axe-core on each. Screenshots go to .test-results/console/.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { Harness } from '../../dev-support/harness.js';
import { chromiumMissing } from '../support/chromium.js';
import { axeClean, signInConsole, startConsoleBrowser, stopConsoleBrowser, type ConsoleSaas } from '../support/console-browser.js';
import { onApi } from '../support/other-api.js';

const skip = chromiumMissing();

let h: Harness;
let browser: Browser;
let saas: ConsoleSaas;

(skip ? describe.skip : describe)('the console’s events page in Chromium', () => {
  beforeAll(async () => {
    ({ h, browser, saas } = await startConsoleBrowser());
  });
  afterAll(() => stopConsoleBrowser(h, browser));

  it('sets the bus, sends a test event, makes a webhook from the keyboard and lists the events', async () => {
    const { context, page } = await signInConsole(browser, h, saas, { at: 'events' });
    await page.waitForSelector('#bus-settings');
    assert.match((await page.textContent('#bus-state')) ?? '', /No EventBridge bus/);
    await page.fill('#bus-settings-aws_account_id', '123456789012');
    await page.selectOption('#bus-settings-aws_region', 'ap-northeast-1');
    await page.click('#bus-settings button[type=submit]');
    await page.waitForSelector('#bus-state >> text=123456789012');
    await page.focus('#test-event');
    await page.keyboard.press('Enter');
    await page.waitForSelector('text=A test event is on its way.');

    // The webhook, typed and submitted from the keyboard alone.
    await page.focus('#new-webhook-url');
    await page.keyboard.type('http://127.0.0.1:9/hooks');
    await page.keyboard.press('Tab');
    await page.keyboard.type('create_tenant');
    await page.keyboard.press('Enter');
    const secret = (await (await page.waitForSelector('#webhook-secret')).textContent()) ?? '';
    assert.match(secret, /^whsec_/);
    await page.waitForSelector('#webhooks >> text=http://127.0.0.1:9/hooks');
    const listed = await onApi(saas.client, 'integration').get('/webhooks');
    assert.ok(!listed.text.includes(secret.slice(6)), 'the API never answers it again');

    // A change made elsewhere, kept by the writer: listed with its number and its destinations.
    assert.equal((await saas.client.post('/tenants', { name: 'Evented', attributes: {}, back_office_staff_email: 'e@example.com' })).status, 201);
    await h.flush();
    await page.reload();
    await page.waitForSelector('#events >> text=create_tenant');
    assert.match((await page.textContent('#events')) ?? '', /\/v1\/auth\/tenants\/[0-9a-f-]+/);
    await axeClean(page, 'events', true);
    await context.close();
  });

  it('reads in Japanese, and axe finds nothing serious', async () => {
    const { context, page } = await signInConsole(browser, h, saas, { lang: 'ja', at: 'events' });
    await page.waitForSelector('#bus-state >> text=123456789012');
    assert.equal(await page.getAttribute('html', 'lang'), 'ja');
    assert.equal((await page.textContent('h1'))?.trim(), 'イベントと Webhook');
    assert.ok(await page.isVisible('text=署名付き Webhook'));
    await axeClean(page, 'events-ja', true);
    await context.close();
  });
});
