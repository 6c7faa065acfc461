/**
 * A pricing unit of any type the Pricing API takes (fixed, usage, tiered, tiered_usage), created on the Pricing
 * page and changed in its "Change or delete" card (pricing-changes.tsx). The type picks the fields: a fixed
 * unit has its amount and interval; a metered one names the metering unit it counts, and has an amount per
 * count (usage) or tiers (tiered, tiered_usage). Tiers are rows: each row up to a count, the last one "and
 * above" (`inf`, its `up_to` not asked). A refusal naming a tier's field (`tiers[1].up_to`) lands at it.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { ApiForm, Field, type FieldSpec, type Values } from '../ui.js';

export type UnitType = 'fixed' | 'usage' | 'tiered' | 'tiered_usage';
export const UNIT_TYPES: readonly UnitType[] = ['fixed', 'usage', 'tiered', 'tiered_usage'];

export interface Tier {
  up_to: number;
  unit_amount: number;
  flat_amount: number;
  inf: boolean;
}

/** A pricing unit as the API answers it. */
export interface PricingUnit {
  id: string;
  name: string;
  display_name: string;
  description?: string;
  type: UnitType;
  currency: string;
  recurring_interval?: string;
  used?: boolean;
  unit_amount?: number;
  upper_count?: number;
  metering_unit_name?: string;
  aggregate_usage?: string;
  tiers?: Tier[];
}

export interface MeteringUnit {
  id: string;
  unit_name: string;
  display_name: string;
  description?: string;
  aggregate_usage: string;
  used?: boolean;
}

/** A tier as typed: strings, as the inputs hold them. */
interface TierRow {
  up_to: string;
  unit_amount: string;
  flat_amount: string;
}

const MAX_TIERS = 20;
const blankRow = (): TierRow => ({ up_to: '', unit_amount: '', flat_amount: '0' });
const rowsOf = (tiers: Tier[] | undefined): TierRow[] =>
  tiers && tiers.length > 0
    ? tiers.map((x) => ({ up_to: x.inf ? '' : String(x.up_to), unit_amount: String(x.unit_amount), flat_amount: String(x.flat_amount) }))
    : [blankRow(), blankRow()];
/** A number as typed; nothing when empty, so the API names the missing field. */
const numberOf = (value: string | boolean | undefined) => (value === undefined || value === '' ? undefined : Number(value));
const tierField = (i: number, name: keyof TierRow | 'inf') => `tiers[${i}].${name}`;

/** The request body of a unit of `type` from the form's values and tier rows. */
function bodyOf(type: UnitType, v: Values, rows: TierRow[]): Record<string, unknown> {
  const base = { type, name: v.name, display_name: v.display_name, description: v.description, currency: v.currency };
  if (type === 'fixed') return { ...base, unit_amount: numberOf(v.unit_amount), recurring_interval: v.recurring_interval };
  const metered = {
    ...base,
    metering_unit_name: v.metering_unit_name,
    upper_count: numberOf(v.upper_count),
    recurring_interval: v.recurring_interval,
  };
  if (type === 'usage') return { ...metered, unit_amount: numberOf(v.unit_amount) };
  const tiers = rows.map((row, i) => {
    const inf = i === rows.length - 1;
    // The open tier's up_to is not asked: the API ignores it, and 0 is what it answers.
    return { up_to: inf ? 0 : numberOf(row.up_to), unit_amount: numberOf(row.unit_amount), flat_amount: numberOf(row.flat_amount), inf };
  });
  return { ...metered, tiers };
}

/** The tiers as rows of fields: add one before the open last tier, remove any but the only one. */
function TiersEditor({
  form,
  rows,
  onChange,
  errorOf,
}: {
  form: string;
  rows: TierRow[];
  onChange: (rows: TierRow[]) => void;
  errorOf: (name: string) => string | undefined;
}) {
  const p = t().pricing;
  // Where focus goes after a row comes or goes, so the keyboard stays in the list.
  const focusNext = useRef<string | undefined>(undefined);
  // In the commit that draws the rows, so focus never rests on a row that went.
  useLayoutEffect(() => {
    if (focusNext.current) document.getElementById(focusNext.current)?.focus();
    focusNext.current = undefined;
  }, [rows]);
  const set = (i: number, name: keyof TierRow, value: string) => onChange(rows.map((row, j) => (j === i ? { ...row, [name]: value } : row)));
  const field = (i: number, name: keyof TierRow, label: string) => (
    <Field
      form={form}
      spec={{ name: tierField(i, name), label, type: 'number', required: true }}
      value={rows[i]?.[name] ?? ''}
      error={errorOf(tierField(i, name))}
      onChange={(value) => set(i, name, String(value))}
    />
  );
  return (
    <fieldset id={`${form}-tiers`} class="tiers">
      <legend>{p.tiers}</legend>
      {rows.map((_, i) => {
        const last = i === rows.length - 1;
        const from = i === 0 ? '0' : rows[i - 1]?.up_to || '…';
        return (
          <fieldset class="tier" key={i}>
            <legend>{fill(p.tier, { n: i + 1 })}</legend>
            {last ? (
              <p class="hint" id={`${form}-tiers-${i}-open`}>
                {fill(p.andAbove, { from })}
              </p>
            ) : (
              field(i, 'up_to', p.upTo)
            )}
            {field(i, 'unit_amount', p.amountPerCount)}
            {field(i, 'flat_amount', p.flatAmount)}
            {rows.length > 1 ? (
              <button
                type="button"
                class="secondary"
                id={`${form}-remove-tier-${i}`}
                onClick={() => {
                  focusNext.current = `${form}-add-tier`;
                  onChange(rows.filter((_, j) => j !== i));
                }}
              >
                {fill(p.removeTier, { n: i + 1 })}
              </button>
            ) : null}
            {errorOf(tierField(i, 'inf')) ? (
              <p class="field-error" role="alert">
                {errorOf(tierField(i, 'inf'))}
              </p>
            ) : null}
          </fieldset>
        );
      })}
      <button
        type="button"
        class="secondary"
        id={`${form}-add-tier`}
        disabled={rows.length >= MAX_TIERS}
        onClick={() => {
          // A new bounded tier goes before the open one, which stays last.
          const at = Math.max(0, rows.length - 1);
          focusNext.current = `${form}-${tierField(at, 'up_to')}`;
          onChange([...rows.slice(0, at), blankRow(), ...rows.slice(at)]);
        }}
      >
        {p.addTier}
      </button>
    </fieldset>
  );
}

