/** The service provider's certificate (shared/crypto/self-signed-certificate.ts), read and checked by Node's own X.509 parser. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { selfSignedCertificate } from '../../shared/crypto/self-signed-certificate.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });

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
});
