/**
 * The SaaSus SDKs' Pricing and Billing API definitions (saasus-pricing-api.yml, saasus-billing-api.yml; README.md
 * beside them says where they come from) against the service: every one of their 37 + 4 operations is called at
 * the method and path the definition gives (the SDKs' own), with the bodies and queries their models describe,
 * answers the status the definition names, and its body fits the SDK model field by field (a pricing unit by
 * its `type`, as the generated clients pick it). The payment provider is the local Stripe stand-in.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { type SignedResponse } from '../../client/signed-fetch.js';
import { onApi } from '../support/other-api.js';
import { STAND_IN_KEY, startHarnessWithStripe } from '../support/stripe-stand-in.js';
import { modelName, readSdkDefinition, type SdkDefinition } from './sdk-definition.js';

const pricingDefinition = readSdkDefinition('saasus-pricing-api.yml');
const billingDefinition = readSdkDefinition('saasus-billing-api.yml');

let world: Awaited<ReturnType<typeof startHarnessWithStripe>>;
let pricing: SignedClient;
let billing: SignedClient;
let tenantId: string;
/** Units of the types the driven calls do not make, and things made to be deleted. */
let spare: { fixedId: string; tieredId: string; tieredUsageId: string; loneId: string };

async function made(res: Promise<SignedResponse>): Promise<string> {
  const answer = await res;
  assert.equal(answer.status, 201, answer.text);
  return (answer.body as { id: string }).id;
}

const METER = 'compat_calls';
const TS = 1767225600; // 2026-01-01T00:00:00Z
const TIERS = [
  { up_to: 100, unit_amount: 10, flat_amount: 0, inf: false },
  { up_to: 0, unit_amount: 5, flat_amount: 100, inf: true },
];

beforeAll(async () => {
  world = await startHarnessWithStripe();
  pricing = onApi(world.api, 'pricing');
  billing = onApi(world.api, 'billing');
  tenantId = await made(world.api.post('/tenants', { name: 'Compat', attributes: {}, back_office_staff_email: 'compat@example.test' }));
  const base = { display_name: 'Spare', description: 'spare', currency: 'JPY' };
  spare = {
    fixedId: await made(pricing.post('/units', { ...base, name: 'spare_fixed', type: 'fixed', unit_amount: 100, recurring_interval: 'year' })),
    loneId: await made(pricing.post('/units', { ...base, name: 'lone', type: 'fixed', unit_amount: 0, recurring_interval: 'month' })),
    tieredId: await made(
      pricing.post('/units', { ...base, name: 'spare_tiered', type: 'tiered', upper_count: 0, metering_unit_name: 'spare_meter', tiers: TIERS }),
    ),
    tieredUsageId: await made(
      pricing.post('/units', { ...base, name: 'spare_tu', type: 'tiered_usage', upper_count: 10, metering_unit_name: 'spare_meter', tiers: TIERS }),
    ),
  };
});
afterAll(() => world.close());

interface Ids {
  meterId: string;
  unitId: string;
  menuId: string;
  planId: string;
  taxRateId: string;
  spareMeterId: string;
  spareMenuId: string;
  sparePlanId: string;
}

interface Call {
  params?: Record<string, string | number>;
  query?: string;
  body?: unknown;
}

const unitBody = (description: string) => ({
  name: 'per_call',
  display_name: 'Per call',
  description,
  type: 'usage',
  currency: 'USD',
  unit_amount: 2,
  upper_count: 0,
  metering_unit_name: METER,
  aggregate_usage: 'sum',
});
const menuBody = (w: Ids, name: string) => ({
  name,
  display_name: 'Menu',
  description: '',
  unit_ids: [w.unitId, spare.fixedId, spare.tieredId, spare.tieredUsageId],
});
const planBody = (w: Ids, name: string) => ({ name, display_name: 'Plan', description: '', menu_ids: [w.menuId] });
const tenantUnit = () => ({ tenant_id: tenantId, metering_unit_name: METER });

