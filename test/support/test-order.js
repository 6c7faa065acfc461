/**
 * The order `npm test` starts files in, so that neither of the two workers is left running a long file alone at
 * the end. Jest runs the longest first by the durations it cached from an earlier run on this machine, and files
 * it has no duration for first of all, largest first: on a fresh clone (CI) that put
 * test/unit/breached-passwords.test.ts (80 lines, a minute) near the end. Here a file without a cached duration
 * is given an estimate: its time from a full run for those listed below, half a minute for a browser test, nothing for the rest
 * (which then go by size, as in Jest).
 */
import Sequencer from '@jest/test-sequencer';

/** Seconds of the files that take a minute or more on two busy cores (CONTRIBUTING.md, Time, says how to find them). */
const LONG = {
  'test/integration/fuzz.test.ts': 300,
  'test/e2e/console.test.ts': 90,
  'test/e2e/screen-sessions.test.ts': 90,
  'test/unit/breached-passwords.test.ts': 70,
  'test/e2e/federated-sign-in.test.ts': 65,
  'test/integration/isolation.test.ts': 60,
  'test/e2e/login-languages.test.ts': 60,
  'test/e2e/login-dead-ends.test.ts': 60,
};

const estimate = (path) => {
  const long = Object.keys(LONG).find((file) => path.endsWith(`/${file}`));
  if (long) return LONG[long] * 1000;
  return path.includes('/test/e2e/') ? 30_000 : 0;
};

export default class TestOrder extends (Sequencer.default ?? Sequencer) {
  sort(tests) {
    const sizes = new Map(tests.map((test) => [test.path, test.context.hasteFS.getSize(test.path) ?? 0]));
    for (const test of tests) test.duration = this.time(test);
    const expected = (test) => test.duration ?? estimate(test.path);
    return tests.sort(
      (a, b) => Number(this.hasFailed(b)) - Number(this.hasFailed(a)) || expected(b) - expected(a) || sizes.get(b.path) - sizes.get(a.path),
    );
  }
}
