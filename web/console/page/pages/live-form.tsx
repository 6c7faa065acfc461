/**
 * A form like ui.tsx's ApiForm whose values are also handed to a preview as they are typed (the login theme,
 * the mail templates): the API's refusal goes next to the field it names, success links the call's activity.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { problemOf, type Answer } from '../api.js';
import { Done, Field, fieldOf, problemText, type FieldSpec, type Values } from '../ui.js';

export function LiveForm({
  id,
  fields,
  initial,
  submitLabel,
  doneText,
  onSubmit,
  preview,
  onChange,
}: {
  id: string;
  fields: FieldSpec[];
  initial: Values;
  submitLabel: string;
  doneText: string;
  onSubmit: (values: Values) => Promise<Answer>;
  preview?: (values: Values) => ComponentChildren;
  /** Told each value as it is typed (a preview drawn elsewhere on the page). */
  onChange?: (values: Values) => void;
}) {
  const [values, setValues] = useState<Values>(initial);
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const field = fieldOf(
    answer ? problemOf(answer) : undefined,
    fields.map((f) => f.name),
  );
  return (
    <>
      <form
        id={id}
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const result = await onSubmit(values);
          setBusy(false);
          setAnswer(result);
          if (!result.ok) {
            const named = fieldOf(
              problemOf(result),
              fields.map((f) => f.name),
            );
            if (named) requestAnimationFrame(() => document.getElementById(`${id}-${named}`)?.focus());
          }
        }}
      >
        {fields.map((spec) => (
          <Field
            key={spec.name}
            form={id}
            spec={spec}
            value={values[spec.name] ?? ''}
            error={answer && field === spec.name ? problemText(answer) : undefined}
            onChange={(value) => {
              const next = { ...values, [spec.name]: value };
              setValues(next);
              onChange?.(next);
            }}
          />
        ))}
        {answer && !answer.ok && !field ? (
          <p class="error" role="alert">
            {problemText(answer)}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
        {answer?.ok ? <Done answer={answer} text={doneText} /> : null}
      </form>
      {preview?.(values)}
    </>
  );
}
