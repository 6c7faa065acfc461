/**
 * The API log writer's input without a store: what a CloudWatch Logs subscription delivers (base64 of gzip of
 * JSON, `logEvents[].message`) and which of its lines are records and counted sign-in outcomes. Over random
 * deliveries mixing the lines the functions tell with every other kind of line a log group holds (Powertools
 * lines, the runtime's START/END/REPORT, text, lines that name the writer but are malformed or cut short), exactly
 * the told ones come out, in order; and the writer writes each record once and one count per SaaS and day.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { CloudWatchLogsEvent } from 'aws-lambda';
import { apiLogRecord, type ApiLogRecord } from '../../shared/domain/apilog/api-log.js';
import {
  apiLogLine,
  readShippedLine,
  readShippedLines,
  ShippedLineWriter,
  signInLine,
  type ShippedLine,
} from '../../shared/domain/apilog/shipped-lines.js';
import { COUNTED_KINDS, utcDay, type CountedKind } from '../../shared/domain/users/sign-in-counts.js';
import { subscribedMessages } from '../../shared/adapters/aws/log-subscription.js';

const RETENTION = 90 * 86400;
const NOW = Date.UTC(2026, 10, 26, 11, 0, 0);

const saasId = fc.constantFrom('7f1c3e2a-9b0d-4c8e-a1f2-3b4c5d6e7f80', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'saas-1');
const record = fc
  .record({
    saasId,
    apiKey: fc.stringMatching(/^[A-Za-z0-9-]{1,40}$/),
    requestId: fc.uuid(),
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
    rawPath: fc.stringMatching(/^\/v1\/[a-z]{1,10}(\/[a-z0-9-]{1,12}){0,3}$/),
    rawQuery: fc.constantFrom('', 'limit=10', 'code=abc&x=1', 'refresh-token=r'),
    status: fc.integer({ min: 100, max: 599 }),
    sourceIp: fc.ipV4(),
    referer: fc.option(fc.webUrl(), { nil: undefined }),
    at: fc.integer({ min: NOW - 5 * 86_400_000, max: NOW }),
    latencyMs: fc.double({ min: 0, max: 30_000, noNaN: true }),
  })
  .map((call) => apiLogRecord(call, RETENTION));
const userId = fc.constantFrom('0b6f3c1e-2d4a-4e8b-9c7d-1a2b3c4d5e6f', '9e8d7c6b-5a49-4382-a716-151413121110');
const outcome = fc
  .record({ saasId, outcome: fc.constantFrom(...COUNTED_KINDS), at: fc.integer({ min: NOW / 1000 - 3 * 86400, max: NOW / 1000 }), userId })
  // A success names its user (their directory entry takes its time); a refusal does not.
  .map((o) => (o.outcome === 'sign_in_succeeded' ? o : { saasId: o.saasId, outcome: o.outcome, at: o.at }));

type Told = { line: string; shipped: ShippedLine };
const toldRecord = record.map((r): Told => ({ line: apiLogLine(r), shipped: { kind: 'api-log', record: r } }));
const toldOutcome = outcome.map((o): Told => ({
  line: signInLine(o.saasId, o.outcome, o.at, 'userId' in o ? o.userId : undefined),
  shipped: { kind: 'sign-in', ...o },
}));

/** A record line spoiled in one way: each of these must be left alone. */
const spoiled = fc.tuple(record, fc.nat(13)).map(([r, how]) => {
  const broken: Record<string, unknown> = { ...r };
  const line = () => JSON.stringify({ shipped: 'api-log', record: broken });
  switch (how) {
    case 0:
      broken.status = String(r.status);
      return line();
    case 1:
      delete broken.id;
      return line();
    case 2:
      broken.saasId = `${r.saasId}#USER#x`;
      return line();
    case 3:
      broken.at = r.at + 1; // no longer the millisecond its id names
      return line();
    case 4:
      broken.uri = 'https://elsewhere.example/x';
      return line();
    case 5:
      broken.latencyMs = 1.5;
      return line();
    case 6:
      return JSON.stringify({ shipped: 'api-log', record: [broken] });
    case 7:
      return JSON.stringify({ shipped: 'api-logs', record: broken });
    case 8:
      return apiLogLine(r).slice(0, -1 - (r.id.length % 20)); // cut short
    case 9:
      broken.id = r.id.toUpperCase().replace(/-7/, '-4');
      return line();
    case 10:
      return JSON.stringify({ shipped: 'sign-in', saas_id: r.saasId, outcome: 'password_changed', at: Math.floor(r.at / 1000) });
    case 11:
      return JSON.stringify({ shipped: 'sign-in', saas_id: r.saasId, outcome: 'sign_in_failed', at: Math.floor(r.at / 1000) + 0.5 }); // never whole
    case 12:
      return JSON.stringify({ shipped: 'sign-in', saas_id: '', outcome: 'locked_out', at: Math.floor(r.at / 1000) });
    default:
      return `${apiLogLine(r)}}`;
  }
});
/** What else a function's log group holds. */
const other = fc.oneof(
  fc.string(),
  fc.json(),
  fc.constant('START RequestId: 0d2f Version: $LATEST'),
  fc.constant('REPORT RequestId: 0d2f\tDuration: 5.21 ms\tBilled Duration: 6 ms'),
  fc.record({ level: fc.constantFrom('INFO', 'DEBUG'), message: fc.string(), service: fc.constant('tenant-identity') }).map((l) => JSON.stringify(l)),
  fc.constant('{"_aws":{"Timestamp":1764147600000,"CloudWatchMetrics":[]},"SignInSucceeded":1}'),
  fc.constant('null'),
  fc.constant('{"shipped":"api-log"}'),
);
const entry = fc.oneof(
  { weight: 3, arbitrary: toldRecord.map((t) => ({ line: t.line, shipped: t.shipped as ShippedLine | undefined })) },
  { weight: 2, arbitrary: toldOutcome.map((t) => ({ line: t.line, shipped: t.shipped as ShippedLine | undefined })) },
  { weight: 2, arbitrary: spoiled.map((line) => ({ line, shipped: undefined as ShippedLine | undefined })) },
  // A line that is not one at all: its own newlines would make it several.
  { weight: 3, arbitrary: other.filter((s) => !s.includes('\n')).map((line) => ({ line, shipped: undefined as ShippedLine | undefined })) },
);

