/**
 * `npm run proof`: the service under pressure, on this machine, loopback only, with engines of its own.
 *
 *   1. Mixed load (sign-ins, refreshes, management reads and writes) for PROOF_LOAD_SECONDS (60), with SES
 *      failing every send for a while in the middle: no 5xx, no hang, every error in the spec's shape,
 *      and the service's memory (after a full collection) where it started.
 *   2. The same load while DynamoDB Local is stopped and started again on the same data: every answer
 *      meanwhile a 5xx in the error shape within a bound, none after, and the same service process answering.
 *      Then the network to it cut for moments, again and again, so changes of several requests are cut midway.
 *   3. Mail drained: each outbox mail sent once, none twice, every acknowledged change's mail received.
 *   4. The lockout race (scripts/proof/lockout.ts).
 *   5. Every invariant over the whole table, and everything acknowledged still there (scripts/proof/checks.ts).
 *
 * Prints PASS or FAIL per check with its figures, writes them to bench/results/proof.json, exits non-zero on
 * a FAIL (and keeps the temporary folder with DynamoDB Local's data and the service's log).
 *   npm run proof
 *   PROOF_LOAD_SECONDS=20 npm run proof     a shorter load, for trying changes
 *
 * This file only reads the command line: `--help` and a usage error answer at once, before the proof's modules
 * (scripts/proof/run.ts, imported to run it) load.
 */
import { parseArgs } from 'node:util';

const USAGE = `npm run proof: the service under pressure, on this machine, loopback only, with engines of its own.

  1. Mixed load for PROOF_LOAD_SECONDS (60), SES failing every send for a while in the middle.
  2. The same load while DynamoDB Local stops and starts again, then while the network to it is cut.
  3. Mail drained: each outbox mail sent once, every acknowledged change's mail received.
  4. The lockout race.
  5. Every invariant over the whole table, and everything acknowledged still there.

Prints PASS or FAIL per check with its figures, writes them to bench/results/proof.json, exits 1 on a FAIL
(keeping the temporary folder with DynamoDB Local's data and the service's log).

  npm run proof
  PROOF_LOAD_SECONDS=20 npm run proof     a shorter load, for trying changes
  PROOF_WORKERS=N npm run proof           N concurrent clients (8)
`;

/** Whether the command line asks for help; anything else on it is a usage error (exit 2). */
function helpAsked(): boolean {
  try {
    return parseArgs({ options: { help: { type: 'boolean', short: 'h', default: false } } }).values.help;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

if (helpAsked()) {
  process.stdout.write(USAGE);
  process.exit(0);
}
await import('./proof/run.js');
