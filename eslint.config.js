// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers, inward only (docs/architecture.md, Layers): each entry names the files of a layer and the
 * imports they may not make. The patterns match import specifiers as written (relative paths included).
 */
const outward = (message, ...group) => ({ group, message });
const INFRASTRUCTURE = ['**/lib/**', '**/functions/**', '**/local/**', '**/bin/**', '**/examples/**', '**/scripts/**', '**/bench/**', '**/test/**'];
const DOMAIN_MESSAGE = 'the domain reaches the store, HTTP, mail senders and AWS through ports that wiring.ts fills';
const DOMAIN_OUTWARD = ['**/http/**', '**/store/**', '**/wiring.js', '**/routes.js', '**/openapi.js', '@aws-sdk/*', ...INFRASTRUCTURE];
const LAYER_RULES = [
  {
    files: ['shared/schemas/**/*.ts', 'shared/permissions.ts', 'shared/errors.ts', 'shared/clock.ts'],
    patterns: [
      outward(
        'the floor (schemas, permissions, errors, clock) imports nothing above it',
        '**/domain/**',
        '**/http/**',
        '**/store/**',
        '**/wiring.js',
        '**/routes.js',
        ...INFRASTRUCTURE,
      ),
    ],
  },
  // The domain has a mail/ folder of its own (outbox mails, suppressions): the senders' shared/adapters/mail/ is
  // named by its depth, from the domain's root files and from its folders.
  {
    files: ['shared/domain/*.ts'],
    patterns: [outward(DOMAIN_MESSAGE, ...DOMAIN_OUTWARD, '../adapters/**')],
  },
  {
    files: ['shared/domain/*/**/*.ts'],
    patterns: [outward(DOMAIN_MESSAGE, ...DOMAIN_OUTWARD, '../../adapters/**')],
  },
  {
    files: ['shared/http/**/*.ts'],
    patterns: [
      outward(
        'the request pipeline gets what it needs of the domain and the store from wiring.ts',
        '**/domain/**',
        '**/store/**',
        '**/wiring.js',
        ...INFRASTRUCTURE,
      ),
    ],
  },
  {
    files: ['shared/store/**/*.ts'],
    patterns: [
      outward("the store implements the domain's ports; it does not call HTTP or the wiring", '**/http/**', '**/wiring.js', ...INFRASTRUCTURE),
    ],
  },
  {
    files: ['functions/**/*.ts'],
    patterns: [
      outward(
        'functions run on Lambda: they import shared code, never the CDK app or local tools',
        '**/lib/**',
        '**/local/**',
        '**/bin/**',
        '**/scripts/**',
      ),
    ],
  },
  {
    files: ['examples/**/*.ts'],
    patterns: [
      outward(
        'examples use the service through its public API (client/), like any application',
        '**/shared/domain/**',
        '**/shared/store/**',
        '**/shared/wiring.js',
        '**/shared/http/**',
      ),
    ],
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.data/',
      'dist/',
      '.test-results/',
      'examples/**/public/*.js',
      'web/login/public/',
      'web/console/public/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  ...LAYER_RULES.map(({ files, patterns }) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } })),
  {
    // config.ts is the only reader of process.env in service code (docs/decisions.md, layout).
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read settings through shared/config.ts' }],
      // TypeBox's `Type` object and `Value` namespace hold every builder and every value function, so
      // importing either ships them all (about 48 KB per function); `import * as Type from '@sinclair/typebox'`
      // reads the same and keeps only the builders used.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='@sinclair/typebox'] > ImportSpecifier[imported.name='Type']",
          message: "write import * as Type from '@sinclair/typebox'",
        },
        {
          selector: "ImportDeclaration[source.value='@sinclair/typebox/value'] > ImportSpecifier[imported.name='Value']",
          message: 'import the one function needed (Clean, Check...)',
        },
      ],
    },
  },
);
