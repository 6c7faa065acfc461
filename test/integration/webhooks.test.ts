/**
 * Signed webhooks (docs/events.md) through the real handlers: a receiver on this machine gets each event it asked
 * for, signed per Standard Webhooks and verified here with the `standardwebhooks` package; a receiver that was down
 * gets it again once it answers; an endpoint whose delivery is given up is disabled; the secret is shown once.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { runScheduledWork } from '../../functions/scheduled/handler.js';
import { nowMillis, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { RETRY_DELAYS_SECONDS } from '../../shared/domain/integration/event-delivery.js';
import { localDeadLetters } from '../../shared/wiring.js';
import { onApi } from '../support/other-api.js';

interface Received {
  headers: Record<string, string>;
  body: string;
}

let world: Harness;
let auth: SignedClient;
let integration: SignedClient;
let receiver: Server;
let url: string;
let received: Received[] = [];
let answerWith = 200;

beforeAll(async () => {
  world = await startHarness();
  const saas = await world.newSaas();
  auth = saas.client;
  integration = onApi(auth, 'integration');
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answerWith).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await world.close();
});
afterEach(() => {
  resetClockForTests();
  answerWith = 200;
});

/** The calls' lines written and one run of the scheduled worker; what the receiver got meanwhile. */
async function deliveredNow(): Promise<Received[]> {
  received = [];
  await world.flush();
  await runScheduledWork();
  return received;
}

const newTenant = async (name: string) => {
  const res = await auth.post<{ id: string }>('/tenants', { name, attributes: {}, back_office_staff_email: 'w@example.com' });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
};

interface Payload {
  type: string;
  timestamp: string;
  data: { event_type: string; event: string; subject: string; sequence: number };
}

