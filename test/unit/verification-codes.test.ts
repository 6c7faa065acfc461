import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import {
  CODE_LIFETIME_SECONDS,
  issueVerificationCode,
  MAX_CODE_ATTEMPTS,
  unusableCode,
  verificationCodeMatches,
} from '../../shared/domain/users/verification-codes.js';

const NOW = 1_900_000_000;

describe('verification codes', () => {
  it('issues six digits, kept only as a salted hash beside what they confirm', () => {
    const { code, record } = issueVerificationCode('EMAIL_UPDATE', { email: 'a@example.test' }, NOW);
    assert.match(code, /^\d{6}$/);
    assert.equal(record.expires_at, NOW + CODE_LIFETIME_SECONDS);
    assert.equal(record.attempts, 0);
    assert.deepEqual(record.payload, { email: 'a@example.test' });
    assert.ok(!JSON.stringify(record).includes(code));
    const again = issueVerificationCode('EMAIL_UPDATE', {}, NOW).record;
    assert.notEqual(again.salt, record.salt, 'each code has its own salt');
  });

  it('matches the code as typed, surrounding spaces aside, and nothing else', () => {
    const { code, record } = issueVerificationCode('EXTERNAL_LINK', {}, NOW);
    assert.equal(verificationCodeMatches(record, code), true);
    assert.equal(verificationCodeMatches(record, ` ${code}\n`), true);
    const other = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    assert.equal(verificationCodeMatches(record, other), false);
    assert.equal(verificationCodeMatches(record, code.slice(1)), false);
    assert.equal(verificationCodeMatches(record, ''), false);
  });

  it('is unusable when missing, from the second it expires, and once its answers are spent', () => {
    const { record } = issueVerificationCode('EMAIL_UPDATE', {}, NOW);
    assert.equal(unusableCode(undefined, NOW)?.code, 'invalid_code');
    assert.equal(unusableCode(record, NOW + CODE_LIFETIME_SECONDS - 1), undefined);
    assert.equal(unusableCode(record, NOW + CODE_LIFETIME_SECONDS)?.code, 'code_expired');
    assert.equal(unusableCode({ ...record, attempts: MAX_CODE_ATTEMPTS - 1 }, NOW), undefined);
    const spent = unusableCode({ ...record, attempts: MAX_CODE_ATTEMPTS }, NOW);
    assert.equal(spent?.code, 'invalid_code');
    assert.match(spent?.message ?? '', /^code: /);
  });
});
