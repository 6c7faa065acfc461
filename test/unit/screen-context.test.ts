import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { contextQuery, screenContext } from '../../web/login/screen-context.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('the login screen’s context', () => {
  it('carries an S256 challenge with the state, and gives both back as a query the SAML and Google starts read again', () => {
    const context = screenContext(new URLSearchParams({ state: 's1', code_challenge: CHALLENGE, code_challenge_method: 'S256' }));
    assert.deepEqual(context, { state: 's1', code_challenge: CHALLENGE });
    assert.deepEqual(screenContext(new URLSearchParams(contextQuery(context))), context);
  });

  it('drops a challenge that is not S256 or not of its shape, so no code is bound to what the app cannot prove', () => {
    for (const query of <Record<string, string>[]>[
      { code_challenge: CHALLENGE },
      { code_challenge: CHALLENGE, code_challenge_method: 'plain' },
      { code_challenge: CHALLENGE.slice(1), code_challenge_method: 'S256' },
      { code_challenge: `${CHALLENGE.slice(1)}=`, code_challenge_method: 'S256' },
    ]) {
      assert.deepEqual(screenContext(new URLSearchParams({ state: 's', ...query })), { state: 's' }, JSON.stringify(query));
    }
  });

  it('an OpenID Connect authorization request wins over both', () => {
    const query = new URLSearchParams({ authorization: 'sealed', state: 's', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
    assert.deepEqual(screenContext(query), { authorization: 'sealed' });
    assert.deepEqual(contextQuery({ authorization: 'sealed' }), { authorization: 'sealed' });
  });
});