/** The Pricing API's operations in an order that gives later calls what they need; `learn` keeps the ids made. */
const pricingCalls: [string, (w: Ids) => Call][] = [
  ['CreateMeteringUnit', () => ({ body: { unit_name: METER, aggregate_usage: 'sum', display_name: 'Calls', description: 'API calls' } })],
  ['GetMeteringUnits', () => ({})],
  [
    'UpdateMeteringUnitByID',
    (w) => ({ params: { metering_unit_id: w.meterId }, body: { unit_name: METER, aggregate_usage: 'sum', display_name: 'Calls!', description: '' } }),
  ],
  ['CreatePricingUnit', () => ({ body: unitBody('per API call') })],
  ['GetPricingUnits', () => ({})],
  ['GetPricingUnit', (w) => ({ params: { pricing_unit_id: w.unitId } })],
  ['UpdatePricingUnit', (w) => ({ params: { pricing_unit_id: w.unitId }, body: unitBody('per API call, renamed') })],
  ['CreatePricingMenu', (w) => ({ body: menuBody(w, 'Standard menu') })],
  ['GetPricingMenus', () => ({})],
  ['GetPricingMenu', (w) => ({ params: { menu_id: w.menuId } })],
  ['UpdatePricingMenu', (w) => ({ params: { menu_id: w.menuId }, body: menuBody(w, 'Standard menu 2') })],
  ['CreatePricingPlan', (w) => ({ body: planBody(w, 'Standard') })],
  ['GetPricingPlans', () => ({})],
  ['GetPricingPlan', (w) => ({ params: { plan_id: w.planId } })],
  ['UpdatePricingPlan', (w) => ({ params: { plan_id: w.planId }, body: planBody(w, 'Standard 2') })],
  ['UpdatePricingPlansUsed', (w) => ({ body: { plan_ids: [w.planId] } })],
  ['CreateTaxRate', () => ({ body: { name: 'jct', display_name: '消費税', percentage: 10, inclusive: false, country: 'JP', description: '' } })],
  ['GetTaxRates', () => ({})],
  ['UpdateTaxRate', (w) => ({ params: { tax_rate_id: w.taxRateId }, body: { display_name: '消費税(外税)', description: 'JCT' } })],
  ['UpdateMeteringUnitTimestampCount', () => ({ params: { ...tenantUnit(), timestamp: TS }, body: { method: 'add', count: 5 } })],
  ['UpdateMeteringUnitTimestampCountNow', () => ({ params: tenantUnit(), body: { method: 'add', count: 1 } })],
  ['GetMeteringUnitDateCountByTenantIdAndUnitNameAndDate', () => ({ params: { ...tenantUnit(), date: '2026-01-01' } })],
  ['GetMeteringUnitDateCountByTenantIdAndUnitNameToday', () => ({ params: tenantUnit() })],
  ['GetMeteringUnitMonthCountByTenantIdAndUnitNameThisMonth', () => ({ params: tenantUnit() })],
  ['GetMeteringUnitMonthCountByTenantIdAndUnitNameAndMonth', () => ({ params: { ...tenantUnit(), month: '2026-01' } })],
  ['GetMeteringUnitDateCountsByTenantIdAndDate', () => ({ params: { tenant_id: tenantId, date: '2026-01-01' } })],
  ['GetMeteringUnitMonthCountsByTenantIdAndMonth', () => ({ params: { tenant_id: tenantId, month: '2026-01' } })],
  [
    'GetMeteringUnitDateCountByTenantIdAndUnitNameAndDatePeriod',
    () => ({ params: tenantUnit(), query: `start_timestamp=${TS}&end_timestamp=${TS + 86_399}` }),
  ],
  ['DeleteMeteringUnitTimestampCount', () => ({ params: { ...tenantUnit(), timestamp: TS } })],
  ['LinkPlanToStripe', () => ({})],
  ['DeleteStripePlan', () => ({})],
  ['DeletePricingPlan', (w) => ({ params: { plan_id: w.sparePlanId } })],
  ['DeletePricingMenu', (w) => ({ params: { menu_id: w.spareMenuId } })],
  ['DeletePricingUnit', () => ({ params: { pricing_unit_id: spare.loneId } })],
  ['DeleteMeteringUnitByID', (w) => ({ params: { metering_unit_id: w.spareMeterId } })],
  ['ReturnInternalServerError', () => ({})],
  ['DeleteAllPlansAndMenusAndUnitsAndMetersAndTaxRates', () => ({})],
];

