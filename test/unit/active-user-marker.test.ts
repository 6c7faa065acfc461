/**
 * The API log writer's active-user marks (shared/domain/analysis/active-users.ts) with the marks a process already
 * knows: a user's second sign-in in the same day and month asks the store nothing, a new day asks for that day's
 * mark only, and a mark whose write failed is asked for again (it may not be there).
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { ActiveUserMarker, KnownMarks, type ActivePeriod } from '../../shared/domain/analysis/active-users.js';

const DAY = 86_400;
const at = Date.UTC(2026, 10, 10, 9) / 1000;

function marker(known = new KnownMarks()) {
  const asked: string[] = [];
  let failing = false;
  const marks = {
    mark: async (saasId: string, period: ActivePeriod, date: string, userId: string) => {
      if (failing) throw new Error('the store is away');
      asked.push(`${period} ${date} ${userId}`);
      return true;
    },
  };
  return { marker: new ActiveUserMarker(marks, 90 * DAY, known), asked, fail: (on: boolean) => (failing = on) };
}

describe('active-user marks a process knows', () => {
  it('asks the store once per user, period and date', async () => {
    const { marker: m, asked } = marker();
    await m.signedIn('saas', 'u1', at);
    await m.signedIn('saas', 'u1', at + 60);
    await m.signedIn('saas', 'u2', at + 120);
    await m.signedIn('saas', 'u1', at + DAY);
    assert.deepEqual(asked, ['daily 2026-11-10 u1', 'monthly 2026-11 u1', 'daily 2026-11-10 u2', 'monthly 2026-11 u2', 'daily 2026-11-11 u1']);
  });

  it('asks again for a mark whose write failed', async () => {
    const { marker: m, asked, fail } = marker();
    fail(true);
    await assert.rejects(m.signedIn('saas', 'u1', at));
    fail(false);
    await m.signedIn('saas', 'u1', at);
    assert.deepEqual(asked, ['daily 2026-11-10 u1', 'monthly 2026-11 u1']);
  });

  it('keeps another SaaS’s marks apart, and forgets everything past its limit', async () => {
    const { marker: m, asked } = marker(new KnownMarks(2));
    await m.signedIn('saas', 'u1', at);
    await m.signedIn('other', 'u1', at); // a third and fourth mark: the first two forgotten
    await m.signedIn('saas', 'u1', at);
    assert.deepEqual(asked, [
      'daily 2026-11-10 u1',
      'monthly 2026-11 u1',
      'daily 2026-11-10 u1',
      'monthly 2026-11 u1',
      'daily 2026-11-10 u1',
      'monthly 2026-11 u1',
    ]);
  });
});
