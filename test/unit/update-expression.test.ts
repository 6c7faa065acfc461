import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { Update } from '../../shared/store/update.js';

describe('Update', () => {
  it('builds every clause with placeholders, paths into maps included', () => {
    const update = new Update()
      .set('name', 'x')
      .set('history', [1], 'list_append(if_not_exists(#self, :empty), :v)')
      .remove(['attributes', 'old.name'])
      .add('count', 1)
      .delete('roles', new Set(['1#admin']));
    assert.equal(update.expression(), 'SET #n0 = :v1, #n2 = list_append(if_not_exists(#n2, :empty), :v3) REMOVE #n4.#n5 ADD #n6 :v7 DELETE #n8 :v9');
    assert.deepEqual(update.names, { '#n0': 'name', '#n2': 'history', '#n4': 'attributes', '#n5': 'old.name', '#n6': 'count', '#n8': 'roles' });
    assert.deepEqual(update.values, { ':v1': 'x', ':v3': [1], ':empty': [], ':v7': 1, ':v9': new Set(['1#admin']) });
  });

  it('turns attribute changes into sets and removes', () => {
    const update = new Update().changeEntries('attributes', { a: 1, b: null });
    assert.equal(update.expression(), 'SET #n0.#n1 = :v2 REMOVE #n3.#n4');
    assert.equal(new Update().changeEntries('attributes', {}).isEmpty(), true);
  });
});
