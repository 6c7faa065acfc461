/**
 * A SaaS's pricing catalogue (docs/pricing.md): pricing units, metering units, menus (sets of units), plans
 * (sets of menus) and tax rates.
 *
 * Rules, each refusal naming its own:
 * - Tiers are what a billing system takes: ascending `up_to` bounds, exactly one open tier (`inf`) and it is
 *   the last, amounts within 0..MAX_AMOUNT.
 * - A menu names existing units, a plan existing menus; what a menu or plan names cannot be deleted.
 * - What a plan in use depends on is `used` (PATCH /plans/used marks a plan with its menus, units and metering
 *   units): used items cannot be deleted, and only their name, display name and description may change.
 *
 * Every item carries a revision. A write that depends on an item (a menu on its units, marking used) bumps
 * that item's revision under the condition that it is still the one read, so two writes that would together
 * break a rule cannot both commit: the later one re-reads and decides again.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { DomainError, invalid, notFound } from '../../errors.js';
import {
  MAX_AMOUNT,
  type AggregateUsage,
  type MeteringUnit,
  type MeteringUnitProps,
  type PricingMenu,
  type PricingPlan,
  type PricingTier,
  type PricingUnit,
  type PricingUnitForSave,
  type RecurringInterval,
  type SavePricingMenuParam,
  type SavePricingPlanParam,
  type TaxRate,
  type TaxRateProps,
  type UnitType,
} from '../../schemas/pricing.js';
import { COUNTRY_CODES } from '../tenants/countries.js';

interface Revised {
  id: string;
  rev: number;
  created_at: number;
}

export interface UnitRecord extends Revised {
  name: string;
  display_name: string;
  description: string;
  type: UnitType;
  currency: 'JPY' | 'USD';
  recurring_interval: RecurringInterval;
  used: boolean;
  unit_amount?: number;
  upper_count?: number;
  metering_unit_id?: string;
  aggregate_usage?: AggregateUsage;
  tiers?: PricingTier[];
}

export interface MeterRecord extends Revised {
  unit_name: string;
  aggregate_usage: AggregateUsage;
  display_name: string;
  description: string;
  used: boolean;
}

export interface MenuRecord extends Revised {
  name: string;
  display_name: string;
  description: string;
  unit_ids: string[];
  used: boolean;
}

export interface PlanRecord extends Revised {
  name: string;
  display_name: string;
  description: string;
  menu_ids: string[];
  used: boolean;
}

export interface TaxRateRecord extends Revised, TaxRateProps {}

export interface Catalogue {
  units: UnitRecord[];
  meters: MeterRecord[];
  menus: MenuRecord[];
  plans: PlanRecord[];
  taxRates: TaxRateRecord[];
}

export type CatalogueKind = 'unit' | 'meter' | 'menu' | 'plan' | 'taxRate';
type RecordOf<K extends CatalogueKind> = { unit: UnitRecord; meter: MeterRecord; menu: MenuRecord; plan: PlanRecord; taxRate: TaxRateRecord }[K];

/**
 * One write of a catalogue change, each with its condition: `create` (nothing with its key yet), `replace`
 * and `remove` (the item is still at the revision read), `bump` (the same, and its revision moves on).
 */
export type CatalogueWrite =
  | { op: 'create'; kind: CatalogueKind; record: RecordOf<CatalogueKind> }
  | {
      op: 'replace';
      kind: CatalogueKind;
      record: RecordOf<CatalogueKind>;
      fromRev: number;
      /** a meter renamed: its old name */ previousKey?: string;
    }
  | { op: 'remove'; kind: CatalogueKind; record: RecordOf<CatalogueKind>; fromRev: number }
  | { op: 'bump'; kind: CatalogueKind; record: RecordOf<CatalogueKind>; fromRev: number; markUsed?: boolean };

