/**
 * How every function is bundled: one list of esbuild settings that both the stack (NodejsFunction) and the
 * bundle benchmark (bench/bundles.bench.ts) use, so the figures are those of what gets deployed.
 */
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Lambda entries beside the route groups: the scheduled worker and the SES event handler. */
export const WORKER_FUNCTIONS = ['scheduled', 'mail-events'] as const;

export const entryOf = (group: string) => `${PROJECT_ROOT}functions/${group}/handler.ts`;

export const BUNDLE = {
  minify: true,
  sourceMap: true,
  format: 'esm',
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  // ESM output still meets CommonJS dependencies that call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
} as const;
