/**
 * Builds the login screen's script (page/main.ts, with the SRP of amazon-cognito-identity-js) and copies its
 * style into `web/login/public/` (never committed): for the local server before its first login request,
 * and for the stack, which copies the folder beside the deployed bundle.
 */
import { build, buildSync } from 'esbuild';
import { browserBundle } from '../../client/browser-bundle.js';
import { copyFileSync, mkdirSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const LOCAL_ASSETS_DIR = here('./public/');

export async function buildLoginAssets(outDir = LOCAL_ASSETS_DIR): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await Promise.all([build(browserBundle(here('./page/main.ts'), `${outDir}/login.js`)), copyFile(here('./page/login.css'), `${outDir}/login.css`)]);
}

/** For the CDK stack, whose constructor cannot wait; afterBundling copies the folder beside the bundle. */
export function buildLoginAssetsSync(outDir = LOCAL_ASSETS_DIR): void {
  mkdirSync(outDir, { recursive: true });
  buildSync(browserBundle(here('./page/main.ts'), `${outDir}/login.js`));
  copyFileSync(here('./page/login.css'), `${outDir}/login.css`);
}
