/**
 * The mail-rate rule is the domain's (shared/domain/mail/mail.ts): a mail is counted against the limits it is
 * given (the wiring passes the deployment's), per address and, when sent for a user, per user, in fixed windows
 * of our clock. The store writes these counters as they are.
 */
import { afterEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { LocalSecretBox } from '../../shared/crypto/secret-box.js';
import { mailCounters, newCountedMail, type MailLimits } from '../../shared/domain/mail/mail.js';

const limits: MailLimits = { perAddress: 2, addressWindowSeconds: 600, perUser: 7, userWindowSeconds: 3600 };
const box = new LocalSecretBox(randomBytes(32).toString('base64'));

afterEach(() => resetClockForTests());

describe('the mail-rate rule', () => {
  it("counts a user's mail against the given limits, by address (any case) and by user, in windows of the clock", async () => {
    setClockForTests(Date.UTC(2026, 0, 1, 10, 7, 30));
    const now = Date.UTC(2026, 0, 1, 10, 7, 30) / 1000;
    const { mail, counters } = await newCountedMail(
      { box, mailLimits: limits },
      'saas-1',
      'forgot_password',
      ' Tako@Example.test ',
      '123456',
      'user-1',
    );
    assert.equal(mail.to, ' Tako@Example.test ');
    const [addressStart, userStart] = [now - (now % 600), now - (now % 3600)];
    assert.deepEqual(counters, [
      { counter: `TO#tako@example.test#${addressStart}`, limit: 2, windowEnd: addressStart + 600 },
      { counter: `USER#user-1#${userStart}`, limit: 7, windowEnd: userStart + 3600 },
    ]);
  });

  it('counts a mail sent for no user by its address only, and other limits give other counters', () => {
    const [counter] = mailCounters({ to: 'a@example.test' }, { ...limits, perAddress: 9, addressWindowSeconds: 60 }, 125);
    assert.deepEqual(mailCounters({ to: 'a@example.test' }, limits, 125), [{ counter: 'TO#a@example.test#0', limit: 2, windowEnd: 600 }]);
    assert.deepEqual(counter, { counter: 'TO#a@example.test#120', limit: 9, windowEnd: 180 });
  });
});
