/** Invitations: invite an e-mail address to a tenant with a role in an environment; the tenant's invitations. */
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Loaded, Table, useLoad } from '../ui.js';
import type { Tenant } from './tenants.js';

interface Invitation {
  id: string;
  email: string;
  status: string;
  expired_at: number;
}

function TenantInvitations({ tenantId, version }: { tenantId: string; version: number }) {
  const s = t().invitations;
  const { answer } = useLoad(
    () => call<{ invitations: Invitation[] }>('GET', 'auth', `/tenants/${encodeURIComponent(tenantId)}/invitations`),
    [tenantId, version],
  );
  return (
    <>
      <h2>{s.list}</h2>
      <Loaded answer={answer}>
        {(body) => (
          <Table
            id="invitations"
            caption={s.list}
            rows={body.invitations}
            columns={[
              { label: s.email, render: (i) => i.email },
              { label: s.status, render: (i) => i.status },
              { label: s.expires, render: (i) => new Date(i.expired_at * 1000).toISOString().slice(0, 16).replace('T', ' ') },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}

export function Invitations() {
  const s = t().invitations;
  const tenants = useLoad(() => call<{ tenants: Tenant[] }>('GET', 'auth', '/tenants'));
  const envs = useLoad(() => call<{ envs: { id: number; display_name: string; name: string }[] }>('GET', 'auth', '/envs'));
  const roles = useLoad(() => call<{ roles: { role_name: string; display_name: string }[] }>('GET', 'auth', '/roles'));
  const [tenantId, setTenantId] = useState('');
  const [version, setVersion] = useState(0);
  const ready = tenants.answer?.ok && envs.answer?.ok && roles.answer?.ok;
  const firstTenant = tenants.answer?.ok ? (tenants.answer.body.tenants[0]?.id ?? '') : '';
  const shownTenant = tenantId || firstTenant;
  return (
    <>
      <h1 tabIndex={-1}>{s.heading}</h1>
      <p>{s.intro}</p>
      <section class="card">
        {ready && tenants.answer?.ok && envs.answer?.ok && roles.answer?.ok ? (
          <ApiForm
            id="invite"
            submitLabel={s.invite}
            doneText={s.invited}
            fields={[
              { name: 'tenant', label: s.tenant, type: 'select', options: tenants.answer.body.tenants.map((x) => ({ value: x.id, label: x.name })) },
              { name: 'email', label: s.email, type: 'email', required: true, autoComplete: 'off' },
              {
                name: 'env',
                label: s.env,
                type: 'select',
                options: envs.answer.body.envs.map((e) => ({ value: String(e.id), label: e.display_name || e.name })),
              },
              {
                name: 'role',
                label: s.role,
                type: 'select',
                options: roles.answer.body.roles.map((r) => ({ value: r.role_name, label: r.display_name || r.role_name })),
              },
              { name: 'access_token', label: s.accessToken, type: 'textarea', required: true },
            ]}
            onSubmit={(v) => {
              setTenantId(String(v.tenant));
              return call('POST', 'auth', `/tenants/${encodeURIComponent(String(v.tenant))}/invitations`, {
                email: v.email,
                access_token: String(v.access_token).trim(),
                envs: [{ id: Number(v.env), role_names: v.role ? [v.role] : [] }],
              });
            }}
            onDone={() => setVersion(version + 1)}
          />
        ) : (
          <Loaded<unknown> answer={[tenants.answer, envs.answer, roles.answer].find((a) => !a?.ok)}>{() => null}</Loaded>
        )}
      </section>
      {shownTenant ? (
        <section class="card">
          <TenantInvitations tenantId={shownTenant} version={version} />
        </section>
      ) : null}
    </>
  );
}
