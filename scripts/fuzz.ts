/**
 * `npm run fuzz`: the request fuzzes of `npm test` with more requests, for a run by hand: the route table's
 * (test/integration/fuzz.test.ts) and the login screen's, OpenID Connect's and SAML's (fuzz-login.test.ts, a
 * fifth as many).
 *   npm run fuzz                  100 000 requests (and 20 000 to the login routes)
 *   npm run fuzz -- 500000        as many as given
 *   FUZZ_SEED=-123 npm run fuzz   replays the run fast-check reported (with the same count)
 * It runs the fuzz file through `npm test` (Jest, the engines started once), with a day for Jest's per-test time limit.
 */
import { spawn } from 'node:child_process';

const requests = process.argv[2] ?? process.env.FUZZ_RUNS ?? '100000';
if (!/^[1-9][0-9]*$/.test(requests)) {
  process.stderr.write(`usage: npm run fuzz [-- REQUESTS]; '${requests}' is not a count\n`);
  process.exit(2);
}
process.stdout.write(`fuzzing with ${requests} requests${process.env.FUZZ_SEED ? `, seed ${process.env.FUZZ_SEED}` : ''}\n`);
// Jest 30 reads --testTimeout=0 as its default of 5 s, not as "no limit": a day stands for none.
const DAY_MS = 86_400_000;
const loginRequests = process.env.FUZZ_LOGIN_RUNS ?? String(Math.max(1, Math.round(Number(requests) / 5)));
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    'scripts/test.ts',
    `--testTimeout=${DAY_MS}`,
    '--maxWorkers=1',
    'test/integration/fuzz.test.ts',
    'test/integration/fuzz-login.test.ts',
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      FUZZ_RUNS: requests,
      FUZZ_LOGIN_RUNS: loginRequests,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
);
child.on('exit', (code) => process.exit(code ?? 1));
