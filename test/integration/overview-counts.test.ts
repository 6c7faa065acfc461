/**
 * The console overview's two aggregates through the handlers on DynamoDB Local (our extensions):
 * GET /sign-in-counts answers every day asked for, zeros where nothing was counted, never another SaaS's
 * counts, and refuses a bad `days` in the error shape; GET /mail-backlog counts the outbox's waiting mails as
 * due, being sent or scheduled, with the oldest one's age, and forgets them once they are sent.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { nowSeconds } from '../../shared/clock.js';
import { newOutboxMail } from '../../shared/domain/mail/mail.js';
import { MailBacklogService } from '../../shared/domain/mail/mail-backlog.js';
import { utcDay } from '../../shared/domain/users/sign-in-counts.js';
import type { MailBacklog, SignInCounts } from '../../shared/schemas/overview.js';
import { courier, outboxRepository, secretBox, signInCountsRepository } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { expectError } from '../support/expect.js';

let h: Harness;
let api: SignedClient;
let saasId: string;
let other: { saasId: string; client: SignedClient };

const DAY = 86_400;
const daysAgo = (n: number) => utcDay(nowSeconds() - n * DAY);

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, client: api } = await h.newSaas());
  other = await h.newSaas();
});
afterAll(() => h.close());

async function signInCounts(client: SignedClient, query = ''): Promise<SignInCounts> {
  const res = await client.get<SignInCounts>(`/sign-in-counts${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function backlog(client: SignedClient = api): Promise<MailBacklog> {
  const res = await client.get<MailBacklog>('/mail-backlog');
  assert.equal(res.status, 200, res.text);
  return res.body;
}

describe('GET /sign-in-counts', () => {
  it('answers the last 14 UTC days by default, oldest first, zeros where nothing was counted', async () => {
    const counts = signInCountsRepository();
    await counts.add(saasId, daysAgo(0), { sign_in_succeeded: 5, sign_in_failed: 2 });
    await counts.add(saasId, daysAgo(0), { sign_in_succeeded: 1, locked_out: 1 });
    await counts.add(saasId, daysAgo(3), { sign_in_failed: 7 });
    // Outside the 14 days: not answered.
    await counts.add(saasId, daysAgo(14), { sign_in_succeeded: 100 });

    const { days } = await signInCounts(api);
    assert.equal(days.length, 14);
    assert.deepEqual(
      days.map((d) => d.day),
      Array.from({ length: 14 }, (_, i) => daysAgo(13 - i)),
    );
    assert.deepEqual(days[13], { day: daysAgo(0), sign_in_succeeded: 6, sign_in_failed: 2, locked_out: 1 });
    assert.deepEqual(days[10], { day: daysAgo(3), sign_in_succeeded: 0, sign_in_failed: 7, locked_out: 0 });
    const zeros = days.filter((d) => d.day !== daysAgo(0) && d.day !== daysAgo(3));
    assert.equal(zeros.length, 12);
    for (const day of zeros) assert.deepEqual(day, { day: day.day, sign_in_succeeded: 0, sign_in_failed: 0, locked_out: 0 });
  });

  it('answers as many days as asked, from 1 to 90', async () => {
    const one = await signInCounts(api, '?days=1');
    assert.deepEqual(one.days, [{ day: daysAgo(0), sign_in_succeeded: 6, sign_in_failed: 2, locked_out: 1 }]);
    const all = await signInCounts(api, '?days=90');
    assert.equal(all.days.length, 90);
    assert.equal(all.days[0]?.day, daysAgo(89));
    assert.equal(all.days.find((d) => d.day === daysAgo(14))?.sign_in_succeeded, 100);
  });

  it("never shows another SaaS's counts", async () => {
    await signInCountsRepository().add(other.saasId, daysAgo(0), { sign_in_failed: 40 });
    const mine = await signInCounts(api, '?days=1');
    assert.equal(mine.days[0]?.sign_in_failed, 2);
    const theirs = await signInCounts(other.client, '?days=20');
    assert.deepEqual(theirs.days[19], { day: daysAgo(0), sign_in_succeeded: 0, sign_in_failed: 40, locked_out: 0 });
    assert.equal(
      theirs.days.reduce((sum, d) => sum + d.sign_in_succeeded, 0),
      0,
      'none of the first SaaS',
    );
  });

  it('refuses a bad days in the error shape', async () => {
    for (const days of ['0', '91', 'abc', '1.5', '-3']) {
      await expectError(api.get(`/sign-in-counts?days=${days}`), 400, 'invalid_parameter', 'days');
    }
  });

  it('needs user:read', async () => {
    const reader = await h.newKey(saasId, ['user:read']);
    assert.equal((await reader.get('/sign-in-counts')).status, 200);
    const configOnly = await h.newKey(saasId, ['config:read']);
    assert.equal((await configOnly.get('/sign-in-counts')).status, 403);
  });
});

describe('GET /mail-backlog', () => {
  it('is empty for a SaaS without waiting mails', async () => {
    assert.deepEqual(await backlog(), { waiting: 0, due: 0, sending: 0, scheduled: 0, complete: true });
  });

  it('counts queued mails as due, being sent or scheduled, with the oldest one’s age, and not another SaaS’s', async () => {
    const outbox = outboxRepository();
    const queue = async (changes: { createdAt?: number; nextAttemptAt?: number } = {}, saas = saasId) => {
      const mail = await newOutboxMail(secretBox(), saas, 'forgot_password', `backlog-${randomUUID().slice(0, 8)}@example.test`, '123456');
      await outbox.enqueue({ ...mail, ...changes });
      return mail.id;
    };
    const now = nowSeconds();
    const oldest = now - 3600;
    await queue({ createdAt: oldest });
    await queue();
    // A retry waiting for its time.
    await queue({ createdAt: now - 600, nextAttemptAt: now + 900 });
    // One a courier holds right now.
    const held = await queue();
    assert.ok(await outbox.claim(saasId, held, 'test-claim', nowSeconds(), 300));
    await queue({}, other.saasId);

    const answer = await backlog();
    assert.equal(answer.waiting, 4);
    assert.equal(answer.due, 2);
    assert.equal(answer.sending, 1);
    assert.equal(answer.scheduled, 1);
    assert.equal(answer.oldest_created_at, oldest);
    assert.ok((answer.oldest_age_seconds ?? 0) >= 3600, String(answer.oldest_age_seconds));
    assert.equal((await backlog(other.client)).waiting, 1);

    // Once the due ones are sent they leave the backlog; the scheduled and the held one stay.
    const sent = await courier().deliverDue(saasId);
    assert.equal(sent.sent, 2);
    const after = await backlog();
    assert.deepEqual(
      { ...after, oldest_created_at: undefined, oldest_age_seconds: undefined },
      {
        waiting: 2,
        due: 0,
        sending: 1,
        scheduled: 1,
        complete: true,
        oldest_created_at: undefined,
        oldest_age_seconds: undefined,
      },
    );
    assert.equal(after.oldest_created_at, now - 600);
  });

  it('reads a long backlog only so far, the mails that come due first, and says it is not all of it', async () => {
    const { saasId: busy } = await h.newSaas();
    const outbox = outboxRepository();
    const now = nowSeconds();
    // Five mails, two of them due now: read three, the two due come first (the index is in due order).
    for (const [i, nextAttemptAt] of [now + 900, now - 60, now + 600, now, now + 300].entries()) {
      const mail = await newOutboxMail(secretBox(), busy, 'forgot_password', `long-${i}@example.test`, '123456');
      await outbox.enqueue({ ...mail, nextAttemptAt, createdAt: now - i });
    }
    const first = await new MailBacklogService(outbox, 3).backlog(busy);
    assert.deepEqual(
      { ...first, oldest_age_seconds: undefined },
      { waiting: 3, due: 2, sending: 0, scheduled: 1, complete: false, oldest_created_at: now - 4, oldest_age_seconds: undefined },
    );
    const all = await new MailBacklogService(outbox, 5).backlog(busy);
    assert.deepEqual(
      { waiting: all.waiting, complete: all.complete, oldest: all.oldest_created_at },
      { waiting: 5, complete: true, oldest: now - 4 },
    );
  });

  it('needs config:read', async () => {
    const reader = await h.newKey(saasId, ['config:read']);
    assert.equal((await reader.get('/mail-backlog')).status, 200);
    const userOnly = await h.newKey(saasId, ['user:read']);
    assert.equal((await userOnly.get('/mail-backlog')).status, 403);
  });
});
