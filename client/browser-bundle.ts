/**
 * How a page script is bundled for browsers (the example app's page and the browser-facing apps' under web/):
 * one file, with what it imports; for the example app's client/srp.ts, the SRP maths of
 * amazon-cognito-identity-js and the `buffer` package it imports.
 */
import type { BuildOptions } from 'esbuild';

export const browserBundle = (entry: string, outfile: string): BuildOptions => ({
  entryPoints: [entry],
  outfile,
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  // The `buffer` package (what the Cognito helper imports for Node's Buffer) reads Node's `global`.
  define: { global: 'globalThis' },
  logLevel: 'error',
});
