/**
 * Builds a browser-facing app's page (ENTRY_FUNCTIONS' `page`, shared/routes.ts): `web/<app>/page/main.ts` (or
 * `main.tsx`, JSX for Preact: the console) bundled for browsers into `web/<app>/public/<app>.js`, and its
 * stylesheet beside it as `<app>.css` (never committed): `web/<app>/page/<app>.css`, or, for a larger one, the parts
 * in `web/<app>/page/style/` joined in name order (`1-frame.css`, `2-controls.css`…), so no file is a long list
 * of rules. For the local server before the app's first request, and for the stack, which copies the folder
 * beside the deployed bundle as `public/`.
 */
import { build, buildSync, type BuildOptions } from 'esbuild';
import { browserBundle } from '../client/browser-bundle.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Where an app's built page is: `web/<app>/public/`. */
export const pageAssetsDir = (app: string) => here(`./${app}/public/`);

const source = (app: string) => {
  const tsx = here(`./${app}/page/main.tsx`);
  return { script: existsSync(tsx) ? tsx : here(`./${app}/page/main.ts`) };
};

/** The app's stylesheet: its one file, or its parts joined in name order. */
export function pageStyle(app: string): string {
  const parts = here(`./${app}/page/style/`);
  if (!existsSync(parts)) return readFileSync(here(`./${app}/page/${app}.css`), 'utf8');
  const names = readdirSync(parts)
    .filter((name) => name.endsWith('.css'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return names.map((name) => readFileSync(`${parts}${name}`, 'utf8')).join('');
}

/** The browser bundle; a `.tsx` entry is JSX compiled for Preact, its one runtime, imported where it is used. */
const options = (script: string, outfile: string): BuildOptions => ({
  ...browserBundle(script, outfile),
  ...(script.endsWith('.tsx') ? { jsx: 'automatic', jsxImportSource: 'preact' } : {}),
});

export async function buildPageAssets(app: string, outDir = pageAssetsDir(app)): Promise<void> {
  const { script } = source(app);
  await mkdir(outDir, { recursive: true });
  await Promise.all([build(options(script, `${outDir}/${app}.js`)), writeFile(`${outDir}/${app}.css`, pageStyle(app))]);
}

/** For the CDK stack, whose constructor cannot wait; afterBundling copies the folder beside the bundle. */
export function buildPageAssetsSync(app: string, outDir = pageAssetsDir(app)): void {
  const { script } = source(app);
  mkdirSync(outDir, { recursive: true });
  buildSync(options(script, `${outDir}/${app}.js`));
  writeFileSync(`${outDir}/${app}.css`, pageStyle(app));
}
