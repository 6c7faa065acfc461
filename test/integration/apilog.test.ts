/**
 * The ApiLog API (/v1/apilog) over DynamoDB Local, through the handlers the Lambdas run: a signed call of any
 * base is listed with its fields and read by id; date ranges and cursor paging; another SaaS's calls never
 * appear; malformed dates and forged cursors are 400s; nothing secret reaches a stored item; a record past its
 * retention is refused although the store still holds it.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignedClient } from '../../client/signed-fetch.js';
import { onApi } from '../support/other-api.js';
import { apiLogRecord } from '../../shared/domain/apilog/api-log.js';
import { DynamoApiLogRepository } from '../../shared/store/api-log-repository.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { ScanCommand } from '../../shared/store/dynamo-client.js';
import type { ApiLogAnswer } from '../../shared/domain/apilog/api-log.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { DirectApi } from '../support/direct-api.js';
import { watchWrites, withWriteLog } from '../support/write-log.js';
import { FLUSH_MS } from '../../local/line-sink.js';

type ApiLog = ApiLogAnswer;
interface ApiLogs {
  api_logs: ApiLog[];
  cursor?: string;
}

let world: Harness;
let a: { saasId: string; apiKey: string; secret: string; client: SignedClient };
let b: { saasId: string; apiKey: string; secret: string; client: SignedClient };
let logsA: SignedClient;
let logsB: SignedClient;

const DAY = 86_400_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every page of a listing, following its cursors. */
async function everyPage(client: SignedClient, query: string, limit: number): Promise<{ logs: ApiLog[]; pages: number }> {
  const logs: ApiLog[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await client.get<ApiLogs>(`/logs?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.api_logs.length <= limit);
    logs.push(...res.body.api_logs);
    cursor = res.body.cursor;
    pages++;
  } while (cursor);
  return { logs, pages };
}

beforeAll(async () => {
  world = await startHarness();
  [a, b] = [await world.newSaas(), await world.newSaas()];
  logsA = onApi(a.client, 'apilog');
  logsB = onApi(b.client, 'apilog');
});
afterAll(() => world.close());

describe('a signed call', () => {
  it('is listed and read by id with its time, method, path, status, key, request id, address and latency', async () => {
    const before = Math.floor(Date.now() / 1000);
    const call = await a.client.get('/roles', { headers: { referer: 'https://console.example.com/roles?code=abc' } });
    assert.equal(call.status, 200);
    const requestId = call.headers.get('x-request-id');
    // The record reaches the store through the API log writer, a moment after the call (local/line-sink.ts).
    await world.flush();
    const listed = await logsA.get<ApiLogs>('/logs');
    assert.equal(listed.status, 200, listed.text);
    const log = listed.body.api_logs.find((l) => l.trace_id === requestId);
    assert.ok(log, 'the call is listed');
    assert.equal(log.request_method, 'GET');
    assert.equal(log.request_uri, '/v1/auth/roles');
    assert.equal(log.response_status, '200');
    assert.equal(log.saas_id, a.saasId);
    assert.equal(log.api_key, a.apiKey);
    assert.match(log.remote_address, /127\.0\.0\.1$/);
    assert.equal(log.referer, 'https://console.example.com/roles');
    assert.deepEqual([log.request_body, log.response_body], ['', '']);
    assert.ok(log.created_at >= before && log.created_at <= Math.floor(Date.now() / 1000));
    assert.equal(log.created_date, isoDate(log.created_at * 1000));
    assert.equal(log.ttl, log.created_at + 90 * 86400);
    assert.ok(Number.isInteger(log.latency_ms) && log.latency_ms >= 0);
    const one = await logsA.get<ApiLog>(`/logs/${log.api_log_id}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, log);
  });

  it('is written by the API log writer, not as a write of the call or of any request running when it is written', async () => {
    watchWrites(dynamo());
    await world.flush();
    const direct = new DirectApi(a);
    // The read's line starts the writer's timer inside the call's context; the writer's batch comes after it.
    const { result, writes } = await withWriteLog(async () => {
      const answer = await direct.send({ method: 'GET', path: '/roles' });
      await new Promise((resolve) => setTimeout(resolve, FLUSH_MS * 3));
      return answer;
    });
    assert.equal(result.status, 200);
    assert.deepEqual(writes, [], 'a read writes nothing, and the writer’s batch is nobody’s request’s');
    const requestId = String(result.headers['x-request-id']);
    const listed = await logsA.get<ApiLogs>('/logs');
    assert.ok(
      listed.body.api_logs.some((l) => l.trace_id === requestId),
      'the record was written meanwhile',
    );
  });

  it('of every base and outcome is recorded (Pricing, a 404, a 403), but not one whose signature fails', async () => {
    const pricing = await onApi(a.client, 'pricing').get('/plans');
    const missing = await a.client.get(`/users/${randomUUID()}`);
    const narrow = await world.newKey(a.saasId, ['user:read']);
    const refused = await narrow.get('/roles');
    const forged = new SignedClient(a.client.baseUrl, { ...a.client.credentials, secret: 'x'.repeat(a.secret.length) });
    const unsigned = await forged.get('/tenants');
    assert.deepEqual([pricing.status, missing.status, refused.status, unsigned.status], [200, 404, 403, 401]);
    await world.flush();
    const { logs } = await everyPage(logsA, '', 100);
    const byTrace = new Map(logs.map((l) => [l.trace_id, l]));
    assert.equal(byTrace.get(pricing.headers.get('x-request-id') as string)?.request_uri, '/v1/pricing/plans');
    assert.equal(byTrace.get(missing.headers.get('x-request-id') as string)?.response_status, '404');
    const refusedLog = byTrace.get(refused.headers.get('x-request-id') as string);
    assert.equal(refusedLog?.response_status, '403');
    assert.equal(refusedLog?.api_key, narrow.credentials.apiKey);
    assert.equal(byTrace.has(unsigned.headers.get('x-request-id') as string), false);
    // The listing's own calls are signed calls too.
    assert.ok(logs.some((l) => l.request_uri.startsWith('/v1/apilog/logs')));
  });
});

