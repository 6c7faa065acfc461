/**
 * The activity: the API log (`/v1/apilog/logs`) in a date range, page by page with its cursor, filtered on
 * the page; `?request_id=` shows one call (the one a change just made), looked up again while its record is
 * still on its way into the log.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { ProblemNote, Table } from '../ui.js';
import type { PageProps } from '../page-props.js';

export interface ApiLog {
  trace_id: string;
  api_log_id: string;
  created_at: number;
  request_method: string;
  request_uri: string;
  response_status: string;
  api_key: string;
  remote_address: string;
  latency_ms?: number;
}
interface ApiLogs {
  api_logs: ApiLog[];
  cursor?: string;
}

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const timeOf = (seconds: number) => new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19);

function query(from: string, to: string, cursor?: string) {
  const q = new URLSearchParams({ created_at: `${from}T00:00:00Z`, created_before: `${nextDay(to)}T00:00:00Z`, limit: '50' });
  if (cursor) q.set('cursor', cursor);
  return `/logs?${q.toString()}`;
}

function LogTable({ rows, id }: { rows: ApiLog[]; id: string }) {
  const a = t().activity;
  return (
    <Table
      id={id}
      caption={a.heading}
      rows={rows}
      columns={[
        { label: a.time, render: (l) => timeOf(l.created_at) },
        { label: a.method, render: (l) => l.request_method },
        { label: a.path, render: (l) => <code>{l.request_uri}</code> },
        { label: a.status, render: (l) => <span class={`status-${l.response_status.slice(0, 1)}`}>{l.response_status}</span> },
        { label: a.apiKey, render: (l) => <code>{l.api_key}</code> },
        { label: a.source, render: (l) => l.remote_address },
        { label: a.latency, render: (l) => l.latency_ms ?? '' },
        { label: a.requestId, render: (l) => <code>{l.trace_id}</code> },
      ]}
    />
  );
}

/**
 * One call by its request id: the newest calls of today are searched, again and again less often for about half a
 * minute, while the record is on its way through the API log writer (seconds on AWS: docs/deployment-shape.md).
 */
function TheCall({ requestId }: { requestId: string }) {
  const a = t().activity;
  const [found, setFound] = useState<ApiLog | 'waiting' | 'missing' | Answer>('waiting');
  useEffect(() => {
    let stopped = false;
    (async () => {
      for (let attempt = 0; attempt < 14 && !stopped; attempt++) {
        const answer = await call<ApiLogs>('GET', 'apilog', query(day(-1), day(0)));
        if (!answer.ok) return setFound(answer);
        const log = answer.body.api_logs.find((l) => l.trace_id === requestId);
        if (log) return setFound(log);
        await new Promise((resolve) => setTimeout(resolve, Math.min(3000, 500 * 2 ** Math.floor(attempt / 2))));
      }
      if (!stopped) setFound('missing');
    })();
    return () => {
      stopped = true;
    };
  }, [requestId]);
  return (
    <section class="card" id="the-call">
      <h2>{fill(a.theCall, { id: requestId })}</h2>
      {found === 'waiting' ? (
        <p class="muted" role="status">
          {fill(a.waiting, { id: requestId })}
        </p>
      ) : found === 'missing' ? (
        <p class="error">{fill(a.notFound, { id: requestId })}</p>
      ) : 'status' in found ? (
        <ProblemNote answer={found} />
      ) : (
        <LogTable rows={[found]} id="call-detail" />
      )}
    </section>
  );
}

export function Activity({ query: pageQuery }: PageProps) {
  const a = t().activity;
  const requestId = pageQuery.get('request_id') ?? '';
  const [from, setFrom] = useState(day(-6));
  const [to, setTo] = useState(day(0));
  const [filter, setFilter] = useState('');
  const [pages, setPages] = useState<{ logs: ApiLog[]; cursor?: string; answer?: Answer }>({ logs: [] });
  const load = async (cursor?: string) => {
    const answer = await call<ApiLogs>('GET', 'apilog', query(from, to, cursor));
    if (!answer.ok) return setPages({ logs: [], answer });
    setPages({
      logs: [...(cursor ? pages.logs : []), ...answer.body.api_logs],
      ...(answer.body.cursor ? { cursor: answer.body.cursor } : {}),
      answer,
    });
  };
  useEffect(() => {
    load();
  }, []);
  const needle = filter.trim().toLowerCase();
  const shown = needle
    ? pages.logs.filter((l) =>
        [l.request_method, l.request_uri, l.response_status, l.api_key, l.trace_id].some((v) => v.toLowerCase().includes(needle)),
      )
    : pages.logs;
  return (
    <>
      <h1 tabIndex={-1}>{a.heading}</h1>
      <p>{a.intro}</p>
      {requestId ? <TheCall requestId={requestId} /> : null}
      <form
        id="activity-range"
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          load();
        }}
      >
        <div>
          <label for="activity-from">{a.from}</label>
          <input id="activity-from" type="date" value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <div>
          <label for="activity-to">{a.to}</label>
          <input id="activity-to" type="date" value={to} onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <div>
          <button type="submit">{a.show}</button>
        </div>
      </form>
      <label for="activity-filter">{a.filter}</label>
      <input id="activity-filter" type="search" value={filter} onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)} />
      <h2>{a.heading}</h2>
      {pages.answer && !pages.answer.ok ? (
        <ProblemNote answer={pages.answer} />
      ) : pages.answer ? (
        <LogTable rows={shown} id="activity-log" />
      ) : (
        <p class="muted">{t().common.loading}</p>
      )}
      {pages.cursor ? (
        <button type="button" class="secondary" id="activity-more" onClick={() => load(pages.cursor)}>
          {a.more}
        </button>
      ) : null}
    </>
  );
}
