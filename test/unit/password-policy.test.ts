import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import {
  DEFAULT_PASSWORD_POLICY,
  generatePassword,
  screenPassword,
  type SaasPasswordPolicy,
} from '../../shared/domain/configuration/password-policy.js';
import { DomainError } from '../../shared/errors.js';
import type { PasswordPolicy } from '../../shared/schemas/configuration.js';

async function ruleOf(password: string, policy: SaasPasswordPolicy = DEFAULT_PASSWORD_POLICY): Promise<string | undefined> {
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

  it('puts length first when the SaaS chooses it: 15 characters, any spaces and script, no composition', async () => {
    const lengthFirst: SaasPasswordPolicy = { ...DEFAULT_PASSWORD_POLICY, length_first: true };
    assert.equal(await ruleOf('correcthorsebat', lengthFirst), undefined, '15 lower-case letters and nothing else');
    assert.equal(await ruleOf('correcthorseba', lengthFirst), 'minimum_length', '14 are too few');
    assert.equal(await ruleOf('Kyoto#Lantern8', lengthFirst), 'minimum_length', 'composition does not make up for length');
    const passphrase = '　春はあけぼの　やうやう白くなりゆく 山ぎは ';
    assert.equal(await ruleOf(passphrase, lengthFirst), undefined, 'spaces anywhere, Japanese, nothing else');
    assert.equal(await ruleOf(passphrase, DEFAULT_PASSWORD_POLICY), 'whitespace', 'the composition policy is unchanged');
    assert.equal(await ruleOf(`${'ぬ'.repeat(256)}`, lengthFirst), undefined, 'at least 64 allowed (256)');
    assert.equal(await ruleOf(`${'ぬ'.repeat(257)}`, lengthFirst), 'maximum_length');
    assert.equal(await ruleOf('qwertyuiopasdfgh', lengthFirst), 'breached', 'long and still on the list');
    assert.equal(await ruleOf('correcthorsebatterys', { ...lengthFirst, minimum_length: 20 }), undefined);
    assert.equal(await ruleOf('correcthorsebattery', { ...lengthFirst, minimum_length: 20 }), 'minimum_length', 'a higher minimum_length holds');
    for (let i = 0; i < 50; i++) assert.equal(await ruleOf(generatePassword(lengthFirst), lengthFirst), undefined);
  });

  it('asks 8 characters of length first when a second factor is required (passkeys required), and only then', async () => {
    const withPasskeys: SaasPasswordPolicy = { ...DEFAULT_PASSWORD_POLICY, length_first: true, second_factor: true };
    assert.equal(await ruleOf('ume no ki', withPasskeys), undefined, '9 characters, no composition');
    assert.equal(await ruleOf('umenoki', withPasskeys), 'minimum_length', '7 are too few');
    assert.equal(await ruleOf('ume no ki', { ...withPasskeys, minimum_length: 12 }), 'minimum_length', 'a higher minimum_length holds');
    assert.equal(await ruleOf('ume no ki', { ...withPasskeys, second_factor: false }), 'minimum_length', '15 without it');
    assert.equal(await ruleOf('umenokiX', { ...DEFAULT_PASSWORD_POLICY, second_factor: true }), 'is_require_numbers', "composition is SaaSus's");
    for (let i = 0; i < 20; i++) assert.equal(await ruleOf(generatePassword(withPasskeys), withPasskeys), undefined);
  });

  it('checks the NFKC form: full-width and half-width forms are one password, counted as such', async () => {
    const lengthFirst: SaasPasswordPolicy = { ...DEFAULT_PASSWORD_POLICY, length_first: true };
    // ｶﾞ is two characters as typed, one (ガ) after NFKC.
    assert.equal(await ruleOf('ｶﾞ'.repeat(15), lengthFirst), undefined);
    assert.equal(await ruleOf('ｶﾞ'.repeat(14), lengthFirst), 'minimum_length', '28 characters typed, 14 once normalised');
    assert.equal(await ruleOf('Ｋｙｏｔｏ＃Ｌａｎｔｅｒｎ８'), undefined, 'full-width letters, digit and symbol meet the composition rules');
    assert.equal(await ruleOf('Ｐａｓｓｗｏｒｄ１２３！'), 'breached');
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
