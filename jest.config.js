/**
 * `npm test` runs every test/**\/*.test.ts under Jest: TypeScript through @swc/jest as ES modules (Node's
 * --experimental-vm-modules), DynamoDB Local and the SES stand-in started once for the whole run
 * (test/support/jest-global-setup.js), two files at a time, the longest first (test/support/test-order.js), and
 * `N passed, N failed` as the last line.
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  // Sources import each other as `./x.js`, as Node's ESM wants; the files are `./x.ts`.
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // deepStrictEqual across Jest's VM contexts (test/support/assert.ts).
    '^node:assert/strict$': '<rootDir>/test/support/assert.ts',
  },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  // The longest files first even without Jest's cached timings (a fresh clone, CI).
  testSequencer: '<rootDir>/test/support/test-order.js',
  globalSetup: '<rootDir>/test/support/jest-global-setup.js',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // Integration files start a harness and sign users in with real SRP: minutes, not Jest's 5 s.
  testTimeout: 180_000,
  maxWorkers: 2,
};
