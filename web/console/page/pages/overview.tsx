/**
 * The overview: how many users, tenants and plans; the API calls of the last seven days and their failures;
 * the mail backlog (GET /mail-backlog); the SaaS's sign-ins, refusals and lockouts per day over 14 days
 * (GET /sign-in-counts), as a chart with its table; today's and this month's active users and the daily ones over 30
 * days (the Analysis API's GET /active-users), the same way. Each part shows its own refusal (a key may read users but
 * not the configuration), so one missing permission hides one part only.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { DayChart, type DayRow } from '../day-chart.js';
import { fill, t } from '../texts.js';
import { Loaded, ProblemNote, useLoad } from '../ui.js';

interface ApiLogs {
  api_logs: { request_method: string; request_uri: string; response_status: string }[];
  cursor?: string;
}

type Counted = 'sign_in_succeeded' | 'sign_in_failed' | 'locked_out';

interface MailBacklog {
  waiting: number;
  due: number;
  sending: number;
  scheduled: number;
  oldest_age_seconds?: number;
  /** False past the first 10 000 mails the API reads: the figures are at least these. */
  complete: boolean;
}

const SIGN_IN_DAYS = 14;
const ACTIVE_DAYS = 30;
const DAY_MS = 86_400_000;
/**
 * The figures the service counts from the sign-ins answer SaaS-wide, under the nil UUID and environment 0
 * (COUNTED_TENANT in shared/domain/analysis/analysis.ts); rows the SaaS saved per tenant are left out here.
 */
const SAAS_WIDE = 'tenant_id=00000000-0000-0000-0000-000000000000&env_id=0';

interface ActiveUsersAnswer {
  data: { date: string; active_users: number }[];
}

const count = (answer: Answer | undefined, member: string) =>
  answer?.ok ? String(((answer.body as Record<string, unknown[]>)[member] ?? []).length) : t().overview.unknown;

/** A wait in the largest whole unit: 45 s, 12 min, 3 h, 2 d. */
function age(seconds: number): string {
  const o = t().overview;
  if (seconds < 60) return fill(o.seconds, { n: seconds });
  if (seconds < 3600) return fill(o.minutes, { n: Math.floor(seconds / 60) });
  if (seconds < 86_400) return fill(o.hours, { n: Math.floor(seconds / 3600) });
  return fill(o.days, { n: Math.floor(seconds / 86_400) });
}

function Stats({ stats }: { stats: { id: string; label: string; value: string }[] }) {
  return (
    <ul class="stats">
      {stats.map((s) => (
        <li key={s.id} id={`stat-${s.id}`}>
          <span class="figure">{s.value}</span>
          {s.label}
        </li>
      ))}
    </ul>
  );
}

function Backlog() {
  const o = t().overview;
  const { answer } = useLoad(() => call<MailBacklog>('GET', 'auth', '/mail-backlog'));
  return (
    <section class="card" aria-labelledby="mail-heading" id="mail-backlog">
      <h2 id="mail-heading">{o.mailHeading}</h2>
      <p class="muted">{o.mailIntro}</p>
      <Loaded answer={answer}>
        {(b) =>
          b.waiting === 0 ? (
            <p id="mail-none">{o.mailNone}</p>
          ) : (
            <Stats
              stats={[
                { id: 'mail-waiting', label: o.mailWaiting, value: b.complete ? String(b.waiting) : `${b.waiting}+` },
                { id: 'mail-due', label: o.mailDue, value: String(b.due) },
                { id: 'mail-sending', label: o.mailSending, value: String(b.sending) },
                { id: 'mail-scheduled', label: o.mailScheduled, value: String(b.scheduled) },
                { id: 'mail-oldest', label: o.mailOldest, value: age(b.oldest_age_seconds ?? 0) },
              ]}
            />
          )
        }
      </Loaded>
    </section>
  );
}

/** The last 30 UTC days with their daily active users (0 where none signed in), and this month's figure. */
async function loadActiveUsers(): Promise<Answer<{ days: DayRow<'active_users'>[]; month: number }>> {
  const now = Date.now();
  const days = Array.from({ length: ACTIVE_DAYS }, (_, i) => new Date(now - (ACTIVE_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10));
  const today = days[ACTIVE_DAYS - 1] as string;
  const month = today.slice(0, 7);
  const [daily, monthly] = await Promise.all([
    call<ActiveUsersAnswer>('GET', 'analysis', `/active-users?type=daily&date_from=${days[0]}&date_to=${today}&${SAAS_WIDE}`),
    call<ActiveUsersAnswer>('GET', 'analysis', `/active-users?type=monthly&date_from=${month}&date_to=${month}&${SAAS_WIDE}`),
  ]);
  if (!daily.ok) return daily as Answer<never>;
  if (!monthly.ok) return monthly as Answer<never>;
  const byDay = new Map(daily.body.data.map((r) => [r.date, r.active_users]));
  return {
    ...daily,
    body: {
      days: days.map((day) => ({ day, active_users: byDay.get(day) ?? 0 })),
      month: monthly.body.data[0]?.active_users ?? 0,
    },
  };
}

function ActiveUsers() {
  const o = t().overview;
  const { answer } = useLoad(loadActiveUsers);
  return (
    <section class="card" aria-labelledby="active-users-heading" id="active-users">
      <h2 id="active-users-heading">{o.activeHeading}</h2>
      <p class="muted">{o.activeIntro}</p>
      <Loaded answer={answer}>
        {({ days, month }) => {
          const today = days[days.length - 1]?.active_users ?? 0;
          const label = fill(o.activeLabel, { today, peak: Math.max(0, ...days.map((d) => d.active_users)) });
          return (
            <>
              <Stats
                stats={[
                  { id: 'active-today', label: o.activeToday, value: String(today) },
                  { id: 'active-month', label: o.activeMonth, value: String(month) },
                ]}
              />
              <DayChart id="active-users" rows={days} label={label} series={[{ key: 'active_users', label: o.activeSeries }]} />
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

function SignIns() {
  const o = t().overview;
  const { answer } = useLoad(() => call<{ days: DayRow<Counted>[] }>('GET', 'auth', `/sign-in-counts?days=${SIGN_IN_DAYS}`));
  return (
    <section class="card" aria-labelledby="sign-ins-heading" id="sign-ins">
      <h2 id="sign-ins-heading">{o.signInsHeading}</h2>
      <p class="muted">{o.signInsIntro}</p>
      <Loaded answer={answer}>
        {({ days }) => {
          const total = (kind: Counted) => days.reduce((sum, d) => sum + d[kind], 0);
          const label = fill(o.signInsLabel, {
            succeeded: total('sign_in_succeeded'),
            failed: total('sign_in_failed'),
            lockedOut: total('locked_out'),
          });
          return (
            <DayChart
              id="sign-ins"
              rows={days}
              label={label}
              series={[
                { key: 'sign_in_succeeded', label: o.succeeded },
                { key: 'sign_in_failed', label: o.failed },
                { key: 'locked_out', label: o.lockedOut },
              ]}
            />
          );
        }}
      </Loaded>
    </section>
  );
}

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
  ];
  return (
    <>
      <h1 tabIndex={-1}>{o.heading}</h1>
      {answers ? <Stats stats={stats} /> : <p class="muted">{t().common.loading}</p>}
      {(answers ?? [])
        .filter((a) => !a.ok)
        .slice(0, 1)
        .map((a, i) => (
          <ProblemNote answer={a} key={i} />
        ))}
      <Backlog />
      <ActiveUsers />
      <SignIns />
    </>
  );
}
