/**
 * The pieces every page is made of: a form whose fields show the API's refusal next to the field it names,
 * a table, a loader, a note for refusals, and links that navigate without reloading.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { problemOf, type Answer, type Problem } from './api.js';
import { hrefOf, navigate } from './router.js';
import { fill, t } from './texts.js';

export function Link({ to, children, ...rest }: { to: string; children: ComponentChildren; id?: string; class?: string; 'aria-current'?: 'page' }) {
  return (
    <a
      {...rest}
      href={hrefOf(to)}
      onClick={(event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** The refusal as a person reads it: which permission a 403 lacked, else the API's own words and status. */
export function problemText(answer: Answer): string {
  const problem = problemOf(answer);
  if (answer.status === 0) return t().common.unreachable;
  if (answer.status === 403) return fill(t().common.forbidden, { message: problem?.message ?? '' });
  if (problem?.type === 'password_policy_violation' && problem.data?.rule === 'breached') return t().common.passwordBreached;
  return fill(t().common.failed, { status: answer.status, message: problem?.message ?? '' });
}

export function ProblemNote({ answer, id }: { answer: Answer | undefined; id?: string }) {
  if (!answer || answer.ok) return null;
  return (
    <p class="error" role="alert" id={id}>
      {problemText(answer)}
    </p>
  );
}

/**
 * The field a refusal names (`data.field`, or the message's `name:` lead), when it is one of `names`. An item of
 * a list is named `tiers[0].up_to` whether the API said so or `tiers.0.up_to` (its schema check's path).
 */
export function fieldOf(problem: Problem | undefined, names: readonly string[]): string | undefined {
  if (!problem) return undefined;
  const candidates = [typeof problem.data?.field === 'string' ? problem.data.field : '', /^([\w.[\]]+):/.exec(problem.message)?.[1] ?? ''];
  for (const candidate of candidates) {
    const last = candidate.split('.').pop() ?? '';
    const indexed = candidate.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
    if (names.includes(candidate)) return candidate;
    if (names.includes(indexed)) return indexed;
    if (names.includes(last)) return last;
  }
  return undefined;
}

export interface FieldSpec {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'select' | 'checkbox' | 'textarea' | 'date' | 'color' | 'datetime-local';
  required?: boolean;
  options?: { value: string; label: string }[];
  hint?: string;
  autoComplete?: string;
  placeholder?: string;
}

export type Values = Record<string, string | boolean>;

