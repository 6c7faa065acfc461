/**
 * The relying party of a passkey ceremony is the host that served the screen: the deployment's, a per-SaaS
 * host, a custom domain; https behind API Gateway. A Host that is no host name is refused, never guessed.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { relyingParty } from '../../web/login/screen/passkeys.js';
import { DomainError } from '../../shared/errors.js';

describe('relyingParty', () => {
  it('follows the host that serves the screen, its port in the origin only', () => {
    assert.deepEqual(relyingParty({ host: 'localhost:3000' }, false, 'Acme'), { id: 'localhost', origin: 'http://localhost:3000', name: 'Acme' });
    assert.deepEqual(relyingParty({ host: 'acme.localhost:3000' }, false, 'Acme'), {
      id: 'acme.localhost',
      origin: 'http://acme.localhost:3000',
      name: 'Acme',
    });
    assert.deepEqual(relyingParty({ host: 'login.acme.com' }, true, 'Acme'), {
      id: 'login.acme.com',
      origin: 'https://login.acme.com',
      name: 'Acme',
    });
  });

  it('is https when the service is, or when API Gateway says the request came over https', () => {
    assert.equal(relyingParty({ host: 'id.example.com', 'x-forwarded-proto': 'https' }, false, '').origin, 'https://id.example.com');
    assert.equal(relyingParty({ host: 'id.example.com', 'x-forwarded-proto': 'http' }, true, '').origin, 'https://id.example.com');
  });

  it('refuses a Host that is no host name', () => {
    for (const host of [undefined, '', 'evil.com/path', 'a b', 'user@evil.com', '[::1]:3000', 'x'.repeat(300)]) {
      assert.throws(
        () => relyingParty({ host }, false, ''),
        (error: unknown) => error instanceof DomainError && error.code === 'invalid_host',
        String(host),
      );
    }
  });
});
