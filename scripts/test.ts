/**
 * `npm test`: starts one DynamoDB Local (in memory, without sharedDb, so each test file isolates itself
 * with its own access key) and one SES stand-in for the whole run, then runs every test file with node's
 * test runner. Last line: `N passed, N failed`.
 *   npm test                      every test
 *   npm test -- test/unit         only the files under a folder (or given files)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startDynamoLocal, startSesLocal } from '../local/engines.js';

function testFiles(root: string): string[] {
  if (statSync(root).isFile()) return [root];
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const path = join(root, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['test'];
const files = roots.flatMap(testFiles).sort();
const started = Date.now();
const [dynamo, ses] = await Promise.all([
  freePort().then((port) => startDynamoLocal({ port, sharedDb: false })),
  freePort().then((port) => startSesLocal(port)),
]);
process.stdout.write(`engines ready in ${((Date.now() - started) / 1000).toFixed(1)} s; ${files.length} test files\n`);

mkdirSync('.test-results', { recursive: true });
const tapFile = join('.test-results', 'results.tap');
const code = await new Promise<number>((resolve) => {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tapFile}`,
      ...files,
    ],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_DYNAMODB_URL: dynamo.url,
        TEST_SES_URL: ses.url,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
        // The AWS SDK's notice about Node 20 says nothing about our code.
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    },
  );
  child.on('exit', (exitCode) => resolve(exitCode ?? 1));
});
await Promise.all([dynamo.stop(), ses.stop()]);

const tap = readFileSync(tapFile, 'utf8');
const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
const passed = count('pass');
const failed = count('fail') + count('cancelled');
process.stdout.write(`\ntest time ${((Date.now() - started) / 1000).toFixed(1)} s\n${passed} passed, ${failed} failed\n`);
process.exit(code !== 0 || failed > 0 || passed === 0 ? 1 : 0);
