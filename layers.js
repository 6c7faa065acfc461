// @ts-check
/**
 * The layers of the repository: one table, folder → what it may import. `npm run lint` refuses every import the
 * table does not allow (eslint/layers-rule.js, an allowlist), test/unit/import-boundaries.test.ts walks every
 * file against it and proves the tree has no cycle, and `npm run layers` draws docs/architecture.md's whiteboard
 * from it. Plain JavaScript so that eslint.config.js, the test and the script read it without a compile step.
 *
 * The table is ordered outermost first, and a layer may import only layers below it (the test checks this), so an
 * import the table allows can never point up. Within a layer imports are free (the test still refuses cycles).
 * `files` are paths from the repository root: `*` one name, `**` any depth, `{name}` one name that must agree
 * with the same `{name}` of the layer imported (a page imports its own app's texts, not another app's). A file
 * belongs to the layer whose pattern names it most precisely (layerOf).
 */

/**
 * @typedef {object} Layer
 * @property {string} name
 * @property {string[]} files
 * @property {string[]} mayImport names of the layers below that it may import; '*' any layer
 * @property {string[]} [refusedPackages] npm packages it may not import (`node:*` also refuses bare builtins)
 * @property {string} what one line for the whiteboard
 */

/**
 * The domain's folders, highest first: a folder imports only the folders after it (and the domain's root files).
 * configuration/ sits low because users/ and tenants/ read their definitions and settings; a piece a lower
 * folder needs moves down or becomes a port declared there (configuration/payment-provider.ts's
 * PaymentLinkRepository, tokens/key-store.ts's SrpSecretPort).
 */
export const DOMAIN_ORDER = [
  'console',
  'accounts',
  'communication',
  'migration',
  'scim',
  'analysis',
  'apilog',
  'integration',
  'pricing',
  'tenants',
  'sign-in',
  'users',
  'tokens',
  'configuration',
  'mail',
];

/** @type {Record<string, string>} */
const DOMAIN_WHAT = {
  console: "the operator console's failed sign-in counts and signed-out sessions",
  accounts: 'SaaS accounts and API keys',
  communication: "the feedback portal (SaaS users' feedback, votes, comments)",
  migration:
    'import jobs and the export: users with their password hashes, tenants, memberships, definitions, settings, the pricing catalogue, invitations',
  scim: "SCIM 2.0 provisioning: a tenant's directory's tokens, users and groups",
  analysis: 'the Analysis API: active users, page histories and statistics, counts per day from the API log',
  apilog: 'the API log',
  integration: 'the events of changing calls, numbered per subject, and their delivery (EventBridge)',
  pricing: 'the catalogue and metering',
  tenants: 'tenants, memberships, plans, invitations, marketplace',
  'sign-in': 'the flows, SRP engine, lockout, devices, refresh tokens, sign-up, federation',
  users: 'users, user flows, e-mail address rule, verification codes',
  tokens: 'signing keys, token issue and checks',
  configuration: 'settings, definitions, password policy, infrastructure, payment provider',
  mail: 'the outbox, suppressions, default templates',
};

/** The floor as the domain sees it: types, schemas, errors, pure helpers, the log and counters. */
const DOMAIN_FLOOR = ['schemas', 'crypto', 'metrics', 'log', 'request-origin', 'permissions', 'errors', 'clock'];
/** The floor as the outer shared layers see it. */
const FLOOR = ['openapi', 'routes', 'screen-hosts', 'observability', ...DOMAIN_FLOOR];
const DOMAIN = ['domain root', ...DOMAIN_ORDER.map((noun) => `domain/${noun}`)];
const SHARED = ['wiring', 'adapters', 'store', 'http', 'http signature', 'aws protocol', 'mail render', ...DOMAIN, ...FLOOR, 'config'];
/** Names the whiteboard uses for these lists (scripts/layers.ts). */
export const GROUPS = { 'every shared layer': SHARED, 'the domain': DOMAIN, 'the floor': FLOOR, "the domain's floor": DOMAIN_FLOOR };
const NO_AWS_SDK = ['@aws-sdk/*'];
const BROWSER = ['node:*'];

