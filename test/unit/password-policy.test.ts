import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { DEFAULT_PASSWORD_POLICY, generatePassword, screenPassword } from '../../shared/domain/configuration/password-policy.js';
import { DomainError } from '../../shared/errors.js';
import type { PasswordPolicy } from '../../shared/schemas/configuration.js';

async function ruleOf(password: string, policy: PasswordPolicy = DEFAULT_PASSWORD_POLICY): Promise<string | undefined> {
  try {
    await screenPassword(password, policy);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.code, 'password_policy_violation');
    assert.match(error.message, /^password: /);
    return (error.data as { rule: string }).rule;
  }
}

describe('password policy', () => {
  it('names the rule that failed', async () => {
    assert.equal(await ruleOf('Aa1!'), 'minimum_length');
    assert.equal(await ruleOf('AAAAAAA1!'), 'is_require_lowercase');
    assert.equal(await ruleOf('aaaaaaa1!'), 'is_require_uppercase');
    assert.equal(await ruleOf('Aaaaaaaa!'), 'is_require_numbers');
    assert.equal(await ruleOf('Aaaaaaaa1'), 'is_require_symbols');
    assert.equal(await ruleOf(' Aaaaaa1!'), 'whitespace');
    assert.equal(await ruleOf(`Aa1!${'x'.repeat(300)}`), 'maximum_length');
    assert.equal(await ruleOf('Kyoto#Lantern8'), undefined);
    assert.equal(await ruleOf('Password123!'), 'breached', 'every composition rule met, and still among the most breached');
  });

  it('only asks for what the policy requires', async () => {
    const lax: PasswordPolicy = {
      minimum_length: 6,
      is_require_lowercase: false,
      is_require_numbers: false,
      is_require_symbols: false,
      is_require_uppercase: false,
      temporary_password_validity_days: 1,
    };
    assert.equal(await ruleOf('qvkzxw', lax), undefined);
    assert.equal(await ruleOf('zzzzz', lax), 'minimum_length');
    assert.equal(await ruleOf('パスワードです', lax), undefined, 'length counts characters, not bytes');
  });

  it('generates passwords that pass every policy', async () => {
    for (let i = 0; i < 200; i++) {
      const policy: PasswordPolicy = {
        minimum_length: 6 + (i % 94),
        is_require_lowercase: i % 2 === 0,
        is_require_numbers: i % 3 === 0,
        is_require_symbols: i % 5 !== 0,
        is_require_uppercase: true,
        temporary_password_validity_days: 7,
      };
      const password = generatePassword(policy);
      assert.equal(await ruleOf(password, policy), undefined, password);
      assert.ok(password.length >= Math.max(policy.minimum_length, 16));
    }
    assert.notEqual(generatePassword(DEFAULT_PASSWORD_POLICY), generatePassword(DEFAULT_PASSWORD_POLICY));
  });

  it('leaves out characters that are hard to read, type or paste', () => {
    const generated = Array.from({ length: 500 }, () => generatePassword(DEFAULT_PASSWORD_POLICY)).join('');
    for (const hard of ['l', 'I', '1', 'O', '0', "'", '"', '`', '\\', '|', ';']) assert.ok(!generated.includes(hard), `no ${hard}`);
    // Still every class: the policy's checks passed above, and symbols remain in the mix.
    assert.match(generated, /[#%&@!]/);
  });
});
