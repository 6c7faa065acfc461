/** The service provider's certificate (shared/crypto/self-signed-certificate.ts), read and checked by Node's own X.509 parser. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import fc from 'fast-check';
import { derUnsignedInteger, selfSignedCertificate } from '../../shared/crypto/self-signed-certificate.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });

const asNumber = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);

describe('a self-signed certificate', () => {
  it('parses, names its subject and issuer, carries the key, and verifies with it alone', () => {
    const from = new Date('2026-11-25T00:00:00Z');
    const cert = new X509Certificate(selfSignedCertificate(privateKey, 'tenant-identity SAML SP', from, 3650));
    assert.equal(cert.subject, 'CN=tenant-identity SAML SP');
    assert.equal(cert.issuer, cert.subject);
    assert.equal(new Date(cert.validFrom).toISOString(), from.toISOString());
    assert.equal(new Date(cert.validTo).getUTCFullYear(), 2036);
    assert.ok(cert.publicKey.equals(publicKey));
    assert.ok(cert.verify(publicKey));
    assert.ok(!cert.verify(other.publicKey));
    assert.ok(cert.checkIssued(cert));
  });

  it('writes dates after 2049 as GeneralizedTime, and a fresh serial each time', () => {
    const late = new X509Certificate(selfSignedCertificate(privateKey, 'late', new Date('2049-12-31T00:00:00Z'), 10));
    assert.equal(new Date(late.validTo).toISOString(), '2050-01-10T00:00:00.000Z');
    const a = new X509Certificate(selfSignedCertificate(privateKey, 'x', new Date(), 1));
    const b = new X509Certificate(selfSignedCertificate(privateKey, 'x', new Date(), 1));
    assert.notEqual(a.serialNumber, b.serialNumber);
  });

  it('parses with a serial that starts with a zero byte followed by a byte below 0x80 (refused as "illegal padding" before)', () => {
    for (const serial of [[0x00, 0x7f, 1, 2], [0x00, 0x00, 0x01], [0x00, 0x80], [0x01]]) {
      const cert = new X509Certificate(selfSignedCertificate(privateKey, 'padded', new Date(), 1, Buffer.from(serial)));
      assert.equal(BigInt(`0x${cert.serialNumber}`), asNumber(Uint8Array.from(serial)));
    }
  });

  it('encodes every unsigned integer minimally (X.690 8.3.2)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 40 }), (bytes) => {
        const encoded = derUnsignedInteger(bytes);
        assert.equal(encoded[0], 0x02);
        const content = encoded.subarray(2);
        assert.equal(encoded[1], content.length);
        assert.ok(content.length >= 1);
        if (content.length > 1) {
          // The first nine bits are never all zeros nor all ones.
          assert.ok(!(content[0] === 0 && (content[1]! & 0x80) === 0), encoded.toString('hex'));
          assert.ok(!(content[0] === 0xff && (content[1]! & 0x80) !== 0), encoded.toString('hex'));
        }
        assert.equal((content[0]! & 0x80) === 0, true, 'never reads as negative');
        assert.equal(asNumber(content), asNumber(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('is read by Node over many serials, names, dates and lifetimes, and carries the serial it was given', () => {
    const serial = fc
      .uint8Array({ minLength: 1, maxLength: 20 })
      .filter((bytes) => bytes.some((b) => b !== 0))
      // Leading zero bytes in a quarter of the cases: the shape that broke one certificate in 256.
      .chain((bytes) => fc.constantFrom(bytes, Uint8Array.from([0, ...bytes.subarray(0, 19)])))
      .filter((bytes) => bytes.some((b) => b !== 0));
    const notBefore = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('9000-01-01T00:00:00Z'), noInvalidDate: true });
    fc.assert(
      fc.property(
        serial,
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 64 }),
        notBefore,
        fc.integer({ min: 0, max: 36500 }),
        (serialBytes, subject, from, days) => {
          const cert = new X509Certificate(selfSignedCertificate(privateKey, subject, from, days, Buffer.from(serialBytes)));
          assert.equal(BigInt(`0x${cert.serialNumber}`), asNumber(serialBytes));
          assert.ok(cert.verify(publicKey));
          assert.ok(cert.publicKey.equals(publicKey));
          assert.equal(cert.issuer, cert.subject);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is read by Node with its own fresh serials, many times over', () => {
    for (let i = 0; i < 1024; i++) new X509Certificate(selfSignedCertificate(privateKey, 'fresh', new Date(), 1));
  });
});
