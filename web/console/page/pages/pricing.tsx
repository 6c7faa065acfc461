/**
 * The pricing catalogue: metering units, pricing units of every type (pricing-unit-form.tsx), menus of units,
 * plans of menus, tax rates, one card each (pricing-cards.tsx), and the card that changes or deletes them
 * (pricing-changes.tsx). A plan is built here from units and menus; it is assigned to a tenant on the Tenants page.
 */
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { t } from '../texts.js';
import { useLoad } from '../ui.js';
import { CatalogueChanges } from './pricing-changes.js';
import { MenuCard, MeterCard, PlanCard, TaxRateCard, UnitCard, type List, type Menu, type Plan, type TaxRate } from './pricing-cards.js';
import type { MeteringUnit, PricingUnit as Unit } from './pricing-unit-form.js';

export function Pricing() {
  const units = useLoad(() => call<{ units: Unit[] }>('GET', 'pricing', '/units'));
  const meters = useLoad(() => call<{ units: MeteringUnit[] }>('GET', 'pricing', '/metering/units'));
  const menus = useLoad(() => call<{ pricing_menus: Menu[] }>('GET', 'pricing', '/menus'));
  const plans = useLoad(() => call<{ pricing_plans: Plan[] }>('GET', 'pricing', '/plans'));
  const taxRates = useLoad(() => call<{ tax_rates: TaxRate[] }>('GET', 'pricing', '/tax-rates'));
  // Moves on with each change made here: the "Change or delete" card reads the catalogue again.
  const [version, setVersion] = useState(0);
  const changed = (list: List<unknown>) => () => {
    list.reload();
    setVersion((v) => v + 1);
  };
  return (
    <>
      <h1 tabIndex={-1}>{t().pricing.heading}</h1>
      <MeterCard list={meters} onChanged={changed(meters)} />
      <UnitCard list={units} meters={meters} onChanged={changed(units)} />
      <MenuCard list={menus} units={units} onChanged={changed(menus)} />
      <PlanCard list={plans} menus={menus} onChanged={changed(plans)} />
      <TaxRateCard list={taxRates} onChanged={changed(taxRates)} />
      <CatalogueChanges version={version} onChanged={() => [meters, units, menus, plans, taxRates].forEach((list) => list.reload())} />
    </>
  );
}
