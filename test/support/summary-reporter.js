/**
 * Keeps the run's counts for scripts/test.ts, which prints them as the last line of `npm test`
 * (`N passed, N failed`, what CI reads). A file that failed to load counts as a failure even when it ran no test.
 * Also writes every file's seconds, longest first, to .test-results/durations.json and prints the ten longest, so
 * the files that hold the suite back are in every run's output (CONTRIBUTING.md, Time).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import process from 'node:process';

const SHOWN = 10;

export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    mkdirSync('.test-results', { recursive: true });
    const counts = { passed: results.numPassedTests, failed: results.numFailedTests + results.numRuntimeErrorTestSuites };
    writeFileSync('.test-results/counts.json', JSON.stringify(counts));
    const durations = results.testResults
      .map((file) => ({ file: relative(process.cwd(), file.testFilePath), seconds: (file.perfStats.end - file.perfStats.start) / 1000 }))
      .filter((file) => file.seconds >= 0)
      .sort((a, b) => b.seconds - a.seconds);
    writeFileSync('.test-results/durations.json', `${JSON.stringify(durations, null, 1)}\n`);
    if (durations.length > 1) {
      const total = durations.reduce((sum, file) => sum + file.seconds, 0);
      const lines = durations.slice(0, SHOWN).map((file) => `${file.seconds.toFixed(1).padStart(7)} s  ${file.file}`);
      process.stdout.write(`\nLongest files (of ${total.toFixed(0)} s in ${durations.length} files):\n${lines.join('\n')}\n`);
    }
  }
}
