/**
 * One user (`users/{id}`): attributes, tenants with roles per environment, MFA state, their sessions on the
 * hosted login screen (GET /users/{id}/sessions, each ended by DELETE /users/{id}/sessions/{session_id}), their
 * security activity (GET /users/{id}/activity, newest first, paged by its cursor), and the API calls that named
 * them.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { Done, Link, Loaded, ProblemNote, Table, useLoad } from '../ui.js';
import type { ApiLog } from './activity.js';

interface SaasUser {
  id: string;
  email: string;
  sign_in_id: string;
  attributes: Record<string, unknown>;
}
interface UserInfo {
  tenants: { id: string; name: string; envs: { id: number; display_name: string; roles: { role_name: string; display_name: string }[] }[] }[];
}

export function User({ id }: { id: string }) {
  const u = t().userPage;
  const user = useLoad(() => call<SaasUser>('GET', 'auth', `/users/${encodeURIComponent(id)}`), [id]);
  const mfa = useLoad(() => call<{ enabled: boolean; mfa_method?: string }>('GET', 'auth', `/users/${encodeURIComponent(id)}/mfa/preference`), [id]);
  const [info, setInfo] = useState<Answer<UserInfo> | undefined>(undefined);
  const [calls, setCalls] = useState<Answer<{ api_logs: ApiLog[] }> | undefined>(undefined);
  const email = user.answer?.ok ? user.answer.body.email : '';
  useEffect(() => {
    if (email) call<UserInfo>('GET', 'auth', `/userinfo/search/email?email=${encodeURIComponent(email)}`).then(setInfo);
    const since = new Date(Date.now() - 7 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    call<{ api_logs: ApiLog[] }>('GET', 'apilog', `/logs?created_at=${encodeURIComponent(since)}&limit=100`).then(setCalls);
  }, [email]);
  const about = calls?.ok ? calls.body.api_logs.filter((l) => l.request_uri.includes(id)) : [];
  return (
    <>
      <p>
        <Link to="users">{u.back}</Link>
      </p>
      <Loaded answer={user.answer}>
        {(body) => (
          <>
            <h1 tabIndex={-1}>{body.email || body.sign_in_id}</h1>
            <p>
              <code>{body.id}</code>
            </p>
            <section class="card">
              <h2>{u.mfa}</h2>
              <Loaded answer={mfa.answer}>
                {(m) => (
                  <>
                    <p id="user-mfa">
                      {m.enabled
                        ? fill(u.mfaOn, { method: (u.mfaMethods as Record<string, string>)[m.mfa_method ?? ''] ?? m.mfa_method ?? '' })
                        : u.mfaOff}
                    </p>
                    <MfaSwitch id={id} enabled={m.enabled} onDone={mfa.reload} />
                  </>
                )}
              </Loaded>
              <h2>{u.attributes}</h2>
              <Table
                id="user-attributes"
                caption={u.attributes}
                rows={Object.entries(body.attributes ?? {})}
                columns={[
                  { label: t().definitions.attributeName, render: ([name]) => <code>{name}</code> },
                  { label: u.value, render: ([, value]) => String(value) },
                ]}
              />
            </section>
          </>
        )}
      </Loaded>
      <section class="card">
        <h2>{u.tenants}</h2>
        {info && !info.ok && info.status !== 404 ? <ProblemNote answer={info} /> : null}
        {info?.ok ? (
          <Table
            id="user-tenants"
            caption={u.tenants}
            rows={info.body.tenants.flatMap((x) =>
              x.envs.length ? x.envs.map((e) => ({ tenant: x.name, env: e.display_name, roles: e.roles })) : [{ tenant: x.name, env: '', roles: [] }],
            )}
            columns={[
              { label: u.tenant, render: (r) => r.tenant },
              { label: u.env, render: (r) => r.env },
              { label: u.roles, render: (r) => r.roles.map((x) => x.display_name || x.role_name).join(', ') },
            ]}
          />
        ) : info?.status === 404 ? (
          <p class="muted">{u.noTenants}</p>
        ) : null}
      </section>
      <ScreenSessions id={id} />
      <SecurityActivity id={id} />
      <section class="card">
        <h2>{u.calls}</h2>
        {calls && !calls.ok ? <ProblemNote answer={calls} /> : null}
        <Table
          id="user-calls"
          caption={u.calls}
          rows={about}
          columns={[
            { label: t().activity.time, render: (l) => when(l.created_at) },
            { label: t().activity.method, render: (l) => l.request_method },
            { label: t().activity.path, render: (l) => <code>{l.request_uri}</code> },
            { label: t().activity.status, render: (l) => l.response_status },
          ]}
        />
      </section>
    </>
  );
}

interface Activity {
  activity_id: string;
  kind: string;
  created_at: number;
  method?: string;
  provider?: string;
  challenge?: string;
  source_ip?: string;
  user_agent?: string;
}
interface Activities {
  activities: Activity[];
  cursor?: string;
}

const PAGE = 10;

/** A time of the API (seconds since 1970) as the console shows times: UTC, to the second. */
const when = (seconds: number) => new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19);

/** What one event says in words: its kind, and how (the sign-in's method or provider, the refused code's step). */
function activityText(event: Activity): string {
  const a = t().userActivity;
  const kind = (a.kinds as Record<string, string>)[event.kind] ?? event.kind;
  const how = event.provider
    ? fill(a.viaProvider, { provider: event.provider })
    : event.challenge
      ? ((a.challenges as Record<string, string>)[event.challenge] ?? event.challenge)
      : event.method === 'srp' && (event.kind === 'sign_in_failed' || event.kind === 'locked_out')
        ? a.wrongPassword
        : event.method
          ? ((a.methods as Record<string, string>)[event.method] ?? event.method)
          : '';
  return how ? `${kind} (${how})` : kind;
}