/** @type {Layer[]} */
export const LAYERS = [
  { name: 'test', files: ['test/**'], mayImport: ['*'], what: 'the tests: anything' },
  {
    name: 'scripts',
    files: ['scripts/**'],
    mayImport: ['bench', 'dev-support', 'local', 'client', ...SHARED, 'tooling'],
    what: 'npm run sign, sign-in, proof, fuzz, test, layers',
  },
  {
    name: 'bench',
    files: ['bench/**'],
    mayImport: ['dev-support', 'bin', 'local', 'lib', 'function entry', 'functions', 'client', ...SHARED],
    what: 'benchmarks (npm run bench)',
  },
  {
    name: 'dev-support',
    files: ['dev-support/**'],
    mayImport: ['local', 'client', ...SHARED],
    what: 'what tests, benches and the proof share: the harness, SRP and sign-in clients',
  },
  {
    name: 'bin',
    files: ['bin/**'],
    mayImport: ['local', 'lib', 'function entry', 'functions', 'client', ...SHARED],
    what: 'npm start, npm run admin, the CDK app; examples join npm start through local/companion.ts',
  },
  {
    name: 'example page',
    files: ['examples/{app}/page/**'],
    mayImport: ['client'],
    refusedPackages: BROWSER,
    what: "an example's browser code: the public client only",
  },
  {
    name: 'examples',
    files: ['examples/**'],
    mayImport: ['lib', 'client', 'crypto', 'log'],
    what: 'the example application: the public API (client/), two small helpers, the CDK constructs',
  },
  {
    name: 'local',
    files: ['local/**'],
    mayImport: ['function entry', 'functions', 'web entry', 'web build', 'client', ...SHARED],
    what: 'the local runner: engines, one HTTP server for every function',
  },
  { name: 'lib', files: ['lib/**'], mayImport: ['web build', 'store', ...FLOOR], what: 'the CDK stack' },
  {
    name: 'function entry',
    files: ['functions/{group}/handler.ts'],
    mayImport: ['function pipeline', 'functions', 'web entry', 'wiring', 'store', 'http', ...DOMAIN, ...FLOOR, 'config'],
    what: "a Lambda's entry: binds its group's operations to the function pipeline, or is a browser-facing app's entry of its own group (the only web/ it may import)",
  },
  {
    name: 'function pipeline',
    files: ['functions/group-handler.ts'],
    mayImport: ['unmatched page', 'wiring', 'routes', 'schemas'],
    what: "the API functions' request pipeline: the wiring's, its UnmatchedPage port filled once with the not-found page",
  },
  {
    name: 'functions',
    files: ['functions/{group}/**'],
    mayImport: ['wiring', 'store', 'http', ...DOMAIN, ...FLOOR, 'config'],
    what: 'one Lambda per group: binds operations to services; never web/ (the function pipeline brings the not-found page in)',
  },
  {
    name: 'unmatched page',
    files: ['web/login/unmatched-page.ts'],
    mayImport: ['web', 'web kit', 'screen texts', 'http', ...FLOOR],
    what: 'the login screen\'s "page not found", which every API function answers a browser\'s unknown address with',
  },
  {
    name: 'web entry',
    files: ['web/{app}/{group}-function.ts'],
    mayImport: [
      'web wiring',
      'web',
      'web kit',
      'web shared',
      'web texts',
      'screen texts',
      'screen look',
      'wiring',
      'http',
      ...DOMAIN,
      ...FLOOR,
      'config',
    ],
    what: "a browser-facing app's Lambda entry: routes to the app's parts, built by its wiring",
  },
  {
    name: 'web wiring',
    files: ['web/{app}/wiring.ts', 'web/{app}/*-wiring.ts'],
    mayImport: ['web', 'web kit', 'web shared', 'web texts', 'screen texts', 'screen look', 'wiring', 'http', ...DOMAIN, ...FLOOR, 'config'],
    what: "composes a browser-facing app from shared/wiring.ts's services and its settings",
  },
  {
    name: 'web build',
    files: ['web/page-assets.ts'],
    mayImport: ['client'],
    what: "bundles each app's page code (the CDK app and npm start call it)",
  },
  {
    name: 'web page',
    files: ['web/{app}/page/**'],
    mayImport: ['client', 'web shared', 'web texts', 'screen texts', 'screen look', 'mail render'],
    refusedPackages: BROWSER,
    what: "browser code: the public client, its own app's shared files and texts; the console's previews: the login screen's words and colours, the mail renderer",
  },
  {
    name: 'web',
    files: ['web/{app}/**'],
    mayImport: ['web kit', 'web shared', 'web texts', 'screen texts', 'screen look', 'client', 'http', ...DOMAIN, ...FLOOR],
    what: "a browser-facing app's server: screens, OpenID provider, SAML service provider, the operator console",
  },
  {
    name: 'web kit',
    files: ['web/kit/**'],
    mayImport: ['http', ...FLOOR],
    what: 'what every browser-facing app shares: cookies, sealed values, HTML escape, built assets, the request and answer, the screen pipeline',
  },
  {
    name: 'web shared',
    files: ['web/{app}/page-data.ts', 'web/{app}/srp.ts'],
    mayImport: ['web texts', 'screen texts', 'client'],
    refusedPackages: BROWSER,
    what: "what an app's server and page both load: the page data's types, the screen's SRP client (browser-safe)",
  },
  {
    name: 'screen look',
    files: ['web/login/theme-colours.ts'],
    mayImport: [],
    refusedPackages: BROWSER,
    what: "the login screen's palettes and contrast rule: its stylesheet and the console's preview of it draw from them",
  },
  {
    name: 'screen texts',
    files: ['web/login/texts/**'],
    mayImport: [],
    what: "the login screen's words: its own, and those the console's preview of it shows",
  },
  { name: 'web texts', files: ['web/{app}/texts/**'], mayImport: [], what: 'the words of an app, one file per language' },
  {
    name: 'client',
    files: ['client/**'],
    mayImport: ['http signature'],
    refusedPackages: NO_AWS_SDK,
    what: 'the public API client: signed fetch, SRP, the browser bundle',
  },
  {
    name: 'wiring',
    files: ['shared/wiring.ts', 'shared/wiring/**'],
    mayImport: SHARED.filter((name) => name !== 'wiring'),
    what: 'builds services from repositories, adapters and settings: one file per noun in shared/wiring/, each repository built once',
  },
  {
    name: 'adapters',
    files: ['shared/adapters/**'],
    mayImport: ['aws protocol', 'mail render', ...DOMAIN, ...FLOOR],
    what: "SES, Stripe, marketplace, site domains: the domain's other ports",
  },
  {
    name: 'store',
    files: ['shared/store/**'],
    mayImport: ['aws protocol', ...DOMAIN, ...FLOOR],
    what: "DynamoDB repositories: the domain's ports; key shapes in keys.ts",
  },
  {
    name: 'aws protocol',
    files: ['shared/adapters/aws/**'],
    mayImport: ['observability', 'crypto', 'log', 'errors', 'clock'],
    what: "DynamoDB's and KMS's JSON protocol, signed, without the SDK's clients",
  },
  {
    name: 'mail render',
    files: ['shared/adapters/mail/render.ts'],
    mayImport: ['domain/mail', 'schemas'],
    refusedPackages: BROWSER,
    what: "a template and its values into the mail sent: the courier's, and the console's preview in the browser",
  },
  {
    name: 'http',
    files: ['shared/http/**'],
    mayImport: ['http signature', ...FLOOR],
    what: 'the request pipeline: signature, routing, validation, errors',
  },
  {
    name: 'http signature',
    files: ['shared/http/signature.ts'],
    mayImport: [],
    what: 'the request signature, shared with the public client',
  },
  ...DOMAIN_ORDER.map((noun, i) => ({
    name: `domain/${noun}`,
    files: [`shared/domain/${noun}/**`],
    mayImport: [...DOMAIN_ORDER.slice(i + 1).map((lower) => `domain/${lower}`), 'domain root', ...DOMAIN_FLOOR],
    refusedPackages: NO_AWS_SDK,
    what: DOMAIN_WHAT[noun] ?? '',
  })),
  {
    name: 'domain root',
    files: ['shared/domain/*.ts'],
    mayImport: DOMAIN_FLOOR,
    refusedPackages: NO_AWS_SDK,
    what: 'atomic writes, paging, creation order, attributes, scheduled work: for every domain folder',
  },
  { name: 'openapi', files: ['shared/openapi.ts'], mayImport: ['routes', 'schemas'], what: 'the OpenAPI document, from the routes' },
  { name: 'routes', files: ['shared/routes.ts'], mayImport: ['permissions'], what: 'the one route table' },
  { name: 'screen-hosts', files: ['shared/screen-hosts.ts'], mayImport: [], what: "the host rule of the login screen's origins" },
  {
    name: 'observability',
    files: ['shared/observability.ts'],
    mayImport: ['metrics', 'log', 'request-origin', 'config'],
    what: 'traces; reads its own switch',
  },
  { name: 'metrics', files: ['shared/metrics.ts'], mayImport: ['log', 'config'], what: 'counters; reads its own switch' },
  {
    name: 'request-origin',
    files: ['shared/request-origin.ts'],
    mayImport: [],
    what: 'the source address and user agent of the request being served, set at the entry',
  },
  { name: 'log', files: ['shared/log.ts'], mayImport: ['config'], what: 'the structured log; reads its own level' },
  { name: 'crypto', files: ['shared/crypto/**'], mayImport: ['clock'], what: 'SRP, TOTP, sealing, compare: pure helpers' },
  { name: 'schemas', files: ['shared/schemas/**'], mayImport: [], what: 'request and answer shapes (TypeBox)' },
  { name: 'permissions', files: ['shared/permissions.ts'], mayImport: [], what: 'the permission names' },
  { name: 'errors', files: ['shared/errors.ts'], mayImport: [], what: 'typed errors with a kind, no status' },
  { name: 'clock', files: ['shared/clock.ts'], mayImport: [], what: 'the one clock' },
  {
    name: 'config',
    files: ['shared/config.ts'],
    mayImport: [],
    what: 'the only reader of process.env: read by the wiring, the entries and three switches (log, metrics, observability), never by the domain, store, adapters or http',
  },
  {
    name: 'tooling',
    files: ['*.js', 'eslint/**'],
    mayImport: [],
    what: 'eslint.config.js, this table, the lint rule, the Jest configuration',
  },
];

