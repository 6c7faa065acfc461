/**
 * Builds the console's page script (page/main.tsx, with Preact) and copies its style into `web/console/public/`
 * (never committed): for the local server before its first console request, and for the stack, which copies
 * the folder beside the deployed bundle.
 */
import { build, buildSync, type BuildOptions } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const CONSOLE_ASSETS_DIR = here('./public/');

const options = (outDir: string): BuildOptions => ({
  entryPoints: [here('./page/main.tsx')],
  outfile: `${outDir}/console.js`,
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'error',
});

export async function buildConsoleAssets(outDir = CONSOLE_ASSETS_DIR): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await Promise.all([build(options(outDir)), copyFile(here('./page/console.css'), `${outDir}/console.css`)]);
}

/** For the CDK stack, whose constructor cannot wait. */
export function buildConsoleAssetsSync(outDir = CONSOLE_ASSETS_DIR): void {
  mkdirSync(outDir, { recursive: true });
  buildSync(options(outDir));
  copyFileSync(here('./page/console.css'), `${outDir}/console.css`);
}
