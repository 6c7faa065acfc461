/**
 * Basic info (GET/PUT /basic-info): the login screen's domain and the mail sender, with the DNS records to
 * publish and whether they are seen (each GET moves the domain on, docs/login-screen.md); and the payment
 * provider (GET/PUT /payment-provider, our extension: the Stripe key is sealed and never shown again).
 */
import { call } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Loaded, Table, useLoad } from '../ui.js';

interface DnsRecord {
  type: string;
  name: string;
  value: string;
}
interface BasicInfo {
  domain_name: string;
  is_dns_validated: boolean;
  certificate_dns_record: DnsRecord;
  cdn_dns_record: DnsRecord;
  dkim_dns_records: DnsRecord[];
  default_domain_name: string;
  from_email_address: string;
  reply_email_address: string;
  is_mail_sandbox_granted: boolean;
}

function Domain() {
  const b = t().basicInfo;
  const { answer, reload } = useLoad(() => call<BasicInfo>('GET', 'auth', '/basic-info'));
  return (
    <Loaded answer={answer}>
      {(info) => {
        const records = [
          { purpose: b.certificate, record: info.certificate_dns_record },
          { purpose: b.cdn, record: info.cdn_dns_record },
          ...info.dkim_dns_records.map((record) => ({ purpose: b.dkim, record })),
        ].filter((r) => r.record?.name);
        return (
          <>
            <section class="card" aria-labelledby="domain-heading">
              <h2 id="domain-heading">{b.domainHeading}</h2>
              <p id="domain-state">
                {info.domain_name ? (info.is_dns_validated ? b.validated : b.waiting) : b.noDomain}{' '}
                <span class="muted">{`${b.defaultDomain}: ${info.default_domain_name}`}</span>
              </p>
              <Table
                id="dns-records"
                caption={b.recordsHeading}
                rows={records}
                columns={[
                  { label: b.purpose, render: (r) => r.purpose },
                  { label: b.type, render: (r) => r.record.type },
                  { label: b.name, render: (r) => <code>{r.record.name}</code> },
                  { label: b.value, render: (r) => <code>{r.record.value}</code> },
                  { label: b.state, render: (r) => (r.purpose === b.dkim ? b.mailState : info.is_dns_validated ? b.seen : b.notSeen) },
                ]}
              />
              <button type="button" class="secondary" id="check-dns" onClick={reload}>
                {b.check}
              </button>
              <p class="hint">{info.is_mail_sandbox_granted ? b.mailLive : b.mailSandbox}</p>
            </section>
            <section class="card" aria-labelledby="basic-heading">
              <h2 id="basic-heading">{b.formHeading}</h2>
              <ApiForm
                id="basic-info"
                initial={{
                  domain_name: info.domain_name,
                  from_email_address: info.from_email_address,
                  reply_email_address: info.reply_email_address,
                }}
                fields={[
                  { name: 'domain_name', label: b.domain, hint: b.domainHint, placeholder: 'login.example.com' },
                  { name: 'from_email_address', label: b.from, type: 'email', required: true },
                  { name: 'reply_email_address', label: b.replyTo, type: 'email' },
                ]}
                submitLabel={t().common.save}
                doneText={t().common.saved}
                onSubmit={(v) => call('PUT', 'auth', '/basic-info', v)}
                onDone={reload}
              />
            </section>
          </>
        );
      }}
    </Loaded>
  );
}

function PaymentProvider() {
  const b = t().basicInfo;
  const { answer, reload } = useLoad(() => call<{ provider: string; secret_key: string }>('GET', 'auth', '/payment-provider'));
  return (
    <section class="card" aria-labelledby="payment-heading">
      <h2 id="payment-heading">{b.paymentHeading}</h2>
      <Loaded answer={answer}>
        {(body) => (
          <>
            <p id="payment-state">{body.provider ? `${b.stripeSet} ${body.secret_key}` : b.stripeUnset}</p>
            <ApiForm
              id="payment-provider"
              fields={[{ name: 'secret_key', label: b.stripeKey, type: 'password', autoComplete: 'off', hint: b.stripeKeyHint }]}
              submitLabel={t().common.save}
              doneText={t().common.saved}
              onSubmit={(v) => call('PUT', 'auth', '/payment-provider', { provider: 'stripe', secret_key: v.secret_key })}
              onDone={reload}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

export function BasicInfoPage() {
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.basicInfo}</h1>
      <Domain />
      <PaymentProvider />
    </>
  );
}
