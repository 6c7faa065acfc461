/** Basic settings: the callback URL (auth-info), the login domain and mail addresses (basic-info) with the DNS records to add and their state. */
import { call } from '../api.js';
import { fill, t } from '../texts.js';
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

export function Basics() {
  const b = t().basics;
  const yesNo = (value: boolean) => (value ? t().common.yes : t().common.no);
  const auth = useLoad(() => call<{ callback_url: string }>('GET', 'auth', '/auth-info'));
  const basic = useLoad(() => call<BasicInfo>('GET', 'auth', '/basic-info'));
  return (
    <>
      <h1 tabIndex={-1}>{b.heading}</h1>
      <section class="card">
        <h2>{b.callbackHeading}</h2>
        <Loaded answer={auth.answer}>
          {(body) => (
            <ApiForm
              id="auth-info"
              submitLabel={t().common.save}
              doneText={t().common.saved}
              initial={{ callback_url: body.callback_url }}
              fields={[
                { name: 'callback_url', label: b.callbackUrl, type: 'text', hint: b.callbackHint, placeholder: 'https://app.example.com/callback' },
              ]}
              onSubmit={(v) => call('PUT', 'auth', '/auth-info', { callback_url: v.callback_url })}
            />
          )}
        </Loaded>
      </section>
      <section class="card">
        <h2>{b.domainHeading}</h2>
        <Loaded answer={basic.answer}>
          {(body) => (
            <>
              <p class="hint">{fill(b.defaultDomain, { domain: body.default_domain_name })}</p>
              <ApiForm
                id="basic-info"
                submitLabel={t().common.save}
                doneText={t().common.saved}
                initial={{
                  domain_name: body.domain_name,
                  from_email_address: body.from_email_address,
                  reply_email_address: body.reply_email_address,
                }}
                fields={[
                  { name: 'domain_name', label: b.domainName, required: true, placeholder: 'auth.example.com' },
                  { name: 'from_email_address', label: b.fromEmail, type: 'email', required: true },
                  { name: 'reply_email_address', label: b.replyEmail, type: 'email' },
                ]}
                onSubmit={(v) => call('PUT', 'auth', '/basic-info', v)}
                onDone={basic.reload}
              />
              <h3>{b.dnsHeading}</h3>
              <p id="dns-state">{fill(b.dnsState, { state: yesNo(body.is_dns_validated) })}</p>
              <Table
                id="dns-records"
                caption={b.dnsHeading}
                rows={[body.certificate_dns_record, body.cdn_dns_record, ...body.dkim_dns_records].filter((r) => r && r.name)}
                columns={[
                  { label: b.recordType, render: (r) => r.type },
                  { label: b.recordName, render: (r) => <code>{r.name}</code> },
                  { label: b.recordValue, render: (r) => <code>{r.value}</code> },
                ]}
              />
              <p class="hint">{fill(b.sandbox, { state: yesNo(body.is_mail_sandbox_granted) })}</p>
            </>
          )}
        </Loaded>
      </section>
    </>
  );
}
