/**
 * Metering counts over DynamoDB Local: exact under concurrent updates (100 parallel adds of 1 give 100; parallel
 * subs never take a count below zero), add/sub/direct at a timestamp or now, counts by day, month, period,
 * per unit and per tenant with the unit's aggregation, a timestamp's count deleted; unknown tenants and units
 * are a 404, malformed dates, timestamps and counts a 400, each changing nothing; another SaaS's tenants are
 * unknown.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { onApi } from '../support/other-api.js';
import { expectError } from '../support/expect.js';
import { countStoreRequests, type StoreRequestCounter } from '../support/store-requests.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { tableDigest } from '../../dev-support/route-requests.js';

let h: Harness;
let auth: SignedClient;
let pricing: SignedClient;
let saasId: string;
let tenantId: string;

/** 2026-01-15T10:00:00Z and friends: fixed times, so days and months are known. */
const T = Date.UTC(2026, 0, 15, 10) / 1000;
const JAN = '2026-01';

async function meter(name: string, aggregate_usage: 'sum' | 'max' = 'sum') {
  const res = await pricing.post('/metering/units', { unit_name: name, aggregate_usage, display_name: name, description: '' });
  assert.equal(res.status, 201, res.text);
}

const at = (unit: string, ts: number, method: string, count: unknown, tenant = tenantId) =>
  pricing.put<{ count: number; timestamp: number; metering_unit_name: string }>(`/metering/tenants/${tenant}/units/${unit}/timestamp/${ts}`, {
    method,
    count,
  });
const monthCount = async (unit: string, month = JAN) =>
  (await pricing.get<{ count: number }>(`/metering/tenants/${tenantId}/units/${unit}/month/${month}`)).body.count;
const dateCount = async (unit: string, date: string) =>
  (await pricing.get<{ count: number }>(`/metering/tenants/${tenantId}/units/${unit}/date/${date}`)).body.count;
const meteringDigest = () => tableDigest(`SAAS#${saasId}#METER#`);

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  ({ client: auth, saasId } = saas);
  pricing = onApi(auth, 'pricing');
  const tenant = await auth.post<{ id: string }>('/tenants', { name: 'Metered', attributes: {}, back_office_staff_email: 'm@example.test' });
  tenantId = tenant.body.id;
  await meter('calls');
  await meter('seats', 'max');
  counter = countStoreRequests();
});

let counter: StoreRequestCounter;
/** The store requests `work` makes (the API log's write of each signed call, counted in store-requests.test.ts, left out). */
const requestsOf = (work: () => Promise<unknown>) => counter.requestsOf(work);
afterEach(() => resetClockForTests());
afterAll(() => h.close());

