/**
 * The SaaSus Pricing API (/v1/pricing) and Billing API (/v1/billing), as their published definitions
 * (pricingapi.yml, billingapi.yml, v1.13.4) name members and types. What a schema cannot say (tier order, a
 * used item's fixed billing structure) the domain checks: shared/domain/pricing/catalogue.ts.
 */
import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { Count, UnixSeconds, Uuid } from './common.js';

/** The largest amount a billing system takes in one price (Stripe: 99,999,999 of the smallest unit). */
export const MAX_AMOUNT = 99_999_999;

const Amount = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: `${description}: a whole amount of the smallest unit, 0 to ${MAX_AMOUNT}` });
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'not blank, at most 100 characters' });
const DisplayText = Type.String({ maxLength: 200 });
const Description = Type.String({ maxLength: 1000 });

/**
 * A metering unit's name: it goes in metering URLs (`/metering/tenants/{id}/units/{name}/…`) and in store
 * keys, so letters, digits and `_ . -` only; `date` and `month` would be read as those routes' own segments.
 */
export const METERING_UNIT_NAME_PATTERN = '^(?!(?:date|month)$)[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$';
export const MeteringUnitName = Type.String({
  pattern: METERING_UNIT_NAME_PATTERN,
  maxLength: 100,
  description: 'letters, digits, _ . - (starting with a letter or digit), at most 100; not `date` or `month`',
});

export const UnitType = Type.Union([Type.Literal('fixed'), Type.Literal('usage'), Type.Literal('tiered'), Type.Literal('tiered_usage')], {
  description: 'fixed, usage, tiered or tiered_usage',
});
export type UnitType = Static<typeof UnitType>;
export const Currency = Type.Union([Type.Literal('JPY'), Type.Literal('USD')], { description: 'JPY or USD' });
export const RecurringInterval = Type.Union([Type.Literal('month'), Type.Literal('year')], { description: 'month or year' });
export type RecurringInterval = Static<typeof RecurringInterval>;
export const AggregateUsage = Type.Union([Type.Literal('sum'), Type.Literal('max')], { description: 'sum or max' });
export type AggregateUsage = Static<typeof AggregateUsage>;

export const PricingTier = Type.Object(
  {
    up_to: Count,
    unit_amount: Amount('unit_amount'),
    flat_amount: Amount('flat_amount'),
    inf: Type.Boolean(),
  },
  { $id: 'PricingTier' },
);
export type PricingTier = Static<typeof PricingTier>;

const base = {
  name: Name,
  display_name: DisplayText,
  description: Description,
  currency: Currency,
};
const metered = {
  upper_count: Count,
  metering_unit_name: MeteringUnitName,
  aggregate_usage: Type.Optional(AggregateUsage),
  // Not in the definition's save parameters of metered units, which answer `month`; taken when given.
  recurring_interval: Type.Optional(RecurringInterval),
};
const Tiers = Type.Array(PricingTier, { minItems: 1, maxItems: 20, description: '1 to 20 tiers, ascending up_to, the last one open (inf)' });

export const PricingUnitForSave = Type.Union(
  [
    Type.Object({ ...base, type: Type.Literal('fixed'), unit_amount: Amount('unit_amount'), recurring_interval: RecurringInterval }),
    Type.Object({ ...base, type: Type.Literal('usage'), ...metered, unit_amount: Amount('unit_amount') }),
    Type.Object({ ...base, type: Type.Literal('tiered'), ...metered, tiers: Tiers }),
    Type.Object({ ...base, type: Type.Literal('tiered_usage'), ...metered, tiers: Tiers }),
  ],
  { description: 'a pricing unit by its type: fixed, usage, tiered or tiered_usage' },
);
export type PricingUnitForSave = Static<typeof PricingUnitForSave>;

/** A pricing unit as answered: its saved members, its id, whether it is used and (metered) its metering unit. */
export const PricingUnit = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    display_name: Type.String(),
    description: Type.String(),
    type: UnitType,
    currency: Currency,
    used: Type.Boolean(),
    recurring_interval: RecurringInterval,
    unit_amount: Type.Optional(Type.Integer()),
    upper_count: Type.Optional(Type.Integer()),
    metering_unit_id: Type.Optional(Type.String()),
    metering_unit_name: Type.Optional(Type.String()),
    aggregate_usage: Type.Optional(AggregateUsage),
    tiers: Type.Optional(Type.Array(PricingTier)),
  },
  { $id: 'PricingUnit' },
);
export type PricingUnit = Static<typeof PricingUnit>;

const IdList = (description: string) => Type.Array(Uuid, { maxItems: 50, description });

export const SavePricingMenuParam = Type.Object({
  name: Name,
  display_name: DisplayText,
  description: Description,
  unit_ids: IdList('ids of pricing units, at most 50'),
});
export type SavePricingMenuParam = Static<typeof SavePricingMenuParam>;

