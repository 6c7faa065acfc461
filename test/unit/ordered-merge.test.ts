/**
 * The user directory's read merges its shards (shared/store/ordered-merge.ts): over random sources, the merge is
 * the sorted union, each position once, only after the start position, in DynamoDB's order (UTF-8 bytes), and it
 * reads a source only as far as its reader goes.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Positioned } from '../../shared/domain/paging.js';
import { compareKeys, mergeAscending } from '../../shared/store/ordered-merge.js';

const bytesOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const sign = (n: number) => Math.sign(n);

/** A source over sorted positions, counting how many items were taken from it. */
function source(positions: string[], taken: { count: number }): AsyncIterator<Positioned<string>> {
  return (async function* () {
    for (const position of positions) {
      taken.count++;
      yield { position, item: `item ${position}` };
    }
  })();
}

/** Short strings over a few letters, a space, a letter past U+FFFF and one from U+E000 up: where the orders part. */
const key = fc.string({ unit: fc.constantFrom('a', 'b', 'B', ' ', '#', '\u{1F600}', '\uE000', '\uFFFD', 'é'), maxLength: 6 });

async function drain<T>(merged: AsyncGenerator<Positioned<T>>, stopAfter = Infinity): Promise<Positioned<T>[]> {
  const out: Positioned<T>[] = [];
  for await (const entry of merged) {
    out.push(entry);
    if (out.length >= stopAfter) break;
  }
  return out;
}

describe('compareKeys', () => {
  it('orders as the UTF-8 bytes do', () => {
    fc.assert(
      fc.property(key, key, (a, b) => sign(compareKeys(a, b)) === sign(bytesOrder(a, b))),
      { numRuns: 2000 },
    );
    assert.ok(compareKeys('\u{1F600}', '\uE000') > 0, 'a code point past U+FFFF sorts after U+E000, unlike UTF-16 units');
    assert.ok('\u{1F600}' < '\uE000', 'where JavaScript alone would put it first');
  });
});

describe('mergeAscending', () => {
  it('is the sorted union of its sources, each position once, after the start', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Up to 6 sources; positions may repeat across sources (an entry met on two keys while it moves).
        fc.array(fc.uniqueArray(key, { maxLength: 12 }), { maxLength: 6 }),
        fc.option(key, { nil: undefined }),
        async (lists, after) => {
          const sorted = lists.map((list) => [...list].sort(bytesOrder));
          // A source read after a position holds only what follows it, as a query resumed there does.
          const read = sorted.map((list) => list.filter((p) => after === undefined || bytesOrder(p, after) > 0));
          const merged = await drain(
            mergeAscending(
              read.map((list) => source(list, { count: 0 })),
              after,
            ),
          );
          const expected = [...new Set(read.flat())].sort(bytesOrder);
          assert.deepEqual(
            merged.map((m) => m.position),
            expected,
          );
          assert.deepEqual(
            merged.map((m) => m.item),
            expected.map((p) => `item ${p}`),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('drops what a source holds at or before the start position', async () => {
    const merged = await drain(mergeAscending([source(['a', 'c', 'e'], { count: 0 }), source(['b', 'd'], { count: 0 })], 'c'));
    assert.deepEqual(
      merged.map((m) => m.position),
      ['d', 'e'],
    );
  });

  it('reads each source no further than the reader takes', async () => {
    await fc.assert(
      // Positions on one source each, as the directory's entries are when none is moving.
      fc.asyncProperty(fc.uniqueArray(key, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 5 }), fc.nat(12), async (keys, n, stop) => {
        const sorted = Array.from({ length: n }, (_, i) => keys.filter((_, j) => j % n === i).sort(bytesOrder));
        const counts = sorted.map(() => ({ count: 0 }));
        const merged = await drain(
          mergeAscending(
            sorted.map((list, i) => source(list, counts[i]!)),
            undefined,
          ),
          Math.max(1, stop),
        );
        // Each source has handed out its head at the start, and beyond it only the items the reader took.
        const handedOut = merged.length;
        const taken = counts.reduce((sum, c) => sum + c.count, 0);
        assert.ok(taken <= handedOut + sorted.length, `${taken} items taken for ${handedOut} handed out`);
      }),
      { numRuns: 300 },
    );
  });
});