describe('metering counts', () => {
  it('100 parallel adds of 1 at one timestamp give 100', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, () => at('calls', T, 'add', 1)));
    assert.ok(answers.every((a) => a.status === 200));
    // Each answer saw its own add and those before it: every count from 1 to 100 is possible, none above.
    assert.ok(answers.every((a) => a.body.count >= 1 && a.body.count <= 100 && a.body.timestamp === T));
    assert.equal(Math.max(...answers.map((a) => a.body.count)), 100);
    assert.equal(await monthCount('calls'), 100);
    assert.equal(await dateCount('calls', '2026-01-15'), 100);
    const period = await pricing.get<{ counts: { timestamp: number; count: number }[] }>(
      `/metering/tenants/${tenantId}/units/calls/date-period?start_timestamp=${T - 10}&end_timestamp=${T + 10}`,
    );
    assert.deepEqual(period.body, { metering_unit_name: 'calls', counts: [{ timestamp: T, count: 100 }] });
  });

  it('parallel subs never take a count below zero: exactly as many succeed as the count allows', async () => {
    const ts = T + 100;
    assert.equal((await at('calls', ts, 'direct', 30)).body.count, 30);
    const answers = await Promise.all(Array.from({ length: 40 }, () => at('calls', ts, 'sub', 1)));
    assert.equal(
      answers.filter((a) => a.status === 200).length,
      30,
      JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 400).map((a) => a.text)),
    );
    for (const refused of answers.filter((a) => a.status !== 200))
      assert.equal((refused.body as unknown as { type: string }).type, 'metering_count_negative');
    const period = await pricing.get<{ counts: { count: number }[] }>(
      `/metering/tenants/${tenantId}/units/calls/date-period?start_timestamp=${ts}&end_timestamp=${ts}`,
    );
    assert.deepEqual(
      period.body.counts.map((c) => c.count),
      [0],
    );
  });

  it('sub takes from several shards at once; direct sets; delete removes one timestamp only', async () => {
    const ts = T + 200;
    // More than METERING_HOT_UPDATES_PER_SECOND at once: the timestamp spreads over the shards.
    await Promise.all(Array.from({ length: 60 }, () => at('calls', ts, 'add', 1)));
    assert.equal((await at('calls', ts, 'sub', 59)).body.count, 1);
    await expectError(at('calls', ts, 'sub', 2), 400, 'metering_count_negative', 'count');
    assert.equal((await at('calls', ts, 'direct', 7)).body.count, 7);
    assert.equal((await at('calls', ts, 'add', 3)).body.count, 10);
    assert.equal((await at('calls', ts, 'direct', 0)).body.count, 0);
    assert.equal((await at('calls', ts + 1, 'add', 5)).body.count, 5);
    assert.equal((await pricing.delete(`/metering/tenants/${tenantId}/units/calls/timestamp/${ts + 1}`)).status, 200);
    const period = await pricing.get<{ counts: { timestamp: number; count: number }[] }>(
      `/metering/tenants/${tenantId}/units/calls/date-period?start_timestamp=${ts}&end_timestamp=${ts + 1}`,
    );
    assert.deepEqual(period.body.counts, [{ timestamp: ts, count: 0 }]);
  });

  it("aggregates by the unit's method: max takes the largest count of the period", async () => {
    await at('seats', T, 'direct', 3);
    await at('seats', T + 3600, 'direct', 8);
    await at('seats', T + 86_400 * 3, 'direct', 5);
    assert.equal(await dateCount('seats', '2026-01-15'), 8);
    assert.equal(await monthCount('seats'), 8);
    assert.equal(await dateCount('seats', '2026-01-18'), 5);
    assert.equal(await dateCount('seats', '2026-01-16'), 0);
    assert.equal(await monthCount('seats', '2026-02'), 0);
  });

  it("a tenant's counts of every unit for a day and a month", async () => {
    const day = await pricing.get<{ counts: { metering_unit_name: string; date: string; count: number }[] }>(
      `/metering/tenants/${tenantId}/units/date/2026-01-15`,
    );
    assert.deepEqual(day.body.counts, [
      { metering_unit_name: 'calls', date: '2026-01-15', count: 100 + 0 + 0 },
      { metering_unit_name: 'seats', date: '2026-01-15', count: 8 },
    ]);
    const month = await pricing.get<{ counts: { metering_unit_name: string; month: string; count: number }[] }>(
      `/metering/tenants/${tenantId}/units/month/${JAN}`,
    );
    assert.deepEqual(month.body.counts, [
      { metering_unit_name: 'calls', month: JAN, count: 100 },
      { metering_unit_name: 'seats', month: JAN, count: 8 },
    ]);
  });

  it('now, today and this month', async () => {
    const res = await pricing.put<{ timestamp: number; count: number }>(`/metering/tenants/${tenantId}/units/calls/now`, { method: 'add', count: 4 });
    assert.equal(res.status, 200);
    assert.ok(Math.abs(res.body.timestamp - Date.now() / 1000) < 60);
    assert.ok(res.body.count >= 4);
    const today = await pricing.get<{ date: string; count: number }>(`/metering/tenants/${tenantId}/units/calls/today`);
    assert.equal(today.body.date, new Date().toISOString().slice(0, 10));
    assert.ok(today.body.count >= 4);
    const thisMonth = await pricing.get<{ month: string; count: number }>(`/metering/tenants/${tenantId}/units/calls/thismonth`);
    assert.equal(thisMonth.body.month, new Date().toISOString().slice(0, 7));
    assert.ok(thisMonth.body.count >= 4);
  });

  it('unknown tenants and units are a 404; bad dates, timestamps, methods and counts a 400; none changes anything', async () => {
    const before = await meteringDigest();
    const base = `/metering/tenants/${tenantId}/units`;
    await expectError(at('calls', T, 'add', 1, randomUUID()), 404, 'tenant_not_found');
    await expectError(at('nosuch', T, 'add', 1), 404, 'metering_unit_not_found');
    await expectError(pricing.get(`${base}/nosuch/today`), 404, 'metering_unit_not_found');
    await expectError(pricing.get(`/metering/tenants/${randomUUID()}/units/month/${JAN}`), 404, 'tenant_not_found');
    await expectError(at('calls', T, 'add', -1), 400, 'invalid_parameter', 'count');
    await expectError(at('calls', T, 'add', 1.5), 400, 'invalid_parameter', 'count');
    await expectError(at('calls', T, 'add', '1'), 400, 'invalid_parameter', 'count');
    await expectError(at('calls', T, 'multiply', 1), 400, 'invalid_parameter', 'method');
    await expectError(at('calls', T, 'direct', -5), 400, 'invalid_parameter', 'count');
    await expectError(pricing.put(`${base}/calls/timestamp/-1`, { method: 'add', count: 1 }), 400, 'invalid_parameter', 'timestamp');
    await expectError(pricing.put(`${base}/calls/timestamp/abc`, { method: 'add', count: 1 }), 400, 'invalid_parameter', 'timestamp');
    await expectError(pricing.put(`${base}/calls/timestamp/99999999999999`, { method: 'add', count: 1 }), 400, 'invalid_parameter', 'timestamp');
    await expectError(pricing.put(`${base}/calls/now`, {}), 400, 'invalid_parameter');
    await expectError(pricing.get(`${base}/calls/date/2026-02-30`), 400, 'invalid_parameter', 'date');
    await expectError(pricing.get(`${base}/calls/date/2026-1-5`), 400, 'invalid_parameter', 'date');
    await expectError(pricing.get(`${base}/calls/month/2026-13`), 400, 'invalid_parameter', 'month');
    await expectError(pricing.get(`${base}/date/20260115`), 400, 'invalid_parameter', 'date');
    await expectError(
      pricing.get(`${base}/calls/date-period?start_timestamp=${T}&end_timestamp=${T - 1}`),
      400,
      'invalid_parameter',
      'start_timestamp',
    );
    await expectError(pricing.get(`${base}/calls/date-period?start_timestamp=0&end_timestamp=${T}`), 400, 'invalid_parameter', 'end_timestamp');
    await expectError(pricing.get(`${base}/calls/date-period?start_timestamp=x`), 400, 'invalid_parameter', 'start_timestamp');
    assert.equal(await meteringDigest(), before);
  });

  it("another SaaS's tenant is unknown here, and its counts stay its own", async () => {
    const other = await h.newSaas();
    const otherPricing = onApi(other.client, 'pricing');
    assert.equal((await otherPricing.post('/metering/units', { unit_name: 'calls', display_name: '', description: '' })).status, 201);
    const before = await meteringDigest();
    await expectError(
      otherPricing.put(`/metering/tenants/${tenantId}/units/calls/timestamp/${T}`, { method: 'add', count: 1 }),
      404,
      'tenant_not_found',
    );
    await expectError(otherPricing.get(`/metering/tenants/${tenantId}/units/calls/month/${JAN}`), 404, 'tenant_not_found');
    await expectError(otherPricing.delete(`/metering/tenants/${tenantId}/units/calls/timestamp/${T}`), 404, 'tenant_not_found');
    assert.equal(await meteringDigest(), before);
    assert.equal(await monthCount('calls'), 100);
  });
});