export const PricingMenu = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    display_name: Type.String(),
    description: Type.String(),
    used: Type.Boolean(),
    units: Type.Array(PricingUnit),
  },
  { $id: 'PricingMenu' },
);
export type PricingMenu = Static<typeof PricingMenu>;

export const SavePricingPlanParam = Type.Object({
  name: Name,
  display_name: DisplayText,
  description: Description,
  menu_ids: IdList('ids of pricing menus, at most 50'),
});
export type SavePricingPlanParam = Static<typeof SavePricingPlanParam>;

export const PricingPlan = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    display_name: Type.String(),
    description: Type.String(),
    used: Type.Boolean(),
    pricing_menus: Type.Array(PricingMenu),
  },
  { $id: 'PricingPlan' },
);
export type PricingPlan = Static<typeof PricingPlan>;

export const TaxRateProps = Type.Object({
  name: Name,
  display_name: DisplayText,
  percentage: Type.Number({ minimum: 0, maximum: 100, description: 'a percentage from 0 to 100' }),
  inclusive: Type.Boolean(),
  country: Type.String({ pattern: '^[A-Z]{2}$', description: 'an ISO 3166-1 alpha-2 code such as JP or US' }),
  description: Description,
});
export type TaxRateProps = Static<typeof TaxRateProps>;

export const TaxRate = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    display_name: Type.String(),
    percentage: Type.Number(),
    inclusive: Type.Boolean(),
    country: Type.String(),
    description: Type.String(),
  },
  { $id: 'TaxRate' },
);
export type TaxRate = Static<typeof TaxRate>;

export const MeteringUnitProps = Type.Object({
  unit_name: MeteringUnitName,
  aggregate_usage: Type.Optional(AggregateUsage),
  display_name: DisplayText,
  description: Description,
});
export type MeteringUnitProps = Static<typeof MeteringUnitProps>;

export const MeteringUnit = Type.Object(
  {
    id: Type.String(),
    unit_name: Type.String(),
    aggregate_usage: AggregateUsage,
    display_name: Type.String(),
    description: Type.String(),
    used: Type.Boolean(),
  },
  { $id: 'MeteringUnit' },
);
export type MeteringUnit = Static<typeof MeteringUnit>;

/** `2022-01-01`, a UTC day; the domain checks that the day exists. */
export const DateString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a date, YYYY-MM-DD (UTC)' });
/** `2022-01`, a UTC month. */
export const MonthString = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'a month, YYYY-MM (UTC)' });

const UpdateMethod = Type.Union([Type.Literal('add'), Type.Literal('sub'), Type.Literal('direct')], { description: 'add, sub or direct' });
export type UpdateMethod = Static<typeof UpdateMethod>;

/** Counts are never negative: `add` and `sub` move them by `count`, `direct` sets them to it. */
export const MeteringCountUpdate = Type.Object({ method: UpdateMethod, count: Count });
export type MeteringCountUpdate = Static<typeof MeteringCountUpdate>;

export const MeteringUnitTimestampCount = Type.Object(
  { metering_unit_name: Type.String(), timestamp: Type.Integer(), count: Type.Integer() },
  { $id: 'MeteringUnitTimestampCount' },
);
export const MeteringUnitDateCount = Type.Object(
  { metering_unit_name: Type.String(), date: Type.String(), count: Type.Integer() },
  { $id: 'MeteringUnitDateCount' },
);
export const MeteringUnitMonthCount = Type.Object(
  { metering_unit_name: Type.String(), month: Type.String(), count: Type.Integer() },
  { $id: 'MeteringUnitMonthCount' },
);
export const MeteringUnitDatePeriodCounts = Type.Object(
  {
    metering_unit_name: Type.String(),
    counts: Type.Array(Type.Object({ timestamp: Type.Integer(), count: Type.Integer() }, { $id: 'MeteringUnitCount' })),
  },
  { $id: 'MeteringUnitDatePeriodCounts' },
);

/** A tenant id in a metering path: the definition types it as a string; ours are UUIDs. */
const TenantIdParam = Type.String({ minLength: 1, maxLength: 128 });
const tenantUnit = { tenant_id: TenantIdParam, metering_unit_name: MeteringUnitName };

const noBody = {} satisfies OperationSchema;

