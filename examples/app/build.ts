/**
 * Bundles the login page's script (page/main.ts → public/app.js) with esbuild for the browser: the SRP
 * maths of amazon-cognito-identity-js and the `buffer` package it imports come along. Run on every start
 * of the example app, by the tests and by the CDK stack; the output is never committed.
 */
import { build, buildSync, type BuildOptions } from 'esbuild';
import { browserBundle } from '../../client/browser-bundle.js';
import { fileURLToPath } from 'node:url';

export const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
const ENTRY = fileURLToPath(new URL('./page/main.ts', import.meta.url));

const pageBuildOptions = (outfile: string): BuildOptions => browserBundle(ENTRY, outfile);

export async function buildPage(outfile = `${PUBLIC_DIR}app.js`): Promise<void> {
  await build(pageBuildOptions(outfile));
}

/** For the CDK stack, whose constructor cannot wait. */
export function buildPageSync(outfile = `${PUBLIC_DIR}app.js`): void {
  buildSync(pageBuildOptions(outfile));
}
