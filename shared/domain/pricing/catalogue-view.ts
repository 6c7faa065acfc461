/** The catalogue as the answers show it: units with their metering unit's name, menus with their units, plans with their menus. */
import type { PricingMenu, PricingPlan, PricingUnit } from '../../schemas/pricing.js';
import type { Catalogue, MenuRecord, MeterRecord, PlanRecord, UnitRecord } from './catalogue-records.js';

export class View {
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
