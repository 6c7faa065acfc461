/** Tenants: search, create, and a plan change now or from the first of next month; `tenants/{id}` is one tenant (tenant.tsx). */
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { t } from '../texts.js';
import type { PageProps } from '../page-props.js';
import { ApiForm, Link, Loaded, Table, useLoad } from '../ui.js';
import { TenantPage } from './tenant.js';

export interface Tenant {
  id: string;
  name: string;
  back_office_staff_email: string;
  plan_id?: string;
  next_plan_id?: string;
  using_next_plan_from?: number;
}
interface Plan {
  id: string;
  display_name: string;
  name: string;
}
interface TaxRate {
  id: string;
  display_name: string;
}

/** Unix seconds of the first of next month, 00:00 UTC. */
const firstOfNextMonth = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
};

export function Tenants({ rest }: PageProps) {
  if (rest) return <TenantPage id={decodeURIComponent(rest)} />;
  return <TenantList />;
}

function TenantList() {
  const s = t().tenants;
  const tenants = useLoad(() => call<{ tenants: Tenant[] }>('GET', 'auth', '/tenants'));
  const plans = useLoad(() => call<{ pricing_plans: Plan[] }>('GET', 'pricing', '/plans'));
  const taxRates = useLoad(() => call<{ tax_rates: TaxRate[] }>('GET', 'pricing', '/tax-rates'));
  const [search, setSearch] = useState('');
  const planName = (id: string | undefined) =>
    !id ? s.noPlan : ((plans.answer?.ok ? plans.answer.body.pricing_plans.find((p) => p.id === id)?.display_name : undefined) ?? id);
  return (
    <>
      <h1 tabIndex={-1}>{s.heading}</h1>
      <section class="card">
        <label for="tenant-search">{s.search}</label>
        <input id="tenant-search" type="search" value={search} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
        <Loaded answer={tenants.answer}>
          {(body) => {
            const needle = search.trim().toLowerCase();
            const rows = needle ? body.tenants.filter((x) => x.name.toLowerCase().includes(needle) || x.id.includes(needle)) : body.tenants;
            return (
              <Table
                id="tenants"
                caption={s.heading}
                rows={rows}
                columns={[
                  { label: s.name, render: (x) => <Link to={`tenants/${encodeURIComponent(x.id)}`}>{x.name}</Link> },
                  { label: s.id, render: (x) => <code>{x.id}</code> },
                  { label: s.staffEmail, render: (x) => x.back_office_staff_email },
                  { label: s.plan, render: (x) => planName(x.plan_id) },
                  {
                    label: s.nextPlan,
                    render: (x) =>
                      x.next_plan_id && x.using_next_plan_from
                        ? `${planName(x.next_plan_id)} (${new Date(x.using_next_plan_from * 1000).toISOString().slice(0, 10)})`
                        : '',
                  },
                ]}
              />
            );
          }}
        </Loaded>
      </section>
      <section class="card">
        <h2>{s.create}</h2>
        <ApiForm
          id="create-tenant"
          submitLabel={s.create}
          doneText={t().common.created}
          fields={[
            { name: 'name', label: s.name, required: true },
            { name: 'back_office_staff_email', label: s.staffEmail, type: 'email', required: true },
          ]}
          onSubmit={(v) => call('POST', 'auth', '/tenants', { name: v.name, back_office_staff_email: v.back_office_staff_email, attributes: {} })}
          onDone={tenants.reload}
        />
      </section>
      <section class="card">
        <h2>{s.changePlan}</h2>
        {tenants.answer?.ok && plans.answer?.ok ? (
          <ApiForm
            key={`${tenants.answer.body.tenants.length}-${plans.answer.body.pricing_plans.length}`}
            id="change-plan"
            submitLabel={s.changePlan}
            doneText={s.planChanged}
            fields={[
              { name: 'tenant', label: s.tenant, type: 'select', options: tenants.answer.body.tenants.map((x) => ({ value: x.id, label: x.name })) },
              {
                name: 'next_plan_id',
                label: s.newPlan,
                type: 'select',
                options: [{ value: '', label: s.noPlan }, ...plans.answer.body.pricing_plans.map((p) => ({ value: p.id, label: p.display_name }))],
              },
              {
                name: 'next_plan_tax_rate_id',
                label: s.taxRate,
                type: 'select',
                options: [
                  { value: '', label: s.noTaxRate },
                  ...(taxRates.answer?.ok ? taxRates.answer.body.tax_rates.map((r) => ({ value: r.id, label: r.display_name })) : []),
                ],
              },
              {
                name: 'when',
                label: s.when,
                type: 'select',
                options: [
                  { value: 'now', label: s.now },
                  { value: 'next-month', label: s.nextMonth },
                ],
              },
            ]}
            onSubmit={(v) =>
              call('PUT', 'auth', `/tenants/${encodeURIComponent(String(v.tenant))}/plans`, {
                next_plan_id: v.next_plan_id,
                ...(v.next_plan_tax_rate_id ? { next_plan_tax_rate_id: v.next_plan_tax_rate_id } : {}),
                ...(v.when === 'next-month' ? { using_next_plan_from: firstOfNextMonth() } : {}),
              })
            }
            onDone={tenants.reload}
          />
        ) : (
          <Loaded<unknown> answer={!tenants.answer?.ok ? tenants.answer : plans.answer}>{() => null}</Loaded>
        )}
      </section>
    </>
  );
}