export function Field({
  form,
  spec,
  value,
  error,
  onChange,
}: {
  form: string;
  spec: FieldSpec;
  value: string | boolean;
  error?: string;
  onChange: (value: string | boolean) => void;
}) {
  const id = `${form}-${spec.name}`;
  const described = [spec.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: spec.name,
    required: spec.required,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': described,
  };
  let control: JSX.Element;
  if (spec.type === 'checkbox') {
    control = (
      <input {...common} type="checkbox" checked={value === true} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)} />
    );
  } else if (spec.type === 'select') {
    control = (
      <select {...common} value={String(value)} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        {(spec.options ?? []).map((option) => (
          <option value={option.value} key={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    );
  } else if (spec.type === 'textarea') {
    control = <textarea {...common} rows={4} value={String(value)} onInput={(e) => onChange((e.currentTarget as HTMLTextAreaElement).value)} />;
  } else {
    control = (
      <input
        {...common}
        type={(spec.type ?? 'text') as 'text'}
        value={String(value)}
        autoComplete={spec.autoComplete}
        placeholder={spec.placeholder}
        onInput={(e) => onChange((e.currentTarget as HTMLInputElement).value)}
      />
    );
  }
  return (
    <div class={spec.type === 'checkbox' ? 'check' : undefined}>
      {spec.type === 'checkbox' ? (
        <label for={id}>
          {control} {spec.label}
        </label>
      ) : (
        <>
          <label for={id}>{spec.label}</label>
          {control}
        </>
      )}
      {spec.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {spec.hint}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** What a finished change says: done, and where its call is in the activity. */
export function Done({ answer, text }: { answer: Answer; text: string }) {
  return (
    <p class="done" role="status">
      {text}{' '}
      {answer.requestId ? (
        <Link to={`activity?request_id=${encodeURIComponent(answer.requestId)}`} class="see-activity">
          {t().common.seeActivity}
        </Link>
      ) : null}
    </p>
  );
}

/**
 * A form of fields whose submit makes one API call: the refusal goes next to the field it names (else above
 * the button), success says so and links the call's activity. Fields its children draw (rows of a list) are
 * named in `childFields`; `children` as a function is told the refusal of each, to show at its Field.
 */
export function ApiForm({
  id,
  fields,
  initial = {},
  submitLabel,
  doneText,
  submitClass,
  describe = problemText,
  onSubmit,
  onDone,
  onChange,
  childFields = [],
  children,
}: {
  id: string;
  fields: FieldSpec[];
  initial?: Values;
  submitLabel: string;
  doneText?: string;
  submitClass?: string;
  /** How a refusal reads (problemText by default). */
  describe?: (answer: Answer) => string;
  onSubmit: (values: Values) => Promise<Answer>;
  onDone?: (answer: Answer, values: Values) => void;
  /** Told the values as each is typed (a preview drawn elsewhere on the page). */
  onChange?: (values: Values) => void;
  /** The names of fields that `children` draw, as the API names them (`tiers[0].up_to`). */
  childFields?: readonly string[];
  children?: ComponentChildren | ((errorOf: (name: string) => string | undefined) => ComponentChildren);
}) {
  const blank = Object.fromEntries(fields.map((f) => [f.name, initial[f.name] ?? (f.type === 'checkbox' ? false : (f.options?.[0]?.value ?? ''))]));
  const [values, setValues] = useState<Values>(blank);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  const problem = answer ? problemOf(answer) : undefined;
  const field = fieldOf(problem, [...fields.map((f) => f.name), ...childFields]);
  const errorOf = (name: string) => (field === name ? describe(answer as Answer) : undefined);
  useEffect(() => {
    if (field) document.getElementById(`${id}-${field}`)?.focus();
  }, [answer]);
  return (
    <form
      id={id}
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        const result = await onSubmit(values);
        setBusy(false);
        setAnswer(result);
        if (result.ok) onDone?.(result, values);
      }}
    >
      {fields.map((spec) => (
        <Field
          key={spec.name}
          form={id}
          spec={spec}
          value={values[spec.name] ?? ''}
          error={errorOf(spec.name)}
          onChange={(value) => {
            const next = { ...values, [spec.name]: value };
            setValues(next);
            onChange?.(next);
          }}
        />
      ))}
      {typeof children === 'function' ? children(errorOf) : children}
      {answer && !answer.ok && !field ? (
        <p class="error" role="alert">
          {describe(answer)}
        </p>
      ) : null}
      <button type="submit" disabled={busy} class={submitClass}>
        {submitLabel}
      </button>
      {answer?.ok && doneText ? <Done answer={answer} text={doneText} /> : null}
    </form>
  );
}

/** Loads with `load` on mount and whenever `deps` change; `reload` loads again. */
export function useLoad<T>(load: () => Promise<Answer<T>>, deps: unknown[] = []) {
  const [answer, setAnswer] = useState<Answer<T> | undefined>(undefined);
  const reload = useCallback(() => {
    load().then(setAnswer);
  }, deps);
  useEffect(reload, deps);
  return { answer, reload };
}

export interface Column<T> {
  label: string;
  render: (row: T) => ComponentChildren;
}

export function Table<T>({ caption, columns, rows, id }: { caption: string; columns: Column<T>[]; rows: T[]; id?: string }) {
  if (rows.length === 0) return <p class="muted">{t().common.none}</p>;
  return (
    <table id={id}>
      <caption class="skip">{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.label}>
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {columns.map((c) => (
              <td key={c.label}>{c.render(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A loaded answer: loading, its refusal, or `children` with its body. */
export function Loaded<T>({ answer, children }: { answer: Answer<T> | undefined; children: (body: T) => ComponentChildren }) {
  if (!answer) return <p class="muted">{t().common.loading}</p>;
  if (!answer.ok) return <ProblemNote answer={answer} />;
  return <>{children(answer.body)}</>;
}
