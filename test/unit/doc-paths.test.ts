/**
 * Docs and comments that cannot drift: every repository path named in a code comment or in a doc resolves, and
 * no declaration carries two doc comments (an editor shows only the last, so the first is silently lost).
 *
 * What is read: the comments of every TypeScript and JavaScript file git knows (tracked, or new and not ignored:
 * node_modules, cdk.out and .data are ignored), and the text of every Markdown file but CHANGELOG.md, which is
 * history and names the paths of its day. What counts as a path, and where it must be:
 * - rooted (`shared/domain/users/users.ts`, `web/login/`, `docs/pricing.md`): its first segment is a top-level
 *   entry of the repository; it must exist, be git-ignored output (`bench/results/<name>.json`) or lie in
 *   node_modules;
 * - partial with a file ending (`store/keys.ts`, `page/main.ts`): some repository path ends with it, or it lies
 *   beside the file that names it;
 * - a bare file name ending in .ts or .md (`wiring.ts`): some repository file has that name (a .js name is as
 *   often a library's, `ipaddr.js`, as a file's);
 * - a Markdown link target: from the linking file's folder, as GitHub resolves it.
 * A path followed by "(coming)" or "(planned)" names what is still to be made, one followed by "(gone)" what
 * was (the before column of docs/architecture.md's house figures): both are let be.
 * Placeholders stand for one segment (`functions/<group>/handler.ts`, `{name}`, `*`), `**` for any depth.
 * A path of another repository is named after that repository and a colon, `saasus-sdk-csharp: docs/authapi/README.md`
 * (the name has a hyphen or an owner, `saasus-platform/saasus-sdk-go: api/x.yml`), and is let be.
 * Not paths: URLs, `./x`-relative words in code comments (the login screen's comments name its own URLs that
 * way), tokens whose first segment is a placeholder (`{base}/oauth2/token`), and partial paths without a file
 * ending (`store/`, `api/passkey/`: as often a URL's segments as a folder).
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

const FILE_ENDING = /\.(?:tsx|ts|js|mjs|cjs|json|md|yml|yaml|css|html|svg|png|sh|txt|env|key)$/;
/** A run of path characters holding a slash, not inside a URL, a package name or an absolute path. */
const TOKEN = /(?<![\w@:/.#$~\\-])((?:\.{1,2}\/)*[\w.<>*{}-]+(?:\/[\w.<>*{}-]*)+)/g;
const LINK = /\]\(([^)\s]+)\)/g;
/** What follows a path still to be made, `web/console/` (coming), or one named as history, `shared/aws/` (gone). */
const PLANNED = /^[`*]*\s*\((?:coming|planned|gone)\b/;
/** What comes before a path of another repository: its name and a colon, `saasus-sdk-csharp: `. */
const OTHER_REPOSITORY = /(?:^|[\s`(])[\w.]+(?:[-/][\w.]+)+:\s`?$/;
const BARE = /(?<=^|[\s`'"([,;])(\w[\w-]*\.(?:tsx|ts|md))(?![\w/-])/g;

interface Named {
  file: string;
  line: number;
  path: string;
}

const repoFiles = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
  .split('\n')
  .filter((f, i, all) => f !== '' && all.indexOf(f) === i && existsSync(f));
const repoPaths = new Set(repoFiles);
for (const file of repoFiles) {
  for (let dir = dirname(file); dir !== '.'; dir = dirname(dir)) repoPaths.add(`${dir}/`);
}
const allPaths = [...repoPaths];
const fileNames = new Set(repoFiles.map((f) => f.slice(f.lastIndexOf('/') + 1)));
const topLevel = new Set([...allPaths.map((p) => p.split('/')[0]!), ...gitIgnoredRoots()]);

/** Top-level names .gitignore lists (`.data/`, `cdk.out/`): they are named as paths though git does not hold them. */
function gitIgnoredRoots(): string[] {
  return readFileSync('.gitignore', 'utf8')
    .split('\n')
    .map((l) => /^\/?([\w.-]+)\/?$/.exec(l.trim())?.[1])
    .filter((n): n is string => n !== undefined);
}

