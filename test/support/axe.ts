/**
 * axe-core in a Chromium page (evaluated through the DevTools protocol, so the page's CSP stays as it is): its
 * serious and critical findings, one line each. An empty list means axe ran its rules and found none of those.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeRule {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(() =>
    (window as unknown as { axe: { run(): Promise<{ passes: AxeRule[]; violations: AxeRule[] }> } }).axe.run(),
  );
  if (result.passes.length === 0) throw new Error('axe-core passed no rule: it did not run on this page');
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Fails the test, naming the page as `what`, if axe-core finds a serious or critical violation on it. */
export async function assertAxeClean(page: Page, what: string): Promise<void> {
  assert.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
}