const billingCalls: [string, (w: Ids) => Call][] = [
  ['GetStripeInfo', () => ({})],
  ['UpdateStripeInfo', () => ({ body: { secret_key: STAND_IN_KEY } })],
  ['ReturnInternalServerError', () => ({})],
  ['DeleteStripeInfo', () => ({})],
];

function learn(w: Ids, operationId: string, body: Record<string, unknown>) {
  if (operationId === 'CreateMeteringUnit') w.meterId = body.id as string;
  if (operationId === 'CreatePricingUnit') w.unitId = body.id as string;
  if (operationId === 'CreatePricingMenu') w.menuId = body.id as string;
  if (operationId === 'CreatePricingPlan') w.planId = body.id as string;
  if (operationId === 'CreateTaxRate') w.taxRateId = body.id as string;
}

/** Runs the calls against the definition: the path the definition names, filled in; the status and model it names. */
async function drive(client: SignedClient, sdk: SdkDefinition, calls: [string, (w: Ids) => Call][], ids: Ids): Promise<string[]> {
  const failures: string[] = [];
  for (const [operationId, call] of calls) {
    const op = sdk.sdkOperations.find((o) => o.operationId === operationId);
    if (!op) {
      failures.push(`${operationId}: not in the definition`);
      continue;
    }
    const { params = {}, query, body } = call(ids);
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name] ?? `missing-${name}`)));
    const res = await client.request(op.method, path + (query ? `?${query}` : ''), body === undefined ? {} : { body });
    const problems =
      res.status === op.status
        ? op.response
          ? sdk.modelProblems(op.response, res.body)
          : []
        : [`status ${res.status}, the SDK expects ${op.status}: ${res.text}`];
    if (res.status < 300 && res.body && typeof res.body === 'object') learn(ids, operationId, res.body as Record<string, unknown>);
    if (problems.length > 0)
      failures.push(
        `${op.method} ${op.path} (${operationId}, model ${op.response ? modelName(op.response) : 'none'}):\n    ${problems.join('\n    ')}`,
      );
  }
  return failures;
}

describe('the SaaSus SDKs’ Pricing and Billing API definitions', () => {
  it('have a call here for every one of their operations', () => {
    for (const [sdk, calls, count] of [
      [pricingDefinition, pricingCalls, 37],
      [billingDefinition, billingCalls, 4],
    ] as const) {
      const driven = new Set(calls.map(([id]) => id));
      assert.deepEqual(
        sdk.sdkOperations.filter((op) => !driven.has(op.operationId)).map((op) => op.operationId),
        [],
      );
      assert.equal(sdk.sdkOperations.length, count);
      assert.equal(calls.length, count);
    }
  });

  it('every operation answers the SDK’s status and models', async () => {
    const ids: Ids = { meterId: '', unitId: '', menuId: '', planId: '', taxRateId: '', spareMeterId: '', spareMenuId: '', sparePlanId: '' };
    // Billing first: the Stripe key the Pricing API's Connect needs.
    const failures = await drive(billing, billingDefinition, billingCalls.slice(0, 2), ids);
    // What the deletions take: a metering unit, a menu and a plan that nothing uses.
    ids.spareMeterId = await made(pricing.post('/metering/units', { unit_name: 'spare_only', display_name: '', description: '' }));
    ids.spareMenuId = await made(pricing.post('/menus', { name: 'spare', display_name: '', description: '', unit_ids: [spare.loneId] }));
    ids.sparePlanId = await made(pricing.post('/plans', { name: 'spare', display_name: '', description: '', menu_ids: [ids.spareMenuId] }));
    failures.push(...(await drive(pricing, pricingDefinition, pricingCalls, ids)));
    failures.push(...(await drive(billing, billingDefinition, billingCalls.slice(2), ids)));
    assert.deepEqual(failures, [], `operations the SDKs cannot use:\n${failures.join('\n')}`);
    // The catalogue went whole at the end, and the Stripe key with DeleteStripeInfo.
    assert.deepEqual((await pricing.get('/plans')).body, { pricing_plans: [] });
    assert.deepEqual((await billing.get('/stripe/info')).body, { is_registered: false });
  });
});