describe('nothing secret is recorded', () => {
  it('leaves bodies, tokens, codes, e-mail addresses and the signature out of the stored items', async () => {
    const markers = {
      password: `Pw-${randomUUID()}`,
      refresh: `rt${randomUUID().replaceAll('-', '')}`,
      code: randomUUID(),
      token: `eyJ${randomUUID().replaceAll('-', '')}`,
      email: `secret-${randomUUID().slice(0, 8)}@example.com`,
      referer: `ref${randomUUID().replaceAll('-', '')}`,
      stripe: `sk_test_${randomUUID().replaceAll('-', '')}`,
    };
    const answers = await Promise.all([
      a.client.post('/users', { email: markers.email, password: markers.password, attributes: {} }),
      a.client.get(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${markers.refresh}`),
      a.client.get(`/credentials?code=${markers.code}`),
      a.client.get(`/userinfo?token=${markers.token}`, { headers: { referer: `https://app.example.com/cb?state=${markers.referer}` } }),
      onApi(a.client, 'billing').request('PUT', '/stripe/info', { body: { secret_key: markers.stripe } }),
    ]);
    const traces = answers.map((res) => res.headers.get('x-request-id'));
    await world.flush();
    const stored = (await dynamo().send(new ScanCommand({ TableName: tableName() }))).Items ?? [];
    const logItems = stored.filter((item) => item.entity === 'ApiLog' && traces.includes(String(item.request_id)));
    assert.equal(logItems.length, answers.length, 'each call has its one item');
    const text = JSON.stringify(logItems);
    for (const [name, marker] of Object.entries(markers)) assert.ok(!text.includes(marker), `${name} is not in the API log`);
    assert.ok(!text.includes(a.secret) && !text.includes('SAASUSSIGV1'), 'nor the key secret or the signature');
    assert.ok(text.includes('refresh-token=[redacted]') && text.includes('/v1/billing/stripe/info'), 'the calls are there, redacted');
  });
});

describe('listing', () => {
  let saas: { saasId: string; client: SignedClient };
  const now = Date.now();
  const times = [now - 3 * DAY, now - 2 * DAY - 1000, now - 2 * DAY, now - DAY, now - 5000, now - 4000, now - 3000];

  beforeAll(async () => {
    const fresh = await world.newSaas(['apilog:read']);
    saas = { saasId: fresh.saasId, client: onApi(fresh.client, 'apilog') };
    const repository = new DynamoApiLogRepository(dynamo(), tableName(), 8);
    // Calls of past days, written as the pipeline writes them: the clock cannot make a call in the past.
    for (const [i, at] of times.entries()) {
      const call = { saasId: fresh.saasId, apiKey: fresh.apiKey, requestId: `past-${i}`, method: 'GET', rawPath: `/v1/auth/past/${i}`, rawQuery: '' };
      await repository.put(apiLogRecord({ ...call, status: 200, sourceIp: '192.0.2.9', referer: undefined, at, latencyMs: 1 }, 90 * 86400));
    }
  });

  const traces = (logs: ApiLog[]) => logs.map((l) => l.trace_id).filter((t) => t.startsWith('past-'));

  it('answers newest first, over pages whose cursors cover every call once', async () => {
    const { logs, pages } = await everyPage(saas.client, '', 2);
    assert.deepEqual(traces(logs), ['past-6', 'past-5', 'past-4', 'past-3', 'past-2', 'past-1', 'past-0']);
    assert.ok(pages >= 4);
    const createdAt = logs.map((l) => l.created_at);
    assert.deepEqual(
      createdAt,
      [...createdAt].sort((x, y) => y - x),
    );
  });

  it('keeps one day (created_date), from an instant (created_at) and before one (created_before)', async () => {
    const day = isoDate(now - 2 * DAY);
    const expectedThatDay = times.flatMap((t, i) => (isoDate(t) === day ? [`past-${i}`] : [])).reverse();
    assert.deepEqual(traces((await everyPage(saas.client, `&created_date=${day}`, 1)).logs), expectedThatDay);
    const since = new Date(now - DAY - 1).toISOString();
    assert.deepEqual(traces((await everyPage(saas.client, `&created_at=${since}`, 3)).logs), ['past-6', 'past-5', 'past-4', 'past-3']);
    const until = new Date(now - 2 * DAY).toISOString();
    assert.deepEqual(traces((await everyPage(saas.client, `&created_before=${until}`, 5)).logs), ['past-1', 'past-0']);
    const both = `&created_at=${new Date(now - 2 * DAY - 1000).toISOString()}&created_before=${new Date(now - 4000).toISOString()}`;
    assert.deepEqual(traces((await everyPage(saas.client, both, 2)).logs), ['past-4', 'past-3', 'past-2', 'past-1']);
    assert.deepEqual((await everyPage(saas.client, `&created_date=${isoDate(now - 10 * DAY)}`, 5)).logs, []);
  });

  it('keeps a range of Unix seconds (start_at, end_at; both seconds included), ignoring created_date beside it', async () => {
    const second = (ms: number) => Math.floor(ms / 1000);
    // past-1 is one second before past-2, past-5 one second after past-4: each bound is one second exact.
    const range = `&start_at=${second(now - 2 * DAY)}&end_at=${second(now - 5000)}`;
    assert.deepEqual(traces((await everyPage(saas.client, range, 2)).logs), ['past-4', 'past-3', 'past-2']);
    const otherDay = `&created_date=${isoDate(now - 10 * DAY)}`;
    assert.deepEqual(traces((await everyPage(saas.client, `${range}${otherDay}`, 5)).logs), ['past-4', 'past-3', 'past-2']);
    assert.deepEqual(traces((await everyPage(saas.client, `&start_at=${second(now - 4000)}`, 5)).logs), ['past-6', 'past-5']);
    assert.deepEqual(traces((await everyPage(saas.client, `&end_at=${second(now - 2 * DAY) - 1}`, 5)).logs), ['past-1', 'past-0']);
    const single = second(now - 2 * DAY);
    assert.deepEqual(traces((await everyPage(saas.client, `&start_at=${single}&end_at=${single}`, 5)).logs), ['past-2']);
  });

  it('refuses a cursor of one range with another', async () => {
    const first = await saas.client.get<ApiLogs>(`/logs?limit=1&start_at=${Math.floor((now - 3 * DAY) / 1000)}`);
    assert.ok(first.body.cursor);
    const cursor = encodeURIComponent(first.body.cursor);
    await expectError(
      saas.client.get(`/logs?limit=1&start_at=${Math.floor((now - 2 * DAY) / 1000)}&cursor=${cursor}`),
      400,
      'invalid_cursor',
      'cursor',
    );
  });

  it('refuses a record past its retention, though the store still holds it (TTL deletes it only eventually)', async () => {
    const repository = new DynamoApiLogRepository(dynamo(), tableName(), 8);
    const at = now - 91 * DAY;
    const record = apiLogRecord(
      {
        saasId: saas.saasId,
        apiKey: 'k',
        requestId: 'expired',
        method: 'GET',
        rawPath: '/v1/auth/roles',
        rawQuery: '',
        status: 200,
        sourceIp: '192.0.2.9',
        referer: undefined,
        at,
        latencyMs: 1,
      },
      90 * 86400,
    );
    await repository.put(record);
    assert.ok(await repository.get(saas.saasId, record.id, at), 'the store holds it');
    await expectError(saas.client.get(`/logs/${record.id}`), 404, 'api_log_not_found');
    assert.deepEqual(traces((await everyPage(saas.client, `&created_date=${isoDate(at)}`, 5)).logs), []);
    assert.ok(!(await everyPage(saas.client, '', 100)).logs.some((l) => l.trace_id === 'expired'));
  });

  it("never shows another SaaS's calls, by list, by id or by cursor", async () => {
    const mine = await everyPage(saas.client, '', 100);
    const theirs = await everyPage(logsB, '', 100);
    assert.ok(theirs.logs.every((l) => l.saas_id === b.saasId));
    assert.ok(!theirs.logs.some((l) => l.trace_id.startsWith('past-')));
    const id = mine.logs[0]?.api_log_id as string;
    await expectError(logsB.get(`/logs/${id}`), 404, 'api_log_not_found');
    const page = await saas.client.get<ApiLogs>('/logs?limit=1');
    await expectError(logsB.get(`/logs?limit=1&cursor=${encodeURIComponent(page.body.cursor as string)}`), 400, 'invalid_cursor', 'cursor');
  });
});

describe('bad input and permissions', () => {
  it('answers malformed dates, limits and ids with a 400 naming the field, unknown ids with 404', async () => {
    const refused: [string, string][] = [
      ['created_date=2026-13-01', 'created_date'],
      ['created_date=26-11-2026', 'created_date'],
      ['created_at=yesterday', 'created_at'],
      ['created_at=2026-11-26T06:00:00', 'created_at'],
      ['created_before=2026-11-26', 'created_before'],
      ['limit=0', 'limit'],
      ['start_at=yesterday', 'start_at'],
      ['end_at=-1', 'end_at'],
      ['start_at=1.5', 'start_at'],
      ['start_at=1800000000&end_at=1799999999', 'end_at'],
      // The definition: created_at cannot be given with start_at or end_at.
      ['created_at=2026-11-26T06:00:00Z&start_at=1800000000', 'created_at'],
      ['created_at=2026-11-26T06:00:00Z&end_at=1800000000', 'created_at'],
    ];
    for (const [query, field] of refused) await expectError(logsA.get(`/logs?${query}`), 400, 'invalid_parameter', field);
    await expectError(logsA.get('/logs/not-a-uuid'), 400, 'invalid_parameter', 'api_log_id');
    await expectError(logsA.get(`/logs/${randomUUID()}`), 404, 'api_log_not_found');
  });

  it('refuses a forged or altered cursor, and a cursor of another filter', async () => {
    const page = await logsA.get<ApiLogs>('/logs?limit=1');
    const cursor = page.body.cursor as string;
    assert.ok(cursor);
    const [position, mac] = cursor.split('.') as [string, string];
    // The same cursor one millisecond on: a position still in range, with the MAC of the real one.
    const real = Buffer.from(position, 'base64url').toString();
    const earlier = Buffer.from(`${real.slice(0, 14)}${(Number(real[14]) + 1) % 10}${real.slice(15)}`).toString('base64url');
    for (const forged of [`${earlier}.${mac}`, `${position}.${mac.slice(0, -2)}AA`, 'garbage', `${position}`]) {
      await expectError(logsA.get(`/logs?limit=1&cursor=${encodeURIComponent(forged)}`), 400, 'invalid_cursor', 'cursor');
    }
    await expectError(
      logsA.get(`/logs?limit=1&created_date=${isoDate(Date.now())}&cursor=${encodeURIComponent(cursor)}`),
      400,
      'invalid_cursor',
      'cursor',
    );
    assert.equal((await logsA.get(`/logs?limit=1&cursor=${encodeURIComponent(cursor)}`)).status, 200);
  });

  it('needs apilog:read (or a wildcard that covers it)', async () => {
    const narrow = onApi(await world.newKey(a.saasId, ['user:read', 'tenant:*']), 'apilog');
    await expectError(narrow.get('/logs'), 403, 'permission_denied');
    for (const grants of [['apilog:read'], ['apilog:*'], ['*']]) {
      assert.equal((await onApi(await world.newKey(a.saasId, grants), 'apilog').get('/logs?limit=1')).status, 200, grants.join());
    }
  });
});
