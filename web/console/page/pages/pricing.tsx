/**
 * The pricing catalogue: metering units, pricing units of every type (pricing-unit-form.tsx), menus of units,
 * plans of menus, tax rates. A plan is built here from units and menus; it is assigned to a tenant on the
 * Tenants page.
 */
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { fill, t } from '../texts.js';
import { ApiForm, Loaded, Table, useLoad } from '../ui.js';
import { CatalogueChanges } from './pricing-changes.js';
import { UnitForm, type MeteringUnit, type PricingUnit as Unit } from './pricing-unit-form.js';

/** What a unit costs, in words: its amount, or its tiers. */
function priceOf(u: Unit): string {
  const p = t().pricing;
  const money = (amount: number | undefined) => `${amount ?? 0} ${u.currency}`;
  if (u.tiers && (u.type === 'tiered' || u.type === 'tiered_usage')) {
    return u.tiers
      .map((x) =>
        x.inf
          ? fill(p.tierAbove, { unit: money(x.unit_amount), flat: money(x.flat_amount) })
          : fill(p.tierUpTo, { up_to: x.up_to, unit: money(x.unit_amount), flat: money(x.flat_amount) }),
      )
      .join('; ');
  }
  const interval = u.recurring_interval === 'year' ? p.yearly : p.monthly;
  return u.type === 'usage' ? `${money(u.unit_amount)} (${p.amountPerCount})` : `${money(u.unit_amount)} (${interval})`;
}

interface Menu {
  id: string;
  name: string;
  display_name: string;
  units: Unit[];
}
interface Plan {
  id: string;
  name: string;
  display_name: string;
  pricing_menus: Menu[];
}
interface TaxRate {
  id: string;
  name: string;
  display_name: string;
  percentage: number;
  inclusive: boolean;
  country: string;
}

/** A group of checkboxes (which units in a menu, which menus in a plan). */
function CheckList({
  id,
  legend,
  items,
  chosen,
  onChange,
}: {
  id: string;
  legend: string;
  items: { id: string; label: string }[];
  chosen: string[];
  onChange: (ids: string[]) => void;
}) {
  return (
    <fieldset id={id}>
      <legend>{legend}</legend>
      {items.length === 0 ? <p class="muted">{t().common.none}</p> : null}
      {items.map((item) => (
        <label class="check" key={item.id}>
          <input
            type="checkbox"
            value={item.id}
            checked={chosen.includes(item.id)}
            onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked ? [...chosen, item.id] : chosen.filter((x) => x !== item.id))}
          />{' '}
          {item.label}
        </label>
      ))}
    </fieldset>
  );
}

