/** Known password-hash vectors, each with the password that made it: the unit test of each format and the import test share them. */
import type { ImportedPasswordHash } from '../../shared/crypto/imported-hash.js';

const hex = (value: string) => Buffer.from(value, 'hex').toString('base64');

/**
 * Known vectors, each with the password that made it. bcrypt: crypt_blowfish's bundled vectors, as hash-wasm's
 * bcrypt tests hold them; the three prefixes differ only for passwords with bytes of 0x80 and above, so an
 * ASCII vector holds under each. Argon2: the reference implementation's tests (P-H-C/phc-winner-argon2, its
 * test.c). scrypt: RFC 7914 section 12. Firebase: the sample of firebase/scrypt's README. PBKDF2: RFC 6070
 * (SHA-1), RFC 7914 section 11 (SHA-256), and the widely published SHA-512 counterpart of RFC 6070's first.
 * SHA-2: FIPS 180-2's "abc", split into salt and password.
 */
export const HASH_VECTORS: [string, ImportedPasswordHash, string][] = [
  ['bcrypt $2a$', { algorithm: 'bcrypt', hash: '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' }, 'U*U'],
  ['bcrypt $2b$', { algorithm: 'bcrypt', hash: '$2b$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK' }, 'U*U*'],
  ['bcrypt $2y$', { algorithm: 'bcrypt', hash: '$2y$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a' }, 'U*U*U'],
  [
    'bcrypt, 72 bytes used',
    { algorithm: 'bcrypt', hash: '$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui' },
    '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ],
  ['argon2i', { algorithm: 'argon2', hash: '$argon2i$v=19$m=256,t=2,p=2$c29tZXNhbHQ$T/XOJ2mh1/TIpJHfCdQan76Q5esCFVoT5MAeIM1Oq2E' }, 'password'],
  ['argon2id', { algorithm: 'argon2', hash: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc' }, 'password'],
  [
    'scrypt N=1024 r=8 p=16',
    {
      algorithm: 'scrypt',
      hash: 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
      salt: Buffer.from('NaCl').toString('hex'),
      n: 1024,
      r: 8,
      p: 16,
      encoding: 'hex',
    },
    'password',
  ],
  [
    'scrypt N=16384 r=8 p=1',
    {
      algorithm: 'scrypt',
      hash: hex('7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887'),
      salt: Buffer.from('SodiumChloride').toString('base64'),
      n: 16384,
      r: 8,
      p: 1,
    },
    'pleaseletmein',
  ],
  [
    'firebase_scrypt',
    {
      algorithm: 'firebase_scrypt',
      hash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
      salt: '42xEC+ixf3L2lw==',
      salt_separator: 'Bw==',
      signer_key: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
      rounds: 8,
      mem_cost: 14,
    },
    'user1password',
  ],
  [
    'pbkdf2 sha1',
    { algorithm: 'pbkdf2', digest: 'sha1', iterations: 4096, hash: '4b007901b765489abead49d926f721d065a429c1', salt: '73616c74', encoding: 'hex' },
    'password',
  ],
  [
    'pbkdf2 sha256',
    {
      algorithm: 'pbkdf2',
      digest: 'sha256',
      iterations: 80000,
      hash: hex('4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d'),
      salt: Buffer.from('NaCl').toString('base64'),
    },
    'Password',
  ],
  [
    'pbkdf2 sha512',
    {
      algorithm: 'pbkdf2',
      digest: 'sha512',
      iterations: 1,
      hash: hex('867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce'),
      salt: Buffer.from('salt').toString('base64'),
    },
    'password',
  ],
  [
    'sha256, salt first',
    {
      algorithm: 'sha256',
      hash: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      salt: Buffer.from('a').toString('hex'),
      salt_position: 'prefix',
      encoding: 'hex',
    },
    'bc',
  ],
  [
    'sha512, salt last',
    {
      algorithm: 'sha512',
      hash: hex('ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f'),
      salt: Buffer.from('c').toString('base64'),
      salt_position: 'suffix',
    },
    'ab',
  ],
];

/** The vector of that name. */
export function hashVector(name: string): { hash: ImportedPasswordHash; password: string } {
  const found = HASH_VECTORS.find(([label]) => label === name);
  if (!found) throw new Error(`no vector ${name}`);
  return { hash: found[1], password: found[2] };
}