export const pricingSchemas = {
  getPricingUnits: { response: Type.Object({ units: Type.Array(PricingUnit) }) },
  createPricingUnit: { body: PricingUnitForSave, response: PricingUnit },
  getPricingUnit: { params: Type.Object({ pricing_unit_id: Uuid }), response: PricingUnit },
  deletePricingUnit: { params: Type.Object({ pricing_unit_id: Uuid }) },
  updatePricingUnit: { params: Type.Object({ pricing_unit_id: Uuid }), body: PricingUnitForSave },
  getPricingMenus: { response: Type.Object({ pricing_menus: Type.Array(PricingMenu) }) },
  createPricingMenu: { body: SavePricingMenuParam, response: PricingMenu },
  getPricingMenu: { params: Type.Object({ menu_id: Uuid }), response: PricingMenu },
  deletePricingMenu: { params: Type.Object({ menu_id: Uuid }) },
  updatePricingMenu: { params: Type.Object({ menu_id: Uuid }), body: SavePricingMenuParam },
  getPricingPlans: { response: Type.Object({ pricing_plans: Type.Array(PricingPlan) }) },
  createPricingPlan: { body: SavePricingPlanParam, response: PricingPlan },
  getPricingPlan: { params: Type.Object({ plan_id: Uuid }), response: PricingPlan },
  deletePricingPlan: { params: Type.Object({ plan_id: Uuid }) },
  updatePricingPlan: { params: Type.Object({ plan_id: Uuid }), body: SavePricingPlanParam },
  updatePricingPlansUsed: { body: Type.Object({ plan_ids: Type.Array(Uuid, { minItems: 1, maxItems: 20, description: '1 to 20 plan ids' }) }) },
  linkPlanToStripe: noBody,
  deleteStripePlan: noBody,
  deleteAllPlansAndMenusAndUnitsAndMetersAndTaxRates: noBody,
  createTaxRate: { body: TaxRateProps, response: TaxRate },
  getTaxRates: { response: Type.Object({ tax_rates: Type.Array(TaxRate) }) },
  updateTaxRate: { params: Type.Object({ tax_rate_id: Uuid }), body: Type.Object({ display_name: DisplayText, description: Description }) },
  createMeteringUnit: { body: MeteringUnitProps, response: MeteringUnit },
  getMeteringUnits: { response: Type.Object({ units: Type.Array(MeteringUnit) }) },
  updateMeteringUnitByID: { params: Type.Object({ metering_unit_id: Uuid }), body: MeteringUnitProps },
  deleteMeteringUnitByID: { params: Type.Object({ metering_unit_id: Uuid }) },
  returnPricingInternalServerError: noBody,
} satisfies Record<string, OperationSchema>;

export const meteringSchemas = {
  getMeteringUnitDateCountByTenantIdAndUnitNameAndDate: {
    params: Type.Object({ ...tenantUnit, date: DateString }),
    response: MeteringUnitDateCount,
  },
  updateMeteringUnitTimestampCount: {
    params: Type.Object({ ...tenantUnit, timestamp: UnixSeconds }),
    body: MeteringCountUpdate,
    response: MeteringUnitTimestampCount,
  },
  deleteMeteringUnitTimestampCount: { params: Type.Object({ ...tenantUnit, timestamp: UnixSeconds }) },
  getMeteringUnitDateCountByTenantIdAndUnitNameToday: { params: Type.Object(tenantUnit), response: MeteringUnitDateCount },
  updateMeteringUnitTimestampCountNow: { params: Type.Object(tenantUnit), body: MeteringCountUpdate, response: MeteringUnitTimestampCount },
  getMeteringUnitMonthCountByTenantIdAndUnitNameThisMonth: { params: Type.Object(tenantUnit), response: MeteringUnitMonthCount },
  getMeteringUnitMonthCountByTenantIdAndUnitNameAndMonth: {
    params: Type.Object({ ...tenantUnit, month: MonthString }),
    response: MeteringUnitMonthCount,
  },
  getMeteringUnitDateCountsByTenantIdAndDate: {
    params: Type.Object({ tenant_id: TenantIdParam, date: DateString }),
    response: Type.Object({ counts: Type.Array(MeteringUnitDateCount) }),
  },
  getMeteringUnitMonthCountsByTenantIdAndMonth: {
    params: Type.Object({ tenant_id: TenantIdParam, month: MonthString }),
    response: Type.Object({ counts: Type.Array(MeteringUnitMonthCount) }),
  },
  getMeteringUnitDateCountByTenantIdAndUnitNameAndDatePeriod: {
    params: Type.Object(tenantUnit),
    query: Type.Object({ start_timestamp: Type.Optional(UnixSeconds), end_timestamp: Type.Optional(UnixSeconds) }),
    response: MeteringUnitDatePeriodCounts,
  },
} satisfies Record<string, OperationSchema>;

const StripeSecretKey = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'a Stripe secret key: sk_test_…, sk_live_… or a restricted rk_… key',
});

export const billingSchemas = {
  getStripeInfo: { response: Type.Object({ is_registered: Type.Boolean() }, { $id: 'StripeInfo' }) },
  updateStripeInfo: { body: Type.Object({ secret_key: StripeSecretKey }) },
  deleteStripeInfo: noBody,
  returnBillingInternalServerError: noBody,
} satisfies Record<string, OperationSchema>;
