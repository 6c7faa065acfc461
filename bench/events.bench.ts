/**
 * What events cost (docs/events.md): on the call's path, the CPU a changing call spends making its event and
 * telling it as a line beside its API log record (a POST /tenants with its bodies; no store request is made, so
 * none is counted); and apart, the CPU of delivering one event: the EventBridge entry and the signed webhook
 * request (Standard Webhooks' signature). In-process, no engines: CPU per call, the median of five runs.
 */
import { Webhook } from 'standardwebhooks';
import { apiLogLine, eventLine } from '../shared/domain/apilog/shipped-lines.js';
import { apiLogRecord } from '../shared/domain/apilog/api-log.js';
import { apiCallEvent, eventDetail } from '../shared/domain/integration/api-events.js';
import { entryOf } from '../shared/domain/integration/event-delivery.js';
import { newWebhookSecret, webhookPayload } from '../shared/domain/integration/webhooks.js';
import type { SignedCall } from '../shared/schemas/apilog.js';
import { cpuPerCall, writeResults } from './support.js';

const CALLS = 20_000;
const tenantId = '2f8e3c1a-6b1d-4c3e-9f2a-1d2b3c4d5e6f';
const call: SignedCall = {
  saasId: 'bench-saas',
  apiKey: 'bench-key',
  requestId: 'req-1',
  method: 'POST',
  rawPath: '/v1/auth/tenants',
  rawQuery: '',
  status: 201,
  sourceIp: '192.0.2.1',
  referer: undefined,
  at: Date.now(),
  latencyMs: 3,
  change: {
    api: 'auth',
    operationId: 'createTenant',
    routePath: '/tenants',
    params: {},
    requestBody: JSON.stringify({ name: 'Acme', attributes: { memo: 'x', plan: 'gold' }, back_office_staff_email: 'staff@example.com' }),
    responseBody: JSON.stringify({
      id: tenantId,
      name: 'Acme',
      attributes: { memo: 'x', plan: 'gold' },
      back_office_staff_email: 'staff@example.com',
      plan_histories: [],
    }),
    traceId: 'trace-1',
  },
};
const { change: _change, ...withoutChange } = call;
const sink: string[] = [];
const tell = (line: string) => {
  sink.push(line);
  if (sink.length > 1000) sink.length = 0;
};

const median = async (fn: () => unknown) => {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) runs.push(await cpuPerCall(CALLS, fn));
  return runs.sort((a, b) => a - b)[2] as number;
};

const recordOnly = await median(() => tell(apiLogLine(apiLogRecord(withoutChange, 90 * 86400))));
const withEvent = await median(() => {
  const record = apiLogRecord(call, 90 * 86400);
  tell(apiLogLine(record));
  const event = apiCallEvent(call, record.id, record.expiresAt);
  if (event) tell(eventLine(event));
});
const record = apiLogRecord(call, 90 * 86400);
const event = { ...(apiCallEvent(call, record.id, record.expiresAt) as NonNullable<ReturnType<typeof apiCallEvent>>), sequence: 1, expiresAt: 0 };
const hook = new Webhook(newWebhookSecret());
const busEntry = await median(() => entryOf(event));
const webhook = await median(() => hook.sign(event.id, new Date(), webhookPayload(event, eventDetail(event, 1))));

const figures = {
  callPathMs: { recordOnly, withEvent, eventAlone: withEvent - recordOnly },
  storeRequestsOnCallPath: 0,
  deliveryPerEventMs: { eventBridgeEntry: busEntry, signedWebhookRequest: webhook },
};
writeResults('events', figures);
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
process.stdout.write(
  [
    `call path, CPU per POST /tenants (median of 5 runs of ${CALLS}):`,
    `  API log record only            ${us(recordOnly)}`,
    `  record and event               ${us(withEvent)}`,
    `  the event's share              ${us(withEvent - recordOnly)}   (target under 200 µs; store requests: 0)`,
    `delivery, CPU per event (apart from the call):`,
    `  EventBridge entry              ${us(busEntry)}`,
    `  signed webhook request         ${us(webhook)}`,
    '',
  ].join('\n'),
);
