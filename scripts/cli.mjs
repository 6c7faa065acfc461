/**
 * `node scripts/cli.mjs TOOL [ARGS...]`: runs a command-line tool (`npm run admin`, `sign`, `sign-in`, `proof`,
 * `fuzz`, `house`) from a bundle built once, instead of compiling its TypeScript at every start as tsx does
 * (3 to 12 s on a busy machine; the bundle starts in under one).
 *
 * The bundle (dist/cli/TOOL/main.mjs and its chunks, git-ignored) holds the project's own modules; packages
 * stay in node_modules, imported as they are. Beside it, inputs.json lists the files it was built from: when one
 * of them (or this file, package.json, tsconfig.json) is newer than the bundle, or gone, or the checkout has
 * moved, the bundle is built again before it runs, so an edit shows at the next call. A fresh bundle costs one
 * stat per input and never loads esbuild.
 *
 * Plain JavaScript on purpose: this file is what starts before anything could compile.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// CLI_BUNDLE_DIR (a folder inside the checkout, so that the bundles find node_modules) keeps a test's bundles
// apart from those other calls build at the same time.
const OUT_DIR = join(ROOT, process.env.CLI_BUNDLE_DIR ?? join('dist', 'cli'));

/** The tools, by the name npm runs them under. */
const TOOLS = {
  admin: 'bin/admin.ts',
  sign: 'scripts/call.ts',
  'sign-in': 'scripts/sign-in.ts',
  proof: 'scripts/proof.ts',
  fuzz: 'scripts/fuzz.ts',
  house: 'scripts/house-figures.ts',
};

/** Files every bundle depends on besides its inputs: how it is built, and which packages it may import. */
const ALWAYS = ['scripts/cli.mjs', 'package.json', 'tsconfig.json'];

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Infinity; // gone: build again (esbuild then says what is missing)
  }
};

/** The bundle of `tool`: its folder, its entry (what runs), and the record of what it was built from. */
function bundleOf(tool) {
  const dir = join(OUT_DIR, tool);
  return { dir, main: join(dir, 'main.mjs'), record: join(dir, 'inputs.json') };
}

function fresh(bundle) {
  const built = mtime(bundle.main);
  if (built === Infinity) return false;
  let record;
  try {
    record = JSON.parse(readFileSync(bundle.record, 'utf8'));
  } catch {
    return false;
  }
  // A checkout moved or copied whole keeps its dates, but the bundle names its sources by absolute URL.
  if (record.root !== ROOT) return false;
  return [...record.inputs, ...ALWAYS].every((input) => mtime(join(ROOT, input)) <= built);
}

/**
 * Each module keeps its own `import.meta.url`, as under tsx: the bench and proof code find files beside their
 * sources (bench/results/, bench/service-child.ts), which the bundle's one URL would move to dist/cli/.
 */
const sourceUrls = {
  name: 'source-urls',
  setup(builder) {
    builder.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: text.replaceAll('import.meta.url', url), loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

/**
 * Builds the bundle: the entry, and a chunk per `await import()` of the tool's own code (split, so that what a
 * tool imports lazily, and the packages that imports, load only when used). Chunks are named by their content
 * and written before the entry; two calls building at once, or one running while another builds, each find
 * whole files. Chunks an hour old that the new entry no longer uses are removed.
 */
async function build(entry, bundle) {
  const started = Date.now();
  const { build: esbuild } = await import('esbuild');
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: { main: entry },
    outdir: bundle.dir,
    entryNames: '[name]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'error',
    plugins: [sourceUrls],
  });
  mkdirSync(bundle.dir, { recursive: true });
  const writeWhole = (path, contents) => {
    writeFileSync(`${path}.${process.pid}`, contents);
    renameSync(`${path}.${process.pid}`, path);
  };
  const outputs = result.outputFiles.sort((a, b) => Number(a.path === bundle.main) - Number(b.path === bundle.main));
  for (const file of outputs) {
    if (file.path === bundle.main) {
      // Dated when the build began: a source saved while esbuild read it is newer, so the next call builds again.
      writeFileSync(`${file.path}.${process.pid}`, file.contents);
      utimesSync(`${file.path}.${process.pid}`, new Date(started), new Date(started));
      writeWhole(bundle.record, JSON.stringify({ root: ROOT, inputs: Object.keys(result.metafile.inputs) }));
      renameSync(`${file.path}.${process.pid}`, file.path);
    } else {
      writeWhole(file.path, file.contents);
    }
  }
  const current = new Set(outputs.map((f) => basename(f.path)));
  for (const name of readdirSync(bundle.dir)) {
    const path = join(bundle.dir, name);
    if (name.endsWith('.mjs') && !current.has(name) && mtime(path) < started - 3_600_000) rmSync(path, { force: true });
  }
}

const [tool, ...args] = process.argv.slice(2);
const entry = TOOLS[tool];
if (entry === undefined) {
  process.stderr.write(`usage: node scripts/cli.mjs TOOL [ARGS...]; TOOL is one of ${Object.keys(TOOLS).join(', ')}\n`);
  process.exit(2);
}
const bundle = bundleOf(tool);
if (!fresh(bundle)) await build(entry, bundle);
// The tool reads its arguments from process.argv.slice(2), as if Node had started it; its stack traces name the
// TypeScript lines (the bundle carries its source map).
process.setSourceMapsEnabled(true);
process.argv = [process.argv[0], bundle.main, ...args];
import(pathToFileURL(bundle.main).href).catch((error) => {
  // A setting refused while the tool's modules load is said in one line, as local/cli-errors.ts says it when Node
  // starts a tool itself: in a bundle split in chunks, a chunk's modules may load before that handler is set.
  if (error instanceof Error && error.name === 'ConfigError') {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
});
