/**
 * One tenant (`tenants/{id}`): its plan and period, its billing info (Get Tenant; changed by Update Tenant
 * Billing Information, a refusal shown at the field it names), its plan history, newest first, and its setup links
 * (setup-links.tsx), and whether its members sign in only with a passkey (the tenant's `passkeys_required`, sent
 * with Update Tenant Details and the rest of the tenant as read).
 */
import { call } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Link, Loaded, Table, useLoad } from '../ui.js';
import { SetupLinks } from './setup-links.js';

interface BillingInfo {
  name: string;
  address: { street: string; city: string; state: string; country: string; additional_address_info?: string; postal_code: string };
  invoice_language: string;
}
interface PlanHistory {
  plan_id: string;
  plan_applied_at: number;
  tax_rate_id?: string;
  proration_behavior?: string;
}
interface TenantDetail {
  id: string;
  name: string;
  back_office_staff_email: string;
  attributes: Record<string, unknown>;
  passkeys_required?: boolean;
  plan_id?: string;
  billing_info?: BillingInfo;
  plan_histories: PlanHistory[];
  current_plan_period_start?: number;
  current_plan_period_end?: number;
}

const day = (seconds: number | undefined) => (seconds ? new Date(seconds * 1000).toISOString().slice(0, 10) : '');
const moment = (seconds: number) => new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 16);

export function TenantPage({ id }: { id: string }) {
  const s = t().tenantPage;
  const path = `/tenants/${encodeURIComponent(id)}`;
  const tenant = useLoad(() => call<TenantDetail>('GET', 'auth', path), [id]);
  const plans = useLoad(() => call<{ pricing_plans: { id: string; display_name: string }[] }>('GET', 'pricing', '/plans'));
  const taxRates = useLoad(() => call<{ tax_rates: { id: string; display_name: string }[] }>('GET', 'pricing', '/tax-rates'));
  const planName = (planId: string | undefined) =>
    !planId
      ? t().tenants.noPlan
      : ((plans.answer?.ok ? plans.answer.body.pricing_plans.find((p) => p.id === planId)?.display_name : undefined) ?? planId);
  const taxName = (rateId: string | undefined) =>
    !rateId ? '' : ((taxRates.answer?.ok ? taxRates.answer.body.tax_rates.find((r) => r.id === rateId)?.display_name : undefined) ?? rateId);
  return (
    <>
      <p>
        <Link to="tenants">{s.back}</Link>
      </p>
      <Loaded answer={tenant.answer}>
        {(body) => {
          const billing = body.billing_info;
          return (
            <>
              <h1 tabIndex={-1}>{body.name}</h1>
              <p>
                <code>{body.id}</code> · {body.back_office_staff_email}
              </p>
              <section class="card">
                <h2>{t().tenants.plan}</h2>
                <p id="tenant-plan">
                  {planName(body.plan_id)}
                  {body.current_plan_period_start ? ` (${day(body.current_plan_period_start)} – ${day(body.current_plan_period_end)})` : ''}
                </p>
                <h2>{s.history}</h2>
                <Table
                  id="plan-history"
                  caption={s.history}
                  rows={[...body.plan_histories].reverse()}
                  columns={[
                    { label: s.appliedAt, render: (h) => moment(h.plan_applied_at) },
                    { label: t().tenants.plan, render: (h) => planName(h.plan_id) },
                    { label: t().tenants.taxRate, render: (h) => taxName(h.tax_rate_id) },
                    { label: s.proration, render: (h) => h.proration_behavior ?? '' },
                  ]}
                />
              </section>
              <section class="card">
                <h2>{s.billing}</h2>
                {billing ? null : <p class="muted">{s.noBilling}</p>}
                <ApiForm
                  id="billing-info"
                  submitLabel={t().common.save}
                  doneText={t().common.saved}
                  initial={{
                    name: billing?.name ?? '',
                    street: billing?.address.street ?? '',
                    city: billing?.address.city ?? '',
                    state: billing?.address.state ?? '',
                    postal_code: billing?.address.postal_code ?? '',
                    country: billing?.address.country ?? '',
                    additional_address_info: billing?.address.additional_address_info ?? '',
                    invoice_language: billing?.invoice_language ?? 'ja-JP',
                  }}
                  fields={[
                    { name: 'name', label: s.billingName, required: true, autoComplete: 'organization' },
                    { name: 'street', label: s.street, required: true, autoComplete: 'street-address' },
                    { name: 'city', label: s.city, required: true, autoComplete: 'address-level2' },
                    { name: 'state', label: s.state, required: true, autoComplete: 'address-level1' },
                    { name: 'postal_code', label: s.postalCode, required: true, autoComplete: 'postal-code' },
                    { name: 'country', label: s.country, required: true, hint: s.countryHint, autoComplete: 'country' },
                    { name: 'additional_address_info', label: s.additional },
                    {
                      name: 'invoice_language',
                      label: s.invoiceLanguage,
                      type: 'select',
                      options: [
                        { value: 'ja-JP', label: s.japanese },
                        { value: 'en-US', label: s.english },
                      ],
                    },
                  ]}
                  onSubmit={(v) =>
                    call('PUT', 'auth', `${path}/billing-info`, {
                      name: v.name,
                      address: {
                        street: v.street,
                        city: v.city,
                        state: v.state,
                        postal_code: v.postal_code,
                        country: v.country,
                        ...(v.additional_address_info ? { additional_address_info: v.additional_address_info } : {}),
                      },
                      invoice_language: v.invoice_language,
                    })
                  }
                  onDone={tenant.reload}
                />
              </section>
              <section class="card">
                <h2>{s.signIn}</h2>
                <ApiForm
                  id="tenant-passkeys"
                  submitLabel={t().common.save}
                  doneText={t().common.saved}
                  initial={{ passkeys_required: body.passkeys_required === true }}
                  fields={[{ name: 'passkeys_required', label: s.passkeysRequired, type: 'checkbox', hint: s.passkeysRequiredHint }]}
                  onSubmit={(v) =>
                    call('PATCH', 'auth', path, {
                      name: body.name,
                      attributes: body.attributes,
                      back_office_staff_email: body.back_office_staff_email,
                      passkeys_required: v.passkeys_required === true,
                    })
                  }
                  onDone={tenant.reload}
                />
              </section>
              <SetupLinks tenant={body.id} />
            </>
          );
        }}
      </Loaded>
    </>
  );
}
