/** What a write that records an event keeps of the user's activity: the newest, never the expired, never more than `keep`. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { ActivityLog, liveActivity, type ActivityEvent } from '../../shared/domain/users/activity.js';
import { inRequestOrigin } from '../../shared/request-origin.js';
import { eventOf, eventText, splitActivity } from '../../shared/store/activity-attributes.js';
import { activityAttribute } from '../../shared/store/keys.js';

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

  describe('as the profile stores them', () => {
    const KINDS = ['sign_in_succeeded', 'sign_in_failed', 'locked_out', 'password_changed', 'mfa_enabled'] as const;
    const pick = <T>(values: readonly T[]) => values[Math.floor(Math.random() * values.length)] as T;
    /** Text with what JSON must escape: quotes, backslashes, controls, and characters outside ASCII. */
    const awkward = () =>
      Array.from({ length: Math.floor(Math.random() * 40) }, () =>
        pick(['a', '"', '\\', '\n', '\u0001', 'é', '日本', '😀', ' ', '/', '</script>']),
      ).join('');
    const randomEvent = () => {
      const { id, ...event } = log.change(
        pick(KINDS),
        [],
        { method: pick(['srp', 'federated', 'passkey'] as const) },
        (T + Math.random() * 1e6) * 1000,
      ).add;
      return {
        id,
        event: {
          ...event,
          ...(Math.random() < 0.7 ? { user_agent: awkward(), source_ip: pick(['203.0.113.7', '2001:db8::1']) } : {}),
          ...(Math.random() < 0.3 ? { provider: awkward() } : {}),
        },
      };
    };

    it('reads back every event it wrote as text, over random events', () => {
      for (let i = 0; i < 500; i++) {
        const { event } = randomEvent();
        const text = eventText(event);
        assert.equal(typeof text, 'string');
        assert.deepEqual(eventOf(text), event);
      }
    });

    it('reads events written as maps before, and leaves out a value that is no event', () => {
      const { event } = randomEvent();
      assert.deepEqual(eventOf(event), event);
      for (const junk of ['', 'not json', '[1,2]', '42', 'null', '"text"', 42, null, ['a']])
        assert.equal(eventOf(junk), undefined, JSON.stringify(junk));
    });

    it('splits a profile holding events of both forms from its other attributes', () => {
      const [a, b] = [randomEvent(), randomEvent()];
      const { activity, rest } = splitActivity({
        id: 'u1',
        email: 'a@example.test',
        [activityAttribute(a.id)]: eventText(a.event),
        [activityAttribute(b.id)]: b.event,
        [activityAttribute('broken')]: 'not json',
      });
      assert.deepEqual(rest, { id: 'u1', email: 'a@example.test' });
      assert.deepEqual(
        activity.sort((x, y) => (x.id < y.id ? -1 : 1)),
        [
          { ...a.event, id: a.id },
          { ...b.event, id: b.id },
        ].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
    });
  });
});
