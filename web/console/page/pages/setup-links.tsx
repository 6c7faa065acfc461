/**
 * A tenant's setup links (`/tenants/{id}/setup-links`, docs/enterprise.md "Setup links"): made for a number of
 * days, the URL shown once for the operator to hand the customer's IT admin, listed with their state, revoked.
 */
import { useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Done, Loaded, ProblemNote, Table, useLoad } from '../ui.js';

interface SetupLink {
  id: string;
  state: 'unused' | 'used' | 'expired' | 'revoked';
  created_at: number;
  expires_at: number;
}

const moment = (seconds: number) => new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 16);

export function SetupLinks({ tenant }: { tenant: string }) {
  const s = t().setupLinks;
  const path = `/tenants/${encodeURIComponent(tenant)}/setup-links`;
  const list = useLoad(() => call<{ setup_links: SetupLink[] }>('GET', 'auth', path), [tenant]);
  const [made, setMade] = useState<string | undefined>(undefined);
  const [revoked, setRevoked] = useState<Answer | undefined>(undefined);
  return (
    <section class="card" aria-labelledby="setup-links-heading">
      <h2 id="setup-links-heading">{s.heading}</h2>
      <p class="hint">{s.intro}</p>
      <ApiForm
        id="setup-link"
        submitLabel={s.create}
        initial={{ valid_days: '7' }}
        fields={[{ name: 'valid_days', label: s.validDays, type: 'number', required: true, hint: s.validDaysHint }]}
        onSubmit={(v) => call<{ url: string }>('POST', 'auth', path, { valid_days: Number(v.valid_days) })}
        onDone={(answer) => {
          setMade((answer.body as { url: string }).url);
          list.reload();
        }}
      />
      {made ? (
        <div class="notice">
          <label for="setup-link-url">{s.url}</label>
          <input id="setup-link-url" readOnly value={made} aria-describedby="setup-link-url-hint" />
          <p class="hint" id="setup-link-url-hint">
            {s.urlOnce}
          </p>
        </div>
      ) : null}
      <Loaded answer={list.answer}>
        {(body) =>
          body.setup_links.length ? (
            <Table
              id="setup-links"
              caption={s.heading}
              rows={body.setup_links}
              columns={[
                { label: s.created, render: (l) => moment(l.created_at) },
                { label: s.expires, render: (l) => moment(l.expires_at) },
                { label: s.state, render: (l) => s.states[l.state] },
                {
                  label: s.actions,
                  render: (l) =>
                    l.state === 'unused' || l.state === 'used' ? (
                      <button
                        type="button"
                        class="secondary"
                        onClick={async () => {
                          const result = await call('DELETE', 'auth', `${path}/${encodeURIComponent(l.id)}`);
                          setRevoked(result);
                          if (result.ok) list.reload();
                        }}
                      >
                        {s.revoke}
                      </button>
                    ) : (
                      ''
                    ),
                },
              ]}
            />
          ) : (
            <p class="muted">{s.none}</p>
          )
        }
      </Loaded>
      {revoked?.ok ? <Done answer={revoked} text={s.revoked} /> : <ProblemNote answer={revoked} />}
    </section>
  );
}
