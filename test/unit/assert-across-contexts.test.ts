import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { describe, it } from '@jest/globals';

// test/support/assert.ts: what Jest's separate contexts need, and no looser than node:assert/strict.
describe('deep assertions across VM contexts', () => {
  it('call equal values from another context equal', () => {
    assert.deepEqual(runInNewContext('({ keys: [{ kid: "a" }], n: 1 })'), { keys: [{ kid: 'a' }], n: 1 });
    assert.deepStrictEqual(runInNewContext('[1, [2]]'), [1, [2]]);
  });

  it('still tell different values, types and prototypes apart', () => {
    assert.throws(() => assert.deepEqual(runInNewContext('({ n: 1 })'), { n: '1' }), assert.AssertionError);
    assert.throws(() => assert.deepEqual(runInNewContext('[1, 2]'), [1]), assert.AssertionError);
    assert.throws(() => assert.deepEqual(new Date(0), {}), assert.AssertionError);
    assert.throws(() => assert.deepEqual({ a: undefined }, {}), assert.AssertionError);
    assert.notDeepEqual(runInNewContext('({ n: 1 })'), { n: 2 });
  });
});
