/**
 * A tenant's metered usage of one metering unit, per UTC day over the last 14 days: the Pricing API's counts per
 * timestamp (`…/date-period`), summed per day, drawn by the console's day chart (../day-chart.tsx).
 */
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { fill, t } from '../texts.js';
import { DayChart } from '../day-chart.js';
import { Field, Loaded, useLoad } from '../ui.js';

export interface Tenant {
  id: string;
  name: string;
  plan_id?: string;
}

const DAYS = 14;
const DAY = 86_400;

interface MeteringUnit {
  unit_name: string;
  aggregate_usage?: string;
}

/** The last `DAYS` UTC days, oldest first, with their counts summed (or the largest, for a `max` unit). */
export function perDay(counts: { timestamp: number; count: number }[], now: number, max: boolean): { day: string; count: number }[] {
  const today = Math.floor(now / DAY) * DAY;
  const days = Array.from({ length: DAYS }, (_, i) => today - (DAYS - 1 - i) * DAY);
  const totals = new Map(days.map((d) => [d, 0]));
  for (const { timestamp, count } of counts) {
    const day = Math.floor(timestamp / DAY) * DAY;
    const before = totals.get(day);
    if (before === undefined) continue;
    totals.set(day, max ? Math.max(before, count) : before + count);
  }
  return days.map((d) => ({ day: new Date(d * 1000).toISOString().slice(0, 10), count: totals.get(d) ?? 0 }));
}

function Usage({ tenant, unit }: { tenant: string; unit: MeteringUnit }) {
  const p = t().usage;
  const now = Math.floor(Date.now() / 1000);
  const start = (Math.floor(now / DAY) - (DAYS - 1)) * DAY;
  const { answer } = useLoad(
    () =>
      call<{ counts: { timestamp: number; count: number }[] }>(
        'GET',
        'pricing',
        `/metering/tenants/${encodeURIComponent(tenant)}/units/${encodeURIComponent(unit.unit_name)}/date-period?start_timestamp=${start}&end_timestamp=${now}`,
      ),
    [tenant, unit.unit_name],
  );
  return (
    <Loaded answer={answer}>
      {(body) => {
        const rows = perDay(body.counts ?? [], now, unit.aggregate_usage === 'max');
        const label = fill(p.chartLabel, { unit: unit.unit_name, total: rows.reduce((sum, r) => sum + r.count, 0) });
        return <DayChart id="usage" rows={rows} series={[{ key: 'count', label: p.count }]} label={label} />;
      }}
    </Loaded>
  );
}

export function UsagePage() {
  const tenants = useLoad(() => call<{ tenants: Tenant[] }>('GET', 'auth', '/tenants'));
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.usage}</h1>
      <p class="muted">{t().usage.intro}</p>
      <Loaded answer={tenants.answer}>{(body) => <UsageChart tenants={body.tenants} />}</Loaded>
    </>
  );
}

export function UsageChart({ tenants }: { tenants: Tenant[] }) {
  const p = t().usage;
  const units = useLoad(() => call<{ units: MeteringUnit[] }>('GET', 'pricing', '/metering/units'));
  const [tenant, setTenant] = useState(tenants[0]?.id ?? '');
  const [unitName, setUnitName] = useState('');
  return (
    <section class="card" aria-labelledby="usage-heading">
      <h2 id="usage-heading">{p.usageHeading}</h2>
      <Loaded answer={units.answer}>
        {(body) => {
          if (tenants.length === 0 || body.units.length === 0) return <p class="hint">{p.usageNeeds}</p>;
          const unit = body.units.find((u) => u.unit_name === unitName) ?? (body.units[0] as MeteringUnit);
          return (
            <>
              <div class="row">
                <Field
                  form="usage"
                  spec={{ name: 'tenant', label: p.tenant, type: 'select', options: tenants.map((x) => ({ value: x.id, label: x.name })) }}
                  value={tenant || (tenants[0] as Tenant).id}
                  onChange={(v) => setTenant(String(v))}
                />
                <Field
                  form="usage"
                  spec={{
                    name: 'unit',
                    label: p.meteringUnit,
                    type: 'select',
                    options: body.units.map((u) => ({ value: u.unit_name, label: u.unit_name })),
                  }}
                  value={unit.unit_name}
                  onChange={(v) => setUnitName(String(v))}
                />
              </div>
              <Usage tenant={tenant || (tenants[0] as Tenant).id} unit={unit} />
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
