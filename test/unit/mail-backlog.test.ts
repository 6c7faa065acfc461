/** The mail backlog's sorting of waiting mails (shared/domain/mail/mail-backlog.ts), as claim() would take them. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { mailBacklog } from '../../shared/domain/mail/mail-backlog.js';

const NOW = 1_800_000_000;

describe('mailBacklog', () => {
  it('counts a lapsed claim as due, a live one as sending, a later attempt as scheduled', () => {
    const answer = mailBacklog(
      [
        { status: 'pending', nextAttemptAt: NOW, createdAt: NOW - 5 },
        { status: 'pending', nextAttemptAt: NOW + 1, createdAt: NOW - 50 },
        { status: 'sending', nextAttemptAt: NOW - 100, claimedUntil: NOW - 1, createdAt: NOW - 100 },
        { status: 'sending', nextAttemptAt: NOW - 7, claimedUntil: NOW + 60, createdAt: NOW - 7 },
      ],
      NOW,
    );
    assert.deepEqual(answer, { waiting: 4, due: 2, sending: 1, scheduled: 1, complete: true, oldest_created_at: NOW - 100, oldest_age_seconds: 100 });
  });

  it('names no oldest mail when none waits, and copes with a long backlog', () => {
    assert.deepEqual(mailBacklog([], NOW), { waiting: 0, due: 0, sending: 0, scheduled: 0, complete: true });
    const many = Array.from({ length: 300_000 }, (_, i) => ({ status: 'pending' as const, nextAttemptAt: NOW, createdAt: NOW - i }));
    assert.equal(mailBacklog(many, NOW).oldest_age_seconds, 299_999);
  });

  it('says when the mails are only the first of a longer backlog', () => {
    const first = mailBacklog([{ status: 'pending', nextAttemptAt: NOW, createdAt: NOW - 5 }], NOW, true);
    assert.deepEqual(first, { waiting: 1, due: 1, sending: 0, scheduled: 0, complete: false, oldest_created_at: NOW - 5, oldest_age_seconds: 5 });
  });
});