function SecurityActivity({ id }: { id: string }) {
  const a = t().userActivity;
  const [pages, setPages] = useState<{ events: Activity[]; cursor?: string; answer?: Answer }>({ events: [] });
  const load = async (cursor?: string, before: Activity[] = []) => {
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (cursor) q.set('cursor', cursor);
    const answer = await call<Activities>('GET', 'auth', `/users/${encodeURIComponent(id)}/activity?${q}`);
    if (!answer.ok) return setPages({ events: before, answer });
    setPages({ events: [...before, ...answer.body.activities], ...(answer.body.cursor ? { cursor: answer.body.cursor } : {}), answer });
  };
  useEffect(() => {
    void load();
  }, [id]);
  return (
    <section class="card">
      <h2>{a.heading}</h2>
      <p class="hint">{a.intro}</p>
      {pages.answer && !pages.answer.ok ? <ProblemNote answer={pages.answer} /> : null}
      {pages.answer ? (
        <Table
          id="user-activity"
          caption={a.heading}
          rows={pages.events}
          columns={[
            { label: t().activity.time, render: (e) => when(e.created_at) },
            { label: a.what, render: activityText },
            { label: a.sourceIp, render: (e) => (e.source_ip ? <code>{e.source_ip}</code> : '') },
            { label: a.userAgent, render: (e) => e.user_agent ?? '' },
          ]}
        />
      ) : (
        <p class="muted">{t().common.loading}</p>
      )}
      {pages.cursor ? (
        <button type="button" class="secondary" id="user-activity-more" onClick={() => load(pages.cursor, pages.events)}>
          {a.more}
        </button>
      ) : null}
    </section>
  );
}

interface ScreenSession {
  id: string;
  user_agent: string;
  ip: string;
  created_at: number;
  last_used_at: number;
  methods: string[];
  tenant_id?: string;
}

/**
 * The user's sessions on the hosted login screen, newest first, each with a button that ends it (the browser
 * is asked to sign in there again; tokens already issued run out on their own).
 */
function ScreenSessions({ id }: { id: string }) {
  const s = t().userSessions;
  const path = `/users/${encodeURIComponent(id)}/sessions`;
  const list = useLoad(() => call<{ sessions: ScreenSession[] }>('GET', 'auth', path), [id]);
  const [ended, setEnded] = useState<Answer | undefined>(undefined);
  const end = async (session: ScreenSession) => {
    const answer = await call('DELETE', 'auth', `${path}/${encodeURIComponent(session.id)}`);
    setEnded(answer);
    list.reload();
    // Its button is gone with it: the keyboard carries on from the section's heading, not from the page's top.
    document.getElementById('user-sessions-heading')?.focus();
  };
  return (
    <section class="card">
      <h2 id="user-sessions-heading" tabIndex={-1}>
        {s.heading}
      </h2>
      <p class="hint">{s.intro}</p>
      {ended?.ok ? <Done answer={ended} text={s.ended} /> : <ProblemNote answer={ended} />}
      <Loaded answer={list.answer}>
        {(body) => (
          <Table
            id="user-sessions"
            caption={s.heading}
            rows={body.sessions}
            columns={[
              { label: s.device, render: (x) => x.user_agent },
              { label: s.ip, render: (x) => (x.ip ? <code>{x.ip}</code> : '') },
              { label: s.created, render: (x) => when(x.created_at) },
              { label: s.lastUsed, render: (x) => when(x.last_used_at) },
              {
                label: s.methods,
                render: (x) =>
                  [...x.methods.map((m) => (s.kinds as Record<string, string>)[m] ?? m), ...(x.tenant_id ? [`${s.tenant} ${x.tenant_id}`] : [])].join(
                    ', ',
                  ),
              },
              {
                label: t().common.actions,
                render: (x) => (
                  <button type="button" class="danger" aria-label={`${s.end}: ${x.user_agent} (${when(x.created_at)})`} onClick={() => end(x)}>
                    {s.end}
                  </button>
                ),
              },
            ]}
          />
        )}
      </Loaded>
    </section>
  );
}

/**
 * The operator's MFA switch: off (a user who lost their authenticator) or on with codes by e-mail, which needs
 * nothing registered; an authenticator app is registered by the user with their own access token.
 */
function MfaSwitch({ id, enabled, onDone }: { id: string; enabled: boolean; onDone: () => void }) {
  const u = t().userPage;
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  const change = async (body: { enabled: boolean; method?: string }) => {
    const result = await call('PATCH', 'auth', `/users/${encodeURIComponent(id)}/mfa/preference`, body);
    setAnswer(result);
    if (result.ok) onDone();
  };
  return (
    <>
      {enabled ? (
        <button type="button" class="secondary" id="user-mfa-off" onClick={() => change({ enabled: false })}>
          {u.mfaTurnOff}
        </button>
      ) : (
        <button type="button" class="secondary" id="user-mfa-email" onClick={() => change({ enabled: true, method: 'email' })}>
          {u.mfaTurnOnEmail}
        </button>
      )}
      {answer?.ok ? <Done answer={answer} text={t().common.saved} /> : <ProblemNote answer={answer} />}
    </>
  );
}