describe('counts past 2^53-1 are refused, never rounded', () => {
  const MAX = Number.MAX_SAFE_INTEGER;
  // February 2026: a month of its own, so the sums below see only these counts.
  const F = Date.UTC(2026, 1, 10, 10) / 1000;
  const period = async (from: number, to: number) =>
    (
      await pricing.get<{ counts: { timestamp: number; count: number }[] }>(
        `/metering/tenants/${tenantId}/units/calls/date-period?start_timestamp=${from}&end_timestamp=${to}`,
      )
    ).body.counts;

  it('an add past the bound is a 400 that changes nothing; up to the bound is exact', async () => {
    assert.equal((await at('calls', F, 'direct', MAX)).body.count, MAX);
    const before = await meteringDigest();
    await expectError(at('calls', F, 'add', 2), 400, 'metering_count_too_large', 'count');
    await expectError(at('calls', F, 'add', MAX), 400, 'metering_count_too_large', 'count');
    assert.equal(await meteringDigest(), before);
    assert.deepEqual(await period(F, F), [{ timestamp: F, count: MAX }]);
    assert.equal((await at('calls', F, 'sub', 1)).body.count, MAX - 1);
    assert.equal((await at('calls', F, 'add', 1)).body.count, MAX);
    assert.equal((await at('calls', F, 'add', 0)).body.count, MAX);
    await expectError(at('calls', F, 'direct', MAX + 2), 400, 'invalid_parameter', 'count');
    await expectError(at('calls', F, 'add', 2 ** 64), 400, 'invalid_parameter', 'count');
  });

  it('parallel adds that spread over the shards stop exactly at the bound', async () => {
    const ts = F + 1;
    assert.equal((await at('calls', ts, 'direct', MAX - 10)).body.count, MAX - 10);
    // More than METERING_HOT_UPDATES_PER_SECOND at once: they spread over the write shards.
    const answers = await Promise.all(Array.from({ length: 60 }, () => at('calls', ts, 'add', 1)));
    const refused = answers.filter((a) => a.status !== 200);
    assert.equal(answers.length - refused.length, 10, JSON.stringify(refused.filter((a) => a.status !== 400).map((a) => a.text)));
    for (const r of refused) assert.equal((r.body as unknown as { type: string }).type, 'metering_count_too_large');
    assert.ok(answers.every((a) => a.status !== 200 || a.body.count <= MAX));
    assert.deepEqual(await period(ts, ts), [{ timestamp: ts, count: MAX }]);
    // Spread or not, the count still moves both ways.
    assert.equal((await at('calls', ts, 'sub', 5)).body.count, MAX - 5);
    assert.equal((await at('calls', ts, 'add', 5)).body.count, MAX);
    await expectError(at('calls', ts, 'add', 1), 400, 'metering_count_too_large', 'count');
  });

  it('a sum past the bound is a 400 for the day, the month and the tenant; each timestamp and a max still read', async () => {
    const base = `/metering/tenants/${tenantId}/units`;
    await expectError(pricing.get(`${base}/calls/date/2026-02-10`), 400, 'metering_count_too_large');
    await expectError(pricing.get(`${base}/calls/month/2026-02`), 400, 'metering_count_too_large');
    await expectError(pricing.get(`${base}/date/2026-02-10`), 400, 'metering_count_too_large');
    await expectError(pricing.get(`${base}/month/2026-02`), 400, 'metering_count_too_large');
    assert.deepEqual(await period(F, F + 1), [
      { timestamp: F, count: MAX },
      { timestamp: F + 1, count: MAX },
    ]);
    assert.equal((await at('seats', F, 'direct', MAX)).body.count, MAX);
    assert.equal((await at('seats', F + 1, 'direct', MAX)).body.count, MAX);
    assert.equal((await pricing.get<{ count: number }>(`${base}/seats/month/2026-02`)).body.count, MAX);
  });
});

describe('store requests', () => {
  it('an update is one store request, a month of a unit or of a tenant one query', async () => {
    const ts = Date.UTC(2026, 2, 3) / 1000;
    // The clock stands still, so what is kept (API_KEY_CACHE_SECONDS, 10 s) stays kept however slow the machine.
    setClockForTests(Date.now());
    await at('calls', ts, 'add', 1); // the API key, tenant and unit are read once and kept
    assert.deepEqual(await requestsOf(() => at('calls', ts, 'add', 2)), ['UpdateItem']);
    assert.deepEqual(await requestsOf(() => pricing.put(`/metering/tenants/${tenantId}/units/calls/now`, { method: 'add', count: 1 })), [
      'UpdateItem',
    ]);
    assert.deepEqual(await requestsOf(() => monthCount('calls', '2026-03')), ['Query']);
    assert.deepEqual(await requestsOf(() => dateCount('calls', '2026-03-03')), ['Query']);
    // Every unit of the SaaS (the catalogue) and the tenant's month.
    assert.deepEqual((await requestsOf(() => pricing.get(`/metering/tenants/${tenantId}/units/month/2026-03`))).sort(), ['Query', 'Query']);
    assert.equal(await monthCount('calls', '2026-03'), 3);
  });
});
