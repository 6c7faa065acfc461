/**
 * Every signed call that changes something becomes an event in SaaSus's own shape (docs/events.md): EventBridge's
 * `detail-type` "api_call", and a `detail` of the operation's name in snake case (`create_tenant`), the call as one
 * JSON string (`event`: log id, times, status, URI, request and answer bodies) and the trace id. The event is made
 * beside the call's API log record, from the same id and time, and leaves the call as a line as the record does
 * (apilog/shipped-lines.ts): no store request on the call's path. The writer gives it a number in its subject's
 * sequence and keeps it for delivery (event-delivery.ts).
 */
import type { SignedCall } from '../../schemas/apilog.js';
import { redactedJsonText } from '../redaction.js';

/** An event as it leaves the call: all but its sequence number, which the writer gives it. */
export interface ApiEvent {
  saasId: string;
  /** The API log record's id (a UUIDv7), also `log_id` in `event`. */
  id: string;
  /** Unix milliseconds of the call. */
  at: number;
  /** EventBridge's `detail-type`: "api_call" for a call, the SaaS's own for CreateEventBridgeEvent. */
  detailType: string;
  /** `detail.event_type`. */
  eventType: string;
  /** `detail.event`: a JSON string. */
  event: string;
  traceId: string;
  /** What the event changes (subjectOf): its sequence is counted per subject. */
  subject: string;
}

/** `createSaasUser` → `create_saas_user`, the names SaaSus's events carry (its operation ids in snake case). */
export const eventTypeOf = (operationId: string): string => operationId.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** RFC 3339 in whole seconds, as SaaSus writes `date_time` and `ttl`. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * The thing a call changes, as a path: the route's path up to its first parameter, with the value
 * (`/v1/auth/tenants/<id>` for every call under one tenant); for a create on a collection, the collection and the
 * id the answer names (`POST /v1/auth/tenants` → `/v1/auth/tenants/<new id>`); else the path itself (a SaaS-wide
 * setting such as `/v1/auth/auth-info`).
 */
export function subjectOf(rawPath: string, routePath: string, responseBody: string): string {
  const raw = rawPath.split('/');
  const template = routePath.split('/');
  const base = raw.length - template.length;
  const first = template.findIndex((segment) => segment.startsWith('{'));
  if (first >= 0) return raw.slice(0, base + first + 1).join('/');
  return `${rawPath}${idOf(responseBody) ? `/${idOf(responseBody)}` : ''}`;
}

function idOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { id?: unknown } | null)?.id;
    return typeof id === 'string' && /^[A-Za-z0-9_.:-]{1,128}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A changing call's event; undefined for a call that changes nothing (no `change`), and for the Integration API's
 * own calls: a test event or a SaaS's own events are events already, and the settings are not the SaaS's data.
 */
export function apiCallEvent(call: SignedCall, logId: string, expiresAt: number): ApiEvent | undefined {
  const change = call.change;
  if (!change || change.api === 'integration') return undefined;
  const eventType = eventTypeOf(change.operationId);
  // Member order and names as SaaSus's samples give them; its `ip_address` carries a port we do not have.
  const event = JSON.stringify({
    log_id: logId,
    date_time: isoSeconds(call.at),
    date: isoSeconds(call.at).slice(0, 10),
    ttl: isoSeconds(expiresAt * 1000),
    http_status: String(call.status),
    uri: call.rawPath,
    ip_address: call.sourceIp,
    referer: call.referer ?? '',
    request_method: call.method,
    saas_id: call.saasId,
    api_key: call.apiKey,
    request_body: redactedJsonText(change.requestBody),
    response_body: redactedJsonText(change.responseBody),
  });
  return {
    saasId: call.saasId,
    id: logId,
    at: call.at,
    detailType: 'api_call',
    eventType,
    event,
    traceId: change.traceId,
    subject: subjectOf(call.rawPath, change.routePath, change.responseBody),
  };
}

/** EventBridge's `detail`, as SaaSus sends it, with our `subject` and `sequence` after its members. */
export const eventDetail = (event: ApiEvent, sequence: number): string =>
  JSON.stringify({ event_type: event.eventType, event: event.event, trace_id: event.traceId, subject: event.subject, sequence });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;

/** An event read back from a line; undefined for anything malformed (the writer skips it). */
export function readApiEvent(value: unknown): ApiEvent | undefined {
  if (!isObject(value)) return undefined;
  const { saasId, id, at, detailType, eventType, event, traceId, subject } = value;
  if (!text(saasId, 64) || !text(id, 64) || !Number.isSafeInteger(at) || !text(detailType, 128) || !text(eventType, 128)) return undefined;
  // EventBridge takes at most 256 KB an entry; what is longer cannot be delivered, and is left out.
  if (!text(event, 200_000) || !text(traceId, 256) || !text(subject, 2048)) return undefined;
  return { saasId, id, at: at as number, detailType, eventType, event, traceId, subject };
}
