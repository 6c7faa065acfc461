/** Identity providers (GET/PUT /identity-providers): Google's OAuth client for the login screen. */
import { useState } from 'preact/hooks';
import { call, pageData, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { ApiForm, Done, Loaded, ProblemNote, useLoad } from '../ui.js';

interface Google {
  application_id: string | number;
  approval_scope: string;
  is_button_hidden?: boolean;
}

/** Where Google returns: `{API base}/oauth2/idpresponse` on the API's own origin, which is the console's too. */
const redirectUri = () => `${location.origin}${pageData().base.replace(/console\/$/, '')}oauth2/idpresponse`;

export function Providers() {
  const p = t().providers;
  const providers = useLoad(() => call<{ google: Google }>('GET', 'auth', '/identity-providers'));
  const [removed, setRemoved] = useState<Answer | undefined>(undefined);
  return (
    <>
      <h1 tabIndex={-1}>{p.heading}</h1>
      <p>{p.intro}</p>
      <section class="card">
        <h2>Google</h2>
        <p class="hint" id="google-redirect">
          {fill(p.redirect, { url: redirectUri() })}
        </p>
        <Loaded answer={providers.answer}>
          {(body) => (
            <ApiForm
              id="google"
              submitLabel={t().common.save}
              doneText={t().common.saved}
              initial={{
                application_id: String(body.google.application_id ?? ''),
                approval_scope: body.google.approval_scope || 'openid email profile',
                is_button_hidden: body.google.is_button_hidden === true,
              }}
              fields={[
                { name: 'application_id', label: p.clientId, required: true },
                { name: 'application_secret', label: p.clientSecret, type: 'password', required: true, autoComplete: 'off', hint: p.secretHint },
                { name: 'approval_scope', label: p.scope },
                { name: 'is_button_hidden', label: p.hidden, type: 'checkbox' },
              ]}
              onSubmit={(v) =>
                call('PUT', 'auth', '/identity-providers', {
                  provider: 'Google',
                  identity_provider_props: {
                    application_id: v.application_id,
                    application_secret: v.application_secret,
                    approval_scope: v.approval_scope,
                    is_button_hidden: v.is_button_hidden === true,
                  },
                })
              }
              onDone={providers.reload}
            />
          )}
        </Loaded>
        {providers.answer?.ok && providers.answer.body.google.application_id ? (
          <button
            type="button"
            class="danger"
            id="google-remove"
            onClick={async () => {
              const answer = await call('PUT', 'auth', '/identity-providers', { provider: 'Google', identity_provider_props: null });
              setRemoved(answer);
              if (answer.ok) providers.reload();
            }}
          >
            {p.remove}
          </button>
        ) : null}
        {removed ? removed.ok ? <Done answer={removed} text={p.removed} /> : <ProblemNote answer={removed} /> : null}
      </section>
    </>
  );
}
