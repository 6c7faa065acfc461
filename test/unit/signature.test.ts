import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import {
  authorizationHeader,
  computeSignature,
  parseAuthorizationHeader,
  signatureTime,
  verifySignature,
  type SignedRequest,
} from '../../shared/http/signature.js';

const vectorRequest = (method: string, body: string): SignedRequest => ({
  method,
  host: 'api.saasus.io',
  path: '/v1/auth/userinfo',
  query: '',
  body: Buffer.from(body),
});

describe('SAASUSSIGV1 signature', () => {
  it('matches the published GET vector', () => {
    assert.equal(
      computeSignature('secret', '202109011234', 'apiKey', vectorRequest('GET', '')),
      'a041e74fb58621f9e2e25453573b6009a93f457a33df970a7d8a5637a593708b',
    );
  });

  it('matches the published POST vector', () => {
    assert.equal(
      computeSignature('secret', '202109011234', 'apiKey', vectorRequest('POST', 'hello world')),
      'a23ee22c670a2e7756a7bad8bc2847196783e1e2576b0d999f6d1b6ccbf5e3fa',
    );
  });

  it('formats the time as YYYYMMDDHHmm in UTC', () => {
    assert.equal(signatureTime(new Date('2021-09-01T12:34:56.789Z')), '202109011234');
    assert.equal(signatureTime(new Date('2021-12-31T23:59:00+09:00')), '202112311459');
  });

  it('adds ? and the raw query only when there is one', () => {
    const bare = computeSignature('s', '202101010000', 'k', { ...vectorRequest('GET', ''), query: '' });
    const withQuery = computeSignature('s', '202101010000', 'k', { ...vectorRequest('GET', ''), query: 'a=1' });
    const manual = computeSignature('s', '202101010000', 'k', { ...vectorRequest('GET', ''), path: '/v1/auth/userinfo?a=1' });
    assert.notEqual(bare, withQuery);
    assert.equal(withQuery, manual);
  });

  it('parses the header with or without spaces after commas', () => {
    const sig = 'a'.repeat(64);
    assert.deepEqual(parseAuthorizationHeader(`SAASUSSIGV1 Sig=${sig}, SaaSID=s1, APIKey=k1`), {
      signature: sig,
      saasId: 's1',
      apiKey: 'k1',
    });
    assert.deepEqual(parseAuthorizationHeader(`SAASUSSIGV1 Sig=${sig},SaaSID=s1,APIKey=k1`)?.apiKey, 'k1');
  });

  it('refuses headers of another shape', () => {
    for (const header of [
      undefined,
      '',
      'Bearer abc',
      `SAASUSSIGV1 Sig=${'a'.repeat(63)}, SaaSID=s, APIKey=k`,
      `SAASUSSIGV1 Sig=${'g'.repeat(64)}, SaaSID=s, APIKey=k`,
      `SAASUSSIGV1 Sig=${'a'.repeat(64)}, APIKey=k`,
      `SAASUSSIGV1 Sig=${'a'.repeat(64)}, SaaSID=, APIKey=k`,
      `SAASUSSIGV1 junk`,
    ]) {
      assert.equal(parseAuthorizationHeader(header), undefined, String(header));
    }
  });

  describe('verification', () => {
    const now = new Date('2026-11-22T10:30:20Z');
    const request: SignedRequest = {
      method: 'POST',
      host: '127.0.0.1:8080',
      path: '/v1/auth/roles',
      query: 'x=a%20b+c',
      body: Buffer.from('{"role_name": "admin", "display_name": "Admin"}'),
    };
    const signedAt = (at: Date, req = request) => parseAuthorizationHeader(authorizationHeader('secret', 'saas', 'key', req, at))!;

    it('accepts the current minute and three either side, and nothing further', () => {
      for (const minutes of [-3, -1, 0, 1, 3]) {
        assert.equal(verifySignature('secret', signedAt(new Date(now.getTime() + minutes * 60_000)), request, now, 3), true, `${minutes}`);
      }
      for (const minutes of [-4, 4, -60, 60 * 24]) {
        assert.equal(verifySignature('secret', signedAt(new Date(now.getTime() + minutes * 60_000)), request, now, 3), false, `${minutes}`);
      }
    });

    it('accepts a signer exactly when its minute is within the window, over random clocks and windows', () => {
      const minuteOf = (at: number) => Math.floor(at / 60_000);
      let accepted = 0;
      for (let i = 0; i < 600; i++) {
        const window = Math.floor(Math.random() * 6);
        const serverAt = Date.UTC(2026, 0, 1) + Math.floor(Math.random() * 400 * 24 * 3_600_000);
        const signerAt = serverAt + Math.round((Math.random() * 2 - 1) * (window + 2) * 60_000);
        const expected = Math.abs(minuteOf(signerAt) - minuteOf(serverAt)) <= window;
        const header = signedAt(new Date(signerAt));
        assert.equal(verifySignature('secret', header, request, new Date(serverAt), window), expected, `${signerAt - serverAt} ms, window ${window}`);
        // The same header never passes for another request or secret, whatever the clocks.
        assert.equal(verifySignature('secret', header, { ...request, path: '/v1/auth/envs' }, new Date(serverAt), window), false);
        assert.equal(verifySignature('other', header, request, new Date(serverAt), window), false);
        if (expected) accepted++;
      }
      // Both outcomes were met many times.
      assert.ok(accepted > 100 && accepted < 500, `${accepted} of 600 accepted`);
    });

    it('refuses any change to the signed parts', () => {
      const header = signedAt(now);
      const tampered: Partial<SignedRequest>[] = [
        { method: 'PUT' },
        { host: '127.0.0.1:8081' },
        { host: '127.0.0.1' },
        { path: '/v1/auth/envs' },
        { query: 'x=a+b+c' },
        { query: '' },
        { body: Buffer.from('{"role_name":"admin","display_name":"Admin"}') },
        { body: Buffer.alloc(0) },
      ];
      for (const change of tampered) {
        assert.equal(verifySignature('secret', header, { ...request, ...change }, now, 3), false, JSON.stringify(change));
      }
      assert.equal(verifySignature('other secret', header, request, now, 3), false);
      assert.equal(verifySignature('secret', { ...header, apiKey: 'key2' }, request, now, 3), false);
      assert.equal(verifySignature('secret', header, request, now, 3), true);
    });
  });
});
