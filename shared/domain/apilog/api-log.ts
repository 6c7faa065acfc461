/**
 * The API log (the SaaSus ApiLog API, /v1/apilog): one record per signed API call, kept for a retention
 * period and then gone. A record holds what an operator needs to see what happened (time, method, path,
 * status, API key id, request id, source address, latency) and nothing a reader could use as a credential:
 * never bodies, headers, tokens or secrets, and query values whose names say they carry one are redacted
 * (`redactedUri`). Only calls whose signature verified are recorded: an unsigned caller must not be able to
 * write into a SaaS's log by naming its id.
 */
import { randomBytes } from 'node:crypto';
import { notFound, invalid } from '../../errors.js';
import type { SignedCall } from '../../schemas/apilog.js';
import type { StoredEvent } from '../integration/kept-events.js';
import { MAX_PAGE_SIZE, readPage, type Cursors, type OrderedSource } from '../paging.js';
import { CREDENTIAL_NAME, PERSONAL_NAME, REDACTED } from '../redaction.js';

export interface ApiLogRecord {
  /** A UUIDv7: its first 48 bits are `at`, so the id alone locates the record. */
  id: string;
  saasId: string;
  at: number;
  method: string;
  /** Path and query, values of credential-like query parameters redacted. */
  uri: string;
  status: number;
  apiKey: string;
  requestId: string;
  sourceIp: string;
  /** Origin and path of the Referer header only. */
  referer: string;
  latencyMs: number;
  /** Unix seconds after which the record is gone (the store's TTL, and every read). */
  expiresAt: number;
}

export interface ApiLogRepository {
  /** One store write. */
  put(record: ApiLogRecord): Promise<void>;
  /**
   * Batch writes, 25 items a request; writing a record again (same id) leaves one item. The writer's batch of
   * events (numbered already) rides in the same requests: one BatchWriteItem for both, not one each.
   */
  putMany(records: readonly ApiLogRecord[], events?: readonly StoredEvent[]): Promise<void>;
  /** The SaaS's records with `from <= at < to` (Unix ms), newest first. */
  between(saasId: string, from: number, to: number): OrderedSource<ApiLogRecord>;
  get(saasId: string, id: string, at: number): Promise<ApiLogRecord | undefined>;
}

/**
 * Query parameter names whose values are, or may be, a credential or personal data: a temporary code, a
 * refresh or ID token, a signature, an e-mail address. Their values never reach the log.
 */
const SECRET_PARAMETER = { test: (name: string) => CREDENTIAL_NAME.test(name) || PERSONAL_NAME.test(name) };
export { REDACTED };

export function redactedUri(rawPath: string, rawQuery: string): string {
  if (!rawQuery) return rawPath;
  const parts = rawQuery.split('&').map((part) => {
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    let name: string | undefined;
    try {
      name = decodeURIComponent(rawName.replaceAll('+', ' '));
    } catch {
      // A name that does not decode could hide anything: it goes as a secret's would.
      name = undefined;
    }
    const secret = name === undefined || SECRET_PARAMETER.test(name);
    // A bare word (`?eyJhbGciOi…`) may itself be the credential, and no operation takes one.
    if (eq < 0) return REDACTED;
    return secret ? `${rawName}=${REDACTED}` : part;
  });
  return `${rawPath}?${parts.join('&')}`;
}

/** A Referer's origin and path: its query and fragment may carry a code or token of the page that called. */
export function redactedReferer(referer: string | undefined): string {
  if (!referer) return '';
  try {
    const url = new URL(referer);
    return `${url.origin}${url.pathname}`.slice(0, 512);
  } catch {
    return '';
  }
}

/** RFC 9562 UUIDv7: 48 bits of Unix milliseconds, then random bits. */
export function newApiLogId(at: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at, 0, 6);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The milliseconds a UUIDv7 carries; undefined for any other UUID. */
export function millisOfApiLogId(id: string): number | undefined {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)) return undefined;
  return parseInt(id.replaceAll('-', '').slice(0, 12), 16);
}

export function apiLogRecord(call: SignedCall, retentionSeconds: number): ApiLogRecord {
  return {
    id: newApiLogId(call.at),
    saasId: call.saasId,
    at: call.at,
    method: call.method,
    uri: redactedUri(call.rawPath, call.rawQuery).slice(0, 2048),
    status: call.status,
    apiKey: call.apiKey,
    requestId: call.requestId,
    sourceIp: call.sourceIp,
    referer: redactedReferer(call.referer),
    latencyMs: Math.max(0, Math.round(call.latencyMs)),
    expiresAt: Math.floor(call.at / 1000) + retentionSeconds,
  };
}

/** The ApiLog schema's member names (apilogapi.yml). Bodies are never recorded: both are always ''. */
export interface ApiLogAnswer {
  trace_id: string;
  api_log_id: string;
  created_at: number;
  created_date: string;
  ttl: number;
  request_method: string;
  saas_id: string;
  api_key: string;
  response_status: string;
  request_uri: string;
  remote_address: string;
  referer: string;
  request_body: string;
  response_body: string;
  /** Extension: milliseconds from the call's arrival to its answer. */
  latency_ms: number;
}

