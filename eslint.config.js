// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layersRule from './eslint/layers-rule.js';

/** An import for its side effects alone (`import './x.js'`), which the bundles would drop. */
const NO_BARE_IMPORT = {
  selector: 'ImportDeclaration[specifiers.length=0][importKind!="type"]',
  message: 'the bundles drop a module imported for its side effects alone (package.json sideEffects: false): import what it exports',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.data/', 'dist/', '.test-results/', 'examples/**/public/*.js', 'web/*/public/'] },
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
  {
    // The layers (layers.js): an allowlist generated from the one table, which docs/architecture.md draws.
    plugins: { layers: { rules: { imports: layersRule } } },
    rules: { 'layers/imports': 'error' },
  },
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
        NO_BARE_IMPORT,
      ],
    },
  },
  {
    // The bundles drop any module of ours none of whose exports is used (package.json `sideEffects: false`,
    // docs/decisions.md): an import kept only for what the module does when loaded would vanish from them.
    files: ['web/**/*.ts', 'web/**/*.tsx', 'lib/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_BARE_IMPORT] },
  },
);
