/**
 * The pricing page's cards (pricing.tsx): one per kind of the catalogue, each its table and its create form. A
 * card gets its kind's list (and the lists its form picks from) and says when it changed something.
 */
import { useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { ApiForm, Loaded, Table } from '../ui.js';
import { UnitForm, type MeteringUnit, type PricingUnit as Unit } from './pricing-unit-form.js';

/** A list the page loaded: its answer, and how to read it again. */
export interface List<T> {
  answer: Answer<T> | undefined;
  reload: () => void;
}

/** What each card is given: its own list, and what to call once its form changed the catalogue. */
interface CardProps<T> {
  list: List<T>;
  onChanged: () => void;
}

const names = () => {
  const p = t().pricing;
  return [
    { name: 'name', label: p.name, required: true },
    { name: 'display_name', label: p.displayName, required: true },
    { name: 'description', label: p.description },
  ];
};

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

export interface Menu {
  id: string;
  name: string;
  display_name: string;
  units: Unit[];
}
export interface Plan {
  id: string;
  name: string;
  display_name: string;
  pricing_menus: Menu[];
}
export interface TaxRate {
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

/** Metering units: the names usage is counted under. */
export function MeterCard({ list, onChanged }: CardProps<{ units: MeteringUnit[] }>) {
  const p = t().pricing;
  return (
    <section class="card">
      <h2>{p.meters}</h2>
      <Loaded answer={list.answer}>
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
        onDone={onChanged}
      />
    </section>
  );
}

/** Pricing units of every type (pricing-unit-form.tsx); a metered one names its metering unit. */
export function UnitCard({ list, meters, onChanged }: CardProps<{ units: Unit[] }> & { meters: List<{ units: MeteringUnit[] }> }) {
  const p = t().pricing;
  return (
    <section class="card">
      <h2>{p.units}</h2>
      <Loaded answer={list.answer}>
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
        onDone={onChanged}
      />
    </section>
  );
}

/** Menus: sets of units. */
export function MenuCard({ list, units, onChanged }: CardProps<{ pricing_menus: Menu[] }> & { units: List<{ units: Unit[] }> }) {
  const p = t().pricing;
  const [menuUnits, setMenuUnits] = useState<string[]>([]);
  return (
    <section class="card">
      <h2>{p.menus}</h2>
      <Loaded answer={list.answer}>
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
        fields={names()}
        onSubmit={(v) =>
          call('POST', 'pricing', '/menus', { name: v.name, display_name: v.display_name, description: v.description, unit_ids: menuUnits })
        }
        onDone={onChanged}
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
  );
}

/** Plans: sets of menus; a plan is assigned to a tenant on the Tenants page. */
export function PlanCard({ list, menus, onChanged }: CardProps<{ pricing_plans: Plan[] }> & { menus: List<{ pricing_menus: Menu[] }> }) {
  const p = t().pricing;
  const [planMenus, setPlanMenus] = useState<string[]>([]);
  return (
    <section class="card">
      <h2>{p.plans}</h2>
      <Loaded answer={list.answer}>
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
        fields={names()}
        onSubmit={(v) =>
          call('POST', 'pricing', '/plans', { name: v.name, display_name: v.display_name, description: v.description, menu_ids: planMenus })
        }
        onDone={onChanged}
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
  );
}

/** Tax rates. */
export function TaxRateCard({ list, onChanged }: CardProps<{ tax_rates: TaxRate[] }>) {
  const p = t().pricing;
  return (
    <section class="card">
      <h2>{p.taxRates}</h2>
      <Loaded answer={list.answer}>
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
          ...names(),
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
        onDone={onChanged}
      />
    </section>
  );
}