export interface CatalogueRepository {
  /** The whole catalogue of a SaaS, strongly consistent, in one query. */
  read(saasId: string): Promise<Catalogue>;
  /** All writes or none; false when a condition failed (something changed since the read). */
  commit(saasId: string, writes: CatalogueWrite[]): Promise<boolean>;
  /** Deletes every item of the catalogue. */
  clear(saasId: string): Promise<number>;
  /** A metering unit by name: the metering hot path's one read (cached per warm instance by the store). */
  meterByName(saasId: string, unitName: string): Promise<MeterRecord | undefined>;
}

const ATTEMPTS = 5;
/** DynamoDB's limit of items in one transaction. */
const TRANSACTION_ITEMS = 100;

const unitNotFound = (id: string) => notFound('pricing_unit_not_found', `no pricing unit with id ${id}`);
const menuNotFound = (id: string) => notFound('pricing_menu_not_found', `no pricing menu with id ${id}`);
const planNotFound = (id: string) => notFound('pricing_plan_not_found', `no pricing plan with id ${id}`);
const taxRateNotFound = (id: string) => notFound('tax_rate_not_found', `no tax rate with id ${id}`);
const meterNotFound = (id: string) => notFound('metering_unit_not_found', `no metering unit with id ${id}`);

const usedNotDeletable = (what: string, id: string) =>
  invalid('used_item_not_deletable', `${what} ${id} is used (a plan in use depends on it, PATCH /plans/used): it cannot be deleted`);
const usedStructureFixed = (what: string, id: string, fields: string[]) =>
  invalid(
    'used_item_billing_fixed',
    `${what} ${id} is used (a plan in use depends on it): only its name, display_name and description may change, not ${fields.join(', ')}`,
    { fields },
  );
const stillNamed = (what: string, id: string, by: string, byId: string) =>
  invalid('item_in_use', `${what} ${id} is part of ${by} ${byId}: remove it from there first`);

/** Tiers as a billing system takes them; the message names the tier and the rule. */
export function checkTiers(tiers: readonly PricingTier[]): void {
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

function toMeter(meter: MeterRecord): MeteringUnit {
  const { id, unit_name, aggregate_usage, display_name, description, used } = meter;
  return { id, unit_name, aggregate_usage, display_name, description, used };
}

function toTaxRate(rate: TaxRateRecord): TaxRate {
  const { id, name, display_name, percentage, inclusive, country, description } = rate;
  return { id, name, display_name, percentage, inclusive, country, description };
}

/** The catalogue as the answers show it: units with their metering unit's name, menus with units, plans with menus. */
class View {
  private readonly meters: Map<string, MeterRecord>;
  private readonly units: Map<string, UnitRecord>;
  private readonly menus: Map<string, MenuRecord>;

  constructor(readonly catalogue: Catalogue) {
    this.meters = new Map(catalogue.meters.map((m) => [m.id, m]));
    this.units = new Map(catalogue.units.map((u) => [u.id, u]));
    this.menus = new Map(catalogue.menus.map((m) => [m.id, m]));
  }

  unit(record: UnitRecord): PricingUnit {
    const { rev: _rev, created_at: _created, metering_unit_id, ...rest } = record;
    const meter = metering_unit_id ? this.meters.get(metering_unit_id) : undefined;
    return {
      ...rest,
      ...(metering_unit_id ? { metering_unit_id } : {}),
      ...(meter ? { metering_unit_name: meter.unit_name, aggregate_usage: record.aggregate_usage ?? meter.aggregate_usage } : {}),
    };
  }

  menu(record: MenuRecord): PricingMenu {
    const { id, name, display_name, description, used } = record;
    const units = record.unit_ids.flatMap((unitId) => {
      const unit = this.units.get(unitId);
      return unit ? [this.unit(unit)] : [];
    });
    return { id, name, display_name, description, used, units };
  }

  plan(record: PlanRecord): PricingPlan {
    const { id, name, display_name, description, used } = record;
    const pricing_menus = record.menu_ids.flatMap((menuId) => {
      const menu = this.menus.get(menuId);
      return menu ? [this.menu(menu)] : [];
    });
    return { id, name, display_name, description, used, pricing_menus };
  }
}

const byCreation = <T extends Revised>(items: T[]) => [...items].sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));

