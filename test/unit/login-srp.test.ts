/**
 * The login screen's own SRP client (web/login/srp.ts, BigInt and WebCrypto) against the two implementations
 * it must agree with, over many random inputs: amazon-cognito-identity-js's AuthenticationHelper (client/srp.ts,
 * the same secret a given to both) for SRP_A and the proof, and the service's SRP engine (shared/crypto) for
 * device verifiers, proofs and timestamps.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import bigIntegerModule from 'amazon-cognito-identity-js/lib/BigInteger.js';
import { SrpClient as CognitoSrpClient } from '../../client/srp.js';
import { createPasswordVerifier, N, powG } from '../../shared/crypto/srp.js';
import {
  deviceVerifierFromClient,
  expectedClaimSignature,
  parseSrpA,
  serverExchange,
  srpTimestamp as serverTimestamp,
} from '../../shared/crypto/srp-server.js';
import { modPow, newDeviceSecret, padHex, passwordForms, SrpClient, srpTimestamp } from '../../web/login/srp.js';

const BigInteger = bigIntegerModule.default;
const N_BIG = BigInt(`0x${N.toString('hex')}`);
const CASES = 40;

/** AuthenticationHelper with its secret a set to `secret`, as the helper would have drawn it. */
function cognitoWith(secret: Buffer): CognitoSrpClient {
  const client = new CognitoSrpClient();
  const helper = (client as unknown as { helper: { smallAValue: unknown; largeAValue: unknown } }).helper;
  helper.smallAValue = new BigInteger(secret.toString('hex'), 16);
  helper.largeAValue = undefined;
  return client;
}

/** 128 bytes, sometimes with leading zero bytes (a shorter a, a shorter hex). */
const secretA = (i: number) => {
  const bytes = randomBytes(128);
  if (i % 5 === 0) bytes.fill(0, 0, randomInt(1, 4));
  return bytes;
};

/** A salt as the server sends it (hex), sometimes odd-length, with leading zeros, or with its top bit set. */
function saltHex(i: number): string {
  const bytes = randomBytes(randomInt(1, 33));
  if (i % 4 === 1) bytes[0] = 0;
  if (i % 4 === 2) bytes[0]! |= 0x80;
  const hex = bytes.toString('hex');
  return i % 4 === 3 ? hex.replace(/^0*/, '').slice(0, -1) || '1' : hex;
}

/** B anywhere in [1, N), leading zeros dropped as BigInteger.toString(16) writes it. */
const randomB = () => ((BigInt(`0x${randomBytes(400).toString('hex')}`) % (N_BIG - 1n)) + 1n).toString(16);

const words = ['taro', 'パスワード', 'p@ss w0rd', 'Ünïcödé', '🙂', '', 'a:b:c', 'x'.repeat(200)];
const randomText = () => `${words[randomInt(words.length)]}${randomBytes(randomInt(0, 12)).toString('base64')}`;

