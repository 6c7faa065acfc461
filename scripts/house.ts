/**
 * The house figures that docs/architecture.md ("House figures") shows between its marker comments, measured over
 * every source file git knows (`.ts`, `.tsx`, `.js`, `.mjs`, `.cjs`, tracked or new and not ignored):
 * - the largest file and the longest function, in lines (functions by TypeScript's own parser; a `describe(…)`
 *   block of a test is a group of tests, not a function, and does not count);
 * - the source files and their lines per folder.
 * `npm run house -- --write` (scripts/house-figures.ts) writes them; test/unit/house-figures.test.ts fails when
 * the doc's have drifted from the tree's by more than DRIFT, or name another file, function or set of folders.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const DOC = 'docs/architecture.md';
export const BEGIN = '<!-- house:begin (npm run house -- --write measures this: do not edit it by hand) -->';
export const END = '<!-- house:end -->';
/**
 * How far a count may drift before the doc must be measured again: the tree changes with every commit, and a
 * figure exact to the line would fail every branch but the one that wrote it last.
 */
export const DRIFT = 0.1;

export const SOURCE = /\.(?:tsx|ts|js|mjs|cjs)$/;

export interface Figure {
  where: string;
  lines: number;
}

export interface HouseFigures {
  largest: Figure;
  longest: { code: Figure; tests: Figure };
  total: { files: number; lines: number };
  /** Files and lines by folder (the top level, one level deeper in shared/ and web/), sorted by name. */
  folders: [string, { files: number; lines: number }][];
}

/** The folder a file is counted under: the top level, and one level deeper in shared/ and web/. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return '(root)';
  const deep = (parts[0] === 'shared' || parts[0] === 'web') && parts.length > 2;
  return deep ? `${parts[0]}/${parts[1]}/` : `${parts[0]}/`;
}

/** The callback of `describe(…)`, `describe.skip(…)` or `(skip ? describe.skip : describe)(…)`. */
const isDescribeBlock = (node: ts.Node) => ts.isCallExpression(node.parent) && /\bdescribe\b/.test(node.parent.expression.getText());

const scriptKind = (file: string) => (file.endsWith('.tsx') ? ts.ScriptKind.TSX : file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);

function nameOf(node: ts.SignatureDeclaration): string {
  const parent = node.parent;
  if (ts.isClassLike(parent)) return `${parent.name?.getText() ?? '(class)'}.${node.name?.getText() ?? 'constructor'}`;
  if (node.name !== undefined) return node.name.getText();
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

/** Every file git knows under `root`, tracked or new and not ignored (so not node_modules nor built pages), once. */
const knownFiles = (root: string) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f, i, all) => f !== '' && all.indexOf(f) === i);

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/**
 * The most lines a file may have, by where it is (issue 37): a function group's files stay thin, the wiring one
 * noun a file, a browser-facing app's files (stylesheets and texts included) readable at one sitting.
 */
export const LINE_LIMITS: readonly { under: string; lines: number }[] = [
  { under: 'functions/', lines: 150 },
  { under: 'shared/wiring.ts', lines: 150 },
  { under: 'shared/wiring/', lines: 150 },
  { under: 'web/', lines: 400 },
];

/** Each file git knows that is longer than LINE_LIMITS allows where it is, as `path: N lines (at most M)`. */
export function overLimits(root: string, limits = LINE_LIMITS): string[] {
  return knownFiles(root).flatMap((file) => {
    const limit = limits.find(({ under }) => file.startsWith(under));
    if (!limit) return [];
    let lines: number;
    try {
      lines = lineCount(readFileSync(join(root, file), 'utf8'));
    } catch {
      return []; // deleted in the working tree
    }
    return lines > limit.lines ? [`${file}: ${lines} lines (at most ${limit.lines})`] : [];
  });
}

export function measure(root: string): HouseFigures {
  const files = knownFiles(root).filter((f) => SOURCE.test(f));
  let largest: Figure = { where: '', lines: 0 };
  const longest = { code: { where: '', lines: 0 }, tests: { where: '', lines: 0 } };
  const folders = new Map<string, { files: number; lines: number }>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // deleted in the working tree
    }
    const lines = lineCount(text);
    if (lines > largest.lines) largest = { where: file, lines };
    const folder = folders.get(folderOf(file)) ?? { files: 0, lines: 0 };
    folders.set(folderOf(file), { files: folder.files + 1, lines: folder.lines + lines });

    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
    const kind = file.startsWith('test/') ? 'tests' : 'code';
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined && !isDescribeBlock(node)) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (last - first + 1 > longest[kind].lines) longest[kind] = { where: `${file}:${first + 1} ${nameOf(node)}`, lines: last - first + 1 };
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const total = [...folders.values()].reduce((sum, f) => ({ files: sum.files + f.files, lines: sum.lines + f.lines }), { files: 0, lines: 0 });
  return { largest, longest, total, folders: [...folders.entries()].sort(([a], [b]) => a.localeCompare(b)) };
}

const number = (n: number) => n.toLocaleString('en-US');
/** `lib/service-stack.ts:40 ServiceStack.constructor` as the doc writes it, without the line a small edit moves. */
const functionAt = (where: string) => {
  const [at = '', ...name] = where.split(' ');
  return `\`${name.join(' ')}\` (\`${at.replace(/:\d+$/, '')}\`)`;
};

/** The figures as the doc's block: a table of the figures, one of the folders. */
export function houseBlock(figures: HouseFigures): string {
  const { largest, longest, total, folders } = figures;
  return [
    BEGIN,
    '',
    '| Figure | Now |',
    '| --- | --- |',
    `| Largest file | ${number(largest.lines)} lines, \`${largest.where}\` |`,
    `| Longest function | ${number(longest.code.lines)} lines, ${functionAt(longest.code.where)} |`,
    `| Longest test function | ${number(longest.tests.lines)} lines, ${functionAt(longest.tests.where)} |`,
    `| Source files | ${number(total.files)} (${number(total.lines)} lines) in ${folders.length} folders |`,
    '',
    '| Folder | Files | Lines |',
    '| --- | --- | --- |',
    ...folders.map(([folder, f]) => `| ${folder === '(root)' ? 'root files' : `\`${folder}\``} | ${number(f.files)} | ${number(f.lines)} |`),
    '',
    END,
  ].join('\n');
}

/** The doc's block, or a message saying it has none. */
export function blockOf(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DOC} has no ${BEGIN} … ${END} markers`);
  return doc.slice(start, end + END.length);
}

/** The doc with its block measured again. */
export function remeasured(doc: string, figures: HouseFigures): string {
  return doc.replace(blockOf(doc), () => houseBlock(figures));
}
