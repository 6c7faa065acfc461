/**
 * A self-signed X.509 v3 certificate for an RSA key: what a SAML service provider publishes in its metadata so
 * an identity provider can check the AuthnRequests it signs (web/login/saml/service-provider.ts). Node can read
 * certificates (`X509Certificate`) but not make them; the DER here is the minimum RFC 5280 asks for (version,
 * serial, sha256WithRSAEncryption, issuer = subject = one common name, validity, the key), signed with
 * node:crypto. Why not an X.509 library: docs/decisions.md ("The certificate maker"). A property test
 * (test/unit/self-signed-certificate.test.ts) has Node's own parser read and verify certificates over many
 * serials, names and dates.
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

/**
 * A non-negative INTEGER from its big-endian bytes, in the one encoding DER allows (X.690 8.3.2): no leading
 * zero byte unless the next byte's high bit would otherwise read as a sign. A random serial starting 0x00 0x7f
 * written as it came was refused by OpenSSL ("illegal padding"), one certificate in 256.
 */
export function derUnsignedInteger(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = Buffer.from(bytes.subarray(start));
  if (minimal.length === 0) return der(0x02, Buffer.from([0]));
  return der(0x02, minimal[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}
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

/** UTCTime from 1950 to 2049, GeneralizedTime outside (RFC 5280, 4.1.2.5); whole seconds, as DER wants. */
function time(date: Date): Buffer {
  const year = date.getUTCFullYear();
  if (!Number.isFinite(date.getTime()) || year < 1 || year > 9999) throw new RangeError(`a certificate cannot be valid at ${String(date)}`);
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return year >= 1950 && year < 2050 ? der(0x17, Buffer.from(`${iso.slice(2)}Z`)) : der(0x18, Buffer.from(`${iso}Z`));
}

const commonName = (name: string) => sequence(set(sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(name, 'utf8')))));
const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), NULL);

/**
 * A fresh serial: 16 random bytes, positive (RFC 5280 4.1.2.2: at most 20 octets, positive) and with its
 * second-highest bit set, so it never starts with a zero byte and all serials are 16 bytes long.
 */
function newSerial(): Buffer {
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  return serial;
}

/** The certificate in PEM, valid from `notBefore` for `days`. `serial` (big-endian, positive) is for tests. */
export function selfSignedCertificate(privateKey: KeyObject, subject: string, notBefore: Date, days: number, serial = newSerial()): string {
  const notAfter = new Date(notBefore.getTime() + days * 86_400_000);
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const tbs = sequence(
    der(0xa0, derUnsignedInteger(Buffer.from([2]))),
    derUnsignedInteger(serial),
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