describe("the login screen's SRP client", () => {
  it('makes the same SRP_A and the same proof as AuthenticationHelper for the same secret, over many random inputs', async () => {
    for (let i = 0; i < CASES; i++) {
      const secret = secretA(i);
      const ours = new SrpClient(secret);
      const cognito = cognitoWith(secret);
      const A = await ours.srpA();
      assert.equal(A, await cognito.srpA(), `case ${i}: SRP_A`);
      const challenge = {
        srp_b: randomB(),
        salt: saltHex(i),
        secret_block: randomBytes(randomInt(1, 600)).toString('base64'),
        pool_name: `Pool${randomBytes(4).toString('hex')}`,
        username: randomText(),
        session: randomBytes(8).toString('hex'),
      };
      const password = randomText();
      const timestamp = serverTimestamp(new Date(randomInt(0, 4_102_444_800) * 1000));
      assert.deepEqual(
        await ours.passwordClaim(challenge, password, timestamp),
        await cognito.passwordClaim(challenge, password, timestamp),
        `case ${i}: ${JSON.stringify({ ...challenge, password, timestamp })}`,
      );
    }
  });

  it('makes device secrets the service accepts: the verifier is g^x of the password and salt it keeps', async () => {
    for (let i = 0; i < CASES / 4; i++) {
      const group = `-${randomBytes(6).toString('hex')}`;
      const key = `eu-west-1_${randomBytes(8).toString('hex')}`;
      const { device, salt, verifier } = await newDeviceSecret(group, key);
      assert.deepEqual({ key: device.key, group: device.group }, { key, group });
      const accepted = deviceVerifierFromClient({ password_verifier: verifier, salt });
      assert.ok(accepted, `case ${i}`);
      const expected = createPasswordVerifier(group, key, device.password, Buffer.from(salt, 'base64'));
      assert.equal(BigInt(`0x${accepted.verifier}`), BigInt(`0x${expected.verifier}`), `case ${i}`);

      // And the device proves itself to the service's engine with that password, and not without it.
      const client = new SrpClient();
      const exchange = serverExchange(accepted.verifier, parseSrpA(await client.srpA()) as bigint);
      const secretBlock = randomBytes(64);
      const parameters = { SRP_B: exchange.B.toString(16), SALT: accepted.salt, SECRET_BLOCK: secretBlock.toString('base64') };
      const answer = await client.deviceClaim(parameters, 'session', device, 'user-name');
      assert.equal(answer.USERNAME, 'user-name');
      assert.equal(answer.DEVICE_KEY, key);
      const proof = { poolName: group, userIdForSrp: key, secretBlock, timestamp: answer.TIMESTAMP as string };
      assert.equal(answer.PASSWORD_CLAIM_SIGNATURE, expectedClaimSignature(exchange, accepted.verifier, proof), `case ${i}`);
      const wrong = await new SrpClient().deviceClaim(parameters, 'session', { ...device, password: `${device.password}x` }, 'user-name');
      assert.notEqual(wrong.PASSWORD_CLAIM_SIGNATURE, expectedClaimSignature(exchange, accepted.verifier, proof));
    }
  });

  it('proves the NFKC form of a password first, and the typed form only where it differs', () => {
    assert.deepEqual(passwordForms('Kyoto#Lantern8 春'), ['Kyoto#Lantern8 春']);
    assert.deepEqual(passwordForms('Ｋｙｏｔｏ　ｶﾞ'), ['Kyoto ガ', 'Ｋｙｏｔｏ　ｶﾞ']);
  });

  it('writes the TIMESTAMP as the service parses it, on any date', () => {
    for (let i = 0; i < 500; i++) {
      const date = new Date(randomInt(0, 4_102_444_800) * 1000);
      assert.equal(srpTimestamp(date), serverTimestamp(date));
    }
  });

  it('encodes and exponentiates as the helper and OpenSSL do', () => {
    assert.equal(padHex(0n), '00');
    assert.equal(padHex(0x7fn), '7f');
    assert.equal(padHex(0x80n), '0080');
    assert.equal(padHex(0x1234n), '1234');
    assert.equal(padHex(0xabcn), '0abc');
    for (let i = 0; i < 20; i++) {
      const exponent = randomBytes(randomInt(1, 64));
      const base = BigInt(`0x${randomBytes(384).toString('hex')}`) - N_BIG / 2n;
      const e = BigInt(`0x${exponent.toString('hex')}`);
      let slow = 1n;
      for (let b = ((base % N_BIG) + N_BIG) % N_BIG, rest = e; rest > 0n; rest >>= 1n, b = (b * b) % N_BIG) {
        if (rest & 1n) slow = (slow * b) % N_BIG;
      }
      assert.equal(modPow(base, e), slow);
      assert.equal(modPow(2n, e), BigInt(`0x${powG(exponent).toString('hex')}`), 'g^e as OpenSSL computes it');
    }
  });

  it('refuses a B that is 0 mod N, as the helper does', async () => {
    const challenge = { srp_b: N.toString('hex'), salt: '01', secret_block: 'AA==', pool_name: 'P', username: 'u', session: 's' };
    await assert.rejects(new SrpClient().passwordClaim(challenge, 'x'), /B cannot be zero/);
    await assert.rejects(new SrpClient().passwordClaim({ ...challenge, srp_b: 'zz' }, 'x'), /hex/);
  });
});
