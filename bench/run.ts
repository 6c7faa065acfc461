/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own Node process, one after the other (so one
 * benchmark's garbage and JIT state never colour another's figures), and prints what each prints.
 * Each benchmark writes its figures as JSON to `bench/results/<name>.json` as well; at the end the figures
 * there are drawn as one chart, `bench/results/summary.svg` (bench/chart.ts).
 *   npm run bench                 every benchmark
 *   npm run bench -- srp          only those whose file name contains "srp"
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSummaryChart } from './chart.js';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
  .sort();
if (files.length === 0) {
  process.stderr.write(`no benchmark matches ${filters.join(', ') || '*.bench.ts'}\n`);
  process.exit(1);
}
let failed = 0;
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(here, file)], {
    stdio: 'inherit',
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  if (run.status !== 0) {
    failed++;
    process.stdout.write(`== ${file} FAILED (exit ${run.status ?? run.signal})\n`);
  }
}
const chart = writeSummaryChart();
if (chart) process.stdout.write(`\nchart of the figures: ${chart}\n`);
process.exit(failed ? 1 : 0);