/**
 * The form of a unit: `unit` given, its values to change (PATCH), else a new one (POST). `onSubmit` makes the
 * call with the body built here.
 */
export function UnitForm({
  id,
  unit,
  meters,
  submitLabel,
  doneText,
  onSubmit,
  onDone,
}: {
  id: string;
  unit?: PricingUnit;
  meters: MeteringUnit[];
  submitLabel: string;
  doneText: string;
  onSubmit: (body: Record<string, unknown>) => Promise<Answer>;
  onDone?: () => void;
}) {
  const p = t().pricing;
  const [type, setType] = useState<UnitType>(unit?.type ?? 'fixed');
  const [rows, setRows] = useState<TierRow[]>(rowsOf(unit?.tiers));
  // What was typed, carried over when the type's fields are drawn anew.
  const [draft, setDraft] = useState<Values>(
    unit
      ? {
          name: unit.name,
          display_name: unit.display_name,
          description: unit.description ?? '',
          currency: unit.currency,
          ...(unit.recurring_interval ? { recurring_interval: unit.recurring_interval } : {}),
          ...(unit.unit_amount !== undefined ? { unit_amount: String(unit.unit_amount) } : {}),
          ...(unit.upper_count !== undefined ? { upper_count: String(unit.upper_count) } : {}),
          ...(unit.metering_unit_name ? { metering_unit_name: unit.metering_unit_name } : {}),
        }
      : { upper_count: '0' },
  );
  const meterNames = meters.map((m) => m.unit_name);
  const metered = type !== 'fixed';
  const interval: FieldSpec = {
    name: 'recurring_interval',
    label: p.interval,
    type: 'select',
    options: [
      { value: 'month', label: p.monthly },
      { value: 'year', label: p.yearly },
    ],
  };
  const fields: FieldSpec[] = [
    { name: 'name', label: p.name, required: true },
    { name: 'display_name', label: p.displayName, required: true },
    { name: 'description', label: p.description },
    {
      name: 'currency',
      label: p.currency,
      type: 'select',
      options: [
        { value: 'JPY', label: 'JPY' },
        { value: 'USD', label: 'USD' },
      ],
    },
    ...(metered
      ? [
          {
            name: 'metering_unit_name',
            label: p.meteringUnit,
            type: 'select' as const,
            required: true,
            options: meters.map((m) => ({ value: m.unit_name, label: `${m.display_name || m.unit_name} (${m.unit_name})` })),
            ...(meters.length === 0 ? { hint: p.noMeters } : {}),
          },
          { name: 'upper_count', label: p.upperCount, type: 'number' as const, required: true, hint: p.upperCountHint },
        ]
      : []),
    ...(type === 'fixed' ? [{ name: 'unit_amount', label: p.amount, type: 'number' as const, required: true }] : []),
    ...(type === 'usage' ? [{ name: 'unit_amount', label: p.amountPerCount, type: 'number' as const, required: true }] : []),
    interval,
  ];
  // A select's value must be one of its options: a metering unit no longer listed is not carried over.
  const initial = Object.fromEntries(
    Object.entries(draft).filter(([name, value]) => name !== 'metering_unit_name' || meterNames.includes(String(value))),
  );
  const tiered = type === 'tiered' || type === 'tiered_usage';
  const childFields = tiered
    ? rows.flatMap((_, i) => (['up_to', 'unit_amount', 'flat_amount', 'inf'] as const).map((name) => tierField(i, name)))
    : [];
  return (
    <>
      <Field
        form={id}
        spec={{
          name: 'type',
          label: p.unitType,
          type: 'select',
          options: UNIT_TYPES.map((x) => ({ value: x, label: p.unitTypes[x] })),
          hint: p.unitTypeHints[type],
        }}
        value={type}
        onChange={(value) => setType(value as UnitType)}
      />
      <ApiForm
        id={id}
        // Drawn anew when the type or the metering units change, from what was typed so far.
        key={`${type}|${meterNames.join(',')}`}
        fields={fields}
        initial={initial}
        childFields={childFields}
        submitLabel={submitLabel}
        doneText={doneText}
        onChange={(values) => setDraft({ ...draft, ...values })}
        onSubmit={(values) => onSubmit(bodyOf(type, values, rows))}
        onDone={(_, values) => {
          setDraft({ ...draft, ...values });
          onDone?.();
        }}
      >
        {(errorOf: (name: string) => string | undefined) =>
          tiered ? <TiersEditor form={id} rows={rows} onChange={setRows} errorOf={errorOf} /> : null
        }
      </ApiForm>
    </>
  );
}