/** What an answer's status line and headers take beside its body, within the answer limit. */
const ANSWER_HEADROOM_BYTES = 4096;

export class CatalogueService {
  constructor(
    private readonly repository: CatalogueRepository,
    /** The most a function may answer (Lambda's 6 MB, counted as Lambda counts it: the body as a JSON string). */
    private readonly answerLimitBytes: number,
  ) {}

  /**
   * A plan is the one item whose answer (its menus, each with its units: up to 50 × 50) can pass what a function
   * may answer. Such a plan is refused before anything is written, so a create never answers an error after it
   * saved, and GET /plans/{id} can answer every plan, compressed or not (docs/pricing.md, "Answer size").
   */
  private fitting(plan: PricingPlan): PricingPlan {
    const bytes = Buffer.byteLength(JSON.stringify(JSON.stringify(plan))) + ANSWER_HEADROOM_BYTES;
    if (bytes <= this.answerLimitBytes) return plan;
    throw invalid(
      'plan_too_large',
      `menu_ids: the plan's answer (its ${plan.pricing_menus.length} menus with their units) would be ${bytes} bytes, more than the ` +
        `${this.answerLimitBytes} bytes an answer may be: name fewer menus, or menus with fewer units`,
      { field: 'menu_ids', limit_bytes: this.answerLimitBytes, answer_bytes: bytes },
    );
  }

