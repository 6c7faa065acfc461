/** What every benchmark shares: robust figures (medians, percentiles), and writing them as JSON and reading them back. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export interface Summary {
  n: number;
  median: number;
  p99: number;
  min: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, median: percentile(sorted, 50), p99: percentile(sorted, 99), min: sorted[0] ?? Number.NaN };
}

/** Runs `fn` `times` times after `warmup` runs; each sample in milliseconds. */
export async function sample(times: number, fn: () => unknown, warmup = Math.ceil(times / 10)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

/** CPU time (user + system, every thread of this process) per call of `fn`, in ms, after `warmup` calls. */
export async function cpuPerCall(times: number, fn: () => unknown, warmup = times): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const before = process.cpuUsage();
  for (let i = 0; i < times; i++) await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / times;
}

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

/** Writes `bench/results/<name>.json` (ignored by git: figures belong in notes, measured in one run). */
export function writeResults(name: string, figures: unknown): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify({ measuredAt: new Date().toISOString(), figures }, null, 2)}\n`);
}

/** The figures writeResults(name, ...) wrote, or undefined when that benchmark has not run. */
export function readResults<T>(name: string): T | undefined {
  const file = join(resultsDir, `${name}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { figures: T }).figures : undefined;
}

export const ms = (value: number) => `${value.toFixed(3)} ms`;
