/**
 * Builds a browser-facing app's page (ENTRY_FUNCTIONS' `page`, shared/routes.ts): `web/<app>/page/main.ts` (or
 * `main.tsx`, JSX for Preact: the console) bundled for browsers into `web/<app>/public/<app>.js`, and
 * `web/<app>/page/<app>.css` copied beside it (never committed). For the local server before the app's first
 * request, and for the stack, which copies the folder beside the deployed bundle as `public/`.
 */
import { build, buildSync, type BuildOptions } from 'esbuild';
import { browserBundle } from '../client/browser-bundle.js';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Where an app's built page is: `web/<app>/public/`. */
export const pageAssetsDir = (app: string) => here(`./${app}/public/`);

const source = (app: string) => {
  const tsx = here(`./${app}/page/main.tsx`);
  return { script: existsSync(tsx) ? tsx : here(`./${app}/page/main.ts`), style: here(`./${app}/page/${app}.css`) };
};

/** The browser bundle; a `.tsx` entry is JSX compiled for Preact, its one runtime, imported where it is used. */
const options = (script: string, outfile: string): BuildOptions => ({
  ...browserBundle(script, outfile),
  ...(script.endsWith('.tsx') ? { jsx: 'automatic', jsxImportSource: 'preact' } : {}),
});

export async function buildPageAssets(app: string, outDir = pageAssetsDir(app)): Promise<void> {
  const { script, style } = source(app);
  await mkdir(outDir, { recursive: true });
  await Promise.all([build(options(script, `${outDir}/${app}.js`)), copyFile(style, `${outDir}/${app}.css`)]);
}

/** For the CDK stack, whose constructor cannot wait; afterBundling copies the folder beside the bundle. */
export function buildPageAssetsSync(app: string, outDir = pageAssetsDir(app)): void {
  const { script, style } = source(app);
  mkdirSync(outDir, { recursive: true });
  buildSync(options(script, `${outDir}/${app}.js`));
  copyFileSync(style, `${outDir}/${app}.css`);
}
