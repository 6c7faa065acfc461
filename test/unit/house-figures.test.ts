/**
 * docs/architecture.md's house figures are the tree's (scripts/house.ts): the same largest file, longest
 * functions and folders, and every count within DRIFT of the one measured now. `npm run house -- --write`
 * measures the doc's block again.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { blockOf, DOC, DRIFT, houseBlock, LINE_LIMITS, measure, overLimits } from '../../scripts/house.js';

const NUMBER = /\d[\d,]*/g;
const numbers = (block: string) => [...block.matchAll(NUMBER)].map((m) => Number(m[0].replaceAll(',', '')));
/** What the block says besides its counts: which file, which functions, which folders. */
const shape = (block: string) => block.replace(NUMBER, '#');

/** Counts that differ by more than DRIFT (or 2, for the small ones), as `written → measured`. */
function drifted(written: string, measured: string): string[] {
  const now = numbers(measured);
  return numbers(written).flatMap((was, i) => {
    const is = now[i] ?? NaN;
    return Math.abs(is - was) <= Math.max(2, DRIFT * was) ? [] : [`${was} → ${is}`];
  });
}

describe('the house figures', () => {
  const figures = measure('.');

  it('count every source file, .tsx and .mjs among them', () => {
    const counted = new Map(figures.folders);
    assert.ok((counted.get('web/console/')?.files ?? 0) > 20, 'the console, mostly .tsx');
    assert.ok((counted.get('scripts/')?.files ?? 0) >= 10, 'scripts/cli.mjs among them');
    assert.equal(
      figures.folders.reduce((sum, [, f]) => sum + f.files, 0),
      figures.total.files,
    );
  });

  it('tell a moved figure and a drifted count from the doc', () => {
    const written = houseBlock(figures);
    assert.deepEqual(drifted(written, written), []);
    const grown = houseBlock({ ...figures, total: { files: figures.total.files * 2, lines: figures.total.lines } });
    assert.deepEqual(drifted(written, grown), [`${figures.total.files} → ${figures.total.files * 2}`]);
    const moved = houseBlock({ ...figures, largest: { ...figures.largest, where: 'shared/elsewhere.ts' } });
    assert.notEqual(shape(moved), shape(written));
  });

  it('have no file longer than its place allows: 150 lines in functions/ and the wiring, 400 in web/', () => {
    assert.deepEqual(
      LINE_LIMITS.map(({ under, lines }) => `${under} ${lines}`),
      ['functions/ 150', 'shared/wiring.ts 150', 'shared/wiring/ 150', 'web/ 400'],
    );
    assert.ok(overLimits('.', [{ under: 'web/', lines: 300 }]).length > 0, 'a lower limit finds the longest files of web/');
    assert.deepEqual(overLimits('.'), []);
  });

  it('are those docs/architecture.md shows (npm run house -- --write measures them again)', () => {
    const written = blockOf(readFileSync(DOC, 'utf8'));
    const measured = houseBlock(figures);
    assert.equal(shape(written), shape(measured), `${DOC} names another file, function or folder: run npm run house -- --write`);
    assert.deepEqual(drifted(written, measured), [], `${DOC}'s figures drifted: run npm run house -- --write`);
  });
});
