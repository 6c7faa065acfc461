import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { currentPlanPeriod } from '../../shared/domain/tenants/plan-period.js';
import { isIsoDate } from '../../shared/domain/attributes.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe('current plan period', () => {
  it('is the first month right after the plan is applied', () => {
    const p = currentPlanPeriod(at('2026-03-10T08:00:00Z'), at('2026-03-10T08:00:00Z'));
    assert.deepEqual([iso(p.start), iso(p.end)], ['2026-03-10T08:00:00.000Z', '2026-04-10T08:00:00.000Z']);
  });

  it('moves a month at a time, ending exactly where the next starts', () => {
    const applied = at('2026-03-10T08:00:00Z');
    const before = currentPlanPeriod(applied, at('2026-05-10T07:59:59Z'));
    const after = currentPlanPeriod(applied, at('2026-05-10T08:00:00Z'));
    assert.deepEqual([iso(before.start), iso(before.end)], ['2026-04-10T08:00:00.000Z', '2026-05-10T08:00:00.000Z']);
    assert.deepEqual([iso(after.start), iso(after.end)], ['2026-05-10T08:00:00.000Z', '2026-06-10T08:00:00.000Z']);
  });

  it('clamps the 31st to shorter months without drifting', () => {
    const applied = at('2027-01-31T10:00:00Z');
    const feb = currentPlanPeriod(applied, at('2027-03-01T00:00:00Z'));
    assert.deepEqual([iso(feb.start), iso(feb.end)], ['2027-02-28T10:00:00.000Z', '2027-03-31T10:00:00.000Z']);
    const apr = currentPlanPeriod(applied, at('2027-05-15T00:00:00Z'));
    assert.deepEqual([iso(apr.start), iso(apr.end)], ['2027-04-30T10:00:00.000Z', '2027-05-31T10:00:00.000Z']);
    const leap = currentPlanPeriod(at('2028-01-31T00:00:00Z'), at('2028-02-29T12:00:00Z'));
    assert.equal(iso(leap.start), '2028-02-29T00:00:00.000Z');
  });

  it('spans years', () => {
    const p = currentPlanPeriod(at('2025-12-15T00:00:00Z'), at('2027-01-20T00:00:00Z'));
    assert.deepEqual([iso(p.start), iso(p.end)], ['2027-01-15T00:00:00.000Z', '2027-02-15T00:00:00.000Z']);
  });

  it('moves a year at a time for a yearly plan, the leap day clamped and the anchor kept', () => {
    const applied = at('2028-02-29T09:00:00Z');
    const first = currentPlanPeriod(applied, at('2028-12-31T00:00:00Z'), 'year');
    assert.deepEqual([iso(first.start), iso(first.end)], ['2028-02-29T09:00:00.000Z', '2029-02-28T09:00:00.000Z']);
    const edge = currentPlanPeriod(applied, at('2029-02-28T09:00:00Z'), 'year');
    assert.deepEqual([iso(edge.start), iso(edge.end)], ['2029-02-28T09:00:00.000Z', '2030-02-28T09:00:00.000Z']);
    const back = currentPlanPeriod(applied, at('2032-02-29T08:59:59Z'), 'year');
    assert.deepEqual([iso(back.start), iso(back.end)], ['2031-02-28T09:00:00.000Z', '2032-02-29T09:00:00.000Z']);
    const ahead = currentPlanPeriod(at('2027-06-01T00:00:00Z'), at('2027-05-01T00:00:00Z'), 'year');
    assert.equal(iso(ahead.end), '2028-06-01T00:00:00.000Z');
  });
});

describe('ISO dates', () => {
  it('accepts real dates only', () => {
    for (const good of ['2024-02-29', '2026-12-31', '0001-01-01']) assert.equal(isIsoDate(good), true, good);
    for (const bad of ['2025-02-29', '2026-13-01', '2026-04-31', '2026-1-01', '26-01-01', '2026-01-01T00:00', '', 'today']) {
      assert.equal(isIsoDate(bad), false, bad);
    }
  });
});