describe('signed webhooks', () => {
  let webhookId: string;
  let secret: string;

  it('creates an endpoint and shows its secret once', async () => {
    const created = await integration.post<{ id: string; secret: string; event_types: string[] }>('/webhooks', {
      url,
      event_types: ['create_tenant', 'update_tenant'],
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    webhookId = created.body.id;
    secret = created.body.secret;
    const listed = await integration.get<{ webhooks: Record<string, unknown>[] }>('/webhooks');
    assert.equal(listed.body.webhooks.length, 1);
    assert.ok(!('secret' in (listed.body.webhooks[0] as object)) && !listed.text.includes(secret.slice(6)), 'never answered again');
    assert.ok(!(await integration.get(`/webhooks/${webhookId}`)).text.includes(secret.slice(6)));
  });

  it('posts each event it wants, signed: the receiver verifies it with standardwebhooks', async () => {
    const tenantId = await newTenant('Hooked');
    assert.equal((await auth.post('/users', { email: 'unwanted@example.com', password: 'Passw0rd!x', attributes: {} })).status, 201);
    const got = await deliveredNow();
    assert.equal(got.length, 1, 'create_tenant only: create_saas_user is not among its event types');
    const [request] = got as [Received];
    const payload = new Webhook(secret).verify(request.body, request.headers) as Payload;
    assert.equal(payload.type, 'create_tenant');
    assert.equal(payload.data.subject, `/v1/auth/tenants/${tenantId}`);
    assert.equal(payload.data.sequence, 1);
    assert.equal((JSON.parse(payload.data.event) as { http_status: string }).http_status, '201');
    assert.equal(request.headers['webhook-id'], (JSON.parse(payload.data.event) as { log_id: string }).log_id);
    // Altered by one byte, or checked with another secret, it does not verify.
    assert.throws(() => new Webhook(secret).verify(request.body.replace('Hooked', 'Hacked'), request.headers));
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(request.body, request.headers));
  });

  it('sends an event again once a receiver that was down answers, and lists the attempts', async () => {
    answerWith = 503;
    await newTenant('While down');
    const first = await deliveredNow();
    assert.equal(first.length, 1, 'tried once');
    const deliveries = await integration.get<{ deliveries: { event_id: string; status: string; attempts: number; last_error?: string }[] }>(
      `/webhooks/${webhookId}/deliveries`,
    );
    assert.equal(deliveries.status, 200, deliveries.text);
    const waiting = deliveries.body.deliveries[0];
    assert.deepEqual([waiting?.status, waiting?.attempts, waiting?.last_error], ['pending', 1, 'answered 503']);
    answerWith = 200;
    assert.equal((await deliveredNow()).length, 0, 'not due for five seconds');
    setClockForTests(nowMillis() + 6000);
    const again = await deliveredNow();
    assert.equal(again.length, 1);
    assert.equal(again[0]?.headers['webhook-id'], first[0]?.headers['webhook-id'], 'the same message id: a receiver can drop a repeat');
    assert.equal((new Webhook(secret).verify(again[0]?.body ?? '', again[0]?.headers ?? {}) as Payload).type, 'create_tenant');
    resetClockForTests();
    const after = await integration.get<{ deliveries: { event_id: string; status: string }[] }>(`/webhooks/${webhookId}/deliveries`);
    assert.equal(after.body.deliveries.find((d) => d.event_id === waiting?.event_id)?.status, 'delivered');
  });

  it('replays a delivery by its event id', async () => {
    const list = await integration.get<{ deliveries: { event_id: string }[] }>(`/webhooks/${webhookId}/deliveries`);
    const eventId = list.body.deliveries[0]?.event_id as string;
    assert.equal((await integration.post(`/webhooks/${webhookId}/deliveries/${eventId}/replay`, undefined)).status, 200);
    const got = await deliveredNow();
    assert.deepEqual(
      got.map((r) => r.headers['webhook-id']),
      [eventId],
    );
  });

  it('signs with a rotated secret from then on', async () => {
    const rotated = await integration.post<{ secret: string }>(`/webhooks/${webhookId}/secret`, undefined);
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.secret, secret);
    await newTenant('Rotated');
    const [request] = (await deliveredNow()) as [Received];
    assert.throws(() => new Webhook(secret).verify(request.body, request.headers));
    assert.equal((new Webhook(rotated.body.secret).verify(request.body, request.headers) as Payload).type, 'create_tenant');
    secret = rotated.body.secret;
  });

  it('disables an endpoint whose delivery failed for three days, and sends nothing more to it', async () => {
    answerWith = 500;
    await newTenant('Never answered');
    let at = nowMillis();
    let attempts = (await deliveredNow()).length;
    for (const delay of RETRY_DELAYS_SECONDS) {
      at += (delay + 1) * 1000;
      setClockForTests(at);
      attempts += (await deliveredNow()).length;
    }
    assert.equal(attempts, RETRY_DELAYS_SECONDS.length + 1, 'every attempt of the schedule, then none');
    resetClockForTests();
    // The given-up delivery went to the dead letters (on AWS the alarmed queue), once, with why.
    const given = localDeadLetters().given.filter((d) => d.target === `webhook:${webhookId}`);
    assert.equal(given.length, 1);
    assert.equal(given[0]?.eventType, 'create_tenant');
    assert.equal(given[0]?.attempts, RETRY_DELAYS_SECONDS.length + 1);
    assert.match(given[0]?.lastError ?? '', /500/);
    const endpoint = await integration.get<{ disabled: boolean; disabled_reason?: string; failures: number }>(`/webhooks/${webhookId}`);
    assert.equal(endpoint.body.disabled, true);
    assert.match(endpoint.body.disabled_reason ?? '', /three days/);
    answerWith = 200;
    await newTenant('After disabled');
    assert.equal((await deliveredNow()).length, 0);
    // Enabled again, it gets what comes next.
    assert.equal((await integration.patch(`/webhooks/${webhookId}`, { disabled: false })).status, 200);
    await newTenant('Enabled again');
    assert.equal((await deliveredNow()).length, 1);
  });

  it('refuses a URL that is not http(s), and deletes an endpoint', async () => {
    for (const bad of ['ftp://127.0.0.1/x', 'javascript:alert(1)', 'http://user:pw@127.0.0.1/x']) {
      const res = await integration.post('/webhooks', { url: bad });
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
    }
    assert.equal((await integration.delete(`/webhooks/${webhookId}`)).status, 200);
    assert.equal((await integration.get(`/webhooks/${webhookId}`)).status, 404);
    assert.equal((await integration.delete(`/webhooks/${webhookId}`)).status, 404);
  });
});
