/**
 * SAML per tenant (PUT /tenants/{id}/identity-providers), by the identity provider's metadata URL or its
 * metadata file, with what the identity provider needs of this service (sign-in settings'
 * identity_provider_configuration). Google, for the whole SaaS, is on the identity providers page (providers.tsx).
 */
import { useState } from 'preact/hooks';
import { call, problemOf, type Answer } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Done, Field, Loaded, ProblemNote, Table, useLoad } from '../ui.js';
import type { Tenant } from './usage-chart.js';

interface Saml {
  email_attribute: string;
  metadata_url?: string;
  metadata_xml?: string;
  sign_in_url: string;
}

/**
 * The API refuses the props as a whole (`identity_provider_props:`, one shape or null): the field to show it at
 * is the one sent that can be wrong, a blank e-mail attribute, else the URL.
 */
function namedField(answer: Answer, field: string): Answer {
  const problem = problemOf(answer);
  if (!problem || !field || !/^identity_provider_props:/.test(problem.message)) return answer;
  return { ...answer, body: { ...problem, data: { ...problem.data, field } } };
}

function TenantSaml({ tenant, service }: { tenant: string; service: { entity_id: string; reply_url: string } | undefined }) {
  const p = t().saml;
  const { answer, reload } = useLoad(
    () => call<{ saml?: Saml }>('GET', 'auth', `/tenants/${encodeURIComponent(tenant)}/identity-providers`),
    [tenant],
  );
  const [xml, setXml] = useState('');
  const [removed, setRemoved] = useState<Answer | undefined>(undefined);
  return (
    <Loaded answer={answer}>
      {({ saml }) => (
        <>
          <Table
            id="saml-state"
            caption={p.samlHeading}
            rows={[
              { label: p.state, value: saml ? (saml.metadata_url ? p.byUrl : p.byFile) : p.samlOff },
              ...(saml ? [{ label: p.signInUrl, value: saml.sign_in_url }] : []),
              ...(service
                ? [
                    { label: p.entityId, value: service.entity_id },
                    { label: p.replyUrl, value: service.reply_url },
                  ]
                : []),
            ]}
            columns={[
              { label: p.item, render: (r) => r.label },
              { label: p.value, render: (r) => <code>{r.value}</code> },
            ]}
          />
          <label for="saml-file">{p.metadataFile}</label>
          <input
            type="file"
            id="saml-file"
            accept=".xml,application/xml,text/xml"
            aria-describedby="saml-file-hint"
            onChange={async (event) => {
              const file = (event.currentTarget as HTMLInputElement).files?.[0];
              setXml(file ? await file.text() : '');
            }}
          />
          <p class="hint" id="saml-file-hint">
            {xml ? p.fileChosen : p.fileHint}
          </p>
          <ApiForm
            id="saml"
            key={tenant}
            initial={{ email_attribute: saml?.email_attribute ?? 'email', metadata_url: saml?.metadata_url ?? '' }}
            fields={[
              { name: 'email_attribute', label: p.emailAttribute, required: true },
              { name: 'metadata_url', label: p.metadataUrl, placeholder: 'https://', hint: p.metadataUrlHint },
            ]}
            submitLabel={t().common.save}
            doneText={t().common.saved}
            onSubmit={async (v) => {
              const answer = await call('PUT', 'auth', `/tenants/${encodeURIComponent(tenant)}/identity-providers`, {
                provider_type: 'SAML',
                identity_provider_props: {
                  email_attribute: v.email_attribute,
                  ...(xml ? { metadata_xml: xml } : { metadata_url: v.metadata_url }),
                },
              });
              return namedField(answer, String(v.email_attribute).trim() ? (xml ? '' : 'metadata_url') : 'email_attribute');
            }}
            onDone={reload}
          />
          {saml ? (
            <button
              type="button"
              class="secondary"
              id="saml-remove"
              onClick={async () => {
                const result = await call('PUT', 'auth', `/tenants/${encodeURIComponent(tenant)}/identity-providers`, {
                  provider_type: 'SAML',
                  identity_provider_props: null,
                });
                setRemoved(result);
                if (result.ok) reload();
              }}
            >
              {p.remove}
            </button>
          ) : null}
          {removed?.ok ? <Done answer={removed} text={p.removed} /> : <ProblemNote answer={removed} />}
        </>
      )}
    </Loaded>
  );
}

function SamlProviders() {
  const p = t().saml;
  const tenants = useLoad(() => call<{ tenants: Tenant[] }>('GET', 'auth', '/tenants'));
  const settings = useLoad(() =>
    call<{ identity_provider_configuration?: { entity_id: string; reply_url: string } }>('GET', 'auth', '/sign-in-settings'),
  );
  const [tenant, setTenant] = useState('');
  return (
    <section class="card" aria-labelledby="saml-heading">
      <h2 id="saml-heading">{p.samlHeading}</h2>
      <p class="hint">{p.samlIntro}</p>
      <Loaded answer={tenants.answer}>
        {({ tenants: list }) => {
          if (list.length === 0) return <p class="hint">{p.noTenants}</p>;
          const chosen = tenant || (list[0] as Tenant).id;
          return (
            <>
              <Field
                form="saml"
                spec={{ name: 'tenant', label: p.tenant, type: 'select', options: list.map((x) => ({ value: x.id, label: x.name })) }}
                value={chosen}
                onChange={(v) => setTenant(String(v))}
              />
              <TenantSaml
                tenant={chosen}
                key={chosen}
                service={settings.answer?.ok ? settings.answer.body.identity_provider_configuration : undefined}
              />
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

export function SamlPage() {
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.saml}</h1>
      <SamlProviders />
    </>
  );
}
