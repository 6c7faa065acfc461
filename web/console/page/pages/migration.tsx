/**
 * The import jobs of issue 39 (docs/migration.md): every job with its counts, one job's refused rows by line, and
 * a file uploaded to start one. The import is `migration:write`, which `*` does not hold: a key without it is
 * told how to make one rather than shown a bare 403 (docs/console.md).
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call, pageData, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { Link, Loaded, ProblemNote, Table, useLoad } from '../ui.js';
import type { PageProps } from '../page-props.js';

interface ImportJob {
  job_id: string;
  state: 'queued' | 'running' | 'done';
  created_at: number;
  finished_at?: number;
  lines: number;
  imported: number;
  unchanged: number;
  failed: number;
  by_type?: Record<string, { imported: number; unchanged: number; failed: number }>;
  errors?: { line: number; reason: string }[];
}

const when = (seconds: number | undefined) => (seconds === undefined ? '–' : new Date(seconds * 1000).toLocaleString());
const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
const saasId = () => pageData().session?.saasId ?? '';

/** The refusal of a key without `migration:write` says what to do; any other refusal is the API's own. */
function Refusal({ answer }: { answer: Answer }) {
  if (answer.status !== 403) return <ProblemNote answer={answer} />;
  return (
    <p class="error" role="alert" id="migration-key-needed">
      {fill(t().migration.keyNeeded, { saasId: saasId() })}
    </p>
  );
}

/** Loaded, or refused in the words of `Refusal`. */
function Read<T>({ answer, children }: { answer: Answer<T> | undefined; children: (body: T) => ComponentChildren }) {
  return answer && !answer.ok ? <Refusal answer={answer} /> : <Loaded answer={answer}>{children}</Loaded>;
}

function Refresh({ id, onClick }: { id: string; onClick: () => void }) {
  return (
    <button type="button" id={id} onClick={onClick}>
      {t().migration.refresh}
    </button>
  );
}

function Command() {
  const m = t().migration;
  return (
    <>
      <p>
        {m.command} <code id="import-command">{`npm run admin -- import FILE --saas ${saasId()}`}</code>
      </p>
      <p class="hint">{m.commandAws}</p>
    </>
  );
}

function Upload({ onStarted }: { onStarted: (job: ImportJob, answer: Answer) => void }) {
  const m = t().migration;
  const limit = megabytes(pageData().importMaxBytes);
  const [file, setFile] = useState<File | undefined>(undefined);
  const [mail, setMail] = useState(false);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [refusal, setRefusal] = useState<Answer | undefined>(undefined);
  return (
    <form
      id="start-import"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        setRefusal(undefined);
        if (!file) return setNote(m.noFile);
        const body = { jsonl: await file.text(), ...(mail ? { mail_set_password: true } : {}) };
        // The API refuses a larger body; saying so here spares uploading it, and points at the command.
        const size = new TextEncoder().encode(JSON.stringify(body)).length;
        if (size > pageData().importMaxBytes) return setNote(fill(m.tooLarge, { size: megabytes(size), limit }));
        setNote(undefined);
        setBusy(true);
        const answer = await call<ImportJob>('POST', 'auth', '/migration/imports', body);
        setBusy(false);
        if (answer.ok) onStarted(answer.body, answer);
        else setRefusal(answer);
      }}
    >
      <label for="start-import-file">{m.file}</label>
      <input
        id="start-import-file"
        type="file"
        accept=".jsonl,.ndjson,.json,application/jsonl,application/x-ndjson,text/plain"
        aria-describedby="start-import-file-hint"
        onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0])}
      />
      <p class="hint" id="start-import-file-hint">
        {fill(m.fileHint, { limit })}
      </p>
      <label class="check">
        <input id="start-import-mail" type="checkbox" checked={mail} onChange={(e) => setMail((e.currentTarget as HTMLInputElement).checked)} />{' '}
        {m.mailSetPassword}
      </label>
      {note ? (
        <p class="error" role="alert" id="start-import-note">
          {note}
        </p>
      ) : null}
      {refusal ? <Refusal answer={refusal} /> : null}
      <button type="submit" disabled={busy}>
        {m.upload}
      </button>
    </form>
  );
}

