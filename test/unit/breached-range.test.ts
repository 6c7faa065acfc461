/**
 * The range service's query and answer (shared/domain/configuration/breached-range.ts): the 5-character prefix
 * of the upper-case SHA-1 of the NFKC form, and the count an answer gives for the suffix kept here, padding
 * (count 0) and lines of any other shape counting nothing, whatever the answer holds.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { RANGE_PREFIX_LENGTH, rangeCount, rangeQuery } from '../../shared/domain/configuration/breached-range.js';

const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFabcdef'), minLength: length, maxLength: length });
const line = fc.oneof(
  fc.record({ kind: fc.constant('entry' as const), suffix: hex(35), count: fc.nat() }),
  fc.record({ kind: fc.constant('junk' as const), text: fc.string() }),
);

describe('the range query', () => {
  it('splits the upper-case SHA-1 of the NFKC form into a 5-character prefix that is sent and a suffix that is not', () => {
    // The Pwned Passwords API's documented example: SHA-1("P@ssw0rd") = 21BD12DC183F740EE76F27B78EB39C8AD972A757.
    assert.deepEqual(rangeQuery('P@ssw0rd'), { prefix: '21BD1', suffix: '2DC183F740EE76F27B78EB39C8AD972A757' });
    assert.deepEqual(rangeQuery('Ｐ＠ｓｓｗ０ｒｄ'), rangeQuery('P@ssw0rd'), 'full-width is the same password');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (password) => {
        const { prefix, suffix } = rangeQuery(password);
        assert.equal(prefix.length, RANGE_PREFIX_LENGTH);
        assert.equal(prefix + suffix, createHash('sha1').update(password.normalize('NFKC')).digest('hex').toUpperCase());
      }),
    );
  });
});

describe('the range answer', () => {
  it('gives the count of the suffix, ignores padding lines of count 0, and reads both line ends and either case', () => {
    const answer = [
      '0018A45C4D1DEF81644B54AB7F969B88D65:1',
      '2DC183F740EE76F27B78EB39C8AD972A757:52579',
      '00D4F6E8FA6EECAD2A3AA415EEC418D38EC:0',
    ].join('\r\n');
    assert.equal(rangeCount(answer, '2DC183F740EE76F27B78EB39C8AD972A757'), 52579);
    assert.equal(rangeCount(answer, '2dc183f740ee76f27b78eb39c8ad972a757'), 52579);
    assert.equal(rangeCount(answer, '00D4F6E8FA6EECAD2A3AA415EEC418D38EC'), 0, 'padding');
    assert.equal(rangeCount(answer.replaceAll('\r\n', '\n'), '0018A45C4D1DEF81644B54AB7F969B88D65'), 1);
    assert.equal(rangeCount('', '2DC183F740EE76F27B78EB39C8AD972A757'), 0);
    assert.equal(rangeCount('2DC183F740EE76F27B78EB39C8AD972A757:lots', '2DC183F740EE76F27B78EB39C8AD972A757'), 0, 'not a count');
    assert.equal(rangeCount('2DC183F740EE76F27B78EB39C8AD972A75:9', '2DC183F740EE76F27B78EB39C8AD972A75'), 0, 'not a suffix');
  });

  it('over many random answers, counts what the first line of the suffix says and nothing else', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), hex(35), fc.constantFrom('\n', '\r\n'), (lines, wanted, end) => {
        const text = lines.map((l) => (l.kind === 'entry' ? `${l.suffix}:${l.count}` : l.text)).join(end);
        // Junk may itself hold a line of the right shape; the model reads lines as the parser must.
        const model = text
          .split(/\r?\n/)
          .map((l) => /^\s*([0-9A-Fa-f]{35}):(\d+)\s*$/.exec(l))
          .find((m) => m && m[1]!.toUpperCase() === wanted.toUpperCase());
        assert.equal(rangeCount(text, wanted), model ? Number(model[2]) : 0);
      }),
      { numRuns: 500 },
    );
  });

  it('finds a listed suffix wherever it stands among padding, and never one that is absent', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(hex(35), { minLength: 1, maxLength: 50, selector: (s) => s.toUpperCase() }),
        fc.nat(),
        fc.integer({ min: 1 }),
        (suffixes, at, count) => {
          const [listed, ...padding] = suffixes as [string, ...string[]];
          const lines = padding.map((s) => `${s}:0`);
          lines.splice(at % (lines.length + 1), 0, `${listed}:${count}`);
          assert.equal(rangeCount(lines.join('\r\n'), listed), count);
          for (const absent of padding) assert.equal(rangeCount(lines.join('\r\n'), absent), 0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
