/**
 * The console's catalogues (web/console/texts): every key of English is in Japanese and the reverse, none left
 * empty, each `{mark}` kept; every page of the navigation is named in both.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { CATALOGUES } from '../../web/console/console.js';
import { EN } from '../../web/console/texts/en.js';

type Tree = { [key: string]: string | Tree };

function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out.set(`${prefix}${key}`, value);
    else for (const [k, v] of leaves(value, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
}

const marks = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the console catalogues', () => {
  const english = leaves(EN as unknown as Tree);

  it('are English and Japanese', () => {
    assert.deepEqual(Object.keys(CATALOGUES).sort(), ['en', 'ja']);
  });

  for (const [lang, catalogue] of Object.entries(CATALOGUES)) {
    it(`${lang}: has every key of the others, none empty, the same marks`, () => {
      const these = leaves(catalogue as unknown as Tree);
      assert.deepEqual([...these.keys()].sort(), [...english.keys()].sort());
      for (const [key, text] of these) {
        assert.ok(text.trim().length > 0, `${lang} ${key} is empty`);
        assert.deepEqual(marks(text), marks(english.get(key) ?? ''), `${lang} ${key} keeps its marks`);
      }
      assert.equal(catalogue.lang, lang);
    });
  }
});
