/**
 * The rules of each of the catalogue's five kinds (pricing units, metering units, menus, plans, tax rates), as the
 * one set of create/read/update/delete operations of catalogue.ts takes them: where its items are, how one is
 * answered, made and revised, and what keeps one from being deleted. Rules and refusals: catalogue.ts's header.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { DomainError, invalid, notFound } from '../../errors.js';
import { MAX_AMOUNT, type PricingPlan, type PricingTier, type PricingUnitForSave } from '../../schemas/pricing.js';
import { COUNTRY_CODES } from '../tenants/countries.js';
import type {
  Catalogue,
  CatalogueKind,
  CatalogueKinds,
  CatalogueWrite,
  MeterRecord,
  PlanRecord,
  RecordOf,
  Revised,
  UnitRecord,
} from './catalogue-records.js';
import { View } from './catalogue-view.js';

/** A new item's id, revision and creation time, or those of the item an update replaces. */
export type Base = Revised & { used?: boolean };

/** An item as saved, and the writes beside its own that it needs (what it names, bumped; a new metering unit). */
export interface Made<K extends CatalogueKind> {
  record: RecordOf<K>;
  writes: CatalogueWrite[];
  /** a metering unit renamed: its old name, for the store's cache */
  previousKey?: string;
}

export interface KindRules<K extends CatalogueKind> {
  kind: K;
  /** As refusals name it: `pricing unit`. */
  what: string;
  /** The code of the refusal of an id the catalogue does not have: `pricing_unit_not_found`. */
  notFoundCode: string;
  list: CatalogueKinds[K]['list'];
  records: (catalogue: Catalogue) => RecordOf<K>[];
  answer: (view: View, record: RecordOf<K>) => CatalogueKinds[K]['answer'];
  /** A new item from what was saved; refuses what breaks a rule. */
  make: (catalogue: Catalogue, input: CatalogueKinds[K]['create'], base: Base) => Made<K>;
  /** The item after an update of what it was; refuses what breaks a rule (a used item keeps its billing). */
  revise: (catalogue: Catalogue, before: RecordOf<K>, input: CatalogueKinds[K]['update']) => Made<K>;
  /** What names an item and so keeps it from being deleted. */
  namedBy?: (catalogue: Catalogue, id: string) => { by: string; id: string } | undefined;
}

/** An id the catalogue does not have: 404 where the id is the address's, 400 naming the member where a body names it. */
type Named = Pick<KindRules<CatalogueKind>, 'what' | 'notFoundCode'>;
export const unknownItem = (rules: Named, id: string) => notFound(rules.notFoundCode, `no ${rules.what} with id ${id}`);
export const unknownMember = (rules: Named, field: string, id: string) =>
  invalid(rules.notFoundCode, `${field}: no ${rules.what} with id ${id}`, { field });

export const usedNotDeletable = (what: string, id: string) =>
  invalid('used_item_not_deletable', `${what} ${id} is used (a plan in use depends on it, PATCH /plans/used): it cannot be deleted`);
const usedStructureFixed = (what: string, id: string, fields: string[]) =>
  invalid(
    'used_item_billing_fixed',
    `${what} ${id} is used (a plan in use depends on it): only its name, display_name and description may change, not ${fields.join(', ')}`,
    { fields },
  );
export const stillNamed = (what: string, id: string, by: string, byId: string) =>
  invalid('item_in_use', `${what} ${id} is part of ${by} ${byId}: remove it from there first`);
const nameTaken = (name: string) =>
  new DomainError('conflict', 'metering_unit_name_taken', `unit_name: a metering unit named ${name} exists`, { field: 'unit_name' });

