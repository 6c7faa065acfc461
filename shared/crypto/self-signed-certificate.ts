/**
 * A self-signed X.509 v3 certificate for an RSA key: what a SAML service provider publishes in its metadata so
 * an identity provider can check the AuthnRequests it signs (functions/login/saml.ts). Node can read
 * certificates (`X509Certificate`) but not make them; the DER here is the minimum RFC 5280 asks for (version,
 * serial, sha256WithRSAEncryption, issuer = subject = one common name, validity, the key), signed with
 * node:crypto. test/unit/self-signed-certificate.test.ts has Node's own parser read and verify it.
 */
import { createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';

const der = (tag: number, content: Buffer): Buffer => {
  const n = content.length;
  const length =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
};
const sequence = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));
/** A non-negative INTEGER: a leading zero byte keeps the high bit from reading as a sign. */
const integer = (bytes: Buffer) => der(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
const NULL = Buffer.from([0x05, 0x00]);

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280, 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(`${iso.slice(2)}Z`)) : der(0x18, Buffer.from(`${iso}Z`));
}

const commonName = (name: string) => sequence(set(sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(name, 'utf8')))));
const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), NULL);

/** The certificate in PEM, valid from `notBefore` for `days`. */
export function selfSignedCertificate(privateKey: KeyObject, subject: string, notBefore: Date, days: number): string {
  const notAfter = new Date(notBefore.getTime() + days * 86_400_000);
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const tbs = sequence(
    der(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    SHA256_WITH_RSA,
    commonName(subject),
    sequence(time(notBefore), time(notAfter)),
    commonName(subject),
    spki,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, SHA256_WITH_RSA, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const body = certificate.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}
