/**
 * What a SaaS's pricing catalogue is made of (docs/pricing.md): the stored record of each of the five kinds,
 * the catalogue as one read, the writes a change commits and the repository port that reads and commits them.
 */
import type {
  AggregateUsage,
  MeteringUnit,
  MeteringUnitProps,
  PricingMenu,
  PricingPlan,
  PricingTier,
  PricingUnit,
  PricingUnitForSave,
  RecurringInterval,
  SavePricingMenuParam,
  SavePricingPlanParam,
  TaxRate,
  TaxRateProps,
  UnitType,
} from '../../schemas/pricing.js';

export interface Revised {
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

/**
 * Each kind of item: its stored record, its answer, what a create and an update take, and the member of the list
 * answer that holds them (GET /units answers `{ units: [...] }`).
 */
export interface CatalogueKinds {
  unit: { record: UnitRecord; answer: PricingUnit; create: PricingUnitForSave; update: PricingUnitForSave; list: 'units' };
  meter: { record: MeterRecord; answer: MeteringUnit; create: MeteringUnitProps; update: MeteringUnitProps; list: 'units' };
  menu: { record: MenuRecord; answer: PricingMenu; create: SavePricingMenuParam; update: SavePricingMenuParam; list: 'pricing_menus' };
  plan: { record: PlanRecord; answer: PricingPlan; create: SavePricingPlanParam; update: SavePricingPlanParam; list: 'pricing_plans' };
  taxRate: {
    record: TaxRateRecord;
    answer: TaxRate;
    create: TaxRateProps;
    update: Pick<TaxRateProps, 'display_name' | 'description'>;
    list: 'tax_rates';
  };
}
export type CatalogueKind = keyof CatalogueKinds;
export type RecordOf<K extends CatalogueKind> = CatalogueKinds[K]['record'];

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
