/**
 * The nine mail templates (GET/PUT /notification-messages), each with a preview rendered as it is typed by the
 * service's own renderer (shared/adapters/mail/render.ts: `{####}` filled, escaped when the message is HTML).
 * The API has no call that renders a mail, so the console runs the same function. A text mail shows as text;
 * an HTML mail in a sandboxed frame (no script, no origin, the console's CSP inside).
 */
import { call } from '../api.js';
import { fill, t } from '../texts.js';
import { Loaded, useLoad } from '../ui.js';
import { LiveForm } from './live-form.js';
import { renderMail } from '../../../../shared/adapters/mail/render.js';

export const TEMPLATE_NAMES = [
  'sign_up',
  'create_user',
  'resend_code',
  'forgot_password',
  'update_user_attribute',
  'verify_user_attribute',
  'authentication_mfa',
  'invite_tenant_user',
  'verify_external_user',
] as const;
type TemplateName = (typeof TEMPLATE_NAMES)[number];
type Templates = Record<TemplateName, { subject: string; message: string }>;

/** What `{####}` stands for in each mail, filled with a sample so the preview reads as the mail will. */
const SAMPLE: Record<TemplateName, string> = {
  sign_up: 'Xk3#9pQa',
  create_user: 'Xk3#9pQa',
  resend_code: 'Xk3#9pQa',
  forgot_password: '482913',
  update_user_attribute: '482913',
  verify_user_attribute: '482913',
  authentication_mfa: '482913',
  invite_tenant_user: 'https://auth.example.com/invitation?id=…',
  verify_external_user: '482913',
};

function MailPreview({ name, subject, message }: { name: TemplateName; subject: string; message: string }) {
  const m = t().mail;
  const mail = renderMail({ subject, message }, SAMPLE[name]);
  return (
    <div class="mail-preview" id={`preview-${name}`}>
      <p class="mail-subject">
        <span class="muted">{m.subject}:</span> <span class="subject-text">{mail.subject}</span>
      </p>
      {mail.html !== undefined ? (
        <iframe class="mail-html" sandbox="" srcDoc={mail.html} title={fill(m.htmlPreview, { name: m.names[name] })} />
      ) : (
        <pre class="mail-text">{mail.text}</pre>
      )}
    </div>
  );
}

export function MailTemplates() {
  const m = t().mail;
  const { answer } = useLoad(() => call<Templates>('GET', 'auth', '/notification-messages'));
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.mail}</h1>
      <p class="muted">{m.intro}</p>
      <Loaded answer={answer}>
        {(body) => (
          <>
            {TEMPLATE_NAMES.map((name) => (
              <section class="card" aria-labelledby={`${name}-heading`} key={name}>
                <h2 id={`${name}-heading`}>{m.names[name]}</h2>
                <p class="hint">{m.when[name]}</p>
                <div class="theme-layout">
                  <LiveForm
                    id={`mail-${name}`}
                    fields={[
                      { name: 'subject', label: m.subject, required: true },
                      { name: 'message', label: m.message, type: 'textarea', required: true, hint: m.messageHint },
                    ]}
                    initial={{ subject: body[name]?.subject ?? '', message: body[name]?.message ?? '' }}
                    submitLabel={m.save}
                    doneText={t().common.saved}
                    onSubmit={(values) =>
                      call('PUT', 'auth', '/notification-messages', { [name]: { subject: values.subject, message: values.message } })
                    }
                    preview={(values) => <MailPreview name={name} subject={String(values.subject)} message={String(values.message)} />}
                  />
                </div>
              </section>
            ))}
          </>
        )}
      </Loaded>
    </>
  );
}