export function Pricing() {
  const p = t().pricing;
  const units = useLoad(() => call<{ units: Unit[] }>('GET', 'pricing', '/units'));
  const meters = useLoad(() => call<{ units: MeteringUnit[] }>('GET', 'pricing', '/metering/units'));
  const menus = useLoad(() => call<{ pricing_menus: Menu[] }>('GET', 'pricing', '/menus'));
  const plans = useLoad(() => call<{ pricing_plans: Plan[] }>('GET', 'pricing', '/plans'));
  const taxRates = useLoad(() => call<{ tax_rates: TaxRate[] }>('GET', 'pricing', '/tax-rates'));
  const [menuUnits, setMenuUnits] = useState<string[]>([]);
  const [planMenus, setPlanMenus] = useState<string[]>([]);
  // Moves on with each change made here: the "Change or delete" card reads the catalogue again.
  const [version, setVersion] = useState(0);
  const changed = (list: { reload: () => void }) => () => {
    list.reload();
    setVersion((v) => v + 1);
  };
  const names = [
    { name: 'name', label: p.name, required: true },
    { name: 'display_name', label: p.displayName, required: true },
    { name: 'description', label: p.description },
  ];
  return (
    <>
      <h1 tabIndex={-1}>{p.heading}</h1>
      <section class="card">
        <h2>{p.meters}</h2>
        <Loaded answer={meters.answer}>
          {(body) => (
            <Table
              id="meters"
              caption={p.meters}
              rows={body.units}
              columns={[
                { label: p.name, render: (m) => <code>{m.unit_name}</code> },
                { label: p.displayName, render: (m) => m.display_name },
                { label: p.aggregate, render: (m) => (m.aggregate_usage === 'max' ? p.max : p.sum) },
              ]}
            />
          )}
        </Loaded>
        <h3>{p.createMeter}</h3>
        <ApiForm
          id="create-meter"
          submitLabel={p.createMeter}
          doneText={t().common.created}
          fields={[
            { name: 'unit_name', label: p.unitName, required: true, hint: p.unitNameHint },
            { name: 'display_name', label: p.displayName, required: true },
            { name: 'description', label: p.description },
            {
              name: 'aggregate_usage',
              label: p.aggregate,
              type: 'select',
              options: [
                { value: 'sum', label: p.sum },
                { value: 'max', label: p.max },
              ],
            },
          ]}
          onSubmit={(v) =>
            call('POST', 'pricing', '/metering/units', {
              unit_name: v.unit_name,
              display_name: v.display_name,
              description: v.description,
              aggregate_usage: v.aggregate_usage,
            })
          }
          onDone={changed(meters)}
        />
      </section>
      <section class="card">
        <h2>{p.units}</h2>
        <Loaded answer={units.answer}>
          {(body) => (
            <Table
              id="units"
              caption={p.units}
              rows={body.units}
              columns={[
                { label: p.name, render: (u) => <code>{u.name}</code> },
                { label: p.displayName, render: (u) => u.display_name },
                { label: p.type, render: (u) => p.unitTypes[u.type] ?? u.type },
                { label: p.meteringUnit, render: (u) => (u.metering_unit_name ? <code>{u.metering_unit_name}</code> : '—') },
                { label: p.amount, render: priceOf },
              ]}
            />
          )}
        </Loaded>
        <h3>{p.createUnit}</h3>
        <UnitForm
          id="create-unit"
          meters={meters.answer?.ok ? meters.answer.body.units : []}
          submitLabel={p.createUnit}
          doneText={t().common.created}
          onSubmit={(body) => call('POST', 'pricing', '/units', body)}
          onDone={changed(units)}
        />
      </section>
      <section class="card">
        <h2>{p.menus}</h2>
        <Loaded answer={menus.answer}>
          {(body) => (
            <Table
              id="menus"
              caption={p.menus}
              rows={body.pricing_menus}
              columns={[
                { label: p.name, render: (m) => <code>{m.name}</code> },
                { label: p.displayName, render: (m) => m.display_name },
                { label: p.contents, render: (m) => m.units.map((u) => u.display_name).join(', ') },
              ]}
            />
          )}
        </Loaded>
        <h3>{p.createMenu}</h3>
        <ApiForm
          id="create-menu"
          submitLabel={p.createMenu}
          doneText={t().common.created}
          fields={names}
          onSubmit={(v) =>
            call('POST', 'pricing', '/menus', { name: v.name, display_name: v.display_name, description: v.description, unit_ids: menuUnits })
          }
          onDone={changed(menus)}
        >
          <CheckList
            id="create-menu-units"
            legend={p.unitsOfMenu}
            items={units.answer?.ok ? units.answer.body.units.map((u) => ({ id: u.id, label: u.display_name })) : []}
            chosen={menuUnits}
            onChange={setMenuUnits}
          />
        </ApiForm>
      </section>
      <section class="card">
        <h2>{p.plans}</h2>
        <Loaded answer={plans.answer}>
          {(body) => (
            <Table
              id="plans"
              caption={p.plans}
              rows={body.pricing_plans}
              columns={[
                { label: p.name, render: (x) => <code>{x.name}</code> },
                { label: p.displayName, render: (x) => x.display_name },
                { label: p.contents, render: (x) => x.pricing_menus.map((m) => m.display_name).join(', ') },
              ]}
            />
          )}
        </Loaded>
        <h3>{p.createPlan}</h3>
        <ApiForm
          id="create-plan"
          submitLabel={p.createPlan}
          doneText={t().common.created}
          fields={names}
          onSubmit={(v) =>
            call('POST', 'pricing', '/plans', { name: v.name, display_name: v.display_name, description: v.description, menu_ids: planMenus })
          }
          onDone={changed(plans)}
        >
          <CheckList
            id="create-plan-menus"
            legend={p.menusOfPlan}
            items={menus.answer?.ok ? menus.answer.body.pricing_menus.map((m) => ({ id: m.id, label: m.display_name })) : []}
            chosen={planMenus}
            onChange={setPlanMenus}
          />
        </ApiForm>
        <p class="hint">{p.assign}</p>
      </section>
      <section class="card">
        <h2>{p.taxRates}</h2>
        <Loaded answer={taxRates.answer}>
          {(body) => (
            <Table
              id="tax-rates"
              caption={p.taxRates}
              rows={body.tax_rates}
              columns={[
                { label: p.name, render: (x) => <code>{x.name}</code> },
                { label: p.displayName, render: (x) => x.display_name },
                { label: p.percentage, render: (x) => `${x.percentage}%` },
                { label: p.inclusive, render: (x) => (x.inclusive ? t().common.yes : t().common.no) },
                { label: p.country, render: (x) => x.country },
              ]}
            />
          )}
        </Loaded>
        <h3>{p.createTaxRate}</h3>
        <ApiForm
          id="create-tax-rate"
          submitLabel={p.createTaxRate}
          doneText={t().common.created}
          fields={[
            ...names,
            { name: 'percentage', label: p.percentage, type: 'number', required: true },
            { name: 'inclusive', label: p.inclusive, type: 'checkbox' },
            { name: 'country', label: p.country, required: true, placeholder: 'JP' },
          ]}
          onSubmit={(v) =>
            call('POST', 'pricing', '/tax-rates', {
              name: v.name,
              display_name: v.display_name,
              description: v.description,
              percentage: v.percentage === '' ? undefined : Number(v.percentage),
              inclusive: v.inclusive === true,
              country: v.country,
            })
          }
          onDone={changed(taxRates)}
        />
      </section>
      <CatalogueChanges version={version} onChanged={() => [meters, units, menus, plans, taxRates].forEach((list) => list.reload())} />
    </>
  );
}
