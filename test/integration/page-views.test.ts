/**
 * The page histories GetUserInfo feeds (shared/domain/analysis/page-views.ts), through the real handlers, the API log
 * writer and DynamoDB Local: a call with `X-SaaSus-Referer` (else `Referer`) adds that page, its origin and path
 * only, to the user's histories of the day, which GET /users/{id}/behavior-histories and GET /metrics/page-statistics
 * answer beside what PUT /user-behavior-day saved; a call with neither adds nothing; with the clock moved a month on,
 * the day is no longer answered; another SaaS sees none of it.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { nowSeconds, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { onApi } from '../support/other-api.js';

const PASSWORD = 'Passw0rd!pages';
const DAY = 86_400;

let h: Harness;
let api: SignedClient;
let analysis: SignedClient;
let other: SignedClient;
let userId: string;
let idToken: string;

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  analysis = onApi(api, 'analysis');
  other = onApi((await h.newSaas()).client, 'analysis');
  const user = await api.post<{ id: string; email: string }>('/users', { email: 'pages@example.com', password: PASSWORD, attributes: {} });
  assert.equal(user.status, 201, user.text);
  userId = user.body.id;
  const signedIn = await srpSignIn(api, user.body.email, PASSWORD);
  assert.equal(signedIn.status, 200, signedIn.text);
  idToken = (signedIn.body as { credentials: { id_token: string } }).credentials.id_token;
});
afterEach(() => resetClockForTests());
afterAll(() => h.close());

const userInfo = (headers: Record<string, string>) => api.get(`/userinfo?token=${encodeURIComponent(idToken)}`, { headers });

interface Histories {
  histories: { behaved_at: number; histories: { timestamp: number; referer: string }[] }[];
}

describe('page histories from GetUserInfo’s Referer', () => {
  it('adds the page of each call that names one, origin and path only, X-SaaSus-Referer first', async () => {
    const before = nowSeconds();
    const calls: Record<string, string>[] = [
      { 'x-saasus-referer': 'https://app.example.com/dashboard?code=secret-code#frag', referer: 'https://backend.example.com/ignored' },
      { referer: 'https://app.example.com/settings?token=t0ken' },
      {},
      { 'x-saasus-referer': 'https://app.example.com/dashboard' },
    ];
    for (const headers of calls) assert.equal((await userInfo(headers)).status, 200);
    await h.flush();

    const res = await analysis.get<Histories>(`/users/${userId}/behavior-histories`);
    assert.equal(res.status, 200, res.text);
    const views = res.body.histories.flatMap((d) => d.histories);
    assert.deepEqual(
      views.map((v) => v.referer),
      ['https://app.example.com/dashboard', 'https://app.example.com/settings', 'https://app.example.com/dashboard'],
    );
    for (const view of views) assert.ok(view.timestamp >= before && view.timestamp <= nowSeconds() + 1, String(view.timestamp));
    assert.ok(!JSON.stringify(res.body).includes('secret-code') && !JSON.stringify(res.body).includes('t0ken'));

    const stats = await analysis.get<{ total_page_views: number; total_unique_users: number; page_statistics: unknown[] }>(
      `/metrics/page-statistics?start_timestamp=${before - 60}&end_timestamp=${nowSeconds() + 60}`,
    );
    assert.equal(stats.status, 200, stats.text);
    assert.equal(stats.body.total_page_views, 3);
    assert.equal(stats.body.total_unique_users, 1);
    assert.deepEqual(stats.body.page_statistics, [
      { page_url: 'https://app.example.com/dashboard', total_views: 2, unique_users: 1 },
      { page_url: 'https://app.example.com/settings', total_views: 1, unique_users: 1 },
    ]);
  });

  it('keeps what PUT /user-behavior-day saved and appends to it', async () => {
    const now = nowSeconds();
    const saved = await analysis.put('/user-behavior-day', {
      timestamp: now,
      user_id: userId,
      histories: [{ timestamp: now - 5, referer: 'https://app.example.com/saved' }],
    });
    assert.equal(saved.status, 200, saved.text);
    assert.equal((await userInfo({ referer: 'https://app.example.com/after' })).status, 200);
    await h.flush();
    const res = await analysis.get<Histories>(`/users/${userId}/behavior-histories`);
    assert.deepEqual(
      res.body.histories.flatMap((d) => d.histories.map((v) => v.referer)),
      ['https://app.example.com/saved', 'https://app.example.com/after'],
    );
  });

  it('answers the day no longer once a month has passed, and never to another SaaS', async () => {
    const theirs = await other.get<Histories>(`/users/${userId}/behavior-histories`);
    assert.equal(theirs.status, 200, theirs.text);
    assert.deepEqual(theirs.body.histories, []);
    setClockForTests((nowSeconds() + 33 * DAY) * 1000);
    const later = await analysis.get<Histories>(`/users/${userId}/behavior-histories`);
    assert.equal(later.status, 200, later.text);
    assert.deepEqual(later.body.histories, []);
  });
});
