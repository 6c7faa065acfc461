/**
 * The Pricing page's changes to what exists: pick a metering unit, unit, menu, plan or tax rate, and change or
 * delete it. A unit is changed whole in the unit form (pricing-unit-form.tsx: type, prices, tiers, metering
 * unit); the others are renamed (display name and description). The Pricing API's PATCH takes the whole item,
 * so the rest is sent as read; a used item keeps its billing structure and may change only its names, and
 * neither it nor what a menu, plan or unit names can be deleted (the API's refusal is shown). Tax rates have no
 * delete in the API.
 */
import { useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { ApiForm, Done, Field, ProblemNote, useLoad, type Values } from '../ui.js';
import { UnitForm, type MeteringUnit, type PricingUnit } from './pricing-unit-form.js';

interface Item {
  id: string;
  name: string;
  display_name: string;
  description?: string;
  used?: boolean;
}
interface Menu extends Item {
  units: { id: string }[];
}
interface Plan extends Item {
  pricing_menus: { id: string }[];
}
type Kind = 'unit' | 'meter' | 'menu' | 'plan' | 'tax';

interface Choice {
  key: string;
  kind: Kind;
  item: Item;
  path: string;
  /** A pricing unit: changed in the unit form. */
  unit?: PricingUnit;
  /** The PATCH body with new names. */
  body: (names: { display_name: unknown; description: unknown }) => unknown;
}

/** `version` moves on when the page changed the catalogue: read again. */
export function CatalogueChanges({ version = 0, onChanged }: { version?: number; onChanged: () => void }) {
  const c = t().catalogueChanges;
  const { answer, reload } = useLoad(async () => {
    const [meters, units, menus, plans, rates] = await Promise.all([
      call<{ units: MeteringUnit[] }>('GET', 'pricing', '/metering/units'),
      call<{ units: PricingUnit[] }>('GET', 'pricing', '/units'),
      call<{ pricing_menus: Menu[] }>('GET', 'pricing', '/menus'),
      call<{ pricing_plans: Plan[] }>('GET', 'pricing', '/plans'),
      call<{ tax_rates: Item[] }>('GET', 'pricing', '/tax-rates'),
    ]);
    const choices: Choice[] = [
      ...(meters.ok ? meters.body.units : []).map((m): Choice => ({
        key: `meter:${m.id}`,
        kind: 'meter',
        item: { ...m, name: m.unit_name },
        path: `/metering/units/${m.id}`,
        body: (names) => ({ unit_name: m.unit_name, aggregate_usage: m.aggregate_usage, ...names }),
      })),
      ...(units.ok ? units.body.units : []).map((u): Choice => {
        const { id: _id, used: _used, ...rest } = u;
        return { key: `unit:${u.id}`, kind: 'unit', item: u, unit: u, path: `/units/${u.id}`, body: (names) => ({ ...rest, ...names }) };
      }),
      ...(menus.ok ? menus.body.pricing_menus : []).map((m): Choice => ({
        key: `menu:${m.id}`,
        kind: 'menu',
        item: m,
        path: `/menus/${m.id}`,
        body: (names) => ({ name: m.name, ...names, unit_ids: m.units.map((x) => x.id) }),
      })),
      ...(plans.ok ? plans.body.pricing_plans : []).map((p): Choice => ({
        key: `plan:${p.id}`,
        kind: 'plan',
        item: p,
        path: `/plans/${p.id}`,
        body: (names) => ({ name: p.name, ...names, menu_ids: p.pricing_menus.map((x) => x.id) }),
      })),
      ...(rates.ok ? rates.body.tax_rates : []).map((r): Choice => ({
        key: `tax:${r.id}`,
        kind: 'tax',
        item: r,
        path: `/tax-rates/${r.id}`,
        body: (names) => names,
      })),
    ];
    const failed = [meters, units, menus, plans, rates].find((a) => !a.ok);
    return {
      ...(failed ?? units),
      ok: !failed,
      body: { choices, meters: meters.ok ? meters.body.units : [] },
    } as Answer<{ choices: Choice[]; meters: MeteringUnit[] }>;
  }, [version]);
  const [key, setKey] = useState('');
  const [deleted, setDeleted] = useState<Answer | undefined>(undefined);
  const changed = () => {
    reload();
    onChanged();
  };
  if (!answer) return null;
  if (!answer.ok) return <ProblemNote answer={answer} />;
  const { choices, meters } = answer.body;
  const chosen = choices.find((x) => x.key === key) ?? choices[0];
  const outcome = deleted?.ok ? <Done answer={deleted} text={t().common.deleted} /> : <ProblemNote answer={deleted} />;
  if (!chosen) {
    // Kept (not hidden) when the last item goes, so the deletion's outcome stays in view.
    return (
      <section class="card" aria-labelledby="changes-heading">
        <h2 id="changes-heading">{c.heading}</h2>
        <p class="muted">{t().common.none}</p>
        {outcome}
      </section>
    );
  }
  return (
    <section class="card" aria-labelledby="changes-heading">
      <h2 id="changes-heading">{c.heading}</h2>
      <Field
        form="change-item"
        spec={{
          name: 'item',
          label: c.item,
          type: 'select',
          options: choices.map((x) => ({ value: x.key, label: `${c.kinds[x.kind]}: ${x.item.display_name} (${x.item.name})` })),
        }}
        value={chosen.key}
        onChange={(v) => {
          setKey(String(v));
          setDeleted(undefined);
        }}
      />
      {chosen.unit ? (
        <>
          {chosen.unit.used ? <p class="hint">{c.usedKept}</p> : null}
          <UnitForm
            id="change-item"
            key={chosen.key}
            unit={chosen.unit}
            meters={meters}
            submitLabel={t().common.save}
            doneText={t().common.saved}
            onSubmit={(body) => call('PATCH', 'pricing', chosen.path, body)}
            onDone={changed}
          />
        </>
      ) : (
        <ApiForm
          id="change-item"
          key={chosen.key}
          initial={{ display_name: chosen.item.display_name, description: chosen.item.description ?? '' }}
          fields={[
            { name: 'display_name', label: c.displayName, required: true },
            { name: 'description', label: c.description },
          ]}
          submitLabel={t().common.save}
          doneText={t().common.saved}
          onSubmit={(v: Values) => call('PATCH', 'pricing', chosen.path, chosen.body({ display_name: v.display_name, description: v.description }))}
          onDone={changed}
        />
      )}
      {chosen.kind === 'tax' ? (
        <p class="hint">{c.taxKept}</p>
      ) : (
        <button
          type="button"
          class="danger"
          id="delete-item"
          onClick={async () => {
            const result = await call('DELETE', 'pricing', chosen.path);
            setDeleted(result);
            if (result.ok) {
              setKey('');
              changed();
            }
          }}
        >
          {fill(c.delete, { name: chosen.item.name })}
        </button>
      )}
      {outcome}
    </section>
  );
}