/** Tiers as a billing system takes them; the message names the tier and the rule. */
function checkTiers(tiers: readonly PricingTier[]): void {
  const field = (i: number, name: string) => `tiers[${i}].${name}`;
  let previous = 0;
  tiers.forEach((tier, i) => {
    const last = i === tiers.length - 1;
    if (tier.inf && !last) throw invalid('invalid_tiers', `${field(i, 'inf')}: only the last tier may be open (inf)`, { field: field(i, 'inf') });
    if (!tier.inf && last) throw invalid('invalid_tiers', `${field(i, 'inf')}: the last tier must be open (inf: true)`, { field: field(i, 'inf') });
    if (!tier.inf) {
      if (tier.up_to <= previous) {
        throw invalid('invalid_tiers', `${field(i, 'up_to')}: tiers must rise: ${tier.up_to} is not above ${previous}`, { field: field(i, 'up_to') });
      }
      previous = tier.up_to;
    }
    for (const name of ['unit_amount', 'flat_amount'] as const) {
      if (tier[name] < 0 || tier[name] > MAX_AMOUNT) {
        throw invalid('invalid_tiers', `${field(i, name)}: must be 0 to ${MAX_AMOUNT}`, { field: field(i, name) });
      }
    }
  });
}

/** The members that make a unit's price: a used unit keeps them. */
function billingStructure(unit: Partial<UnitRecord>): Record<string, unknown> {
  return {
    type: unit.type,
    currency: unit.currency,
    recurring_interval: unit.recurring_interval,
    unit_amount: unit.unit_amount,
    upper_count: unit.upper_count,
    metering_unit_id: unit.metering_unit_id,
    aggregate_usage: unit.aggregate_usage,
    tiers: unit.tiers?.map((t) => ({ up_to: t.inf ? 0 : t.up_to, unit_amount: t.unit_amount, flat_amount: t.flat_amount, inf: t.inf })),
  };
}

function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys({ ...before, ...after }).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && new Set([...a, ...b]).size === new Set(a).size;

/**
 * The unit's record from what was saved. A metered unit names its metering unit: an existing one (whose
 * revision moves, so it cannot go meanwhile), or a new one made with it (aggregation as given, else sum).
 */
function unitFrom(catalogue: Catalogue, input: PricingUnitForSave, base: Base): Made<'unit'> {
  const writes: CatalogueWrite[] = [];
  const common = {
    ...base,
    used: base.used ?? false,
    name: input.name,
    display_name: input.display_name,
    description: input.description,
    type: input.type,
    currency: input.currency,
  };
  if (input.type === 'fixed') {
    return { record: { ...common, unit_amount: input.unit_amount, recurring_interval: input.recurring_interval }, writes };
  }
  if (input.type === 'tiered' || input.type === 'tiered_usage') checkTiers(input.tiers);
  let meter = catalogue.meters.find((m) => m.unit_name === input.metering_unit_name);
  if (meter) {
    if (input.aggregate_usage && input.aggregate_usage !== meter.aggregate_usage) {
      throw invalid(
        'invalid_parameter',
        `aggregate_usage: metering unit ${meter.unit_name} aggregates by ${meter.aggregate_usage}, not ${input.aggregate_usage}`,
        { field: 'aggregate_usage' },
      );
    }
    writes.push({ op: 'bump', kind: 'meter', record: meter, fromRev: meter.rev });
  } else {
    meter = {
      id: randomUUID(),
      rev: 0,
      created_at: nowSeconds(),
      unit_name: input.metering_unit_name,
      aggregate_usage: input.aggregate_usage ?? 'sum',
      display_name: input.metering_unit_name,
      description: '',
      used: false,
    };
    writes.push({ op: 'create', kind: 'meter', record: meter });
  }
  const record: UnitRecord = {
    ...common,
    recurring_interval: input.recurring_interval ?? 'month',
    upper_count: input.upper_count,
    metering_unit_id: meter.id,
    aggregate_usage: meter.aggregate_usage,
    ...(input.type === 'usage' ? { unit_amount: input.unit_amount } : { tiers: input.tiers }),
  };
  return { record, writes };
}

/**
 * The members a menu (units) or a plan (menus) names after a save, once each: every one exists, and those newly
 * named have their revision moved, so none goes meanwhile. A used menu or plan (`before`) keeps its members.
 * The refusal names the member of the list.
 */
function members<K extends 'unit' | 'menu'>(
  rules: KindRules<K>,
  field: 'unit_ids' | 'menu_ids',
  catalogue: Catalogue,
  input: string[],
  before?: { what: string; id: string; used: boolean; ids: string[] },
): { ids: string[]; writes: CatalogueWrite[] } {
  const ids = [...new Set(input)];
  if (before?.used && !sameSet(before.ids, ids)) throw usedStructureFixed(before.what, before.id, [field]);
  const writes = ids.flatMap((id, i): CatalogueWrite[] => {
    const item = rules.records(catalogue).find((r) => r.id === id);
    if (!item) throw unknownMember(rules, `${field}[${i}]`, id);
    return before?.ids.includes(id) ? [] : [{ op: 'bump', kind: rules.kind, record: item, fromRev: item.rev }];
  });
  return { ids, writes };
}

