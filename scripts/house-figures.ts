/**
 * `npm run house [-- DIR]`: the figures of the house that docs/architecture.md ("House figures") tracks from one
 * reorganisation to the next, for the checkout at DIR (this one by default):
 * - the largest source file and the longest function, in lines (functions by TypeScript's own parser; a
 *   `describe(…)` block of a test is a group of tests, not a function, and does not count);
 * - the source files (TypeScript and JavaScript that git knows) and their lines per folder;
 * - the pairs of places that share six or more lines, as the `duplicates` command counts them: a developer
 *   tool, not a dependency, so where it is missing the figure says so and the rest is printed all the same.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? '.');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(?:ts|js|mjs|cjs)$/.test(f));

interface Figure {
  where: string;
  lines: number;
}

let largest: Figure = { where: '', lines: 0 };
const longest = { code: { where: '', lines: 0 }, tests: { where: '', lines: 0 } };
const folders = new Map<string, { files: number; lines: number }>();

/** The folder a file is counted under: the top level, and one level deeper in shared/ and web/. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return '(root)';
  const deep = (parts[0] === 'shared' || parts[0] === 'web') && parts.length > 2;
  return deep ? `${parts[0]}/${parts[1]}/` : `${parts[0]}/`;
}

/** The callback of `describe(…)`, `describe.skip(…)` or `(skip ? describe.skip : describe)(…)`. */
const isDescribeBlock = (node: ts.Node) => ts.isCallExpression(node.parent) && /\bdescribe\b/.test(node.parent.expression.getText());

for (const file of files) {
  let text: string;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch {
    continue; // deleted in the working tree
  }
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > largest.lines) largest = { where: file, lines };
  const folder = folders.get(folderOf(file)) ?? { files: 0, lines: 0 };
  folders.set(folderOf(file), { files: folder.files + 1, lines: folder.lines + lines });

  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const kind = file.startsWith('test/') ? 'tests' : 'code';
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined && !isDescribeBlock(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > longest[kind].lines) {
        longest[kind] = { where: `${file}:${first + 1} ${nameOf(node)}`, lines: last - first + 1 };
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

function nameOf(node: ts.SignatureDeclaration): string {
  const parent = node.parent;
  if (ts.isClassLike(parent)) return `${parent.name?.getText() ?? '(class)'}.${node.name?.getText() ?? 'constructor'}`;
  if (node.name !== undefined) return node.name.getText();
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

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

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const dups = duplicatePairs();
const total = [...folders.values()].reduce((sum, f) => ({ files: sum.files + f.files, lines: sum.lines + f.lines }), { files: 0, lines: 0 });
const out = [
  `House figures of ${root} at ${commit}`,
  `largest file              ${largest.lines} lines  ${largest.where}`,
  `longest function          ${longest.code.lines} lines  ${longest.code.where}`,
  `longest function (tests)  ${longest.tests.lines} lines  ${longest.tests.where}`,
  `source files              ${total.files} (${total.lines} lines) in ${folders.size} folders`,
  `duplicate-report pairs    ${dups.pairs ?? 'unknown'}  (${dups.note})`,
  '',
  'folder                    files   lines',
  ...[...folders.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([folder, f]) => `${folder.padEnd(24)}  ${String(f.files).padStart(5)}  ${String(f.lines).padStart(6)}`),
];
process.stdout.write(`${out.join('\n')}\n`);
