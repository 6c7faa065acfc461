/** Users: search by e-mail prefix page by page, create, reset a password, delete with a typed confirmation. */
import { useEffect, useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { ApiForm, Done, Link, ProblemNote, Table } from '../ui.js';
import type { PageProps } from '../pages.js';
import { User } from './user.js';

interface SaasUser {
  id: string;
  email: string;
  sign_in_id: string;
  last_login_at: number;
}
interface UserPage {
  users: SaasUser[];
  cursor?: string;
}

const PAGE_SIZE = 20;

function DeleteUser({ user, onDeleted, onCancel }: { user: SaasUser; onDeleted: (answer: Answer) => void; onCancel: () => void }) {
  const u = t().users;
  const [typed, setTyped] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  const name = user.email || user.sign_in_id;
  useEffect(() => document.getElementById('delete-confirm')?.focus(), []);
  return (
    <form
      id="delete-user"
      class="card"
      onSubmit={async (event) => {
        event.preventDefault();
        if (typed !== name) return setMismatch(true);
        const result = await call('DELETE', 'auth', `/users/${encodeURIComponent(user.id)}`);
        setAnswer(result);
        if (result.ok) onDeleted(result);
      }}
    >
      <h3>{fill(u.deleteHeading, { email: name })}</h3>
      <label for="delete-confirm">{u.deleteConfirm}</label>
      <input
        id="delete-confirm"
        autoComplete="off"
        value={typed}
        aria-invalid={mismatch ? 'true' : undefined}
        aria-describedby={mismatch ? 'delete-confirm-error' : undefined}
        onInput={(e) => {
          setTyped((e.currentTarget as HTMLInputElement).value);
          setMismatch(false);
        }}
      />
      {mismatch ? (
        <p class="field-error" id="delete-confirm-error" role="alert">
          {u.deleteMismatch}
        </p>
      ) : null}
      <ProblemNote answer={answer} />
      <button type="submit" class="danger">
        {u.deleteUser}
      </button>{' '}
      <button type="button" class="secondary" onClick={onCancel}>
        {t().common.cancel}
      </button>
    </form>
  );
}

export function Users({ rest }: PageProps) {
  if (rest) return <User id={decodeURIComponent(rest)} />;
  return <UserList />;
}

function UserList() {
  const u = t().users;
  const [prefix, setPrefix] = useState('');
  const [page, setPage] = useState<{ answer?: Answer<UserPage>; cursors: string[] }>({ cursors: [] });
  const [deleting, setDeleting] = useState<SaasUser | undefined>(undefined);
  const [result, setResult] = useState<{ answer: Answer; text: string } | undefined>(undefined);
  const load = async (cursor?: string, cursors: string[] = []) => {
    const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (prefix.trim()) q.set('email', prefix.trim());
    if (cursor) q.set('cursor', cursor);
    const answer = await call<UserPage>('GET', 'auth', `/users/search?${q.toString()}`);
    setPage({ answer, cursors });
  };
  useEffect(() => {
    load();
  }, []);
  const resetPassword = async (user: SaasUser) => {
    const answer = await call<{ password: string }>('POST', 'auth', `/users/${encodeURIComponent(user.id)}/password/reset`);
    setResult({ answer, text: answer.ok ? fill(u.resetDone, { password: answer.body.password }) : '' });
  };
  const body = page.answer?.ok ? page.answer.body : undefined;
  return (
    <>
      <h1 tabIndex={-1}>{u.heading}</h1>
      <section class="card">
        <form
          id="user-search"
          class="row"
          onSubmit={(event) => {
            event.preventDefault();
            load();
          }}
        >
          <div>
            <label for="user-search-email">{u.searchEmail}</label>
            <input id="user-search-email" type="search" value={prefix} onInput={(e) => setPrefix((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div>
            <button type="submit">{t().common.search}</button>
          </div>
        </form>
        {result ? result.answer.ok ? <Done answer={result.answer} text={result.text} /> : <ProblemNote answer={result.answer} /> : null}
        {deleting ? (
          <DeleteUser
            user={deleting}
            onCancel={() => setDeleting(undefined)}
            onDeleted={(answer) => {
              setResult({ answer, text: fill(u.deleted, { email: deleting.email || deleting.sign_in_id }) });
              setDeleting(undefined);
              load();
            }}
          />
        ) : null}
        {!page.answer ? (
          <p class="muted">{t().common.loading}</p>
        ) : !page.answer.ok ? (
          <ProblemNote answer={page.answer} />
        ) : (
          <Table
            id="users"
            caption={u.heading}
            rows={body?.users ?? []}
            columns={[
              { label: u.email, render: (x) => <Link to={`users/${encodeURIComponent(x.id)}`}>{x.email || x.sign_in_id}</Link> },
              { label: u.id, render: (x) => <code>{x.id}</code> },
              {
                label: u.lastSignIn,
                render: (x) => (x.last_login_at ? new Date(x.last_login_at * 1000).toISOString().slice(0, 16).replace('T', ' ') : u.never),
              },
              {
                label: t().common.actions,
                render: (x) => (
                  <>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`${u.resetPassword}: ${x.email || x.sign_in_id}`}
                      onClick={() => resetPassword(x)}
                    >
                      {u.resetPassword}
                    </button>
                    <button type="button" class="danger" aria-label={`${u.deleteUser}: ${x.email || x.sign_in_id}`} onClick={() => setDeleting(x)}>
                      {t().common.delete}
                    </button>
                  </>
                ),
              },
            ]}
          />
        )}
        {page.cursors.length ? (
          <button type="button" class="secondary" id="users-first" onClick={() => load()}>
            {t().common.previous}
          </button>
        ) : null}{' '}
        {body?.cursor ? (
          <button type="button" class="secondary" id="users-next" onClick={() => load(body.cursor, [...page.cursors, body.cursor as string])}>
            {t().common.next}
          </button>
        ) : null}
      </section>
      <section class="card">
        <h2>{u.create}</h2>
        <ApiForm
          id="create-user"
          submitLabel={u.create}
          doneText={t().common.created}
          fields={[
            { name: 'email', label: u.email, type: 'email', required: true, autoComplete: 'off' },
            { name: 'password', label: u.password, type: 'password', required: true, autoComplete: 'new-password', hint: u.passwordHint },
          ]}
          onSubmit={(v) => call('POST', 'auth', '/users', { email: v.email, password: v.password })}
          onDone={() => load()}
        />
      </section>
    </>
  );
}
