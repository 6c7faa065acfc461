/**
 * `npm test`: Jest over test/**\/*.test.ts (jest.config.js: ES modules through @swc/jest, the engines started
 * once in global setup), then the counts as the last line, `N passed, N failed`.
 *   npm test                      every test
 *   npm test -- test/unit         only the files under a folder (or given files); any Jest option works too
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const COUNTS = '.test-results/counts.json';
rmSync(COUNTS, { force: true });
const code = await new Promise<number>((resolve) => {
  const jest = spawn(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'node_modules/jest/bin/jest.js', ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  jest.on('exit', (exitCode) => resolve(exitCode ?? 1));
});
let counts = { passed: 0, failed: 1 };
try {
  counts = JSON.parse(readFileSync(COUNTS, 'utf8')) as typeof counts;
} catch {
  // Jest stopped before it ran anything (a configuration error): one failure, said above.
}
process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed\n`);
process.exit(code !== 0 || counts.failed > 0 || counts.passed === 0 ? 1 : 0);
