import { afterEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { newOneTimeCode, oneTimeCodeMatches } from '../../shared/crypto/one-time-code.js';
import { base32Decode, base32Encode, matchTotp, newTotpSecret, totpCodeAt, totpStep, totpUri } from '../../shared/crypto/totp.js';

afterEach(() => resetClockForTests());

/** RFC 6238 appendix B, SHA-1 column: the 20-byte ASCII secret "12345678901234567890", 8 digits. */
const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP', () => {
  it("computes RFC 6238's SHA-1 test vectors", () => {
    for (const [time, code] of RFC_VECTORS) {
      assert.equal(totpCodeAt(RFC_SECRET, totpStep(time), 8), code, `T = ${time}`);
      assert.equal(totpCodeAt(RFC_SECRET, totpStep(time)), code.slice(-6), `6 digits at T = ${time}`);
    }
  });

  it('base32 round-trips and reads RFC 4648 vectors as people copy them', () => {
    assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
    assert.equal(base32Encode(Buffer.from('f')), 'MY');
    assert.equal(base32Decode('mzxw 6ytb oi======')?.toString(), 'foobar');
    assert.equal(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ')?.toString(), '12345678901234567890');
    assert.equal(base32Decode('M1'), undefined, 'not base32');
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/, '160 bits');
    assert.equal(base32Decode(secret)?.length, 20);
    assert.notEqual(newTotpSecret(), secret);
  });

  it('accepts the code of now and of one step either side, and says which step', () => {
    const secret = base32Encode(RFC_SECRET);
    setClockForTests(1111111111 * 1000);
    const now = totpStep(1111111111);
    assert.equal(matchTotp(secret, '050471'), now);
    assert.equal(matchTotp(secret, totpCodeAt(RFC_SECRET, now - 1)), now - 1);
    assert.equal(matchTotp(secret, totpCodeAt(RFC_SECRET, now + 1)), now + 1);
    assert.equal(matchTotp(secret, totpCodeAt(RFC_SECRET, now + 2)), undefined);
    assert.equal(matchTotp(secret, totpCodeAt(RFC_SECRET, now - 2)), undefined);
  });

  it('refuses codes that are not six digits and secrets that are not base32', () => {
    const secret = base32Encode(RFC_SECRET);
    setClockForTests(59_000);
    assert.equal(matchTotp(secret, '287082'), totpStep(59));
    for (const code of ['94287082', '28708', ' 287082', 'abcdef', '']) assert.equal(matchTotp(secret, code), undefined, code);
    assert.equal(matchTotp('not base32!', '287082'), undefined);
    assert.equal(matchTotp('', '287082'), undefined);
  });

  it('builds the otpauth:// URI authenticator apps scan', () => {
    const uri = new URL(totpUri({ secret: 'JBSWY3DPEHPK3PXP', accountName: 'ann@example.test', issuer: 'Acme Cloud' }));
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(decodeURIComponent(uri.pathname), '/Acme Cloud:ann@example.test');
    assert.equal(uri.searchParams.get('secret'), 'JBSWY3DPEHPK3PXP');
    assert.equal(uri.searchParams.get('issuer'), 'Acme Cloud');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), '30');
    assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
    assert.doesNotMatch(totpUri({ secret: 'A', accountName: 'a b', issuer: 'c d' }), /\+/);
  });
});

describe('one-time codes', () => {
  it('are six digits, leading zeros kept, and not repeated', () => {
    const codes = Array.from({ length: 2000 }, () => newOneTimeCode());
    assert.ok(codes.every((c) => /^\d{6}$/.test(c)));
    assert.ok(
      codes.some((c) => c.startsWith('0')),
      'leading zeros survive',
    );
    assert.ok(new Set(codes).size > 1990);
  });

  it('match only the issued code, spaces around it forgiven', () => {
    assert.ok(oneTimeCodeMatches(' 012345 ', '012345'));
    assert.ok(!oneTimeCodeMatches('12345', '012345'));
    assert.ok(!oneTimeCodeMatches('012346', '012345'));
    assert.ok(!oneTimeCodeMatches('', '012345'));
  });
});