  /** Reads, decides and commits, again from a fresh read when something changed in between. */
  private async change<T>(saasId: string, decide: (catalogue: Catalogue) => { writes: CatalogueWrite[]; result: T }): Promise<T> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const { writes, result } = decide(await this.repository.read(saasId));
      if (writes.length > TRANSACTION_ITEMS) {
        throw invalid('too_many_items', `this change touches ${writes.length} catalogue items; at most ${TRANSACTION_ITEMS} change together`);
      }
      if (writes.length === 0 || (await this.repository.commit(saasId, writes))) return result;
    }
    throw new DomainError('conflict', 'concurrent_update', 'the pricing catalogue changed at the same time; try again');
  }

  // Pricing units.

  async units(saasId: string): Promise<{ units: PricingUnit[] }> {
    const catalogue = await this.repository.read(saasId);
    const view = new View(catalogue);
    return { units: byCreation(catalogue.units).map((u) => view.unit(u)) };
  }

  async unit(saasId: string, unitId: string): Promise<PricingUnit> {
    const catalogue = await this.repository.read(saasId);
    const unit = catalogue.units.find((u) => u.id === unitId);
    if (!unit) throw unitNotFound(unitId);
    return new View(catalogue).unit(unit);
  }

  /**
   * The unit's record from what was saved. A metered unit names its metering unit: an existing one (whose
   * revision moves, so it cannot go meanwhile), or a new one made with it (aggregation as given, else sum).
   */
  private unitFrom(
    catalogue: Catalogue,
    input: PricingUnitForSave,
    base: Revised & { used: boolean },
  ): { record: UnitRecord; writes: CatalogueWrite[] } {
    const writes: CatalogueWrite[] = [];
    const common = {
      ...base,
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

  createUnit(saasId: string, input: PricingUnitForSave): Promise<PricingUnit> {
    const id = randomUUID();
    return this.change(saasId, (catalogue) => {
      const { record, writes } = this.unitFrom(catalogue, input, { id, rev: 0, created_at: nowSeconds(), used: false });
      return {
        writes: [...writes, { op: 'create', kind: 'unit', record }],
        result: new View({
          ...catalogue,
          meters: [...catalogue.meters, ...writes.filter((w) => w.kind === 'meter').map((w) => w.record as MeterRecord)],
        }).unit(record),
      };
    });
  }

  updateUnit(saasId: string, unitId: string, input: PricingUnitForSave): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const unit = catalogue.units.find((u) => u.id === unitId);
      if (!unit) throw unitNotFound(unitId);
      const { record, writes } = this.unitFrom(catalogue, input, { id: unit.id, rev: unit.rev, created_at: unit.created_at, used: unit.used });
      if (unit.used) {
        const fields = changedFields(billingStructure(unit), billingStructure(record));
        if (fields.length > 0) throw usedStructureFixed('pricing unit', unitId, fields);
      }
      return { writes: [...writes, { op: 'replace', kind: 'unit', record, fromRev: unit.rev }], result: undefined };
    });
  }

  deleteUnit(saasId: string, unitId: string): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const unit = catalogue.units.find((u) => u.id === unitId);
      if (!unit) throw unitNotFound(unitId);
      if (unit.used) throw usedNotDeletable('pricing unit', unitId);
      const menu = catalogue.menus.find((m) => m.unit_ids.includes(unitId));
      if (menu) throw stillNamed('pricing unit', unitId, 'menu', menu.id);
      return { writes: [{ op: 'remove', kind: 'unit', record: unit, fromRev: unit.rev }], result: undefined };
    });
  }

  // Menus.

  async menus(saasId: string): Promise<{ pricing_menus: PricingMenu[] }> {
    const catalogue = await this.repository.read(saasId);
    const view = new View(catalogue);
    return { pricing_menus: byCreation(catalogue.menus).map((m) => view.menu(m)) };
  }

  async menu(saasId: string, menuId: string): Promise<PricingMenu> {
    const catalogue = await this.repository.read(saasId);
    const menu = catalogue.menus.find((m) => m.id === menuId);
    if (!menu) throw menuNotFound(menuId);
    return new View(catalogue).menu(menu);
  }

  /** The units a menu names exist; those it newly names have their revision moved, so none goes meanwhile. */
  private namedUnits(catalogue: Catalogue, unitIds: string[], already: string[] = []): CatalogueWrite[] {
    return [...new Set(unitIds)].flatMap((unitId, i): CatalogueWrite[] => {
      const unit = catalogue.units.find((u) => u.id === unitId);
      if (!unit) throw invalid('pricing_unit_not_found', `unit_ids[${i}]: no pricing unit with id ${unitId}`, { field: `unit_ids[${i}]` });
      return already.includes(unitId) ? [] : [{ op: 'bump', kind: 'unit', record: unit, fromRev: unit.rev }];
    });
  }

  createMenu(saasId: string, input: SavePricingMenuParam): Promise<PricingMenu> {
    const id = randomUUID();
    return this.change(saasId, (catalogue) => {
      const record: MenuRecord = { id, rev: 0, created_at: nowSeconds(), ...input, unit_ids: [...new Set(input.unit_ids)], used: false };
      const writes = this.namedUnits(catalogue, record.unit_ids);
      return { writes: [...writes, { op: 'create', kind: 'menu', record }], result: new View(catalogue).menu(record) };
    });
  }

  updateMenu(saasId: string, menuId: string, input: SavePricingMenuParam): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const menu = catalogue.menus.find((m) => m.id === menuId);
      if (!menu) throw menuNotFound(menuId);
      const unitIds = [...new Set(input.unit_ids)];
      if (menu.used && !sameSet(menu.unit_ids, unitIds)) throw usedStructureFixed('pricing menu', menuId, ['unit_ids']);
      const writes = this.namedUnits(catalogue, unitIds, menu.unit_ids);
      const record: MenuRecord = { ...menu, name: input.name, display_name: input.display_name, description: input.description, unit_ids: unitIds };
      return { writes: [...writes, { op: 'replace', kind: 'menu', record, fromRev: menu.rev }], result: undefined };
    });
  }

  deleteMenu(saasId: string, menuId: string): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const menu = catalogue.menus.find((m) => m.id === menuId);
      if (!menu) throw menuNotFound(menuId);
      if (menu.used) throw usedNotDeletable('pricing menu', menuId);
      const plan = catalogue.plans.find((p) => p.menu_ids.includes(menuId));
      if (plan) throw stillNamed('pricing menu', menuId, 'plan', plan.id);
      return { writes: [{ op: 'remove', kind: 'menu', record: menu, fromRev: menu.rev }], result: undefined };
    });
  }

  // Plans.

  async plans(saasId: string): Promise<{ pricing_plans: PricingPlan[] }> {
    const catalogue = await this.repository.read(saasId);
    const view = new View(catalogue);
    return { pricing_plans: byCreation(catalogue.plans).map((p) => view.plan(p)) };
  }

  async plan(saasId: string, planId: string): Promise<PricingPlan> {
    const catalogue = await this.repository.read(saasId);
    const plan = catalogue.plans.find((p) => p.id === planId);
    if (!plan) throw planNotFound(planId);
    return new View(catalogue).plan(plan);
  }

  private namedMenus(catalogue: Catalogue, menuIds: string[], already: string[] = []): CatalogueWrite[] {
    return [...new Set(menuIds)].flatMap((menuId, i): CatalogueWrite[] => {
      const menu = catalogue.menus.find((m) => m.id === menuId);
      if (!menu) throw invalid('pricing_menu_not_found', `menu_ids[${i}]: no pricing menu with id ${menuId}`, { field: `menu_ids[${i}]` });
      return already.includes(menuId) ? [] : [{ op: 'bump', kind: 'menu', record: menu, fromRev: menu.rev }];
    });
  }

  createPlan(saasId: string, input: SavePricingPlanParam): Promise<PricingPlan> {
    const id = randomUUID();
    return this.change(saasId, (catalogue) => {
      const record: PlanRecord = { id, rev: 0, created_at: nowSeconds(), ...input, menu_ids: [...new Set(input.menu_ids)], used: false };
      const writes = this.namedMenus(catalogue, record.menu_ids);
      return { writes: [...writes, { op: 'create', kind: 'plan', record }], result: this.fitting(new View(catalogue).plan(record)) };
    });
  }

  updatePlan(saasId: string, planId: string, input: SavePricingPlanParam): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const plan = catalogue.plans.find((p) => p.id === planId);
      if (!plan) throw planNotFound(planId);
      const menuIds = [...new Set(input.menu_ids)];
      if (plan.used && !sameSet(plan.menu_ids, menuIds)) throw usedStructureFixed('pricing plan', planId, ['menu_ids']);
      const writes = this.namedMenus(catalogue, menuIds, plan.menu_ids);
      const record: PlanRecord = { ...plan, name: input.name, display_name: input.display_name, description: input.description, menu_ids: menuIds };
      this.fitting(new View(catalogue).plan(record));
      return { writes: [...writes, { op: 'replace', kind: 'plan', record, fromRev: plan.rev }], result: undefined };
    });
  }

  deletePlan(saasId: string, planId: string): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const plan = catalogue.plans.find((p) => p.id === planId);
      if (!plan) throw planNotFound(planId);
      if (plan.used) throw usedNotDeletable('pricing plan', planId);
      return { writes: [{ op: 'remove', kind: 'plan', record: plan, fromRev: plan.rev }], result: undefined };
    });
  }

  /** PATCH /plans/used: the plans, their menus, their units and those units' metering units become used. */
  markUsed(saasId: string, planIds: string[]): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const writes = new Map<string, CatalogueWrite>();
      const mark = (kind: CatalogueKind, record: RecordOf<CatalogueKind> & { used: boolean }) => {
        // Already used ones still move their revision: what they name must not change meanwhile.
        writes.set(`${kind}#${record.id}`, { op: 'bump', kind, record, fromRev: record.rev, markUsed: true });
      };
      [...new Set(planIds)].forEach((planId, i) => {
        const plan = catalogue.plans.find((p) => p.id === planId);
        if (!plan) throw invalid('pricing_plan_not_found', `plan_ids[${i}]: no pricing plan with id ${planId}`, { field: `plan_ids[${i}]` });
        mark('plan', plan);
        for (const menu of catalogue.menus.filter((m) => plan.menu_ids.includes(m.id))) {
          mark('menu', menu);
          for (const unit of catalogue.units.filter((u) => menu.unit_ids.includes(u.id))) {
            mark('unit', unit);
            const meter = catalogue.meters.find((m) => m.id === unit.metering_unit_id);
            if (meter) mark('meter', meter);
          }
        }
      });
      return { writes: [...writes.values()], result: undefined };
    });
  }

  /**
   * DELETE /plans-initialization: the whole catalogue goes, unconditionally, as the definition says. Tenants are
   * not touched: a plan id, a plan history or a reservation naming a plan now gone stays as it was, and is read
   * as a plan id from before the catalogue (docs/pricing.md, "Removing the catalogue"). Metering counts stay,
   * under their unit names.
   */
  async deleteAll(saasId: string): Promise<void> {
    await this.repository.clear(saasId);
  }

  // Tax rates.

  async taxRates(saasId: string): Promise<{ tax_rates: TaxRate[] }> {
    const catalogue = await this.repository.read(saasId);
    return { tax_rates: byCreation(catalogue.taxRates).map(toTaxRate) };
  }

  createTaxRate(saasId: string, input: TaxRateProps): Promise<TaxRate> {
    if (!COUNTRY_CODES.has(input.country)) {
      throw invalid('invalid_parameter', `country: '${input.country}' is not an ISO 3166-1 alpha-2 code`, { field: 'country' });
    }
    // Stripe's precision; also keeps out numbers the store cannot hold (5e-324).
    if (Math.round(input.percentage * 10_000) / 10_000 !== input.percentage) {
      throw invalid('invalid_parameter', 'percentage: at most 4 decimal places', { field: 'percentage' });
    }
    const record: TaxRateRecord = { id: randomUUID(), rev: 0, created_at: nowSeconds(), ...input };
    return this.change(saasId, () => ({ writes: [{ op: 'create', kind: 'taxRate', record }], result: toTaxRate(record) }));
  }

  /** Only the display name and description of a tax rate change: invoices already issued name it. */
  updateTaxRate(saasId: string, taxRateId: string, input: { display_name: string; description: string }): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const rate = catalogue.taxRates.find((r) => r.id === taxRateId);
      if (!rate) throw taxRateNotFound(taxRateId);
      const record: TaxRateRecord = { ...rate, display_name: input.display_name, description: input.description };
      return { writes: [{ op: 'replace', kind: 'taxRate', record, fromRev: rate.rev }], result: undefined };
    });
  }

  /** Whether a plan exists; `no_catalogue` while the SaaS has no plan at all (docs/pricing.md). */
  async planStatus(saasId: string, planId: string): Promise<'exists' | 'missing' | 'no_catalogue'> {
    const { plans } = await this.repository.read(saasId);
    if (plans.length === 0) return 'no_catalogue';
    return plans.some((p) => p.id === planId) ? 'exists' : 'missing';
  }

  /** Whether a tax rate exists; `no_catalogue` while the SaaS has no tax rate at all. */
  async taxRateStatus(saasId: string, taxRateId: string): Promise<'exists' | 'missing' | 'no_catalogue'> {
    const { taxRates } = await this.repository.read(saasId);
    if (taxRates.length === 0) return 'no_catalogue';
    return taxRates.some((r) => r.id === taxRateId) ? 'exists' : 'missing';
  }

  /**
   * The billing interval of a plan: a year when every pricing unit of its menus is yearly, else a month (also for
   * a plan without units); undefined for a plan the catalogue does not have (plans set before it existed).
   */
  async planInterval(saasId: string, planId: string): Promise<RecurringInterval | undefined> {
    const catalogue = await this.repository.read(saasId);
    const plan = catalogue.plans.find((p) => p.id === planId);
    if (!plan) return undefined;
    const unitIds = new Set(catalogue.menus.filter((m) => plan.menu_ids.includes(m.id)).flatMap((m) => m.unit_ids));
    const units = catalogue.units.filter((u) => unitIds.has(u.id));
    return units.length > 0 && units.every((u) => u.recurring_interval === 'year') ? 'year' : 'month';
  }

  // Metering units.

  async meters(saasId: string): Promise<{ units: MeteringUnit[] }> {
    const catalogue = await this.repository.read(saasId);
    return { units: byCreation(catalogue.meters).map(toMeter) };
  }

  createMeter(saasId: string, input: MeteringUnitProps): Promise<MeteringUnit> {
    const record: MeterRecord = {
      id: randomUUID(),
      rev: 0,
      created_at: nowSeconds(),
      unit_name: input.unit_name,
      aggregate_usage: input.aggregate_usage ?? 'sum',
      display_name: input.display_name,
      description: input.description,
      used: false,
    };
    return this.change(saasId, (catalogue) => {
      if (catalogue.meters.some((m) => m.unit_name === input.unit_name)) {
        throw new DomainError('conflict', 'metering_unit_name_taken', `unit_name: a metering unit named ${input.unit_name} exists`, {
          field: 'unit_name',
        });
      }
      return { writes: [{ op: 'create', kind: 'meter', record }], result: toMeter(record) };
    });
  }

  updateMeter(saasId: string, meterId: string, input: MeteringUnitProps): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const meter = catalogue.meters.find((m) => m.id === meterId);
      if (!meter) throw meterNotFound(meterId);
      const aggregate = input.aggregate_usage ?? meter.aggregate_usage;
      const renamed = input.unit_name !== meter.unit_name;
      if (meter.used) {
        const fields = [...(renamed ? ['unit_name'] : []), ...(aggregate !== meter.aggregate_usage ? ['aggregate_usage'] : [])];
        if (fields.length > 0) throw usedStructureFixed('metering unit', meterId, fields);
      }
      if (renamed && catalogue.meters.some((m) => m.unit_name === input.unit_name)) {
        throw new DomainError('conflict', 'metering_unit_name_taken', `unit_name: a metering unit named ${input.unit_name} exists`, {
          field: 'unit_name',
        });
      }
      const record: MeterRecord = {
        ...meter,
        unit_name: input.unit_name,
        aggregate_usage: aggregate,
        display_name: input.display_name,
        description: input.description,
      };
      // Units carry their metering unit's aggregation: they follow it.
      const units: CatalogueWrite[] =
        aggregate === meter.aggregate_usage
          ? []
          : catalogue.units
              .filter((u) => u.metering_unit_id === meterId)
              .map((u) => ({ op: 'replace', kind: 'unit', record: { ...u, aggregate_usage: aggregate }, fromRev: u.rev }));
      return {
        writes: [{ op: 'replace', kind: 'meter', record, fromRev: meter.rev, ...(renamed ? { previousKey: meter.unit_name } : {}) }, ...units],
        result: undefined,
      };
    });
  }

  deleteMeter(saasId: string, meterId: string): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const meter = catalogue.meters.find((m) => m.id === meterId);
      if (!meter) throw meterNotFound(meterId);
      if (meter.used) throw usedNotDeletable('metering unit', meterId);
      const unit = catalogue.units.find((u) => u.metering_unit_id === meterId);
      if (unit) throw stillNamed('metering unit', meterId, 'pricing unit', unit.id);
      return { writes: [{ op: 'remove', kind: 'meter', record: meter, fromRev: meter.rev }], result: undefined };
    });
  }
}