/** The members every kind but tax rates lets an update of a used item change. */
const described = ({ name, display_name, description }: { name: string; display_name: string; description: string }) => ({
  name,
  display_name,
  description,
});

const UNITS: KindRules<'unit'> = {
  kind: 'unit',
  what: 'pricing unit',
  notFoundCode: 'pricing_unit_not_found',
  list: 'units',
  records: (catalogue) => catalogue.units,
  answer: (view, record) => view.unit(record),
  make: unitFrom,
  revise: (catalogue, unit, input) => {
    const made = unitFrom(catalogue, input, { id: unit.id, rev: unit.rev, created_at: unit.created_at, used: unit.used });
    if (unit.used) {
      const fields = changedFields(billingStructure(unit), billingStructure(made.record));
      if (fields.length > 0) throw usedStructureFixed('pricing unit', unit.id, fields);
    }
    return made;
  },
  namedBy: (catalogue, id) => {
    const menu = catalogue.menus.find((m) => m.unit_ids.includes(id));
    return menu && { by: 'menu', id: menu.id };
  },
};

const MENUS: KindRules<'menu'> = {
  kind: 'menu',
  what: 'pricing menu',
  notFoundCode: 'pricing_menu_not_found',
  list: 'pricing_menus',
  records: (catalogue) => catalogue.menus,
  answer: (view, record) => view.menu(record),
  make: (catalogue, input, base) => {
    const { ids, writes } = members(UNITS, 'unit_ids', catalogue, input.unit_ids);
    return { record: { ...base, ...input, unit_ids: ids, used: false }, writes };
  },
  revise: (catalogue, menu, input) => {
    const before = { what: 'pricing menu', id: menu.id, used: menu.used, ids: menu.unit_ids };
    const { ids, writes } = members(UNITS, 'unit_ids', catalogue, input.unit_ids, before);
    return { record: { ...menu, ...described(input), unit_ids: ids }, writes };
  },
  namedBy: (catalogue, id) => {
    const plan = catalogue.plans.find((p) => p.menu_ids.includes(id));
    return plan && { by: 'plan', id: plan.id };
  },
};

/** What an answer's status line and headers take beside its body, within the answer limit. */
const ANSWER_HEADROOM_BYTES = 4096;

/**
 * A plan is the one item whose answer (its menus, each with its units: up to 50 × 50) can pass what a function
 * may answer. Such a plan is refused before anything is written, so a create never answers an error after it
 * saved, and GET /plans/{id} can answer every plan, compressed or not (docs/pricing.md, "Answer size").
 */
function checkFits(plan: PricingPlan, answerLimitBytes: number): void {
  const bytes = Buffer.byteLength(JSON.stringify(JSON.stringify(plan))) + ANSWER_HEADROOM_BYTES;
  if (bytes <= answerLimitBytes) return;
  throw invalid(
    'plan_too_large',
    `menu_ids: the plan's answer (its ${plan.pricing_menus.length} menus with their units) would be ${bytes} bytes, more than the ` +
      `${answerLimitBytes} bytes an answer may be: name fewer menus, or menus with fewer units`,
    { field: 'menu_ids', limit_bytes: answerLimitBytes, answer_bytes: bytes },
  );
}

const plans = (answerLimitBytes: number): KindRules<'plan'> => ({
  kind: 'plan',
  what: 'pricing plan',
  notFoundCode: 'pricing_plan_not_found',
  list: 'pricing_plans',
  records: (catalogue) => catalogue.plans,
  answer: (view, record) => view.plan(record),
  make: (catalogue, input, base) => {
    const { ids, writes } = members(MENUS, 'menu_ids', catalogue, input.menu_ids);
    const record: PlanRecord = { ...base, ...input, menu_ids: ids, used: false };
    checkFits(new View(catalogue).plan(record), answerLimitBytes);
    return { record, writes };
  },
  revise: (catalogue, plan, input) => {
    const before = { what: 'pricing plan', id: plan.id, used: plan.used, ids: plan.menu_ids };
    const { ids, writes } = members(MENUS, 'menu_ids', catalogue, input.menu_ids, before);
    const record: PlanRecord = { ...plan, ...described(input), menu_ids: ids };
    checkFits(new View(catalogue).plan(record), answerLimitBytes);
    return { record, writes };
  },
});

