/**
 * How every function is bundled: one list of esbuild settings that both the stack (NodejsFunction) and the
 * bundle benchmark (bench/bundles.bench.ts) use, so the figures are those of what gets deployed.
 */
import type { BuildOptions } from 'esbuild';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Lambda entries beside the route groups: the scheduled worker, the SES event handler and the API log writer. */
export const WORKER_FUNCTIONS = ['scheduled', 'mail-events', 'apilog-writer'] as const;

export const entryOf = (group: string) => `${PROJECT_ROOT}functions/${group}/handler.ts`;

/**
 * The functions that set passwords, and so screen them against the breached-password filter
 * (shared/domain/configuration/breached-passwords.ts). The check is not in their bundles: password-policy.ts
 * imports it dynamically under BREACHED_CHECK_IMPORT, left external, and the stack builds it as a module of
 * its own beside these bundles with the filter it reads (besideBundle), so the sign-in function carries
 * neither the list nor the code that reads it. test/infra/bundle.test.ts checks this list against what each
 * bundle imports. tenant-users is here for SCIM, which creates a user with the password its directory sends, and
 * scheduled for the import jobs it runs, which screen a password given in the clear (shared/domain/migration).
 */
export const PASSWORD_SETTING_GROUPS: readonly string[] = ['invitations', 'login', 'saas-users', 'scheduled', 'sign-in', 'tenant-users'];
export const BREACHED_FILTER = `${PROJECT_ROOT}shared/domain/configuration/breached-passwords.bin`;
export const BREACHED_CHECK_IMPORT = './breached-passwords.js';
const BREACHED_CHECK_SOURCE = `${PROJECT_ROOT}shared/domain/configuration/breached-passwords.ts`;

/**
 * The functions that may sign a person in with a password, and so may meet a lazy migration from an old Cognito
 * pool (shared/domain/migration/lazy-cognito.ts): USER_PASSWORD_AUTH on the API, the hosted screen's password step.
 * The AWS SDK's Cognito client (about 281 KB with its Smithy core) is not in any bundle: shared/adapters/cognito-pool.ts
 * imports it dynamically under COGNITO_SDK_IMPORT, left external, and the stack builds it beside these bundles
 * (besideBundle). It is pinned with the project's other SDK clients rather than taken from the Lambda runtime's
 * SDK, whose version the project does not choose. test/infra/bundle.test.ts checks this list against what each
 * bundle imports.
 */
export const LAZY_MIGRATION_GROUPS: readonly string[] = ['login', 'sign-in'];
export const COGNITO_SDK_IMPORT = './cognito-sdk.js';
const COGNITO_SDK_SOURCE = `${PROJECT_ROOT}shared/adapters/cognito-sdk.ts`;

/** esbuild's command line for a module of its own, built as the bundles are, into `outfile`. */
const moduleBeside = (source: string, outfile: string) =>
  `"${PROJECT_ROOT}node_modules/.bin/esbuild" "${source}" --bundle --minify --format=esm --platform=node ` +
  `--target=node22 --main-fields=module,main --log-level=error "--banner:js=${BUNDLE.banner}" ` +
  Object.entries(BUNDLE.alias)
    .map(([from, to]) => `"--alias:${from}=${to}" `)
    .join('') +
  `--outfile="${outfile}"`;

/**
 * The shell commands that put beside the bundle of `group` in `output` what it loads from there: for a function
 * that sets passwords, the breached-password check and the filter it reads from beside itself; for one that may
 * migrate a person lazily, the Cognito client. Both are ESM, so a package.json says `.js` is a module.
 */
export function besideBundle(group: string, output: string): string[] {
  const screens = PASSWORD_SETTING_GROUPS.includes(group);
  const migrates = LAZY_MIGRATION_GROUPS.includes(group);
  return [
    ...(screens ? [moduleBeside(BREACHED_CHECK_SOURCE, `${output}/${BREACHED_CHECK_IMPORT.slice(2)}`), `cp "${BREACHED_FILTER}" "${output}/"`] : []),
    ...(migrates ? [moduleBeside(COGNITO_SDK_SOURCE, `${output}/${COGNITO_SDK_IMPORT.slice(2)}`)] : []),
    ...(screens || migrates ? [`echo '{"type":"module"}' > "${output}/package.json"`] : []),
  ];
}

export const BUNDLE = {
  minify: true,
  sourceMap: true,
  format: 'esm',
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  // ESM output still meets CommonJS dependencies that call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  alias: { '@aws-sdk/credential-provider-node': `${PROJECT_ROOT}lib/lambda-credentials.ts` },
} as const;

/**
 * Modules left out of the bundle because no code path of ours ever loads them:
 * - the SDK's event-stream codec (about 15 KB), which its HTTP protocol imports dynamically only for an
 *   operation that streams events; DynamoDB, KMS and SES v2 have none;
 * - the breached-password check, which the functions that set passwords load from beside their bundle;
 * - the Cognito client, which the functions that may migrate a person lazily load from beside their bundle;
 * - without tracing, the tracer and the X-Ray SDK behind it (shared/observability.ts imports it only when
 *   tracing is on).
 */
export function externalModules(tracing: boolean): string[] {
  return ['@smithy/core/event-streams', BREACHED_CHECK_IMPORT, COGNITO_SDK_IMPORT, ...(tracing ? [] : ['@aws-lambda-powertools/tracer'])];
}

/** The same bundle as the stack builds, for the benchmark and the bundle test (tracing off, as deployed by default). */
export function esbuildOptions(name: string, outfile: string): BuildOptions & { metafile: true } {
  return {
    entryPoints: [entryOf(name)],
    outfile,
    bundle: true,
    minify: BUNDLE.minify,
    sourcemap: BUNDLE.sourceMap,
    format: BUNDLE.format,
    target: BUNDLE.target,
    platform: BUNDLE.platform,
    mainFields: [...BUNDLE.mainFields],
    banner: { js: BUNDLE.banner },
    alias: { ...BUNDLE.alias },
    external: externalModules(false),
    metafile: true,
    logLevel: 'error',
  };
}
