/**
 * `npm run house [-- DIR] [--write]`: the figures of the house (scripts/house.ts) for the checkout at DIR (this
 * one by default), and the pairs of places that share six or more lines as the `duplicates` command counts them
 * (a developer tool, not a dependency: where it is missing the figure says so and the rest is printed all the
 * same). With --write, docs/architecture.md's block of figures is measured again.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DOC, measure, remeasured } from './house.js';

const args = process.argv.slice(2);
const write = args.includes('--write');
const root = resolve(args.find((a) => a !== '--write') ?? '.');

/** The pairs `duplicates` counts over the whole tree; undefined, with the reason, when it cannot say. */
function duplicatePairs(): { pairs?: number; note: string } {
  const run = spawnSync('duplicates', ['--repo', root, '--most', '1', '--seconds', '120'], { encoding: 'utf8' });
  if (run.error !== undefined) return { note: 'the duplicates command is not on PATH' };
  const first = run.stdout.split('\n')[0] ?? '';
  const counted = /^(\d+) pairs? of places/.exec(first);
  if (counted) return { pairs: Number(counted[1]), note: first };
  if (first.startsWith('no duplicates')) return { pairs: 0, note: first };
  return { note: `duplicates said: ${first || run.stderr.trim()}` };
}

const figures = measure(root);
if (write) {
  const doc = join(root, DOC);
  writeFileSync(doc, remeasured(readFileSync(doc, 'utf8'), figures));
  process.stdout.write(`${DOC}: the house figures measured again\n`);
} else {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const dups = duplicatePairs();
  const { largest, longest, total, folders } = figures;
  const out = [
    `House figures of ${root} at ${commit}`,
    `largest file              ${largest.lines} lines  ${largest.where}`,
    `longest function          ${longest.code.lines} lines  ${longest.code.where}`,
    `longest function (tests)  ${longest.tests.lines} lines  ${longest.tests.where}`,
    `source files              ${total.files} (${total.lines} lines) in ${folders.length} folders`,
    `duplicate-report pairs    ${dups.pairs ?? 'unknown'}  (${dups.note})`,
    '',
    'folder                    files   lines',
    ...folders.map(([folder, f]) => `${folder.padEnd(24)}  ${String(f.files).padStart(5)}  ${String(f.lines).padStart(6)}`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