/** The entries as log events: one line each, or a few in one message, as a log agent may join them. */
function delivery(entries: { line: string }[], joins: number[]): CloudWatchLogsEvent {
  const messages: string[] = [];
  for (let i = 0; i < entries.length;) {
    const take = Math.max(1, joins[i % joins.length] ?? 1);
    messages.push(
      entries
        .slice(i, i + take)
        .map((e) => e.line)
        .join('\n'),
    );
    i += take;
  }
  const payload = {
    messageType: 'DATA_MESSAGE',
    owner: '123456789012',
    logGroup: '/aws/lambda/TenantIdentityService-Groupsigninlogs',
    logStream: '2026/11/26/[$LATEST]abc',
    subscriptionFilters: ['ToApiLogWriter'],
    logEvents: messages.map((message, i) => ({ id: String(i), timestamp: NOW + i, message })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64') } };
}

const payloadOf = (value: unknown): CloudWatchLogsEvent => ({ awslogs: { data: gzipSync(Buffer.from(JSON.stringify(value))).toString('base64') } });

describe('a subscription delivery', () => {
  it('gives exactly the told records and outcomes, in order, whatever else the log group holds', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 8 }), (entries, joins) => {
        const shipped = readShippedLines(subscribedMessages(delivery(entries, joins)));
        assert.deepEqual(
          shipped,
          entries.flatMap((e) => (e.shipped ? [e.shipped] : [])),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('reads a record back exactly as told, and nothing from a spoiled one', () => {
    fc.assert(
      fc.property(record, (r) => assert.deepEqual(readShippedLine(apiLogLine(r)), { kind: 'api-log', record: r })),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(spoiled, (line) => assert.equal(readShippedLine(line), undefined, line)),
      { numRuns: 500 },
    );
  });

  it('reads a sign-in’s user only when it is an id: one that could break a key leaves the line alone', () => {
    const line = (userId: unknown) =>
      JSON.stringify({ shipped: 'sign-in', saas_id: 'saas-1', outcome: 'sign_in_succeeded', at: NOW / 1000, user_id: userId });
    assert.deepEqual(readShippedLine(line('u-1')), {
      kind: 'sign-in',
      saasId: 'saas-1',
      outcome: 'sign_in_succeeded',
      at: NOW / 1000,
      userId: 'u-1',
    });
    for (const bad of ['a#b', '', 7, 'x'.repeat(129)]) assert.equal(readShippedLine(line(bad)), undefined, String(bad));
  });

  it('gives nothing for the control message a new subscription sends, and refuses a payload that is not one', () => {
    assert.deepEqual(
      subscribedMessages(payloadOf({ messageType: 'CONTROL_MESSAGE', logEvents: [{ id: '1', timestamp: NOW, message: 'CWL CONTROL MESSAGE' }] })),
      [],
    );
    const refusals: [string, unknown][] = [
      ['no data', { awslogs: {} }],
      ['not base64 of gzip', { awslogs: { data: Buffer.from('{"messageType":"DATA_MESSAGE"}').toString('base64') } }],
      ['gzip of no JSON', { awslogs: { data: gzipSync(Buffer.from('{"messageType":')).toString('base64') } }],
      ['another message type', payloadOf({ messageType: 'OTHER', logEvents: [] })],
      ['no events', payloadOf({ messageType: 'DATA_MESSAGE' })],
    ];
    // Node's own errors (zlib, JSON) come from outside Jest's realm: checked by their message, not instanceof.
    const anError = (error: unknown) => typeof (error as Error).message === 'string';
    for (const [what, event] of refusals) assert.throws(() => subscribedMessages(event as CloudWatchLogsEvent), anError, what);
    fc.assert(
      fc.property(fc.string(), (data) => {
        try {
          const messages = subscribedMessages({ awslogs: { data } });
          assert.ok(Array.isArray(messages));
        } catch (error) {
          assert.ok(anError(error));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('the writer', () => {
  it('writes each record once however often a batch holds it, and adds one count per SaaS and day', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(toldRecord, toldOutcome), { maxLength: 80 }), fc.nat(5), async (told, repeats) => {
        // A batch delivered again within one batch, as a redelivery after a partial failure would be.
        const lines = readShippedLines([...told, ...told.slice(0, repeats)].map((t) => t.line));
        const puts: ApiLogRecord[][] = [];
        const adds: { saasId: string; day: string; counts: Partial<Record<CountedKind, number>> }[] = [];
        const actives: string[] = [];
        const copies: string[] = [];
        const writer = new ShippedLineWriter({
          logs: { putMany: async (records) => void puts.push([...records]) },
          counts: { add: async (saas, day, counts) => void adds.push({ saasId: saas, day, counts }) },
          events: { sequenced: async () => [] },
          active: { signedIn: async (saas, user, at) => void actives.push(`${saas}\n${user}\n${utcDay(at)}`) },
          lastSignIns: { copyLastSignIn: async (saas, user, at) => void copies.push(`${saas}\n${user}\n${at}`) },
          pages: { viewed: async () => undefined },
        });
        const written = await writer.write(lines);
        const records = told.flatMap((t) => (t.shipped.kind === 'api-log' ? [t.shipped.record] : []));
        const unique = new Map(records.map((r) => [`${r.saasId}\n${r.id}`, r]));
        assert.equal(puts.length, unique.size > 0 ? 1 : 0, 'one batch write of the records');
        assert.deepEqual(new Set(puts.flat()), new Set(unique.values()));
        assert.equal(written.records, unique.size);
        const keys = adds.map((a) => `${a.saasId}\n${a.day}`);
        assert.equal(new Set(keys).size, keys.length, 'one add per SaaS and day');
        const outcomes = lines.filter((l) => l.kind === 'sign-in');
        for (const kind of COUNTED_KINDS) {
          assert.equal(
            adds.reduce((sum, a) => sum + (a.counts[kind] ?? 0), 0),
            outcomes.filter((o) => o.outcome === kind).length,
            `${kind}: every outcome told is counted`,
          );
        }
        // Each user who signed in is marked once a day however often they did; a refusal marks nobody.
        const signedIn = outcomes.flatMap((o) =>
          o.kind === 'sign-in' && o.outcome === 'sign_in_succeeded' && o.userId ? [`${o.saasId}\n${o.userId}\n${utcDay(o.at)}`] : [],
        );
        assert.deepEqual(actives.sort(), [...new Set(signedIn)].sort());
        const latest = new Map<string, number>();
        for (const o of outcomes) {
          if (o.kind !== 'sign-in' || !o.userId) continue;
          const user = `${o.saasId}\n${o.userId}`;
          latest.set(user, Math.max(latest.get(user) ?? 0, o.at));
        }
        assert.deepEqual(copies.sort(), [...latest].map(([user, at]) => `${user}\n${at}`).sort(), 'each signed-in user once, with their latest time');
        for (const a of adds) {
          const ofDay = outcomes.filter((o) => o.saasId === a.saasId && new Date(o.at * 1000).toISOString().startsWith(a.day));
          assert.equal(
            Object.values(a.counts).reduce((x, y) => x + (y ?? 0), 0),
            ofDay.length,
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it('writes no count when the records could not be written: the batch comes again whole', async () => {
    let added = 0;
    const writer = new ShippedLineWriter({
      logs: {
        putMany: async () => {
          throw new Error('the store left writes unprocessed');
        },
      },
      counts: { add: async () => void added++ },
      events: { sequenced: async () => [] },
      active: { signedIn: async () => void added++ },
      lastSignIns: { copyLastSignIn: async () => void added++ },
      pages: { viewed: async () => void added++ },
    });
    const lines = readShippedLines([apiLogLine(apiLogRecord(CALL, RETENTION)), signInLine('saas-1', 'sign_in_succeeded', NOW / 1000)]);
    await assert.rejects(writer.write(lines), /unprocessed/);
    assert.equal(added, 0);
  });
});

const CALL = {
  saasId: 'saas-1',
  apiKey: 'key-1',
  requestId: 'req-1',
  method: 'GET',
  rawPath: '/v1/auth/roles',
  rawQuery: '',
  status: 200,
  sourceIp: '198.51.100.7',
  referer: undefined,
  at: NOW,
  latencyMs: 3,
};
