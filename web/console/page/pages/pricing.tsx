/**
 * The pricing catalogue (Pricing API, docs/pricing.md): units, menus, plans and tax rates, each listed, made and
 * deleted; a plan is built by ticking menus, a menu by ticking units. Below: a plan given to a tenant (the Auth
 * API's PUT /tenants/{id}/plans) and a tenant's metered usage per day as a bar chart.
 */
import { useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { ApiForm, Loaded, ProblemNote, Table, useLoad, type FieldSpec, type Values } from '../ui.js';
import { UsageChart } from './usage-chart.js';

interface Unit {
  id: string;
  name: string;
  display_name: string;
  description?: string;
  type: string;
  currency: string;
  unit_amount?: number;
  recurring_interval?: string;
  metering_unit_name?: string;
  used: boolean;
}
interface Menu {
  id: string;
  name: string;
  display_name: string;
  description?: string;
  units: Unit[];
  used: boolean;
}
interface Plan {
  id: string;
  name: string;
  display_name: string;
  description?: string;
  pricing_menus: Menu[];
  used: boolean;
}
interface TaxRate {
  id: string;
  name: string;
  display_name: string;
  description?: string;
  percentage: number;
  inclusive: boolean;
  country: string;
}
export interface Tenant {
  id: string;
  name: string;
  plan_id?: string;
}

/** The ids of the ticked `prefix…` checkboxes of a form's values. */
const ticked = (values: Values, prefix: string) =>
  Object.entries(values)
    .filter(([name, on]) => name.startsWith(prefix) && on === true)
    .map(([name]) => name.slice(prefix.length));

/** An item as the API's PATCH takes it: without its id and used flag. */
const saved = <T extends { id: string; used: boolean }>(item: T) => {
  const { id: _id, used: _used, ...rest } = item;
  return rest;
};

const names = (values: Values) => ({ display_name: values.display_name, description: values.description });

const base = (values: Values) => ({ name: values.name, display_name: values.display_name, description: values.description });

/** A delete button per row: the refusal (an item in use) shows under the table. */
function DeleteButton({ label, path, onDone, onAnswer }: { label: string; path: string; onDone: () => void; onAnswer: (a: Answer) => void }) {
  return (
    <button
      type="button"
      class="danger"
      aria-label={label}
      onClick={async () => {
        const answer = await call('DELETE', 'pricing', path);
        onAnswer(answer);
        if (answer.ok) onDone();
      }}
    >
      {t().common.delete}
    </button>
  );
}

function useDeletion() {
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  return { answer, setAnswer };
}

/**
 * Names of an item changed in place: the Pricing API's PATCH takes the whole item, so the rest is sent as read
 * (a used item keeps its billing structure and may change only its names, docs/pricing.md).
 */
function EditNames({
  id,
  item,
  path,
  body,
  onDone,
}: {
  id: string;
  item: { display_name: string; description?: string };
  path: string;
  body: (values: Values) => unknown;
  onDone: () => void;
}) {
  const p = t().pricing;
  return (
    <ApiForm
      id={id}
      initial={{ display_name: item.display_name, description: item.description ?? '' }}
      fields={[
        { name: 'display_name', label: p.displayName, required: true },
        { name: 'description', label: p.description },
      ]}
      submitLabel={t().common.save}
      doneText={t().common.saved}
      onSubmit={(values) => call('PATCH', 'pricing', path, body(values))}
      onDone={onDone}
    />
  );
}

/** The row being edited, and an Edit button per row that opens its form under the table. */
function useEditing() {
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const button = (itemId: string, name: string) => (
    <button
      type="button"
      class="secondary"
      aria-label={fill(t().pricing.editNamed, { name })}
      onClick={() => setEditing(editing === itemId ? undefined : itemId)}
    >
      {t().pricing.edit}
    </button>
  );
  return { editing, button };
}

function Units({ units, reload }: { units: Unit[]; reload: () => void }) {
  const p = t().pricing;
  const deletion = useDeletion();
  const edit = useEditing();
  const fields: FieldSpec[] = [
    { name: 'name', label: p.name, required: true },
    { name: 'display_name', label: p.displayName, required: true },
    { name: 'description', label: p.description },
    {
      name: 'type',
      label: p.unitType,
      type: 'select',
      options: [
        { value: 'fixed', label: p.typeFixed },
        { value: 'usage', label: p.typeUsage },
      ],
    },
    {
      name: 'currency',
      label: p.currency,
      type: 'select',
      options: [
        { value: 'JPY', label: 'JPY' },
        { value: 'USD', label: 'USD' },
      ],
    },
    { name: 'unit_amount', label: p.amount, type: 'number', required: true, hint: p.amountHint },
    {
      name: 'recurring_interval',
      label: p.interval,
      type: 'select',
      options: [
        { value: 'month', label: p.month },
        { value: 'year', label: p.year },
      ],
    },
    { name: 'metering_unit_name', label: p.meteringUnit, hint: p.meteringUnitHint },
    { name: 'upper_count', label: p.upperCount, type: 'number', hint: p.upperCountHint },
  ];
  return (
    <section class="card" aria-labelledby="units-heading">
      <h2 id="units-heading">{p.unitsHeading}</h2>
      <Table
        id="units"
        caption={p.unitsHeading}
        rows={units}
        columns={[
          { label: p.name, render: (u) => <code>{u.name}</code> },
          { label: p.displayName, render: (u) => u.display_name },
          { label: p.unitType, render: (u) => (u.type === 'fixed' ? p.typeFixed : u.type === 'usage' ? p.typeUsage : u.type) },
          { label: p.amount, render: (u) => (u.unit_amount !== undefined ? `${u.unit_amount} ${u.currency}` : u.currency) },
          { label: p.meteringUnit, render: (u) => u.metering_unit_name ?? '' },
          {
            label: t().common.actions,
            render: (u) => (
              <>
                {edit.button(u.id, u.name)}
                {u.used ? (
                  p.used
                ) : (
                  <DeleteButton label={fill(p.deleteNamed, { name: u.name })} path={`/units/${u.id}`} onDone={reload} onAnswer={deletion.setAnswer} />
                )}
              </>
            ),
          },
        ]}
      />
      <ProblemNote answer={deletion.answer} />
      {units
        .filter((u) => u.id === edit.editing)
        .map((u) => (
          <EditNames
            key={u.id}
            id="edit-unit"
            item={u}
            path={`/units/${u.id}`}
            body={(values) => ({ ...saved(u), ...names(values) })}
            onDone={reload}
          />
        ))}
      <h3>{p.createUnit}</h3>
      <ApiForm
        id="create-unit"
        fields={fields}
        initial={{ recurring_interval: 'month', currency: 'JPY', type: 'fixed' }}
        submitLabel={p.createUnit}
        doneText={t().common.created}
        onSubmit={(values) => {
          const usage = values.type === 'usage';
          const body = {
            ...base(values),
            type: values.type,
            currency: values.currency,
            unit_amount: Number(values.unit_amount),
            recurring_interval: values.recurring_interval,
            ...(usage ? { metering_unit_name: values.metering_unit_name, upper_count: Number(values.upper_count || 0) } : {}),
          };
          return call('POST', 'pricing', '/units', body);
        }}
        onDone={reload}
      />
    </section>
  );
}

/** Checkboxes of items to pick (units for a menu, menus for a plan), as form fields named `{prefix}{id}`. */
const picks = (prefix: string, items: { id: string; name: string; display_name: string }[]): FieldSpec[] =>
  items.map((item) => ({ name: `${prefix}${item.id}`, label: `${item.display_name} (${item.name})`, type: 'checkbox' }));

function Menus({ menus, units, reload }: { menus: Menu[]; units: Unit[]; reload: () => void }) {
  const p = t().pricing;
  const deletion = useDeletion();
  const edit = useEditing();
  return (
    <section class="card" aria-labelledby="menus-heading">
      <h2 id="menus-heading">{p.menusHeading}</h2>
      <Table
        id="menus"
        caption={p.menusHeading}
        rows={menus}
        columns={[
          { label: p.name, render: (m) => <code>{m.name}</code> },
          { label: p.displayName, render: (m) => m.display_name },
          { label: p.unitsHeading, render: (m) => m.units.map((u) => u.name).join(', ') },
          {
            label: t().common.actions,
            render: (m) => (
              <>
                {edit.button(m.id, m.name)}
                {m.used ? (
                  p.used
                ) : (
                  <DeleteButton label={fill(p.deleteNamed, { name: m.name })} path={`/menus/${m.id}`} onDone={reload} onAnswer={deletion.setAnswer} />
                )}
              </>
            ),
          },
        ]}
      />
      <ProblemNote answer={deletion.answer} />
      {menus
        .filter((m) => m.id === edit.editing)
        .map((m) => (
          <EditNames
            key={m.id}
            id="edit-menu"
            item={m}
            path={`/menus/${m.id}`}
            body={(values) => ({ name: m.name, ...names(values), unit_ids: m.units.map((x) => x.id) })}
            onDone={reload}
          />
        ))}
      <h3>{p.createMenu}</h3>
      <ApiForm
        id="create-menu"
        key={units.map((u) => u.id).join()}
        fields={[
          { name: 'name', label: p.name, required: true },
          { name: 'display_name', label: p.displayName, required: true },
          { name: 'description', label: p.description },
          ...picks('unit_', units),
        ]}
        submitLabel={p.createMenu}
        doneText={t().common.created}
        onSubmit={(values) => call('POST', 'pricing', '/menus', { ...base(values), unit_ids: ticked(values, 'unit_') })}
        onDone={reload}
      >
        {units.length === 0 ? <p class="hint">{p.noUnits}</p> : null}
      </ApiForm>
    </section>
  );
}

function Plans({ plans, menus, reload }: { plans: Plan[]; menus: Menu[]; reload: () => void }) {
  const p = t().pricing;
  const deletion = useDeletion();
  const edit = useEditing();
  return (
    <section class="card" aria-labelledby="plans-heading">
      <h2 id="plans-heading">{p.plansHeading}</h2>
      <Table
        id="plans"
        caption={p.plansHeading}
        rows={plans}
        columns={[
          { label: p.name, render: (plan) => <code>{plan.name}</code> },
          { label: p.displayName, render: (plan) => plan.display_name },
          { label: p.menusHeading, render: (plan) => plan.pricing_menus.map((m) => m.name).join(', ') },
          {
            label: t().common.actions,
            render: (plan) => (
              <>
                {edit.button(plan.id, plan.name)}
                {plan.used ? (
                  p.used
                ) : (
                  <DeleteButton
                    label={fill(p.deleteNamed, { name: plan.name })}
                    path={`/plans/${plan.id}`}
                    onDone={reload}
                    onAnswer={deletion.setAnswer}
                  />
                )}
              </>
            ),
          },
        ]}
      />
      <ProblemNote answer={deletion.answer} />
      {plans
        .filter((plan) => plan.id === edit.editing)
        .map((plan) => (
          <EditNames
            key={plan.id}
            id="edit-plan"
            item={plan}
            path={`/plans/${plan.id}`}
            body={(values) => ({ name: plan.name, ...names(values), menu_ids: plan.pricing_menus.map((x) => x.id) })}
            onDone={reload}
          />
        ))}
      <h3>{p.createPlan}</h3>
      <ApiForm
        id="create-plan"
        key={menus.map((m) => m.id).join()}
        fields={[
          { name: 'name', label: p.name, required: true },
          { name: 'display_name', label: p.displayName, required: true },
          { name: 'description', label: p.description },
          ...picks('menu_', menus),
        ]}
        submitLabel={p.createPlan}
        doneText={t().common.created}
        onSubmit={(values) => call('POST', 'pricing', '/plans', { ...base(values), menu_ids: ticked(values, 'menu_') })}
        onDone={reload}
      >
        {menus.length === 0 ? <p class="hint">{p.noMenus}</p> : null}
      </ApiForm>
    </section>
  );
}

function TaxRates({ rates, reload }: { rates: TaxRate[]; reload: () => void }) {
  const p = t().pricing;
  const edit = useEditing();
  return (
    <section class="card" aria-labelledby="tax-heading">
      <h2 id="tax-heading">{p.taxHeading}</h2>
      <Table
        id="tax-rates"
        caption={p.taxHeading}
        rows={rates}
        columns={[
          { label: p.name, render: (r) => <code>{r.name}</code> },
          { label: p.displayName, render: (r) => r.display_name },
          { label: p.percentage, render: (r) => `${r.percentage} %` },
          { label: p.inclusive, render: (r) => (r.inclusive ? t().common.yes : t().common.no) },
          { label: p.country, render: (r) => r.country },
          { label: t().common.actions, render: (r) => edit.button(r.id, r.name) },
        ]}
      />
      {rates
        .filter((r) => r.id === edit.editing)
        .map((r) => (
          <EditNames key={r.id} id="edit-tax-rate" item={r} path={`/tax-rates/${r.id}`} body={names} onDone={reload} />
        ))}
      <p class="hint">{p.taxNoDelete}</p>
      <h3>{p.createTax}</h3>
      <ApiForm
        id="create-tax-rate"
        fields={[
          { name: 'name', label: p.name, required: true },
          { name: 'display_name', label: p.displayName, required: true },
          { name: 'description', label: p.description },
          { name: 'percentage', label: p.percentage, type: 'number', required: true },
          { name: 'inclusive', label: p.inclusive, type: 'checkbox' },
          { name: 'country', label: p.country, required: true, placeholder: 'JP' },
        ]}
        submitLabel={p.createTax}
        doneText={t().common.created}
        onSubmit={(values) =>
          call('POST', 'pricing', '/tax-rates', {
            ...base(values),
            percentage: Number(values.percentage),
            inclusive: values.inclusive === true,
            country: values.country,
          })
        }
        onDone={reload}
      />
    </section>
  );
}

/** A plan (and a tax rate) given to a tenant now: the Auth API's plan update, the tenant's plan shown after. */
function AssignPlan({ plans, rates, tenants, reload }: { plans: Plan[]; rates: TaxRate[]; tenants: Tenant[]; reload: () => void }) {
  const p = t().pricing;
  const planName = (id?: string) => plans.find((plan) => plan.id === id)?.display_name ?? id ?? p.noPlan;
  return (
    <section class="card" aria-labelledby="assign-heading">
      <h2 id="assign-heading">{p.assignHeading}</h2>
      <Table
        id="tenant-plans"
        caption={p.assignHeading}
        rows={tenants}
        columns={[
          { label: p.tenant, render: (tenant) => tenant.name },
          { label: p.currentPlan, render: (tenant) => planName(tenant.plan_id) },
        ]}
      />
      {tenants.length === 0 || plans.length === 0 ? (
        <p class="hint">{p.assignNeeds}</p>
      ) : (
        <ApiForm
          id="assign-plan"
          key={`${plans.length}/${rates.length}/${tenants.length}`}
          fields={[
            { name: 'tenant_id', label: p.tenant, type: 'select', options: tenants.map((x) => ({ value: x.id, label: x.name })) },
            { name: 'next_plan_id', label: p.plan, type: 'select', options: plans.map((x) => ({ value: x.id, label: x.display_name })) },
            {
              name: 'next_plan_tax_rate_id',
              label: p.taxRate,
              type: 'select',
              options: [{ value: '', label: p.noTaxRate }, ...rates.map((x) => ({ value: x.id, label: x.display_name }))],
            },
          ]}
          submitLabel={p.assign}
          doneText={p.assigned}
          onSubmit={(values) =>
            call('PUT', 'auth', `/tenants/${encodeURIComponent(String(values.tenant_id))}/plans`, {
              next_plan_id: values.next_plan_id,
              ...(values.next_plan_tax_rate_id ? { next_plan_tax_rate_id: values.next_plan_tax_rate_id } : {}),
            })
          }
          onDone={reload}
        />
      )}
    </section>
  );
}

export function Pricing() {
  const p = t().pricing;
  const units = useLoad(() => call<{ units: Unit[] }>('GET', 'pricing', '/units'));
  const menus = useLoad(() => call<{ pricing_menus: Menu[] }>('GET', 'pricing', '/menus'));
  const plans = useLoad(() => call<{ pricing_plans: Plan[] }>('GET', 'pricing', '/plans'));
  const rates = useLoad(() => call<{ tax_rates: TaxRate[] }>('GET', 'pricing', '/tax-rates'));
  const tenants = useLoad(() => call<{ tenants: Tenant[] }>('GET', 'auth', '/tenants'));
  const reloadAll = () => [units, menus, plans].forEach((x) => x.reload());
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.pricing}</h1>
      <p class="muted">{p.intro}</p>
      <Loaded answer={units.answer}>{(body) => <Units units={body.units} reload={reloadAll} />}</Loaded>
      <Loaded answer={menus.answer}>
        {(body) => <Menus menus={body.pricing_menus} units={units.answer?.ok ? units.answer.body.units : []} reload={reloadAll} />}
      </Loaded>
      <Loaded answer={plans.answer}>
        {(body) => <Plans plans={body.pricing_plans} menus={menus.answer?.ok ? menus.answer.body.pricing_menus : []} reload={reloadAll} />}
      </Loaded>
      <Loaded answer={rates.answer}>{(body) => <TaxRates rates={body.tax_rates} reload={rates.reload} />}</Loaded>
      <Loaded answer={tenants.answer}>
        {(body) => (
          <>
            <AssignPlan
              plans={plans.answer?.ok ? plans.answer.body.pricing_plans : []}
              rates={rates.answer?.ok ? rates.answer.body.tax_rates : []}
              tenants={body.tenants}
              reload={tenants.reload}
            />
            <UsageChart tenants={body.tenants} />
          </>
        )}
      </Loaded>
    </>
  );
}