function Jobs() {
  const m = t().migration;
  const { answer, reload } = useLoad(() => call<{ imports: ImportJob[] }>('GET', 'auth', '/migration/imports'));
  const [started, setStarted] = useState<{ job: ImportJob; answer: Answer } | undefined>(undefined);
  return (
    <>
      <section class="card" aria-labelledby="upload-heading">
        <h2 id="upload-heading">{m.uploadHeading}</h2>
        <Upload
          onStarted={(job, answer) => {
            setStarted({ job, answer });
            reload();
          }}
        />
        <div role="status">
          {started ? (
            <p class="done">
              {fill(m.startedJob, { job: started.job.job_id })}{' '}
              <Link to={`migration/${encodeURIComponent(started.job.job_id)}`} id="started-job">
                {fill(m.jobHeading, { job: started.job.job_id })}
              </Link>
            </p>
          ) : null}
        </div>
        <Command />
      </section>
      <section class="card" aria-labelledby="jobs-heading">
        <h2 id="jobs-heading">{m.jobsHeading}</h2>
        <p>
          <Refresh id="refresh-imports" onClick={reload} />
        </p>
        <Read answer={answer}>
          {(body) => (
            <Table
              id="imports"
              caption={m.jobsHeading}
              rows={body.imports}
              columns={[
                {
                  label: m.job,
                  render: (job) => <Link to={`migration/${encodeURIComponent(job.job_id)}`}>{job.job_id}</Link>,
                },
                { label: m.state, render: (job) => m[job.state] },
                { label: m.started, render: (job) => when(job.created_at) },
                { label: m.finished, render: (job) => when(job.finished_at) },
                { label: m.lines, render: (job) => String(job.lines) },
                { label: m.imported, render: (job) => String(job.imported) },
                { label: m.unchanged, render: (job) => String(job.unchanged) },
                { label: m.failed, render: (job) => String(job.failed) },
              ]}
            />
          )}
        </Read>
      </section>
    </>
  );
}

function Job({ id }: { id: string }) {
  const m = t().migration;
  const { answer, reload } = useLoad(() => call<ImportJob>('GET', 'auth', `/migration/imports/${encodeURIComponent(id)}`), [id]);
  return (
    <>
      <h1 tabIndex={-1}>{fill(m.jobHeading, { job: id })}</h1>
      <p>
        <Link to="migration">{m.back}</Link> <Refresh id="refresh-import" onClick={reload} />
      </p>
      <Read answer={answer}>
        {(job) => (
          <>
            <section class="card" aria-labelledby="job-state-heading">
              <h2 id="job-state-heading">{m[job.state]}</h2>
              <p id="import-summary">{fill(m.summary, { lines: job.lines, imported: job.imported, unchanged: job.unchanged, failed: job.failed })}</p>
              <p>
                {m.started}: {when(job.created_at)} · {m.finished}: {when(job.finished_at)}
              </p>
            </section>
            <section class="card" aria-labelledby="by-type-heading">
              <h2 id="by-type-heading">{m.byTypeHeading}</h2>
              <Table
                id="import-by-type"
                caption={m.byTypeHeading}
                rows={Object.entries(job.by_type ?? {})}
                columns={[
                  { label: m.rowType, render: ([type]) => <code>{type}</code> },
                  { label: m.imported, render: ([, counts]) => String(counts.imported) },
                  { label: m.unchanged, render: ([, counts]) => String(counts.unchanged) },
                  { label: m.failed, render: ([, counts]) => String(counts.failed) },
                ]}
              />
            </section>
            <section class="card" aria-labelledby="errors-heading">
              <h2 id="errors-heading">{m.errorsHeading}</h2>
              <p class="hint">{m.errorsNote}</p>
              <Table
                id="import-errors"
                caption={m.errorsHeading}
                rows={job.errors ?? []}
                columns={[
                  { label: m.line, render: (row) => String(row.line) },
                  { label: m.reason, render: (row) => row.reason },
                ]}
              />
            </section>
          </>
        )}
      </Read>
    </>
  );
}

export function MigrationPage({ rest }: PageProps) {
  if (rest) return <Job id={decodeURIComponent(rest)} />;
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.migration}</h1>
      <p>{t().migration.intro}</p>
      <Jobs />
    </>
  );
}
