/** What a write that records an event keeps of the user's activity: the newest, never the expired, never more than `keep`. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { ActivityLog, liveActivity, type ActivityEvent } from '../../shared/domain/users/activity.js';
import { inRequestOrigin } from '../../shared/request-origin.js';

const T = 1_764_000_000;
const log = new ActivityLog({ retentionSeconds: 100, keep: 3 });

/** Events at the given seconds, recorded as the log records them. */
const eventsAt = (...seconds: number[]): ActivityEvent[] => seconds.map((at) => log.change('sign_in_succeeded', [], {}, at * 1000).add);

describe('activity', () => {
  it('drops all but the newest keep-1 of what the write saw, so the profile holds at most keep', () => {
    const seen = eventsAt(T, T + 1, T + 2, T + 3);
    const { add, drop } = log.change('sign_in_failed', seen, {}, (T + 4) * 1000);
    assert.equal(add.kind, 'sign_in_failed');
    assert.deepEqual(drop.sort(), [seen[0]?.id, seen[1]?.id].sort());
  });

  it('drops the expired ones and leaves them out of reads meanwhile', () => {
    const seen = eventsAt(T, T + 50);
    assert.equal(seen[0]?.expires_at, T + 100);
    assert.deepEqual(log.change('mfa_enabled', seen, {}, (T + 120) * 1000).drop, [seen[0]?.id]);
    assert.deepEqual(liveActivity(seen, T + 120), [seen[1]]);
  });

  it('ids sort as the events happened, and reads answer newest first', () => {
    const events = eventsAt(T + 5, T, T + 9);
    assert.deepEqual(
      liveActivity(events, T).map((event) => event.at),
      [T + 9, T + 5, T],
    );
  });

  it("takes the request's source IP and a bounded user agent, and nothing outside a request", () => {
    const outside = log.change('password_changed', [], {}, T * 1000).add;
    assert.equal(outside.source_ip, undefined);
    assert.equal(outside.user_agent, undefined);
    const inside = inRequestOrigin(
      { sourceIp: '203.0.113.7', userAgent: 'x'.repeat(1000) },
      () => log.change('password_changed', [], {}, T * 1000).add,
    );
    assert.equal(inside.source_ip, '203.0.113.7');
    assert.equal(inside.user_agent?.length, 160);
  });
});
