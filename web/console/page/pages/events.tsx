/**
 * Where a SaaS's events go (docs/events.md): its EventBridge bus, its signed webhooks (each secret shown once), and
 * the newest events with each destination's delivery.
 */
import { useState } from 'preact/hooks';
import { call, type Answer } from '../api.js';
import { fill, t } from '../texts.js';
import { ApiForm, Loaded, ProblemNote, Table, useLoad } from '../ui.js';

const REGIONS = [
  'ap-northeast-1',
  'ap-northeast-3',
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'ap-southeast-1',
  'ap-southeast-2',
];

function Bus() {
  const e = t().events;
  const { answer, reload } = useLoad(() => call<{ aws_account_id: string; aws_region: string }>('GET', 'integration', '/eventbridge/info'));
  const [done, setDone] = useState<Answer | undefined>(undefined);
  const act = async (method: string, path: string) => {
    const result = await call(method, 'integration', path);
    setDone(result);
    reload();
  };
  return (
    <section class="card" aria-labelledby="bus-heading">
      <h2 id="bus-heading">{e.busHeading}</h2>
      <p id="bus-state">
        {answer?.ok
          ? fill(e.busSet, { account: answer.body.aws_account_id, region: answer.body.aws_region })
          : answer
            ? e.busNone
            : t().common.loading}
      </p>
      <ApiForm
        id="bus-settings"
        fields={[
          { name: 'aws_account_id', label: e.account, required: true, autoComplete: 'off' },
          { name: 'aws_region', label: e.region, type: 'select', options: REGIONS.map((r) => ({ value: r, label: r })) },
        ]}
        submitLabel={t().common.save}
        doneText={t().common.saved}
        onSubmit={(v) => call('PUT', 'integration', '/eventbridge/info', v)}
        onDone={reload}
      />
      {answer?.ok && (
        <p>
          <button type="button" id="test-event" onClick={() => act('POST', '/eventbridge/test-event')}>
            {e.testEvent}
          </button>{' '}
          <button type="button" id="remove-bus" onClick={() => act('DELETE', '/eventbridge/info')}>
            {e.removeBus}
          </button>
        </p>
      )}
      <div role="status">{done?.ok ? e.testSent : done ? <ProblemNote answer={done} /> : null}</div>
    </section>
  );
}

interface Hook {
  id: string;
  url: string;
  event_types: string[];
  disabled: boolean;
  failures: number;
}

function Webhooks() {
  const e = t().events;
  const { answer, reload } = useLoad(() => call<{ webhooks: Hook[] }>('GET', 'integration', '/webhooks'));
  const [secret, setSecret] = useState('');
  return (
    <section class="card" aria-labelledby="hooks-heading">
      <h2 id="hooks-heading">{e.hooksHeading}</h2>
      <Loaded answer={answer}>
        {(body) => (
          <Table
            id="webhooks"
            caption={e.hooksHeading}
            rows={body.webhooks}
            columns={[
              { label: e.url, render: (h) => h.url },
              { label: e.eventTypes, render: (h) => h.event_types.join(', ') || '*' },
              { label: e.status, render: (h) => (h.disabled ? e.disabled : e.enabled) },
              { label: e.failures, render: (h) => String(h.failures) },
              {
                label: t().common.delete,
                render: (h) => (
                  <button
                    type="button"
                    aria-label={`${t().common.delete} ${h.url}`}
                    onClick={() => call('DELETE', 'integration', `/webhooks/${h.id}`).then(reload)}
                  >
                    {t().common.delete}
                  </button>
                ),
              },
            ]}
          />
        )}
      </Loaded>
      <ApiForm
        id="new-webhook"
        fields={[
          { name: 'url', label: e.url, required: true, autoComplete: 'url' },
          { name: 'event_types', label: e.eventTypes },
          { name: 'description', label: e.description },
        ]}
        submitLabel={t().common.create}
        doneText={t().common.created}
        onSubmit={(v) =>
          call('POST', 'integration', '/webhooks', {
            url: v.url,
            event_types: String(v.event_types ?? '')
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
            description: v.description,
          })
        }
        onDone={(created) => {
          setSecret((created.body as { secret: string }).secret);
          reload();
        }}
      />
      <div role="status">
        {secret && (
          <p>
            {e.secretOnce} <code id="webhook-secret">{secret}</code>
          </p>
        )}
      </div>
    </section>
  );
}

interface KeptEvent {
  id: string;
  at: number;
  event_type: string;
  subject: string;
  sequence: number;
  targets: { target: string; status: string; attempts: number }[];
}

function Recent() {
  const e = t().events;
  const { answer } = useLoad(() => call<{ events: KeptEvent[] }>('GET', 'integration', '/events?limit=50'));
  return (
    <section class="card" aria-labelledby="events-heading">
      <h2 id="events-heading">{e.eventsHeading}</h2>
      <Loaded answer={answer}>
        {(body) => (
          <Table
            id="events"
            caption={e.eventsHeading}
            rows={body.events}
            columns={[
              { label: e.time, render: (v) => new Date(v.at * 1000).toLocaleString() },
              { label: e.eventType, render: (v) => v.event_type },
              { label: e.subject, render: (v) => v.subject },
              { label: e.sequence, render: (v) => String(v.sequence) },
              { label: e.delivery, render: (v) => v.targets.map((d) => `${d.target}: ${d.status} (${d.attempts})`).join(', ') },
            ]}
          />
        )}
      </Loaded>
    </section>
  );
}

export function EventsPage() {
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.events}</h1>
      <Bus />
      <Webhooks />
      <Recent />
    </>
  );
}
