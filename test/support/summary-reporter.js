/**
 * Keeps the run's counts for scripts/test.ts, which prints them as the last line of `npm test`
 * (`N passed, N failed`, what CI reads). A file that failed to load counts as a failure even when it ran no test.
 */
import { mkdirSync, writeFileSync } from 'node:fs';

export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    mkdirSync('.test-results', { recursive: true });
    const counts = { passed: results.numPassedTests, failed: results.numFailedTests + results.numRuntimeErrorTestSuites };
    writeFileSync('.test-results/counts.json', JSON.stringify(counts));
  }
}
