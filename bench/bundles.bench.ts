/**
 * Bundle and cold-start budgets: bundles every function exactly as the stack does (lib/bundling.ts, the
 * default deployment: tracing off), then prints each bundle's minified size (target ≤ 500 KB) and its
 * module initialisation time in a fresh Node process (target ≤ 250 ms; median of several processes).
 * Figures only, no assertions. Bundles go to a temporary folder, never the repository.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, WORKER_FUNCTIONS } from '../lib/bundling.js';
import { ENTRY_FUNCTIONS, GROUPS } from '../shared/routes.js';
import { summarize, writeResults } from './support.js';

const SIZE_TARGET_KB = 500;
const INIT_TARGET_MS = 250;
const PROCESSES = Number(process.env.BUNDLE_BENCH_PROCESSES ?? 7);

/** What a deployed function finds in its environment, so module-level configuration reads succeed. */
const LAMBDA_ENV = {
  TABLE_NAME: 'bench-table',
  AWS_REGION: 'eu-west-1',
  KMS_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/00000000-0000-0000-0000-000000000000',
  DEFAULT_DOMAIN_NAME: 'auth.example.com',
  SERVICE_ACCOUNT_ID: '123456789012',
  METRICS_ENABLED: 'true',
  TRACING_ENABLED: 'false',
  LOG_LEVEL: 'info',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
};

/** Imports the bundle once in a new process and reports how long loading and evaluating it took. */
const IMPORT_SCRIPT = `const start = performance.now();
await import(process.argv[1]);
process.stdout.write(String(performance.now() - start));`;

function initialisationMs(file: string): number {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT, pathToFileURL(file).href], {
    env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`importing ${file} failed: ${run.stderr}`);
  return Number(run.stdout);
}

/** The three packages (or project folders) that weigh most in a bundle. */
function heaviest(metafile: Metafile, output: string): string {
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[output]?.inputs ?? {})) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const name = match ? match[1]! : input.split('/')[0]!;
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return [...byPackage.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)}`)
    .join(', ');
}

const dir = mkdtempSync(join(tmpdir(), 'bundles-'));
const figures: Record<string, { sizeKb: number; initMedianMs: number; initMinMs: number; initSamples: number; heaviestKb: string }> = {};
try {
  process.stdout.write(
    `${PROCESSES} fresh processes per function; targets: ≤ ${SIZE_TARGET_KB} KB minified, ≤ ${INIT_TARGET_MS} ms initialisation\n\n`,
  );
  process.stdout.write(`${'function'.padEnd(16)}${'size KB'.padStart(9)}${'init ms (median)'.padStart(18)}${'min'.padStart(8)}   heaviest (KB)\n`);
  for (const name of [...GROUPS, ...Object.keys(ENTRY_FUNCTIONS), ...WORKER_FUNCTIONS]) {
    const outfile = join(dir, name, 'index.mjs');
    const result = await build(esbuildOptions(name, outfile));
    const sizeKb = statSync(outfile).size / 1024;
    const samples = Array.from({ length: PROCESSES }, () => initialisationMs(outfile));
    const init = summarize(samples);
    const output = Object.keys(result.metafile.outputs).find((file) => file.endsWith('index.mjs')) as string;
    figures[name] = { sizeKb, initMedianMs: init.median, initMinMs: init.min, initSamples: init.n, heaviestKb: heaviest(result.metafile, output) };
    const flag = (over: boolean) => (over ? ' !' : '  ');
    process.stdout.write(
      `${name.padEnd(16)}${sizeKb.toFixed(0).padStart(7)}${flag(sizeKb > SIZE_TARGET_KB)}${init.median.toFixed(1).padStart(16)}${flag(init.median > INIT_TARGET_MS)}${init.min.toFixed(1).padStart(6)}   ${figures[name].heaviestKb}\n`,
    );
  }
  process.stdout.write('\n! marks a figure over its target.\n');
  writeResults('bundles', {
    targets: { sizeKb: SIZE_TARGET_KB, initMs: INIT_TARGET_MS },
    processes: PROCESSES,
    node: process.version,
    functions: figures,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
