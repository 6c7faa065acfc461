/**
 * Users imported without a password, on a job that asked for it (issue 39, `mail_set_password`): each is mailed
 * a link through the outbox and the SES stand-in, the link opens the hosted screen's set-password form in
 * Chromium with the code filled in, in English and (through the language switch) Japanese, and the password set
 * there signs in. A user with a hash, one without an address and every user of a re-run are mailed nothing.
 * axe-core finds no serious or critical violation on the form.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import type { ImportJob } from '../../shared/schemas/migration.js';
import { EN, fill } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium, openPage } from '../support/chromium.js';
import { deliveredMail } from '../support/mail.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

const skip = chromiumMissing();
const BCRYPT = { algorithm: 'bcrypt', hash: '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' };
const PASSWORD = 'Chosen-pass-1';
const FILE = [
  { type: 'user', external_id: 'u-en', email: 'link-en@example.com' },
  { type: 'user', external_id: 'u-ja', email: 'link-ja@example.com' },
  { type: 'user', external_id: 'u-hashed', email: 'hashed@example.com', password_hash: BCRYPT },
  { type: 'user', external_id: 'u-no-address', sign_in_id: 'no-address' },
]
  .map((row) => JSON.stringify(row))
  .join('\n');

let h: Harness;
let browser: Browser;
let api: SignedClient;
let saasId: string;
let app: Server;
let callback: string;
let job: ImportJob;

async function importAndRun(): Promise<ImportJob> {
  const started = await api.post<ImportJob>('/migration/imports', { jsonl: FILE, mail_set_password: true });
  assert.equal(started.status, 201, started.text);
  await runScheduledWork();
  return (await api.get<ImportJob>(`/migration/imports/${started.body.job_id}`)).body;
}

/** The link in the one mail the address got. */
async function linkOf(address: string): Promise<string> {
  const mails = await deliveredMail(h.sesUrl, saasId, address);
  assert.equal(mails.length, 1, `${address}: ${mails.length} mails`);
  const link = /https?:\/\/\S+/.exec(mails[0]?.body.text ?? '')?.[0];
  assert.ok(link, mails[0]?.body.text);
  return link;
}

(skip ? describe.skip : describe)('a set-password link mailed on import, in Chromium', () => {
  beforeAll(async () => {
    [h, browser] = await Promise.all([startHarness(), launchChromium()]);
    ({ saasId } = await h.newSaas());
    api = await h.newKey(saasId, ['*', 'migration:write']);
    app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="app">back at the app</p>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    assert.equal((await api.put('/auth-info', { callback_url: callback })).status, 200);
    job = await importAndRun();
  });
  afterAll(async () => {
    await browser?.close();
    app?.closeAllConnections();
    await new Promise((resolve) => app?.close(resolve));
    await h?.close();
  });

  it('mails each new user without a password a link to the screen, the name and code in its fragment; nobody else', async () => {
    assert.deepEqual([job.state, job.imported, job.failed, job.mail_set_password], ['done', 4, 0, true]);
    const link = new URL(await linkOf('link-en@example.com'));
    assert.equal(`${link.origin}${link.pathname}${link.search}`, `${h.api.baseUrl}/login/${saasId}/set-password`);
    const fragment = new URLSearchParams(link.hash.slice(1));
    assert.equal(fragment.get('username'), 'link-en@example.com');
    assert.match(fragment.get('code') ?? '', /^\d{6}$/);
    assert.deepEqual(await deliveredMail(h.sesUrl, saasId, 'hashed@example.com'), []);
    // A re-run meets them all: nobody is mailed twice.
    const again = await importAndRun();
    assert.deepEqual([again.imported, again.unchanged], [0, 4]);
    assert.equal((await deliveredMail(h.sesUrl, saasId, 'link-en@example.com')).length, 1);
  });

  it('opens the form with the code filled in; the password set by keyboard signs in, and SRP alone after', async () => {
    const page = await openPage(browser, await linkOf('link-en@example.com'));
    await page.locator('#reset-form:not([hidden])').waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal(await page.textContent('#status'), fill(EN.messages.setPasswordFor, { username: 'link-en@example.com' }));
    assert.match(await page.inputValue('#reset-code'), /^\d{6}$/);
    assert.equal(new URL(page.url()).hash, '', 'the fragment leaves the address bar');
    assert.deepEqual(await seriousViolations(page), []);
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await Promise.race([page.waitForURL(/\/callback\?code=/), page.locator('#error:not([hidden])').waitFor()]);
    if (!page.url().startsWith(callback)) assert.fail(`refused: ${await page.textContent('#error')}`);
    await page.context().close();
    assert.equal((await srpSignIn(api, 'link-en@example.com', PASSWORD)).status, 200);
  });

  it('in Japanese through the switch, the link still filled in; a used link is refused', async () => {
    const link = await linkOf('link-ja@example.com');
    const page = await openPage(browser, link);
    await page.locator('#reset-form:not([hidden])').waitFor();
    await page.click(`nav.languages a[lang=ja]`);
    await page.waitForFunction(() => document.documentElement.lang === 'ja');
    await page.locator('#reset-form:not([hidden])').waitFor();
    assert.equal(await page.textContent('#status'), fill(JA.messages.setPasswordFor, { username: 'link-ja@example.com' }));
    assert.deepEqual(await seriousViolations(page), []);
    await page.fill('#reset-password', PASSWORD);
    await page.click('#reset-form button[type=submit]');
    await page.waitForURL(/\/callback\?code=/);
    await page.context().close();
    assert.equal((await srpSignIn(api, 'link-ja@example.com', PASSWORD)).status, 200);

    const again = await openPage(browser, link);
    await again.fill('#reset-password', 'Another-pass-2');
    await again.click('#reset-form button[type=submit]');
    await again.locator('#error:not([hidden])').waitFor();
    await again.context().close();
    assert.notEqual((await srpSignIn(api, 'link-ja@example.com', 'Another-pass-2')).status, 200);
  });

  it('a set-password page without a link is the forgotten-password form', async () => {
    const page = await openPage(browser, `${h.api.baseUrl}/login/${saasId}/set-password?lang=ja`);
    await page.locator('#forgot-form:not([hidden])').waitFor();
    assert.equal(await page.isHidden('#reset-form'), true);
    await page.context().close();
  });
});
