/**
 * The nine mail templates (GET/PUT /notification-messages): one edited at a time, previewed as the service will
 * send it (shared/adapters/mail/render.ts, the courier's own renderer), HTML in a frame that runs no script.
 */
import { useState } from 'preact/hooks';
import { renderMail } from '../../../../shared/adapters/mail/render.js';
import { call } from '../api.js';
import { t } from '../texts.js';
import { Done, Loaded, ProblemNote, fieldOf, problemText, useLoad } from '../ui.js';
import type { Answer } from '../api.js';

type Templates = Record<string, { subject: string; message: string }>;

function Editor({ templates, onSaved }: { templates: Templates; onSaved: () => void }) {
  const m = t().mail;
  const names = Object.keys(templates);
  const [name, setName] = useState(names[0] ?? '');
  const [draft, setDraft] = useState(templates[name] ?? { subject: '', message: '' });
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  const rendered = renderMail(draft, t().mail.sample);
  const field = answer && !answer.ok ? fieldOf(answer.body as never, ['subject', 'message']) : undefined;
  const error = (which: string) =>
    field === which ? (
      <p class="field-error" id={`mail-${which}-error`} role="alert">
        {problemText(answer as Answer)}
      </p>
    ) : null;
  return (
    <div class="row theme">
      <form
        id="mail"
        class="card"
        onSubmit={async (event) => {
          event.preventDefault();
          const result = await call('PUT', 'auth', '/notification-messages', { [name]: draft });
          setAnswer(result);
          if (result.ok) onSaved();
        }}
      >
        <label for="mail-template">{m.template}</label>
        <select
          id="mail-template"
          value={name}
          onChange={(e) => {
            const next = (e.currentTarget as HTMLSelectElement).value;
            setName(next);
            setDraft(templates[next] ?? { subject: '', message: '' });
            setAnswer(undefined);
          }}
        >
          {names.map((n) => (
            <option value={n} key={n}>
              {n}
            </option>
          ))}
        </select>
        <label for="mail-subject">{m.subject}</label>
        <input
          id="mail-subject"
          value={draft.subject}
          aria-invalid={field === 'subject' ? 'true' : undefined}
          onInput={(e) => setDraft({ ...draft, subject: (e.currentTarget as HTMLInputElement).value })}
        />
        {error('subject')}
        <label for="mail-message">{m.message}</label>
        <textarea
          id="mail-message"
          rows={10}
          value={draft.message}
          aria-invalid={field === 'message' ? 'true' : undefined}
          onInput={(e) => setDraft({ ...draft, message: (e.currentTarget as HTMLTextAreaElement).value })}
        />
        {error('message')}
        {answer && !answer.ok && !field ? <ProblemNote answer={answer} /> : null}
        <button type="submit">{t().common.save}</button>
        {answer?.ok ? <Done answer={answer} text={t().common.saved} /> : null}
      </form>
      <section class="card preview" id="mail-preview">
        <h2>{m.preview}</h2>
        <p>
          <strong id="mail-preview-subject">{rendered.subject}</strong>
        </p>
        {rendered.html !== undefined ? (
          <iframe class="preview mail" title={m.previewTitle} sandbox="" srcdoc={rendered.html} />
        ) : (
          <pre class="mail-text" id="mail-preview-text">
            {rendered.text}
          </pre>
        )}
      </section>
    </div>
  );
}

export function Mail() {
  const m = t().mail;
  const templates = useLoad(() => call<Templates>('GET', 'auth', '/notification-messages'));
  return (
    <>
      <h1 tabIndex={-1}>{m.heading}</h1>
      <p>{m.intro}</p>
      <Loaded answer={templates.answer}>{(body) => <Editor templates={body} onSaved={templates.reload} />}</Loaded>
    </>
  );
}
