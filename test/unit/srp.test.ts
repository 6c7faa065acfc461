import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createPasswordVerifier, encode, G, K, N, powG } from '../../shared/crypto/srp.js';
import { bigIntModPow } from '../../dev-support/srp-client.js';

const big = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  parts.forEach((p) => h.update(p));
  return h.digest();
};

describe('SRP numbers', () => {
  it('uses the 3072-bit RFC 3526 group with g = 2', () => {
    assert.equal(N.length, 384);
    assert.equal(N.toString('hex').slice(0, 16), 'ffffffffffffffff');
    assert.deepEqual([...G], [2]);
  });

  it('encodes like the client: fewest bytes, 0x00 in front of a set top bit, zero as one byte', () => {
    assert.deepEqual([...encode(Buffer.from([0, 0, 0x12, 0x34]))], [0x12, 0x34]);
    assert.deepEqual([...encode(Buffer.from([0x80, 0x01]))], [0x00, 0x80, 0x01]);
    assert.deepEqual([...encode(Buffer.from([0, 0x7f]))], [0x7f]);
    assert.deepEqual([...encode(Buffer.from([0, 0, 0]))], [0x00]);
    assert.deepEqual([...encode(Buffer.alloc(0))], [0x00]);
    assert.equal(encode(N).length, 385, 'N has its top bit set');
  });

  it('k is H(enc(N) ‖ enc(g))', () => {
    assert.equal(K.toString('hex'), sha256(Buffer.concat([Buffer.from([0]), N]), Buffer.from([2])).toString('hex'));
  });

  it('computes g^x mod N through OpenSSL, matching a BigInt computation', () => {
    for (const hex of ['01', '02', 'ff', 'deadbeef'.repeat(8)]) {
      const exponent = Buffer.from(hex, 'hex');
      assert.equal(big(powG(exponent)), bigIntModPow(2n, big(exponent), big(N)), hex);
    }
  });

  it('derives the verifier from the salt, pool name, user id and password', () => {
    const salt = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const { salt: saltHex, verifier } = createPasswordVerifier('PoolAbc', 'user-1', 'Secret#1', salt);
    assert.equal(saltHex, salt.toString('hex'));
    const x = sha256(encode(salt), sha256(Buffer.from('PoolAbcuser-1:Secret#1')));
    assert.equal(BigInt(`0x${verifier}`), bigIntModPow(2n, big(x), big(N)));
    assert.notEqual(createPasswordVerifier('PoolAbc', 'user-1', 'Secret#2', salt).verifier, verifier);
    assert.notEqual(createPasswordVerifier('PoolAbc', 'user-2', 'Secret#1', salt).verifier, verifier);
    assert.notEqual(createPasswordVerifier('PoolAbc', 'user-1', 'Secret#1').salt, saltHex, 'a fresh salt each time');
  });
});
