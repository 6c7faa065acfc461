/** What a warm instance keeps of hot reads (store/recent.ts): for its seconds, found items only, evicted by its own writes. */
import { afterEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { Recent } from '../../shared/store/recent.js';

afterEach(() => resetClockForTests());

/** A load that answers `values` in turn and counts its calls. */
function loader<T>(...values: T[]) {
  let calls = 0;
  return { load: async () => values[calls++ % values.length] as T, calls: () => calls };
}

describe('Recent', () => {
  it('keeps a found value for its seconds, then reads again', async () => {
    const recent = new Recent<string>();
    const source = loader('first', 'second');
    setClockForTests(1_000_000);
    assert.equal(await recent.get('k', 10, source.load), 'first');
    setClockForTests(1_009_999);
    assert.equal(await recent.get('k', 10, source.load), 'first');
    assert.equal(source.calls(), 1);
    setClockForTests(1_010_000);
    assert.equal(await recent.get('k', 10, source.load), 'second');
    assert.equal(source.calls(), 2);
  });

  it('keeps nothing with 0 seconds, and never keeps a missing item', async () => {
    const recent = new Recent<string | undefined>();
    const kept = loader<string | undefined>('a');
    await recent.get('k', 0, kept.load);
    await recent.get('k', 0, kept.load);
    assert.equal(kept.calls(), 2);
    const missing = loader<string | undefined>(undefined, 'written since');
    assert.equal(await recent.get('m', 10, missing.load), undefined);
    assert.equal(await recent.get('m', 10, missing.load), 'written since');
  });

  it('forgets a key at once', async () => {
    const recent = new Recent<string>();
    const source = loader('old', 'new');
    await recent.get('k', 60, source.load);
    recent.forget('k');
    assert.equal(await recent.get('k', 60, source.load), 'new');
  });

  it('holds at most 10,000 entries, dropping the oldest', async () => {
    const recent = new Recent<number>();
    for (let i = 0; i <= 10_000; i++) await recent.get(`k${i}`, 60, async () => i);
    const again = loader(-1);
    assert.equal(await recent.get('k10000', 60, again.load), 10_000, 'the newest is kept');
    assert.equal(await recent.get('k0', 60, again.load), -1, 'the oldest was dropped');
  });
});
