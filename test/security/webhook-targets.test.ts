/**
 * A webhook URL is where the service posts on a SaaS's behalf: outside local mode it must be https to a public
 * address, or a SaaS could aim the service at its own network (the cloud metadata service, a database on a private
 * address, this machine) and read statuses back from the delivery log. The check is the SAML metadata fetch's
 * (shared/http/public-fetch.ts); locally (`npm start`, the tests) plain http to this machine is allowed too, and only it.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { postChecked, PublicFetcher, type HostResolver } from '../../shared/http/public-fetch.js';

const names: Record<string, string> = { 'inside.example': '10.1.2.3', 'metadata.example': '169.254.169.254', 'public.example': '93.184.215.14' };
const resolve: HostResolver = async (host) => {
  const address = names[host];
  if (!address) throw new Error('ENOTFOUND');
  return [{ address, family: 4 }];
};
const onAws = new PublicFetcher({ resolve, timeoutMs: 1000, maxBytes: 0 });
const local = new PublicFetcher({ resolve, timeoutMs: 1000, maxBytes: 0, loopback: true });

const ATTACKS = [
  'http://public.example/hook',
  'https://127.0.0.1/hook',
  'https://localhost/hook',
  'https://[::1]/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://metadata.example/hook',
  'https://inside.example/hook',
  'https://10.0.0.1/hook',
  'https://0x7f000001/hook',
  'https://2130706433/hook',
  'https://[::ffff:127.0.0.1]/hook',
];

describe('webhook targets', () => {
  it('on AWS: https to a public address only', async () => {
    for (const url of ATTACKS) await assert.rejects(onAws.check(url, 'url'), /url:/, url);
    assert.equal((await onAws.check('https://public.example/hook', 'url')).address, '93.184.215.14');
  });

  it('locally: plain http to this machine too, and still nothing private, nor http elsewhere', async () => {
    assert.equal((await local.check('http://127.0.0.1:9/hook', 'url')).address, '127.0.0.1');
    assert.equal((await local.check('http://localhost:9/hook', 'url')).address, '127.0.0.1');
    assert.equal((await local.check('http://[::1]:9/hook', 'url')).address, '::1');
    assert.equal((await local.check('https://public.example/hook', 'url')).address, '93.184.215.14');
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'http://metadata.example/hook',
      'http://inside.example/hook',
      'http://10.0.0.1/x',
      'http://public.example/hook',
      'http://0x7f000001.example/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'http://user:pw@127.0.0.1:9/hook',
    ]) {
      await assert.rejects(local.check(url, 'url'), /url:/, url);
    }
  });

  it('a delivery to a refused target never connects: it fails with the reason', async () => {
    const answer = await postChecked(onAws, 'https://169.254.169.254/latest/meta-data/', '{}', {}, 1000);
    assert.equal(answer.status, undefined);
    assert.match(answer.error ?? '', /not a public address/);
  });
});