/**
 * Files allowed an import their layer is not, for a while: each entry names the file and what it may also import,
 * and goes when the file no longer needs it (the import-boundaries test fails on an entry its file no longer
 * uses). Empty: the last readers of shared/config.ts below the wiring now get their settings from it (issue 26).
 * @type {{ file: string, mayAlsoImport: string[] }[]}
 */
export const TEMPORARY_EXCEPTIONS = [];

/** @param {string} glob */
function patternOf(glob) {
  const source = glob
    .split(/(\*\*\/|\*\*|\*|\{\w+\})/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      const capture = /^\{(\w+)\}$/.exec(part);
      if (capture) return `(?<${capture[1]}>[^/]+?)`;
      return part.replace(/[.+?^$()[\]\\|{}]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

const compiled = LAYERS.flatMap((layer) =>
  layer.files.map((glob) => ({ layer, pattern: patternOf(glob), precision: glob.replace(/\*|\{\w+\}/g, '').length })),
);

/**
 * The layer of a file (a path from the repository root, with forward slashes), and the `{name}` parts its
 * pattern captured; undefined when no layer holds it. The pattern that names the file most precisely (the most
 * characters besides wildcards) wins: web/{app}/texts/** over web/{app}/**.
 * @param {string} file
 * @returns {{ layer: Layer, captures: Record<string, string> } | undefined}
 */
export function layerOf(file) {
  /** @type {{ layer: Layer, captures: Record<string, string>, precision: number } | undefined} */
  let best;
  for (const { layer, pattern, precision } of compiled) {
    const match = pattern.exec(file);
    if (match && (!best || precision > best.precision)) best = { layer, captures: { ...match.groups }, precision };
  }
  return best && { layer: best.layer, captures: best.captures };
}

/**
 * Why `from` may not import `to` (both paths from the repository root), or undefined when the table allows it.
 * @param {string} from
 * @param {string} to
 * @returns {string | undefined}
 */
export function refusal(from, to) {
  const source = layerOf(from);
  const target = layerOf(to);
  if (!source) return `${from} is in no layer of layers.js`;
  if (!target) return `${to} is in no layer of layers.js`;
  const { name } = source.layer;
  const exception = TEMPORARY_EXCEPTIONS.find((entry) => entry.file === from);
  const allowed =
    source.layer.mayImport.includes('*') ||
    source.layer === target.layer ||
    source.layer.mayImport.includes(target.layer.name) ||
    (exception?.mayAlsoImport.includes(target.layer.name) ?? false);
  if (!allowed) {
    return `layer '${name}' (${from}) may not import layer '${target.layer.name}' (${to}): layers.js lets '${name}' import ${
      source.layer.mayImport.length ? source.layer.mayImport.map((n) => `'${n}'`).join(', ') : 'nothing outside itself'
    }`;
  }
  for (const [key, value] of Object.entries(target.captures)) {
    const own = source.captures[key];
    if (own !== undefined && own !== value) {
      return `layer '${name}' (${from}) may import layer '${target.layer.name}' only for its own ${key} '${own}', not '${value}' (${to}): layers.js`;
    }
  }
  return undefined;
}

/**
 * Why a file may not import an npm package or a Node builtin, or undefined.
 * @param {string} from
 * @param {string} specifier as written
 * @param {readonly string[]} builtins Node's builtin module names
 * @returns {string | undefined}
 */
export function packageRefusal(from, specifier, builtins) {
  const source = layerOf(from);
  const node = specifier.startsWith('node:') || builtins.includes(specifier.split('/')[0] ?? '');
  for (const refused of source?.layer.refusedPackages ?? []) {
    const hit = refused === 'node:*' ? node : refused.endsWith('/*') ? specifier.startsWith(refused.slice(0, -1)) : specifier === refused;
    if (hit) return `layer '${source?.layer.name}' (${from}) may not import ${specifier}: layers.js refuses it ${refused}`;
  }
  return undefined;
}
