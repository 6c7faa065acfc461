/**
 * `npm run fuzz`: the request fuzz of `npm test` with more requests, for a run by hand.
 *   npm run fuzz                  100 000 requests
 *   npm run fuzz -- 500000        as many as given
 *   FUZZ_SEED=-123 npm run fuzz   replays the run fast-check reported (with the same count)
 * It runs the fuzz file through `npm test` (Jest, the engines started once), without Jest's per-test time limit.
 */
import { spawn } from 'node:child_process';

const requests = process.argv[2] ?? process.env.FUZZ_RUNS ?? '100000';
if (!/^[1-9][0-9]*$/.test(requests)) {
  process.stderr.write(`usage: npm run fuzz [-- REQUESTS]; '${requests}' is not a count\n`);
  process.exit(2);
}
process.stdout.write(`fuzzing with ${requests} requests${process.env.FUZZ_SEED ? `, seed ${process.env.FUZZ_SEED}` : ''}\n`);
const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/test.ts', '--testTimeout=0', 'test/integration/fuzz.test.ts'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    FUZZ_RUNS: requests,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  },
});
child.on('exit', (code) => process.exit(code ?? 1));
