/**
 * The Pricing API's catalogue over DynamoDB Local: units of the four types with their tiers checked as a
 * billing system would, metering units, menus, plans and tax rates; what a menu or plan names stays; used items
 * keep their billing structure and cannot go; the catalogue goes whole, unconditionally, leaving tenants' plans; a
 * tenant's next plan must be a plan of the catalogue once there is one; the Stripe operations of the Pricing
 * and Billing APIs go through the payment-provider port (a local Stripe stand-in). Bad input is a 4xx that
 * changes nothing.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { onApi } from '../support/other-api.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { keys } from '../../shared/store/keys.js';
import { expectError } from '../support/expect.js';
import { tableDigest } from '../../dev-support/route-requests.js';
import { STAND_IN_KEY, startHarnessWithStripe, type StripeStandIn } from '../support/stripe-stand-in.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';

let world: Awaited<ReturnType<typeof startHarnessWithStripe>>;
let auth: SignedClient;
let pricing: SignedClient;
let billing: SignedClient;
let saasId: string;
let stripe: StripeStandIn;

beforeAll(async () => {
  world = await startHarnessWithStripe();
  ({ api: auth, saasId, stripe } = world);
  pricing = onApi(auth, 'pricing');
  billing = onApi(auth, 'billing');
});
afterAll(() => world.close());

interface Unit {
  id: string;
  type: string;
  used: boolean;
  metering_unit_id?: string;
  metering_unit_name?: string;
  recurring_interval: string;
  tiers?: unknown[];
}

const fixed = (name: string) => ({
  type: 'fixed',
  name,
  display_name: `${name} display`,
  description: 'base fee',
  currency: 'JPY',
  unit_amount: 1000,
  recurring_interval: 'month',
});
const usage = (name: string, meter: string) => ({
  type: 'usage',
  name,
  display_name: name,
  description: '',
  currency: 'USD',
  unit_amount: 10,
  upper_count: 0,
  metering_unit_name: meter,
});
const tiered = (name: string, meter: string, tiers: unknown[], type = 'tiered') => ({
  type,
  name,
  display_name: name,
  description: '',
  currency: 'JPY',
  upper_count: 0,
  metering_unit_name: meter,
  tiers,
});
const GOOD_TIERS = [
  { up_to: 10, unit_amount: 100, flat_amount: 0, inf: false },
  { up_to: 100, unit_amount: 80, flat_amount: 500, inf: false },
  { up_to: 0, unit_amount: 50, flat_amount: 0, inf: true },
];

async function created<T>(promise: Promise<{ status: number; body: unknown; text: string }>): Promise<T> {
  const res = await promise;
  assert.equal(res.status, 201, res.text);
  return res.body as T;
}

const catalogueDigest = () => tableDigest(`SAAS#${saasId}#PRICING`);

describe('pricing units', () => {
  it('keeps the four types, making a metering unit for a metered unit that names a new one', async () => {
    const f = await created<Unit>(pricing.post('/units', fixed(`base-${randomUUID().slice(0, 6)}`)));
    assert.equal(f.type, 'fixed');
    assert.equal(f.used, false);
    const meter = `calls_${randomUUID().slice(0, 6)}`;
    const u = await created<Unit>(pricing.post('/units', usage('per call', meter)));
    assert.equal(u.metering_unit_name, meter);
    assert.equal(u.recurring_interval, 'month');
    const t = await created<Unit>(pricing.post('/units', tiered('tiers', meter, GOOD_TIERS)));
    const tu = await created<Unit>(pricing.post('/units', tiered('tiered usage', meter, GOOD_TIERS, 'tiered_usage')));
    // The same metering unit for all three: one made, the others named it.
    assert.equal(new Set([u.metering_unit_id, t.metering_unit_id, tu.metering_unit_id]).size, 1);
    const meters = (await pricing.get<{ units: { unit_name: string }[] }>('/metering/units')).body.units.filter((m) => m.unit_name === meter);
    assert.equal(meters.length, 1);
    assert.deepEqual((await pricing.get<Unit>(`/units/${t.id}`)).body.tiers, GOOD_TIERS);
    const listed = (await pricing.get<{ units: Unit[] }>('/units')).body.units.map((x) => x.id);
    for (const id of [f.id, u.id, t.id, tu.id]) assert.ok(listed.includes(id));
  });

  it('refuses tiers a billing system would refuse, and bad amounts and types, changing nothing', async () => {
    const before = await catalogueDigest();
    const tier = (up_to: number, inf = false, unit_amount = 1, flat_amount = 0) => ({ up_to, unit_amount, flat_amount, inf });
    const cases: [unknown[], string][] = [
      [[tier(10), tier(5), tier(0, true)], 'tiers[1].up_to'],
      [[tier(10), tier(10), tier(0, true)], 'tiers[1].up_to'],
      [[tier(10), tier(20)], 'tiers[1].inf'],
      [[tier(0, true), tier(10), tier(0, true)], 'tiers[0].inf'],
      [[tier(0), tier(0, true)], 'tiers[0].up_to'],
    ];
    for (const [tiers, field] of cases) await expectError(pricing.post('/units', tiered('bad', 'meter_bad', tiers)), 400, 'invalid_tiers', field);
    await expectError(pricing.post('/units', tiered('bad', 'meter_bad', [])), 400, 'invalid_parameter', 'tiers');
    await expectError(pricing.post('/units', tiered('bad', 'meter_bad', [tier(0, true, -1)])), 400, 'invalid_parameter');
    await expectError(pricing.post('/units', { ...fixed('neg'), unit_amount: -1 }), 400, 'invalid_parameter', 'unit_amount');
    await expectError(pricing.post('/units', { ...fixed('big'), unit_amount: 100_000_000 }), 400, 'invalid_parameter', 'unit_amount');
    await expectError(pricing.post('/units', { ...fixed('str'), unit_amount: '10' }), 400, 'invalid_parameter');
    await expectError(pricing.post('/units', { ...fixed('cur'), currency: 'EUR' }), 400, 'invalid_parameter');
    await expectError(pricing.post('/units', { ...fixed('int'), recurring_interval: 'week' }), 400, 'invalid_parameter');
    await expectError(pricing.post('/units', { ...fixed('type'), type: 'flat' }), 400, 'invalid_parameter');
    await expectError(pricing.post('/units', usage('bad meter name', 'has space')), 400, 'invalid_parameter');
    await expectError(pricing.post('/units', usage('reserved', 'date')), 400, 'invalid_parameter');
    await expectError(pricing.get('/units/not-a-uuid'), 400, 'invalid_parameter', 'pricing_unit_id');
    await expectError(pricing.get(`/units/${randomUUID()}`), 404, 'pricing_unit_not_found');
    await expectError(pricing.delete(`/units/${randomUUID()}`), 404, 'pricing_unit_not_found');
    await expectError(pricing.patch(`/units/${randomUUID()}`, fixed('x')), 404, 'pricing_unit_not_found');
    assert.equal(await catalogueDigest(), before);
  });
});

describe('menus, plans and what they name', () => {
  it('a menu names existing units, a plan existing menus; what is named cannot be deleted', async () => {
    const unit = await created<Unit>(pricing.post('/units', fixed('named')));
    await expectError(
      pricing.post('/menus', { name: 'm', display_name: 'm', description: '', unit_ids: [unit.id, randomUUID()] }),
      400,
      'pricing_unit_not_found',
      'unit_ids[1]',
    );
    const menu = await created<{ id: string; units: Unit[] }>(
      pricing.post('/menus', { name: 'm', display_name: 'm', description: '', unit_ids: [unit.id] }),
    );
    assert.deepEqual(
      menu.units.map((u) => u.id),
      [unit.id],
    );
    await expectError(
      pricing.post('/plans', { name: 'p', display_name: 'p', description: '', menu_ids: [randomUUID()] }),
      400,
      'pricing_menu_not_found',
    );
    const plan = await created<{ id: string; pricing_menus: { id: string; units: Unit[] }[] }>(
      pricing.post('/plans', { name: 'p', display_name: 'p', description: '', menu_ids: [menu.id] }),
    );
    assert.equal(plan.pricing_menus[0]?.units[0]?.id, unit.id);
    await expectError(pricing.delete(`/units/${unit.id}`), 400, 'item_in_use');
    await expectError(pricing.delete(`/menus/${menu.id}`), 400, 'item_in_use');
    // Not used yet: the plan may change its menus, and go.
    assert.equal((await pricing.patch(`/plans/${plan.id}`, { name: 'p2', display_name: 'P2', description: 'd', menu_ids: [] })).status, 200);
    assert.equal((await pricing.get<{ name: string }>(`/plans/${plan.id}`)).body.name, 'p2');
    assert.equal((await pricing.delete(`/plans/${plan.id}`)).status, 200);
    assert.equal((await pricing.delete(`/menus/${menu.id}`)).status, 200);
    assert.equal((await pricing.delete(`/units/${unit.id}`)).status, 200);
    await expectError(pricing.get(`/plans/${plan.id}`), 404, 'pricing_plan_not_found');
  });

  it('a menu made at the same time as its unit is deleted: one of the two wins, never a menu naming no unit', async () => {
    for (let round = 0; round < 5; round++) {
      const unit = await created<Unit>(pricing.post('/units', fixed(`race-${round}`)));
      const [menu, deleted] = await Promise.all([
        pricing.post<{ id: string }>('/menus', { name: 'race', display_name: '', description: '', unit_ids: [unit.id] }),
        pricing.delete(`/units/${unit.id}`),
      ]);
      assert.ok((menu.status === 201) !== (deleted.status === 200), `menu ${menu.status} ${menu.text}, delete ${deleted.status} ${deleted.text}`);
      if (menu.status === 201) {
        assert.equal((await pricing.get<{ units: Unit[] }>(`/menus/${menu.body.id}`)).body.units.length, 1);
      }
    }
  });
});

describe('used', () => {
  it('PATCH /plans/used marks the plan, its menus, units and metering units; those keep their billing structure and stay', async () => {
    const meter = `used_${randomUUID().slice(0, 6)}`;
    const unit = await created<Unit>(pricing.post('/units', usage('used unit', meter)));
    const menu = await created<{ id: string }>(pricing.post('/menus', { name: 'um', display_name: '', description: '', unit_ids: [unit.id] }));
    const plan = await created<{ id: string }>(pricing.post('/plans', { name: 'up', display_name: '', description: '', menu_ids: [menu.id] }));
    await expectError(pricing.patch('/plans/used', { plan_ids: [randomUUID()] }), 400, 'pricing_plan_not_found', 'plan_ids[0]');
    assert.equal((await pricing.patch('/plans/used', { plan_ids: [plan.id] })).status, 200);

    const got = (await pricing.get<{ used: boolean; pricing_menus: { used: boolean; units: Unit[] }[] }>(`/plans/${plan.id}`)).body;
    assert.equal(got.used, true);
    assert.equal(got.pricing_menus[0]?.used, true);
    assert.equal(got.pricing_menus[0]?.units[0]?.used, true);
    const meters = (await pricing.get<{ units: { id: string; unit_name: string; used: boolean }[] }>('/metering/units')).body.units;
    const meterRecord = meters.find((m) => m.unit_name === meter)!;
    assert.equal(meterRecord.used, true);

    const before = await catalogueDigest();
    await expectError(pricing.delete(`/plans/${plan.id}`), 400, 'used_item_not_deletable');
    await expectError(pricing.delete(`/menus/${menu.id}`), 400, 'used_item_not_deletable');
    await expectError(pricing.delete(`/units/${unit.id}`), 400, 'used_item_not_deletable');
    await expectError(pricing.delete(`/metering/units/${meterRecord.id}`), 400, 'used_item_not_deletable');
    await expectError(pricing.patch(`/units/${unit.id}`, { ...usage('used unit', meter), unit_amount: 11 }), 400, 'used_item_billing_fixed');
    await expectError(
      pricing.patch(`/menus/${menu.id}`, { name: 'um', display_name: '', description: '', unit_ids: [] }),
      400,
      'used_item_billing_fixed',
    );
    await expectError(
      pricing.patch(`/plans/${plan.id}`, { name: 'up', display_name: '', description: '', menu_ids: [] }),
      400,
      'used_item_billing_fixed',
    );
    await expectError(
      pricing.patch(`/metering/units/${meterRecord.id}`, { unit_name: `${meter}_x`, display_name: '', description: '' }),
      400,
      'used_item_billing_fixed',
    );
    assert.equal(await catalogueDigest(), before, 'refusals change nothing');

    // Names and descriptions may change.
    assert.equal((await pricing.patch(`/units/${unit.id}`, { ...usage('renamed unit', meter), description: 'new' })).status, 200);
    assert.equal(
      (await pricing.patch(`/plans/${plan.id}`, { name: 'renamed', display_name: 'R', description: 'x', menu_ids: [menu.id] })).status,
      200,
    );
    assert.equal((await pricing.get<{ name: string }>(`/units/${unit.id}`)).body.name, 'renamed unit');
  });
});

describe('used, at the same time as a change', () => {
  it('marking a plan used while its menu changes units: the menu ends used, and every unit it names is used', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [
        await created<Unit>(pricing.post('/units', fixed(`a${round}`))),
        await created<Unit>(pricing.post('/units', fixed(`b${round}`))),
      ];
      const menu = await created<{ id: string }>(pricing.post('/menus', { name: 'race', display_name: '', description: '', unit_ids: [a.id] }));
      const plan = await created<{ id: string }>(pricing.post('/plans', { name: 'race', display_name: '', description: '', menu_ids: [menu.id] }));
      const [marked, changed] = await Promise.all([
        pricing.patch('/plans/used', { plan_ids: [plan.id] }),
        pricing.patch(`/menus/${menu.id}`, { name: 'race', display_name: '', description: '', unit_ids: [a.id, b.id] }),
      ]);
      assert.equal(marked.status, 200, marked.text);
      const after = (await pricing.get<{ used: boolean; units: Unit[] }>(`/menus/${menu.id}`)).body;
      assert.equal(after.used, true);
      assert.ok(
        after.units.every((u) => u.used),
        `round ${round}: every unit of a used menu is used`,
      );
      if (changed.status === 200) assert.deepEqual(after.units.map((u) => u.id).sort(), [a.id, b.id].sort());
      else {
        assert.equal((changed.body as { type: string }).type, 'used_item_billing_fixed', changed.text);
        assert.deepEqual(
          after.units.map((u) => u.id),
          [a.id],
        );
      }
    }
  });
});

describe('tax rates', () => {
  it('are made, listed and renamed; percentage and country are checked; unknown ids are 404', async () => {
    const rate = await created<{ id: string }>(
      pricing.post('/tax-rates', { name: 'jct', display_name: '消費税', percentage: 10, inclusive: false, country: 'JP', description: '' }),
    );
    const before = await catalogueDigest();
    const bad = { name: 'x', display_name: '', percentage: 10, inclusive: true, country: 'JP', description: '' };
    await expectError(pricing.post('/tax-rates', { ...bad, percentage: -1 }), 400, 'invalid_parameter', 'percentage');
    await expectError(pricing.post('/tax-rates', { ...bad, percentage: 101 }), 400, 'invalid_parameter', 'percentage');
    await expectError(pricing.post('/tax-rates', { ...bad, percentage: 5e-324 }), 400, 'invalid_parameter', 'percentage');
    await expectError(pricing.post('/tax-rates', { ...bad, percentage: 8.12345 }), 400, 'invalid_parameter', 'percentage');
    await expectError(pricing.post('/tax-rates', { ...bad, country: 'jp' }), 400, 'invalid_parameter', 'country');
    await expectError(pricing.post('/tax-rates', { ...bad, country: 'ZZ' }), 400, 'invalid_parameter', 'country');
    await expectError(pricing.post('/tax-rates', { ...bad, inclusive: 'yes' }), 400, 'invalid_parameter', 'inclusive');
    await expectError(pricing.patch(`/tax-rates/${randomUUID()}`, { display_name: 'x', description: '' }), 404, 'tax_rate_not_found');
    assert.equal(await catalogueDigest(), before);
    assert.equal((await pricing.patch(`/tax-rates/${rate.id}`, { display_name: 'JCT', description: 'd' })).status, 200);
    const listed = (await pricing.get<{ tax_rates: { id: string; display_name: string; percentage: number }[] }>('/tax-rates')).body.tax_rates;
    assert.deepEqual(
      listed.filter((r) => r.id === rate.id).map((r) => [r.display_name, r.percentage]),
      [['JCT', 10]],
    );
  });
});

describe('metering units', () => {
  it('have unique names; rename and re-aggregate while unused; go when nothing names them', async () => {
    const name = `m_${randomUUID().slice(0, 6)}`;
    const meter = await created<{ id: string; aggregate_usage: string }>(
      pricing.post('/metering/units', { unit_name: name, aggregate_usage: 'max', display_name: 'M', description: '' }),
    );
    assert.equal(meter.aggregate_usage, 'max');
    await expectError(pricing.post('/metering/units', { unit_name: name, display_name: '', description: '' }), 400, 'metering_unit_name_taken');
    assert.equal(
      (await pricing.patch(`/metering/units/${meter.id}`, { unit_name: `${name}_2`, aggregate_usage: 'sum', display_name: 'M2', description: '' }))
        .status,
      200,
    );
    const listed = (await pricing.get<{ units: { id: string; unit_name: string; aggregate_usage: string }[] }>('/metering/units')).body.units;
    assert.deepEqual(
      listed.filter((m) => m.id === meter.id).map((m) => [m.unit_name, m.aggregate_usage]),
      [[`${name}_2`, 'sum']],
    );
    assert.equal((await pricing.delete(`/metering/units/${meter.id}`)).status, 200);
    await expectError(pricing.delete(`/metering/units/${meter.id}`), 404, 'metering_unit_not_found');
  });
});

describe('tenants and the catalogue', () => {
  it("a tenant's next plan must be a plan of the catalogue once there is one", async () => {
    // A SaaS of its own: this one starts with no catalogue.
    const { client } = await world.h.newSaas();
    const own = onApi(client, 'pricing');
    const tenant = await created<{ id: string }>(client.post('/tenants', { name: 'T', attributes: {}, back_office_staff_email: 't@example.test' }));
    // No plans yet: any id is taken (tenants made before the catalogue keep theirs).
    const early = randomUUID();
    assert.equal((await client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: early })).status, 200);

    const plan = await created<{ id: string }>(own.post('/plans', { name: 'p', display_name: 'P', description: '', menu_ids: [] }));
    await expectError(client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: randomUUID() }), 400, 'pricing_plan_not_found', 'next_plan_id');
    const tenantItem = async () =>
      (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(client.credentials.saasId, tenant.id) }))).Item;
    assert.equal((await tenantItem())?.plan_id, early, 'the refusal changed nothing');
    assert.equal((await client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: plan.id })).status, 200);
    assert.equal((await tenantItem())?.plan_id, plan.id);
  });

  it('the catalogue goes unconditionally; tenants keep their plan ids and reservations, which the scheduled worker applies', async () => {
    const { client } = await world.h.newSaas();
    const own = onApi(client, 'pricing');
    const tenant = await created<{ id: string }>(client.post('/tenants', { name: 'T', attributes: {}, back_office_staff_email: 't@example.test' }));
    const yearlyUnit = await created<Unit>(own.post('/units', { ...fixed('yearly'), recurring_interval: 'year' }));
    const menu = await created<{ id: string }>(own.post('/menus', { name: 'm', display_name: 'M', description: '', unit_ids: [yearlyUnit.id] }));
    const plan = await created<{ id: string }>(own.post('/plans', { name: 'y', display_name: 'Y', description: '', menu_ids: [menu.id] }));
    const next = await created<{ id: string }>(own.post('/plans', { name: 'n', display_name: 'N', description: '', menu_ids: [] }));
    const rate = await created<{ id: string }>(
      own.post('/tax-rates', { name: 'jct', display_name: 'JCT', percentage: 10, inclusive: false, country: 'JP', description: '' }),
    );
    assert.equal((await own.patch('/plans/used', { plan_ids: [plan.id] })).status, 200);
    assert.equal((await client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: plan.id, next_plan_tax_rate_id: rate.id })).status, 200);
    const from = Math.floor(Date.now() / 1000) + 3600;
    assert.equal((await client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: next.id, using_next_plan_from: from })).status, 200);
    const tenantItem = async () =>
      (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(client.credentials.saasId, tenant.id) }))).Item;
    const before = await tenantItem();
    interface Detail {
      plan_id: string;
      using_next_plan_from: number;
      next_plan_id: string;
      current_plan_period_start: number;
      current_plan_period_end: number;
      plan_histories: { plan_id: string }[];
    }
    const details = async () => (await client.get<Detail>(`/tenants/${tenant.id}`)).body;
    const yearDays = (await details()).current_plan_period_end - (await details()).current_plan_period_start;
    assert.ok(yearDays >= 365 * 86400, 'a yearly plan, while the catalogue has it');

    // A tenant with a plan, a reservation and a used plan: the definition removes all, unconditionally.
    assert.equal((await own.delete('/plans-initialization')).status, 200);
    for (const path of ['/plans', '/menus', '/units', '/metering/units', '/tax-rates']) {
      const body = (await own.get<Record<string, unknown[]>>(path)).body;
      assert.deepEqual(Object.values(body), [[]], `${path} is empty`);
    }
    assert.deepEqual(await tenantItem(), before, 'the tenant is not touched');
    const after = await details();
    assert.deepEqual([after.plan_id, after.next_plan_id, after.using_next_plan_from], [plan.id, next.id, from]);
    assert.deepEqual(
      after.plan_histories.map((h) => h.plan_id),
      [plan.id],
    );
    // A plan the catalogue no longer has is one from before the catalogue: monthly periods.
    assert.ok(after.current_plan_period_end - after.current_plan_period_start <= 31 * 86400);

    // The scheduled worker applies the reservation for the plan that is gone, and does not fail.
    setClockForTests((from + 60) * 1000);
    try {
      const run = await runScheduledWork();
      assert.ok(run.reservationsApplied >= 1);
    } finally {
      resetClockForTests();
    }
    const applied = await details();
    assert.equal(applied.plan_id, next.id);
    assert.ok(!('next_plan_id' in applied) || !applied.next_plan_id, 'the reservation is done');
    assert.deepEqual(
      applied.plan_histories.map((h) => h.plan_id),
      [plan.id, next.id],
    );

    // A new catalogue: the gone plan ids are not among its plans, so they cannot be given again; its own can.
    const fresh = await created<{ id: string }>(own.post('/plans', { name: 'f', display_name: 'F', description: '', menu_ids: [] }));
    await expectError(client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: plan.id }), 400, 'pricing_plan_not_found', 'next_plan_id');
    assert.equal((await client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: fresh.id })).status, 200);
    assert.equal((await details()).plan_id, fresh.id);
  });

  it("a tenant's plan period follows its plan's units, and its plan history names a tax rate of the catalogue", async () => {
    const { client } = await world.h.newSaas();
    const own = onApi(client, 'pricing');
    const tenant = await created<{ id: string }>(client.post('/tenants', { name: 'T', attributes: {}, back_office_staff_email: 't@example.test' }));
    const DAY = 86400;
    const details = async () =>
      (
        await client.get<{
          current_plan_period_start: number;
          current_plan_period_end: number;
          plan_histories: { plan_id: string; tax_rate_id?: string }[];
        }>(`/tenants/${tenant.id}`)
      ).body;
    const periodDays = async () => {
      const d = await details();
      return (d.current_plan_period_end - d.current_plan_period_start) / DAY;
    };
    // Before the catalogue: any plan and tax rate id is taken, and the period is a month.
    assert.equal((await client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: randomUUID(), next_plan_tax_rate_id: randomUUID() })).status, 200);
    assert.ok((await periodDays()) <= 31);

    const planOf = async (name: string, unitIds: string[]) => {
      const menu = await created<{ id: string }>(own.post('/menus', { name, display_name: name, description: '', unit_ids: unitIds }));
      return (await created<{ id: string }>(own.post('/plans', { name, display_name: name, description: '', menu_ids: [menu.id] }))).id;
    };
    const yearlyUnit = await created<Unit>(own.post('/units', { ...fixed('yearly'), recurring_interval: 'year' }));
    const monthlyUnit = await created<Unit>(own.post('/units', fixed('monthly')));
    const yearly = await planOf('yearly', [yearlyUnit.id]);
    const mixed = await planOf('mixed', [yearlyUnit.id, monthlyUnit.id]);
    const rate = await created<{ id: string }>(
      own.post('/tax-rates', { name: 'jct', display_name: 'JCT', percentage: 10, inclusive: false, country: 'JP', description: '' }),
    );

    const tenantItem = async () =>
      (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(client.credentials.saasId, tenant.id) }))).Item;
    const before = await tenantItem();
    await expectError(
      client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: yearly, next_plan_tax_rate_id: randomUUID() }),
      400,
      'tax_rate_not_found',
      'next_plan_tax_rate_id',
    );
    const future = Math.floor(Date.now() / 1000) + 3600;
    await expectError(
      client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: yearly, next_plan_tax_rate_id: randomUUID(), using_next_plan_from: future }),
      400,
      'tax_rate_not_found',
    );
    assert.deepEqual(await tenantItem(), before, 'the refusals changed nothing');

    assert.equal((await client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: yearly, next_plan_tax_rate_id: rate.id })).status, 200);
    const days = await periodDays();
    assert.ok(days >= 365 && days <= 366, `a yearly plan renews yearly, not after ${days} days`);
    assert.deepEqual((await details()).plan_histories.at(-1), {
      plan_id: yearly,
      plan_applied_at: (await details()).current_plan_period_start,
      tax_rate_id: rate.id,
    });
    // A plan with a monthly unit among yearly ones bills monthly.
    assert.equal((await client.put(`/tenants/${tenant.id}/plans`, { next_plan_id: mixed })).status, 200);
    assert.ok((await periodDays()) <= 31);
  });

  it('a tenant without a plan has no plan_id member (as /userinfo, tenant-users.test.ts)', async () => {
    const tenant = await created<{ id: string }>(
      auth.post('/tenants', { name: 'NoPlan', attributes: {}, back_office_staff_email: 'np@example.test' }),
    );
    const detail = (await auth.get<Record<string, unknown>>(`/tenants/${tenant.id}`)).body;
    assert.ok(!('plan_id' in detail));
  });
});

describe('Stripe through the payment-provider port', () => {
  it('Billing sets and clears the key, never answering it; Pricing connects and disconnects', async () => {
    const { client } = await world.h.newSaas();
    const ownBilling = onApi(client, 'billing');
    const ownPricing = onApi(client, 'pricing');
    assert.deepEqual((await ownBilling.get('/stripe/info')).body, { is_registered: false });
    await expectError(ownPricing.patch('/stripe/init'), 400, 'payment_provider_not_configured');
    await expectError(ownBilling.put('/stripe/info', { secret_key: 'pk_test_public123456' }), 400, 'invalid_parameter', 'secret_key');
    await expectError(ownBilling.put('/stripe/info', { secret_key: 42 }), 400, 'invalid_parameter', 'secret_key');
    assert.equal((await ownBilling.put('/stripe/info', { secret_key: STAND_IN_KEY })).status, 200);
    const info = await ownBilling.get('/stripe/info');
    assert.deepEqual(info.body, { is_registered: true });
    assert.ok(!info.text.includes(STAND_IN_KEY));
    const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.setting(client.credentials.saasId, 'payment-provider') }));
    assert.ok(!JSON.stringify(stored.Item).includes(STAND_IN_KEY), 'sealed at rest');

    const tenant = await created<{ id: string }>(
      client.post('/tenants', { name: 'Paying', attributes: {}, back_office_staff_email: 'pay@example.test' }),
    );
    const sent = stripe.requests.length;
    assert.equal((await ownPricing.patch('/stripe/init')).status, 200);
    assert.equal(stripe.requests.length, sent + 1, 'one customer made, at the stand-in');
    assert.equal((await client.get(`/tenants/${tenant.id}/stripe-customer`)).status, 200);
    assert.equal((await ownPricing.delete('/stripe')).status, 200);
    assert.equal((await client.get(`/tenants/${tenant.id}/stripe-customer`)).status, 404);

    assert.equal((await ownBilling.delete('/stripe/info')).status, 200);
    assert.deepEqual((await ownBilling.get('/stripe/info')).body, { is_registered: false });
    await expectError(ownPricing.delete('/stripe'), 400, 'payment_provider_not_configured');
  });

  it('the error-test routes of both APIs answer 500 in the error shape', async () => {
    for (const client of [pricing, billing]) {
      const res = await client.get<{ type: string }>('/errors/internal-server-error');
      assert.equal(res.status, 500);
      assert.equal(res.body.type, 'internal_server_error');
    }
  });

  it('a key without the pricing, metering or billing permissions is refused', async () => {
    const narrow = await world.h.newKey(saasId, ['tenant:read', 'pricing:read']);
    assert.equal((await onApi(narrow, 'pricing').get('/plans')).status, 200);
    await expectError(onApi(narrow, 'pricing').post('/units', fixed('nope')), 403, 'permission_denied');
    await expectError(onApi(narrow, 'billing').get('/stripe/info'), 403, 'permission_denied');
    await expectError(onApi(narrow, 'pricing').get(`/metering/tenants/${randomUUID()}/units/x/today`), 403, 'permission_denied');
  });
});
