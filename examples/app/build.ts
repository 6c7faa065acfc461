/**
 * Bundles the login page's script (page/main.ts → public/app.js) with esbuild for the browser: the SRP
 * maths of amazon-cognito-identity-js and the `buffer` package it imports come along. Run on every start
 * of the example app, by the tests and by the CDK stack; the output is never committed.
 *
 * It also writes the page's catalogues as public/texts.json, so that the server sends index.html already in
 * the browser's language (server/static-files.ts) without importing the page's code, which layers.js keeps
 * apart: the same words, read as data.
 */
import { build, buildSync, type BuildOptions } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { browserBundle } from '../../client/browser-bundle.js';
import { fileURLToPath } from 'node:url';

export const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
const ENTRY = fileURLToPath(new URL('./page/main.ts', import.meta.url));
const TEXTS = fileURLToPath(new URL('./page/texts.ts', import.meta.url));

const pageBuildOptions = (outfile: string): BuildOptions => browserBundle(ENTRY, outfile);

/** page/texts.ts is words and two small functions; its CATALOGUES, evaluated once, are plain data. */
function writeCatalogues(publicDir: string): void {
  const [bundle] = buildSync({ entryPoints: [TEXTS], bundle: true, format: 'cjs', platform: 'neutral', write: false }).outputFiles ?? [];
  const module = { exports: {} as { CATALOGUES?: unknown } };
  new Function('module', 'exports', bundle?.text ?? '')(module, module.exports);
  writeFileSync(`${publicDir}texts.json`, JSON.stringify(module.exports.CATALOGUES));
}

export async function buildPage(outfile = `${PUBLIC_DIR}app.js`): Promise<void> {
  await build(pageBuildOptions(outfile));
  writeCatalogues(PUBLIC_DIR);
}

/** For the CDK stack, whose constructor cannot wait. */
export function buildPageSync(outfile = `${PUBLIC_DIR}app.js`): void {
  buildSync(pageBuildOptions(outfile));
  writeCatalogues(PUBLIC_DIR);
}
