/**
 * Active users the service counts itself (shared/domain/analysis/active-users.ts), through the real sign-in and the
 * API log writer on DynamoDB Local, with the clock moved across a day and a month: GET /v1/analysis/active-users
 * answers each day's and month's distinct users who signed in, SaaS-wide (the nil UUID tenant, environment 0); a
 * refused sign-in counts nobody; a batch delivered again counts nobody twice; a figure the SaaS saved for the same
 * date, tenant and environment stands; and another SaaS sees none of it.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { COUNTED_TENANT } from '../../shared/domain/analysis/analysis.js';
import { ActiveUserMarker } from '../../shared/domain/analysis/active-users.js';
import { signInLine } from '../../shared/domain/apilog/shipped-lines.js';
import { writeShippedLines } from '../../shared/wiring.js';
import { analysisRepository, apiLogRetentionSeconds } from '../../shared/wiring/repositories.js';
import { onApi } from '../support/other-api.js';

const PASSWORD = 'Passw0rd!active';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let h: Harness;
let api: SignedClient;
let analysis: SignedClient;
let saasId: string;
let other: SignedClient;
const users: { id: string; email: string }[] = [];

// The last day of the month before this one, and the first two of this month: a day and a month boundary, all
// well within the API log's retention.
const now = new Date();
const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
const lastOfMonth = monthStart - DAY + 10 * HOUR;
const firstOfNext = monthStart + 10 * HOUR;
const secondOfNext = monthStart + DAY + 10 * HOUR;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const month = (ms: number) => day(ms).slice(0, 7);

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, client: api } = await h.newSaas());
  analysis = onApi(api, 'analysis');
  other = onApi((await h.newSaas()).client, 'analysis');
  for (const email of ['active-1@example.com', 'active-2@example.com']) {
    const res = await api.post<{ id: string; email: string }>('/users', { email, password: PASSWORD, attributes: {} });
    assert.equal(res.status, 201, res.text);
    users.push(res.body);
  }
});
afterEach(() => resetClockForTests());
afterAll(() => h.close());

/** Signs `user` in at `ms` on the moved clock, as the SDKs' users do (SRP). */
async function signInAt(user: { email: string }, ms: number, password = PASSWORD) {
  setClockForTests(ms);
  const res = await srpSignIn(api, user.email, password, { at: new Date(ms) });
  resetClockForTests();
  return res;
}

async function activeUsers(client: SignedClient, query: string) {
  const res = await client.get<{ data: { date: string; tenant_id: string; env_id: number; active_users: number }[] }>(`/active-users?${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

const counted = (date: string, active_users: number) => ({ date, ...COUNTED_TENANT, active_users });

describe('active users counted from the sign-ins', () => {
  it('counts each day’s and each month’s distinct users who signed in, and no refusal', async () => {
    const [one, two] = users as [{ id: string; email: string }, { id: string; email: string }];
    assert.equal((await signInAt(one, lastOfMonth)).status, 200);
    assert.equal((await signInAt(one, lastOfMonth + HOUR)).status, 200, 'a second sign-in the same day');
    assert.equal((await signInAt(two, lastOfMonth + 2 * HOUR)).status, 200);
    assert.equal((await signInAt(one, firstOfNext)).status, 200);
    // A wrong password on the second day: refused, so not active.
    assert.notEqual((await signInAt(two, firstOfNext + HOUR, 'Wrong-password-1')).status, 200);
    assert.equal((await signInAt(two, secondOfNext)).status, 200);
    await h.flush();

    assert.deepEqual(await activeUsers(analysis, `type=daily&date_from=${day(lastOfMonth)}&date_to=${day(secondOfNext)}`), [
      counted(day(lastOfMonth), 2),
      counted(day(firstOfNext), 1),
      counted(day(secondOfNext), 1),
    ]);
    // User one signed in both months, user two both months too (the refusal in between does not matter).
    assert.deepEqual(await activeUsers(analysis, `type=monthly&date_from=${month(lastOfMonth)}&date_to=${month(secondOfNext)}`), [
      counted(month(lastOfMonth), 2),
      counted(month(firstOfNext), 2),
    ]);
    // date_to is optional; date_from bounds the answer.
    assert.deepEqual(await activeUsers(analysis, `type=daily&date_from=${day(secondOfNext)}`), [counted(day(secondOfNext), 1)]);
  });

  it('counts nobody twice when the writer is handed the same sign-ins again', async () => {
    const one = users[0] as { id: string };
    await writeShippedLines([
      signInLine(saasId, 'sign_in_succeeded', Math.floor(lastOfMonth / 1000), one.id),
      signInLine(saasId, 'sign_in_succeeded', Math.floor(firstOfNext / 1000) + 60, one.id),
    ]);
    assert.deepEqual(await activeUsers(analysis, `type=daily&date_from=${day(lastOfMonth)}&date_to=${day(firstOfNext)}`), [
      counted(day(lastOfMonth), 2),
      counted(day(firstOfNext), 1),
    ]);
  });

  it('counts nobody twice when another process, which knows no marks, is handed the same sign-ins', async () => {
    // The batch delivered again to another writer instance: only the store's condition stands between it and a
    // second count (the process's own memory of marks is empty there).
    const one = users[0] as { id: string };
    const fresh = new ActiveUserMarker(analysisRepository(), apiLogRetentionSeconds());
    await fresh.signedIn(saasId, one.id, Math.floor(lastOfMonth / 1000));
    await fresh.signedIn(saasId, one.id, Math.floor(firstOfNext / 1000) + 60);
    assert.deepEqual(await activeUsers(analysis, `type=daily&date_from=${day(lastOfMonth)}&date_to=${day(firstOfNext)}`), [
      counted(day(lastOfMonth), 2),
      counted(day(firstOfNext), 1),
    ]);
  });

  it('lets a figure the SaaS saved for the same date, tenant and environment stand, and answers saved tenants’ rows beside', async () => {
    const date = day(firstOfNext);
    const saved = await analysis.put('/active-users', { type: 'daily', date, ...COUNTED_TENANT, active_users: 9 });
    assert.equal(saved.status, 200, saved.text);
    const tenantId = '7d3f0b52-5c55-4d1e-9a5a-1f0b3f6f2b11';
    assert.equal((await analysis.put('/active-users', { type: 'daily', date, tenant_id: tenantId, env_id: 3, active_users: 4 })).status, 200);

    const rows = await activeUsers(analysis, `type=daily&date_from=${date}&date_to=${date}`);
    assert.deepEqual(
      rows.sort((a, b) => a.tenant_id.localeCompare(b.tenant_id)),
      [counted(date, 9), { date, tenant_id: tenantId, env_id: 3, active_users: 4 }],
    );
    assert.deepEqual(await activeUsers(analysis, `type=daily&date_from=${date}&date_to=${date}&tenant_id=${tenantId}`), [
      { date, tenant_id: tenantId, env_id: 3, active_users: 4 },
    ]);
  });

  it('never shows another SaaS’s active users', async () => {
    assert.deepEqual(await activeUsers(other, `type=daily&date_from=${day(lastOfMonth)}&date_to=${day(secondOfNext)}`), []);
    assert.deepEqual(await activeUsers(other, `type=monthly&date_from=${month(lastOfMonth)}`), []);
  });
});
