/** The pure rules of users and memberships: sign-in names, filters, attribute changes, refusals. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { DomainError } from '../../shared/errors.js';
import { RULE } from '../../shared/domain/atomic.js';
import { membershipRefusal } from '../../shared/domain/tenants/tenant-users.js';
import {
  checkAttributeChanges,
  emailLogin,
  loginFromRequest,
  loginFromUsername,
  loginOf,
  matchesUserFilter,
  signInIdLogin,
  userFilter,
  type UserRecord,
} from '../../shared/domain/users/users.js';

function refusal(fn: () => unknown, code: string, field?: string) {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof DomainError);
    assert.equal(error.code, code);
    if (field) assert.ok(error.message.startsWith(`${field}:`), error.message);
    return true;
  });
}

const user = (over: Partial<UserRecord>): UserRecord => ({
  id: '00000000-0000-4000-8000-000000000001',
  email: '',
  sign_in_id: '',
  attributes: {},
  password: { salt: '', verifier: '', temporary: false },
  session_version: 0,
  mfa: { enabled: false, software_token_registered: false },
  providers: {},
  last_login_at: 0,
  created_at: 0,
  ...over,
});

describe('sign-in names', () => {
  it('trims e-mail addresses and compares both kinds in lower case', () => {
    assert.deepEqual(emailLogin('  Alice@Example.COM '), { kind: 'email', value: 'alice@example.com' });
    assert.deepEqual(signInIdLogin('Bob_01-x'), { kind: 'sign_in_id', value: 'bob_01-x' });
    assert.deepEqual(loginOf({ email: ' A@B.io', sign_in_id: '' }), { kind: 'email', value: 'a@b.io' });
    assert.deepEqual(loginOf({ email: '', sign_in_id: 'Zed' }), { kind: 'sign_in_id', value: 'zed' });
  });

  it('refuses malformed names, naming the field', () => {
    for (const bad of ['plain', 'a@b', '@b.io', 'a b@c.io', 'a@b@c.io', '']) refusal(() => emailLogin(bad), 'invalid_parameter', 'email');
    for (const bad of ['', 'a b', 'a.b', 'ä', 'x'.repeat(51), 'a@b']) refusal(() => signInIdLogin(bad), 'invalid_parameter', 'sign_in_id');
    assert.deepEqual(signInIdLogin('x'.repeat(50)).value.length, 50);
  });

  it('wants exactly one name in a request; empty strings and null are "not given"', () => {
    assert.equal(loginFromRequest({ email: 'a@b.io', sign_in_id: '' }).kind, 'email');
    assert.equal(loginFromRequest({ email: null, sign_in_id: 'abc' }).kind, 'sign_in_id');
    refusal(() => loginFromRequest({}), 'invalid_parameter', 'email');
    refusal(() => loginFromRequest({ email: '', sign_in_id: '' }), 'invalid_parameter', 'email');
    refusal(() => loginFromRequest({ email: 'a@b.io', sign_in_id: 'abc' }), 'invalid_parameter', 'email');
  });

  it('reads a sign-in USERNAME as an e-mail address when it has an @, else as a sign-in ID', () => {
    assert.deepEqual(loginFromUsername(' Carol@Example.com '), { kind: 'email', value: 'carol@example.com' });
    assert.deepEqual(loginFromUsername('Carol-1'), { kind: 'sign_in_id', value: 'carol-1' });
    assert.equal(loginFromUsername('carol@'), undefined);
    assert.equal(loginFromUsername('two words'), undefined);
  });

  it('folds no character into an ASCII one it is not: the Kelvin sign and the dotted capital I name nobody', () => {
    assert.equal(loginFromUsername('\u212Aim@acme.test'), undefined);
    assert.equal(loginFromUsername('\u212Aim-1'), undefined);
    assert.equal(loginFromUsername('\u0130da@acme.test'), undefined);
    // Compatibility forms are not folded either (no NFKC): a full-width k stays itself.
    assert.deepEqual(loginFromUsername('\uFF4Bim@acme.test'), { kind: 'email', value: '\uFF4Bim@acme.test' });
    // Letters outside ASCII that stay outside it still lower-case, for addresses stored before the ASCII rule.
    assert.deepEqual(loginFromUsername('\u00C5sa@acme.test'), { kind: 'email', value: '\u00E5sa@acme.test' });
  });
});

describe('search filters', () => {
  it('normalises prefixes and treats empty strings as absent', () => {
    assert.deepEqual(userFilter({ id: '', email: 'ALPHA', sign_in_id: '' }), { emailPrefix: 'alpha' });
    assert.deepEqual(userFilter({ sign_in_id: 'Us' }), { signInIdPrefix: 'us' });
  });

  it('matches a user by id, and by the prefix of their own kind of name only', () => {
    const mail = user({ email: 'Alpha-1@a.test' });
    const named = user({ sign_in_id: 'alpha-2' });
    assert.equal(matchesUserFilter(mail, { emailPrefix: 'alpha' }), true);
    assert.equal(matchesUserFilter(named, { emailPrefix: 'alpha' }), false);
    assert.equal(matchesUserFilter(named, { signInIdPrefix: 'alpha' }), true);
    assert.equal(matchesUserFilter(mail, { signInIdPrefix: 'alpha' }), false);
    assert.equal(matchesUserFilter(mail, { id: mail.id, emailPrefix: 'beta' }), false);
    assert.equal(matchesUserFilter(mail, {}), true);
  });
});

describe('attribute changes', () => {
  const definitions = [
    { attribute_name: 'age', display_name: 'Age', attribute_type: 'number' as const },
    { attribute_name: 'since', display_name: 'Since', attribute_type: 'date' as const },
  ];

  it('checks the values set against their definitions; removing needs none', () => {
    checkAttributeChanges({ age: 3, since: '2024-02-29', gone: null }, definitions, 'user attribute');
    refusal(() => checkAttributeChanges({ age: '3' }, definitions, 'user attribute'), 'invalid_attribute', 'attributes.age');
    refusal(() => checkAttributeChanges({ since: '2023-02-29' }, definitions, 'user attribute'), 'invalid_attribute', 'attributes.since');
    refusal(() => checkAttributeChanges({ other: 'x' }, definitions, 'user attribute'), 'invalid_attribute', 'attributes.other');
  });
});

describe('membership refusals', () => {
  const ids = { tenantId: 't', userId: 'u' };
  it('names the error of the rule that refused the write', () => {
    const expectations: [string, string, string][] = [
      [RULE.tenantLive, 'not_found', 'tenant_not_found'],
      [RULE.userLive, 'not_found', 'user_not_found'],
      [RULE.notMember, 'conflict', 'user_already_member'],
      [RULE.member, 'not_found', 'user_not_found'],
      [RULE.roleAssigned, 'not_found', 'role_not_assigned'],
      [`${RULE.envExists}:7`, 'not_found', 'env_not_found'],
      [`${RULE.roleExists}:a:b`, 'invalid', 'role_not_found'],
      ['something_else', 'conflict', 'concurrent_update'],
    ];
    for (const [rule, kind, code] of expectations) {
      const error = membershipRefusal(rule, ids);
      assert.equal(error.kind, kind, rule);
      assert.equal(error.code, code, rule);
    }
    assert.equal(membershipRefusal(`${RULE.roleExists}:a:b`, ids).message, "role_names: no role named 'a:b'");
    assert.equal(membershipRefusal(`${RULE.envExists}:7`, ids).message, 'no env with id 7');
  });
});
