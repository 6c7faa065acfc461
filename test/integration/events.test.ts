/**
 * The Integration API's events (docs/events.md) through the real handlers: a changing call's event, in SaaSus's
 * shape with its bodies redacted, numbered per subject, kept by the API log writer and delivered by the scheduled
 * worker to the local EventBridge stand-in; a bus that refuses gets the event again once it takes events.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { nowMillis, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { localBus } from '../../shared/wiring.js';
import { onApi } from '../support/other-api.js';

let world: Harness;
let auth: SignedClient;
let integration: SignedClient;
let saasId: string;
const SETTINGS = { aws_account_id: '123456789012', aws_region: 'ap-northeast-1' };
const BUS = 'arn:aws:events:ap-northeast-1:123456789012:event-bus/default';

beforeAll(async () => {
  world = await startHarness();
  const saas = await world.newSaas();
  saasId = saas.saasId;
  auth = saas.client;
  integration = onApi(auth, 'integration');
  const saved = await integration.put('/eventbridge/info', SETTINGS);
  assert.equal(saved.status, 200, saved.text);
});
afterAll(() => world.close());
afterEach(() => {
  localBus().refuse(BUS, false);
  resetClockForTests();
});

interface Detail {
  event_type: string;
  event: string;
  trace_id: string;
  subject: string;
  sequence: number;
}

/** The calls' lines written, then one run of the scheduled worker: what reached the bus since `before`. */
async function delivered(before: number): Promise<{ 'detail-type': string; source: string; detail: Detail }[]> {
  await world.flush();
  await runScheduledWork();
  return localBus()
    .events(BUS)
    .slice(before)
    .map((e) => e as unknown as { 'detail-type': string; source: string; detail: Detail });
}

