/**
 * `npm run admin -- export` (below), and `npm run admin -- import FILE --saas ID`: the import job of shared/domain/migration/imports.ts, started and run
 * in this process against the store the command is pointed at, with a progress bar on stderr. When a running
 * service's worker holds the job first (under `npm start` it looks every few seconds), the command waits for
 * it and shows its progress the same way.
 */
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { sealKeyOf } from '../shared/crypto/export-seal.js';
import type { ImportOptions } from '../shared/domain/migration/imports.js';
import { rowTally } from '../shared/domain/migration/exports.js';
import type { ImportJob } from '../shared/schemas/migration.js';
import { exportService, importService } from '../shared/wiring.js';

const BAR_WIDTH = 30;

/** One line, redrawn in place on a terminal; elsewhere (a log, CI) a line each tenth of the way. */
function progressBar(): (done: number, total: number) => void {
  let lastTenth = -1;
  const started = Date.now();
  return (done, total) => {
    const share = total === 0 ? 1 : done / total;
    const seconds = Math.round((Date.now() - started) / 1000);
    const text = `[${'#'.repeat(Math.round(share * BAR_WIDTH)).padEnd(BAR_WIDTH, '.')}] ${done}/${total} lines, ${seconds} s`;
    if (process.stderr.isTTY) process.stderr.write(`\r${text}${done === total ? '\n' : ''}`);
    else if (Math.floor(share * 10) > lastTenth) {
      lastTenth = Math.floor(share * 10);
      process.stderr.write(`${text}\n`);
    }
  };
}

/** `npm run admin -- export --saas ID [--out FILE]`: the rows as they are read, so no size limit holds. */
export async function exportFile(saasId: string, out?: string, sealKeyText?: string, apiKeys = false): Promise<void> {
  const sealKey = sealKeyText === undefined ? undefined : sealKeyOf(sealKeyText);
  if (sealKeyText !== undefined && !sealKey) throw new Error('--seal-key-file: the file must hold base64 of 32 bytes (openssl rand -base64 32)');
  if (apiKeys && !sealKey) throw new Error("--api-keys: needs --seal-key-file, so the keys' secrets go out sealed");
  const sink = out ? createWriteStream(out) : process.stdout;
  const tally = rowTally();
  for await (const row of exportService().rows(saasId, { sealKey, apiKeys, onPasswordWithheld: () => tally.passwordWithheld() })) {
    if (!sink.write(`${JSON.stringify(row)}\n`)) await once(sink, 'drain');
    tally.add(row.type);
  }
  if (out) await new Promise((resolve) => (sink as ReturnType<typeof createWriteStream>).end(resolve));
  // By type, in the file's order: what went, and what (settings, the catalogue, invitations) did not.
  process.stderr.write(`${tally.text()}\n`);
}

export async function importFile(saasId: string, path: string, options: ImportOptions = {}): Promise<ImportJob> {
  const imports = importService();
  // The operator's own job: it may bring the SaaS's API keys (integration-rows.ts), which a job of the API may not.
  const job = await imports.start(saasId, readFileSync(path, 'utf8'), { ...options, operator: true });
  const progress = progressBar();
  progress(0, job.lines);
  await imports.run(saasId, job.job_id, { onProgress: progress });
  for (;;) {
    const now = await imports.get(saasId, job.job_id);
    if (now.state === 'done') {
      progress(now.lines, now.lines);
      return now;
    }
    // Another worker holds it: its counts are the progress there is to show.
    progress(Math.min(now.imported + now.unchanged + now.failed, now.lines), now.lines);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await imports.run(saasId, job.job_id, { onProgress: progress });
  }
}