/** A path with placeholders as a pattern over repository paths, anchored at the end only when `suffix`. */
function pattern(path: string, suffix: boolean): RegExp {
  const body = path
    .split('/')
    .map((segment) =>
      segment === '**'
        ? '(?:[^/]+/)*'
        : segment
            .split(/(<[^>/]*>|\{[^}/]*\}|\*)/)
            .map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.+?^$()|[\]\\]/g, '\\$&')))
            .join(''),
    )
    .join('/')
    .replace(/\(\?:\[\^\/\]\+\/\)\*\//g, '(?:[^/]+/)*');
  return new RegExp(suffix ? `(?:^|/)${body}$` : `^${body}$`);
}

const hasPlaceholder = (path: string) => /[<>{}*]/.test(path);

/** .gitignore's patterns (this repository's are plain: no negations), as tests over slash-separated paths. */
const IGNORED = readFileSync('.gitignore', 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'))
  .map((l) => {
    const bare = l.replace(/\/$/, '');
    const glob = bare
      .replace(/^\//, '')
      .replace(/[.+?^$()|[\]\\]/g, '\\$&')
      .replace(/\*\*\/|\*\*|\*/g, (star) => (star === '**/' ? '(?:.*/)?' : star === '**' ? '.*' : '[^/]*'));
    return new RegExp(`${bare.includes('/') ? '^' : '(?:^|/)'}${glob}(?:/|$)`);
  });

/** git-ignored output, a placeholder standing for any name (`bench/results/<name>.json`). */
function ignored(path: string): boolean {
  const concrete = path.replace(/\*\*\/?/g, '').replace(/<[^>/]*>|\{[^}/]*\}|\*/g, 'x');
  return IGNORED.some((re) => re.test(concrete));
}

function exists(path: string): boolean {
  const bare = path.replace(/\/$/, '');
  if (!hasPlaceholder(path)) return repoPaths.has(path) || repoPaths.has(`${bare}/`) || existsSync(bare);
  const re = pattern(path, false);
  const asFolder = pattern(`${bare}/`, false);
  return allPaths.some((p) => re.test(p) || asFolder.test(p));
}

/** Why `path`, named in `file`, does not resolve; undefined when it does or is no repository path. */
export function unresolved(file: string, raw: string, isLink: boolean): string | undefined {
  const path = raw.replace(/[.:;]+$/, '');
  if (isLink) {
    if (/^(?:[a-z]+:|#|\/)/.test(path)) return undefined;
    const target = normalize(join(dirname(file), path.replace(/#.*$/, '')));
    return exists(target) ? undefined : `link ${path} (${target}) does not exist`;
  }
  const [first] = path.split('/');
  if (first === undefined || first === '' || first === '.' || first === '..' || /[<>{}*]/.test(first)) return undefined;
  if (topLevel.has(first)) {
    if (exists(path) || first === 'node_modules' || ignored(path)) return undefined;
    return `${path} does not exist`;
  }
  if (FILE_ENDING.test(path)) {
    const beside = join(dirname(file), path);
    if (exists(beside)) return undefined;
    const re = pattern(path, true);
    if (allPaths.some((p) => re.test(p))) return undefined;
    if (allPaths.some((p) => p.endsWith('/') && ignored(`${p}${path}`))) return undefined;
    return `no file ends with ${path}`;
  }
  return undefined;
}

function namedIn(file: string, text: string, firstLine: number, links: boolean): Named[] {
  const named: Named[] = [];
  text.split('\n').forEach((lineText, i) => {
    for (const m of lineText.matchAll(TOKEN)) {
      if (PLANNED.test(lineText.slice(m.index + m[0].length)) || OTHER_REPOSITORY.test(lineText.slice(0, m.index))) continue;
      named.push({ file, line: firstLine + i, path: m[1]! });
    }
    if (links) for (const m of lineText.matchAll(LINK)) named.push({ file, line: firstLine + i, path: `link:${m[1]!}` });
    for (const m of lineText.replace(LINK, '](').matchAll(BARE)) named.push({ file, line: firstLine + i, path: `name:${m[1]!}` });
  });
  return named;
}

/** The comments of a source file, each once, with the line it starts on and its text without comment marks. */
function comments(file: string, text: string): { line: number; text: string; pos: number; end: number }[] {
  const source = sourceOf(file, text);
  const found = new Map<number, { line: number; text: string; pos: number; end: number }>();
  const visit = (node: ts.Node): void => {
    for (const r of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) {
      if (found.has(r.pos)) continue;
      const body = text
        .slice(r.pos, r.end)
        .replace(/^\/\/|^\/\*\*?|\*\/$/g, '  ')
        .replace(/^(\s*)\*(?!\*)/gm, '$1 ');
      found.set(r.pos, { line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: body, pos: r.pos, end: r.end });
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...found.values()];
}

/** Parsed once for both checks. */
const parsed = new Map<string, ts.SourceFile>();
function sourceOf(file: string, text: string): ts.SourceFile {
  const known = parsed.get(file);
  if (known?.text === text) return known;
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    /\.tsx$/.test(file) ? ts.ScriptKind.TSX : /\.ts$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS,
  );
  parsed.set(file, source);
  return source;
}

/** Paths named in `file` (a source file's comments, or a Markdown file's text) that do not resolve. */
export function brokenPaths(file: string, text: string): string[] {
  const named = file.endsWith('.md') ? namedIn(file, text, 1, true) : comments(file, text).flatMap((c) => namedIn(file, c.text, c.line, false));
  return named.flatMap(({ line, path }) => {
    if (path.startsWith('name:')) return fileNames.has(path.slice(5)) ? [] : [`${file}:${line} no file is named ${path.slice(5)}`];
    const isLink = path.startsWith('link:');
    const why = unresolved(file, isLink ? path.slice(5) : path, isLink);
    return why === undefined ? [] : [`${file}:${line} ${why}`];
  });
}

/**
 * Declarations with two doc comments above them: the comments right above a declaration, with no blank line
 * between them or before it, belong to it, and two `/** … *\/` among them are a stack. A comment a blank line
 * above (a file's header, a `@typedef`, a section's note) stands on its own.
 */
export function stackedDocComments(file: string, text: string): string[] {
  const source = sourceOf(file, text);
  const reported = new Set<number>();
  const stacks: string[] = [];
  const at = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    const start = node.getStart(source);
    const attached: ts.CommentRange[] = [];
    let next = start;
    for (const range of (ts.getLeadingCommentRanges(text, node.pos) ?? []).reverse()) {
      if (/\n[ \t]*\r?\n/.test(text.slice(range.end, next))) break;
      if (range.kind === ts.SyntaxKind.MultiLineCommentTrivia && text.startsWith('/**', range.pos) && !text.startsWith('/**/', range.pos)) {
        attached.unshift(range);
      }
      next = range.pos;
    }
    if (attached.length >= 2 && !reported.has(attached[0]!.pos)) {
      reported.add(attached[0]!.pos);
      stacks.push(`${file}:${at(attached[0]!.pos)} ${attached.length} doc comments stacked on the declaration at line ${at(start)}`);
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return stacks;
}

const sources = repoFiles.filter((f) => /\.(?:tsx|ts|js|mjs|cjs)$/.test(f));
const docs = repoFiles.filter((f) => f.endsWith('.md') && f !== 'CHANGELOG.md');

describe('paths named in docs and comments', () => {
  it('finds a moved file, a missing folder, a bad link, and lets placeholders and ignored output pass', () => {
    const probe = [
      '/** See shared/domain/users/users.ts, functions/<group>/handler.ts, web/login/ and bench/results/<name>.json. */',
      '// The old home was functions/login/saml.ts; the rule is in domain/mail.ts and docs/openid-connect.md.',
      '// wiring.ts builds it, old-wiring.ts did; web/console/ (coming) will hold the console, web/{app}/{group}-function.ts its entry.',
      '// Not paths: https://example.com/shared/nothing.ts, {base}/oauth2/token, ./api/answer, ipaddr.js.',
      'export const x = 1;',
    ].join('\n');
    assert.deepEqual(brokenPaths('shared/probe.ts', probe), [
      'shared/probe.ts:2 functions/login/saml.ts does not exist',
      'shared/probe.ts:2 no file ends with domain/mail.ts',
      'shared/probe.ts:2 docs/openid-connect.md does not exist',
      'shared/probe.ts:3 no file is named old-wiring.ts',
    ]);
    assert.deepEqual(brokenPaths('docs/probe.md', 'See [decisions](decisions.md), [gone](gone.md) and `shared/nowhere/`.\n'), [
      'docs/probe.md:1 shared/nowhere/ does not exist',
      'docs/probe.md:1 link gone.md (docs/gone.md) does not exist',
    ]);
  });

  it("finds a .tsx file named .ts, reads a .tsx file's comments, and lets another repository's path named after it be", () => {
    const tsx = [
      '/** Drawn as web/console/page/pages/login-theme.ts draws it; page/pages/activity.tsx lists. */',
      'export const C = () => <p>{/* See pages/login-theme.tsx and pages/nowhere.tsx. */}</p>;',
    ].join('\n');
    assert.deepEqual(brokenPaths('web/console/page/probe.tsx', tsx), [
      'web/console/page/probe.tsx:1 web/console/page/pages/login-theme.ts does not exist',
      'web/console/page/probe.tsx:2 no file ends with pages/nowhere.tsx',
    ]);
    const md = [
      'The C# SDK documents 86 operations in `docs/authapi/README.md`.',
      'The C# SDK documents 86 operations in `saasus-sdk-csharp: docs/authapi/README.md`, the Go SDK in saasus-platform/saasus-sdk-go: api/x.yml.',
    ].join('\n');
    assert.deepEqual(brokenPaths('docs/probe.md', md), ['docs/probe.md:1 docs/authapi/README.md does not exist']);
  });

  it('resolves every path named in a comment of a source file', () => {
    assert.ok(sources.length > 100, `only ${sources.length} source files found`);
    const broken = sources.flatMap((file) => brokenPaths(file, readFileSync(file, 'utf8')));
    assert.deepEqual(broken, []);
  });

  it('resolves every path and link named in the docs (CHANGELOG.md, history, aside)', () => {
    assert.ok(docs.includes('README.md') && docs.includes('docs/architecture.md'), 'the docs were not found');
    const broken = docs.flatMap((file) => brokenPaths(file, readFileSync(file, 'utf8')));
    assert.deepEqual(broken, []);
  });
});

describe('doc comments', () => {
  it('finds two doc comments stacked on one declaration, not a file header above one', () => {
    const probe = [
      '/** The file. */',
      '',
      '/** The old words of something else. */',
      '/** What f does. */',
      'export function f(): void {}',
      '',
      '/** What g does. */',
      '// a line comment between is no stack',
      'export function g(): void {}',
      '/** A type of the file, a blank line above the next. */',
      '',
      '/** What h does. */',
      'export function h(): void {}',
      'export class C {',
      '  /** Left behind. */',
      '  /** What m does. */',
      '  m(): void {}',
      '}',
    ].join('\n');
    assert.deepEqual(stackedDocComments('probe.ts', probe), [
      'probe.ts:3 2 doc comments stacked on the declaration at line 5',
      'probe.ts:15 2 doc comments stacked on the declaration at line 17',
    ]);
  });

  it('finds none in the tree', () => {
    const stacks = sources.flatMap((file) => stackedDocComments(file, readFileSync(file, 'utf8')));
    assert.deepEqual(stacks, []);
  });
});