describe('the Integration API’s events', () => {
  it('answers the settings as saved', async () => {
    const res = await integration.get('/eventbridge/info');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, SETTINGS);
  });

  it('refuses an account id that is not 12 digits, and a region outside the definition’s, changing nothing', async () => {
    for (const body of [
      { ...SETTINGS, aws_account_id: '12345678901x' },
      { ...SETTINGS, aws_region: 'cn-north-1' },
    ]) {
      const res = await integration.put('/eventbridge/info', body);
      assert.equal(res.status, 400, res.text);
      assert.ok(typeof (res.body as { type: string }).type === 'string');
    }
    assert.deepEqual((await integration.get('/eventbridge/info')).body, SETTINGS);
  });

  it('sends POST /tenants as SaaSus does: api_call, create_tenant, the call as a JSON string, the trace id', async () => {
    const before = localBus().events(BUS).length;
    const created = await auth.request('POST', '/tenants', {
      body: { name: 'Acme', attributes: {}, back_office_staff_email: 'staff@example.com' },
      headers: { 'x-saasus-trace-id': 'trace-create-tenant-1' },
    });
    assert.equal(created.status, 201, created.text);
    const tenantId = (created.body as { id: string }).id;
    const events = (await delivered(before)).filter((e) => e.detail.event_type === 'create_tenant');
    assert.equal(events.length, 1);
    const [sent] = events as [(typeof events)[number]];
    assert.equal(sent['detail-type'], 'api_call');
    assert.equal(sent.source, `tenant-identity-service/${saasId}`);
    assert.deepEqual(Object.keys(sent.detail), ['event_type', 'event', 'trace_id', 'subject', 'sequence']);
    assert.equal(sent.detail.trace_id, 'trace-create-tenant-1');
    assert.equal(sent.detail.subject, `/v1/auth/tenants/${tenantId}`);
    assert.equal(sent.detail.sequence, 1);
    const event = JSON.parse(sent.detail.event) as Record<string, string>;
    // SaaSus's members, in its order.
    assert.deepEqual(Object.keys(event), [
      'log_id',
      'date_time',
      'date',
      'ttl',
      'http_status',
      'uri',
      'ip_address',
      'referer',
      'request_method',
      'saas_id',
      'api_key',
      'request_body',
      'response_body',
    ]);
    assert.equal(event.http_status, '201');
    assert.equal(event.uri, '/v1/auth/tenants');
    assert.equal(event.request_method, 'POST');
    assert.equal(event.saas_id, saasId);
    assert.match(event.date_time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(event.date, (event.date_time as string).slice(0, 10));
    // The request body written again as Go writes a decoded map: members sorted, no spaces.
    assert.equal(event.request_body, '{"attributes":{},"back_office_staff_email":"staff@example.com","name":"Acme"}');
    assert.equal((JSON.parse(event.response_body as string) as { id: string }).id, tenantId);
    // The log id is the call's API log record.
    const log = await onApi(auth, 'apilog').get(`/logs/${event.log_id}`);
    assert.equal(log.status, 200, log.text);
    assert.equal((log.body as { request_uri: string }).request_uri, '/v1/auth/tenants');
  });

  it('redacts passwords from the bodies, by the API log’s names, and keeps the e-mail address', async () => {
    const before = localBus().events(BUS).length;
    const res = await auth.post('/users', { email: 'new-user@example.com', password: 'Sup3r-secret-pass', attributes: {} });
    assert.equal(res.status, 201, res.text);
    const [sent] = (await delivered(before)).filter((e) => e.detail.event_type === 'create_saas_user');
    assert.ok(sent);
    const event = JSON.parse(sent.detail.event) as { request_body: string; response_body: string };
    assert.equal(event.request_body, '{"attributes":{},"email":"new-user@example.com","password":"[redacted]"}');
    assert.ok(!sent.detail.event.includes('Sup3r-secret-pass'));
    assert.equal((JSON.parse(event.response_body) as { email: string }).email, 'new-user@example.com');
  });

  it('numbers the events of one subject in the order of the calls, however they are delivered', async () => {
    const created = await auth.post<{ id: string }>('/tenants', { name: 'Numbered', attributes: {}, back_office_staff_email: 'n@example.com' });
    assert.equal(created.status, 201);
    const id = created.body.id;
    for (const name of ['Numbered 2', 'Numbered 3']) {
      const res = await auth.request('PATCH', `/tenants/${id}`, { body: { name, attributes: {}, back_office_staff_email: 'n@example.com' } });
      assert.equal(res.status, 200, res.text);
    }
    const ofTenant = (await delivered(0)).filter((e) => e.detail.subject === `/v1/auth/tenants/${id}`);
    assert.deepEqual(
      ofTenant.map((e) => [e.detail.event_type, e.detail.sequence]),
      [
        ['create_tenant', 1],
        ['update_tenant', 2],
        ['update_tenant', 3],
      ],
    );
  });

  it('sends an event again once a bus that refused it takes events, and lists the attempts meanwhile', async () => {
    localBus().refuse(BUS, true);
    const before = localBus().events(BUS).length;
    const created = await auth.post<{ id: string }>('/tenants', { name: 'Later', attributes: {}, back_office_staff_email: 'l@example.com' });
    assert.equal(created.status, 201);
    assert.deepEqual(await delivered(before), [], 'refused: nothing arrived');
    const listed = await integration.get<{ events: { subject: string; targets: { status: string; attempts: number; last_error?: string }[] }[] }>(
      '/events',
    );
    assert.equal(listed.status, 200, listed.text);
    const waiting = listed.body.events.find((e) => e.subject === `/v1/auth/tenants/${created.body.id}`);
    assert.equal(waiting?.targets[0]?.status, 'pending');
    assert.equal(waiting?.targets[0]?.attempts, 1);
    assert.match(waiting?.targets[0]?.last_error ?? '', /refusing/);
    // The bus is back; the next attempt is due five seconds after the first.
    localBus().refuse(BUS, false);
    assert.deepEqual(await delivered(before), [], 'not due yet');
    const now = nowMillis();
    setClockForTests(now + 6000);
    const arrived = (await delivered(before)).filter((e) => e.detail.subject === `/v1/auth/tenants/${created.body.id}`);
    assert.deepEqual(
      arrived.map((e) => e.detail.event_type),
      ['create_tenant'],
    );
  });

  it('sends a test event and the SaaS’s own events through the same way', async () => {
    const before = localBus().events(BUS).length;
    const test = await integration.post('/eventbridge/test-event', undefined);
    assert.equal(test.status, 201, test.text);
    const own = await integration.post('/eventbridge/event', {
      event_messages: [{ event_type: 'api_call', event_detail_type: 'create_user', message: '{"id":"u-1","name":"test222"}' }],
    });
    assert.equal(own.status, 201, own.text);
    const sent = await delivered(before);
    assert.deepEqual(sent.map((e) => [e['detail-type'], e.detail.event_type]).sort(), [
      ['api_call', 'create_user'],
      ['test_event', 'test_event'],
    ]);
    assert.equal(sent.find((e) => e.detail.event_type === 'create_user')?.detail.event, '{"id":"u-1","name":"test222"}');
  });

  it('sends nothing after the settings are deleted, and answers 404 for them', async () => {
    const removed = await integration.delete('/eventbridge/info');
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await integration.get('/eventbridge/info')).status, 404);
    const before = localBus().events(BUS).length;
    assert.equal((await auth.post('/tenants', { name: 'Unsent', attributes: {}, back_office_staff_email: 'u@example.com' })).status, 201);
    assert.deepEqual(await delivered(before), []);
    assert.equal((await integration.post('/eventbridge/test-event', undefined)).status, 404);
  });

  it('refuses a key without integration permissions', async () => {
    const key = await world.newKey(saasId, ['tenant:read']);
    assert.equal((await onApi(key, 'integration').get('/eventbridge/info')).status, 403);
    assert.equal((await onApi(key, 'integration').put('/eventbridge/info', SETTINGS)).status, 403);
  });
});