const METERS: KindRules<'meter'> = {
  kind: 'meter',
  what: 'metering unit',
  notFoundCode: 'metering_unit_not_found',
  list: 'units',
  records: (catalogue) => catalogue.meters,
  answer: (_, { id, unit_name, aggregate_usage, display_name, description, used }) => ({
    id,
    unit_name,
    aggregate_usage,
    display_name,
    description,
    used,
  }),
  make: (catalogue, input, base) => {
    if (catalogue.meters.some((m) => m.unit_name === input.unit_name)) throw nameTaken(input.unit_name);
    const { unit_name, display_name, description } = input;
    return { record: { ...base, unit_name, aggregate_usage: input.aggregate_usage ?? 'sum', display_name, description, used: false }, writes: [] };
  },
  revise: (catalogue, meter, input) => {
    const aggregate = input.aggregate_usage ?? meter.aggregate_usage;
    const renamed = input.unit_name !== meter.unit_name;
    if (meter.used) {
      const fields = [...(renamed ? ['unit_name'] : []), ...(aggregate !== meter.aggregate_usage ? ['aggregate_usage'] : [])];
      if (fields.length > 0) throw usedStructureFixed('metering unit', meter.id, fields);
    }
    if (renamed && catalogue.meters.some((m) => m.unit_name === input.unit_name)) throw nameTaken(input.unit_name);
    const record: MeterRecord = {
      ...meter,
      unit_name: input.unit_name,
      aggregate_usage: aggregate,
      display_name: input.display_name,
      description: input.description,
    };
    // Units carry their metering unit's aggregation: they follow it.
    const writes: CatalogueWrite[] =
      aggregate === meter.aggregate_usage
        ? []
        : catalogue.units
            .filter((u) => u.metering_unit_id === meter.id)
            .map((u) => ({ op: 'replace', kind: 'unit', record: { ...u, aggregate_usage: aggregate }, fromRev: u.rev }));
    return { record, writes, ...(renamed ? { previousKey: meter.unit_name } : {}) };
  },
  namedBy: (catalogue, id) => {
    const unit = catalogue.units.find((u) => u.metering_unit_id === id);
    return unit && { by: 'pricing unit', id: unit.id };
  },
};

const TAX_RATES: KindRules<'taxRate'> = {
  kind: 'taxRate',
  what: 'tax rate',
  notFoundCode: 'tax_rate_not_found',
  list: 'tax_rates',
  records: (catalogue) => catalogue.taxRates,
  answer: (_, { id, name, display_name, percentage, inclusive, country, description }) => ({
    id,
    name,
    display_name,
    percentage,
    inclusive,
    country,
    description,
  }),
  make: (_, input, base) => {
    if (!COUNTRY_CODES.has(input.country)) {
      throw invalid('invalid_parameter', `country: '${input.country}' is not an ISO 3166-1 alpha-2 code`, { field: 'country' });
    }
    // Stripe's precision; also keeps out numbers the store cannot hold (5e-324).
    if (Math.round(input.percentage * 10_000) / 10_000 !== input.percentage) {
      throw invalid('invalid_parameter', 'percentage: at most 4 decimal places', { field: 'percentage' });
    }
    const { rev, id, created_at } = base;
    return { record: { id, rev, created_at, ...input }, writes: [] };
  },
  /** Only the display name and description of a tax rate change: invoices already issued name it. */
  revise: (_, rate, input) => ({ record: { ...rate, display_name: input.display_name, description: input.description }, writes: [] }),
};

/** The rules of every kind; a plan's depend on how large an answer may be. */
export const catalogueKinds = (answerLimitBytes: number): { [K in CatalogueKind]: KindRules<K> } => ({
  unit: UNITS,
  meter: METERS,
  menu: MENUS,
  plan: plans(answerLimitBytes),
  taxRate: TAX_RATES,
});