export function toAnswer(record: ApiLogRecord): ApiLogAnswer {
  return {
    trace_id: record.requestId,
    api_log_id: record.id,
    created_at: Math.floor(record.at / 1000),
    created_date: new Date(record.at).toISOString().slice(0, 10),
    ttl: record.expiresAt,
    request_method: record.method,
    saas_id: record.saasId,
    api_key: record.apiKey,
    response_status: String(record.status),
    request_uri: record.uri,
    remote_address: record.sourceIp,
    referer: record.referer,
    request_body: '',
    response_body: '',
    latency_ms: record.latencyMs,
  };
}

export interface ApiLogQuery {
  /** YYYY-MM-DD (UTC): that day only. */
  created_date?: string;
  /** ISO 8601 date-time: calls at or after it. */
  created_at?: string;
  /** Extension, ISO 8601 date-time: calls before it. */
  created_before?: string;
  /** Unix seconds: calls at or after it (v1.13.8). Not with `created_at`; `created_date` is then ignored. */
  start_at?: number;
  /** Unix seconds: calls at or before it, that second included (v1.13.8). As `start_at`. */
  end_at?: number;
  limit?: number;
  cursor?: string;
}

const DAY_MS = 86_400_000;

function instant(value: string, field: string): number {
  const ms = Date.parse(value);
  // Date.parse takes many shapes; only ISO 8601 with a date, a time and a zone is one reading for everyone.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(ms)) {
    throw invalid('invalid_parameter', `${field}: must be an ISO 8601 date-time with a time zone, such as 2026-11-26T06:00:00Z`, { field });
  }
  return ms;
}

function day(value: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw invalid('invalid_parameter', 'created_date: must be a date YYYY-MM-DD', { field: 'created_date' });
  }
  return ms;
}

export const apiLogNotFound = (id: string) => notFound('api_log_not_found', `no API log ${id}`);

export class ApiLogService {
  constructor(
    private readonly deps: {
      logs: ApiLogRepository;
      cursors: Cursors;
      retentionSeconds: number;
      now: () => number;
    },
  ) {}

  /** Calls in the range the query names, newest first, within the retention period (older ones are gone). */
  async list(saasId: string, query: ApiLogQuery): Promise<{ api_logs: ApiLogAnswer[]; cursor?: string }> {
    const now = this.deps.now();
    let from = now - this.deps.retentionSeconds * 1000;
    let to = now + 1;
    const ranged = query.start_at !== undefined || query.end_at !== undefined;
    if (ranged && query.created_at !== undefined) {
      throw invalid('invalid_parameter', 'created_at: cannot be given with start_at or end_at', { field: 'created_at' });
    }
    if (query.start_at !== undefined && query.end_at !== undefined && query.end_at < query.start_at) {
      throw invalid('invalid_parameter', 'end_at: must not be before start_at', { field: 'end_at' });
    }
    // The definition: with a range, created_date is ignored.
    if (query.created_date !== undefined && !ranged) {
      const start = day(query.created_date);
      from = Math.max(from, start);
      to = Math.min(to, start + DAY_MS);
    }
    if (query.created_at !== undefined) from = Math.max(from, instant(query.created_at, 'created_at'));
    if (query.created_before !== undefined) to = Math.min(to, instant(query.created_before, 'created_before'));
    if (query.start_at !== undefined) from = Math.max(from, query.start_at * 1000);
    // created_at is a call's whole second, so the range ends at the end of end_at's second.
    if (query.end_at !== undefined) to = Math.min(to, (query.end_at + 1) * 1000);
    // The filter as given, not the clamped range: a cursor stays valid while `now` moves on. A range's members
    // only when there is one, so a cursor handed out before they existed still reads.
    const filter = {
      d: ranged ? null : (query.created_date ?? null),
      a: query.created_at ?? null,
      b: query.created_before ?? null,
      ...(ranged ? { s: query.start_at ?? null, e: query.end_at ?? null } : {}),
    };
    const sealing = { cursors: this.deps.cursors, scope: `${saasId}\napi-logs\n${JSON.stringify(filter)}` };
    const source = to > from ? this.deps.logs.between(saasId, from, to) : EMPTY;
    const page = await readPage(source, sealing, query.cursor === '' ? undefined : query.cursor, query.limit ?? MAX_PAGE_SIZE, (record) =>
      this.live(record),
    );
    return { api_logs: page.items.map(toAnswer), ...(page.cursor ? { cursor: page.cursor } : {}) };
  }

  async get(saasId: string, id: string): Promise<ApiLogAnswer> {
    const at = millisOfApiLogId(id.toLowerCase());
    const record = at === undefined ? undefined : await this.deps.logs.get(saasId, id.toLowerCase(), at);
    if (!record || !this.live(record)) throw apiLogNotFound(id);
    return toAnswer(record);
  }

  /** DynamoDB deletes expired items eventually (hours to days): a record past its time is refused here. */
  private live(record: ApiLogRecord): boolean {
    return record.expiresAt * 1000 > this.deps.now();
  }
}

const EMPTY: OrderedSource<never> = {
  accepts: () => false,
  // eslint-disable-next-line require-yield
  read: async function* () {
    return;
  },
};
