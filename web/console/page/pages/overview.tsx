/** The overview: how many users, tenants and plans; the API calls of the last seven days, their failures and sign-ins. */
import { useEffect, useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { t } from '../texts.js';
import { ProblemNote } from '../ui.js';

interface ApiLogs {
  api_logs: { request_method: string; request_uri: string; response_status: string }[];
  cursor?: string;
}

const count = (answer: Answer | undefined, member: string) =>
  answer?.ok ? String(((answer.body as Record<string, unknown[]>)[member] ?? []).length) : t().overview.unknown;

export function Overview() {
  const o = t().overview;
  const [answers, setAnswers] = useState<Answer[] | undefined>(undefined);
  useEffect(() => {
    const since = new Date(Date.now() - 7 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    Promise.all([
      call('GET', 'auth', '/users'),
      call('GET', 'auth', '/tenants'),
      call('GET', 'pricing', '/plans'),
      call<ApiLogs>('GET', 'apilog', `/logs?created_at=${encodeURIComponent(since)}&limit=100`),
    ]).then(setAnswers);
  }, []);
  const [users, tenants, plans, logs] = answers ?? [];
  const calls = logs?.ok ? (logs.body as ApiLogs) : undefined;
  const more = calls?.cursor ? '+' : '';
  const stats = [
    { id: 'users', label: o.users, value: count(users, 'users') },
    { id: 'tenants', label: o.tenants, value: count(tenants, 'tenants') },
    { id: 'plans', label: o.plans, value: count(plans, 'pricing_plans') },
    { id: 'calls', label: o.calls, value: calls ? `${calls.api_logs.length}${more}` : o.unknown },
    { id: 'failures', label: o.failures, value: calls ? String(calls.api_logs.filter((l) => Number(l.response_status) >= 400).length) : o.unknown },
    {
      id: 'sign-ins',
      label: o.signIns,
      value: calls ? String(calls.api_logs.filter((l) => l.request_method === 'POST' && l.request_uri.endsWith('/sign-in')).length) : o.unknown,
    },
  ];
  return (
    <>
      <h1 tabIndex={-1}>{o.heading}</h1>
      {answers ? (
        <ul class="stats">
          {stats.map((s) => (
            <li key={s.id} id={`stat-${s.id}`}>
              <span class="figure">{s.value}</span>
              {s.label}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t().common.loading}</p>
      )}
      {(answers ?? [])
        .filter((a) => !a.ok)
        .slice(0, 1)
        .map((a, i) => (
          <ProblemNote answer={a} key={i} />
        ))}
    </>
  );
}
