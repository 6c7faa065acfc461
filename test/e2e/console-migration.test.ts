/**
 * The console's migration page in headless Chromium against the local stack (issue 39, docs/migration.md): a
 * JSON Lines file uploaded from the keyboard starts an import job, the scheduled worker runs it, the list shows
 * its state and counts and the job's page its counts by type of row and its refused rows by line and reason; a
 * file over the API's limit is not sent and the page points at the command; a key holding `*` without
 * `migration:write` is told how to get one. English and Japanese, axe-core on each. Screenshots go to
 * .test-results/console/.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { Harness } from '../../dev-support/harness.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { MAX_IMPORT_BODY_BYTES, type ImportJob } from '../../shared/schemas/migration.js';
import { chromiumMissing } from '../support/chromium.js';
import { axeClean, signInConsole, startConsoleBrowser, stopConsoleBrowser, type ConsoleSaas } from '../support/console-browser.js';

const skip = chromiumMissing();

let h: Harness;
let browser: Browser;
let mover: ConsoleSaas;

const FILE = [
  JSON.stringify({ type: 'user', external_id: 'u-1', email: 'ann@console-import.example' }),
  'this line is not JSON',
  JSON.stringify({ type: 'user', external_id: 'u-2', sign_in_id: 'bob' }),
  JSON.stringify({ type: 'membership', user: 'u-ghost', tenant: 't-ghost' }),
].join('\n');

(skip ? describe.skip : describe)('the console’s migration page in Chromium', () => {
  beforeAll(async () => {
    ({ h, browser, saas: mover } = await startConsoleBrowser(['*', 'migration:write']));
  });
  afterAll(() => stopConsoleBrowser(h, browser));

  it('starts an import from an uploaded file, lists the job and shows its refused rows', async () => {
    const { context, page } = await signInConsole(browser, h, mover, { at: 'migration' });
    await page.waitForSelector('#start-import');
    assert.equal((await page.textContent('h1'))?.trim(), 'Migration');
    assert.match((await page.textContent('#import-command')) ?? '', new RegExp(`npm run admin -- import FILE --saas ${mover.saasId}`));

    await page.setInputFiles('#start-import-file', { name: 'users.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(FILE) });
    await page.focus('#start-import-mail');
    await page.keyboard.press('Space');
    await page.focus('#start-import button[type=submit]');
    await page.keyboard.press('Enter');
    const jobId = /Import job (\S+) started/.exec((await (await page.waitForSelector('text=/Import job \\S+ started/')).textContent()) ?? '')?.[1];
    assert.ok(jobId);
    await page.waitForSelector(`#imports >> text=${jobId}`);
    assert.match((await page.textContent('#imports')) ?? '', /Queued/);

    // The scheduled worker runs it, as every minute on AWS and every few seconds under npm start.
    await runScheduledWork();
    await page.focus('#refresh-imports');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#imports >> text=Done');
    const row = await page.$$eval('#imports tbody tr:first-child td', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual([row[0], row[1], ...row.slice(4)], [jobId, 'Done', '4', '2', '0', '2'], 'lines, imported, unchanged, refused');
    assert.notEqual(row[3], '–', 'finished');
    await axeClean(page, 'migration', true);

    // The job's own page, reached from the keyboard: every refused row the API reports, by line and reason.
    await page.focus(`#imports a >> text=${jobId}`);
    await Promise.all([page.waitForURL(/\/console\/migration\/.+/), page.keyboard.press('Enter')]);
    await page.waitForSelector('#import-errors');
    assert.match((await page.textContent('#import-summary')) ?? '', /4 lines: 2 imported, 0 unchanged, 2 refused/);
    const job = (await mover.client.get<ImportJob>(`/migration/imports/${jobId}`)).body;
    assert.equal(job.mail_set_password, true, 'the box was ticked');
    assert.deepEqual(
      job.errors?.map((e) => e.line),
      [2, 4],
    );
    const cells = await page.$$eval('#import-errors tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(
      cells,
      job.errors?.map((e) => [String(e.line), e.reason]),
    );
    // The counts by type of row, as the API answers them: the line that is no row counts only in the total.
    const byType = await page.$$eval('#import-by-type tbody tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
    );
    assert.deepEqual(byType.sort(), [
      ['membership', '0', '0', '1'],
      ['user', '2', '0', '0'],
    ]);
    await axeClean(page, 'migration-job', true);
    await context.close();
  });

  it('sends no file over the API’s limit and points at the command instead', async () => {
    const { context, page } = await signInConsole(browser, h, mover, { at: 'migration' });
    await page.waitForSelector('#imports');
    const line = `${JSON.stringify({ type: 'user', external_id: 'x'.repeat(60), email: 'big@console-import.example' })}\n`;
    const big = Buffer.from(line.repeat(Math.ceil(MAX_IMPORT_BODY_BYTES / line.length) + 10));
    await page.setInputFiles('#start-import-file', { name: 'big.jsonl', mimeType: 'application/jsonl', buffer: big });
    await page.click('#start-import button[type=submit]');
    assert.match((await (await page.waitForSelector('#start-import-note')).textContent()) ?? '', /over the 5\.0 MB one call takes/);
    assert.equal((await mover.client.get<{ imports: ImportJob[] }>('/migration/imports')).body.imports.length, 1, 'nothing was sent');
    await context.close();
  });

  it('tells a key holding `*` but not migration:write how to get one, in Japanese too', async () => {
    const everyday = await h.newSaas(['*']);
    for (const lang of ['en', 'ja']) {
      const { context, page } = await signInConsole(browser, h, everyday, { lang, at: 'migration' });
      const note = (await (await page.waitForSelector('#migration-key-needed')).textContent()) ?? '';
      assert.match(note, new RegExp(`key create --saas ${everyday.saasId} --permissions "\\*,migration:write"`));
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      assert.equal((await page.textContent('h1'))?.trim(), lang === 'ja' ? '移行' : 'Migration');
      await axeClean(page, `migration-refused-${lang}`, true);
      await context.close();
    }
  });
});
