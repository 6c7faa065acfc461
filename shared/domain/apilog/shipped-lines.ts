/**
 * The API log's records and the SaaS-wide sign-in counts leave the call that makes them as lines, one JSON object
 * each, and the API log writer writes them a batch at a time: on AWS a function's stdout goes to its log group,
 * whose subscription filter hands the matching lines to the writer function; under `npm start` and in the tests an
 * in-process sink hands them over every few hundred milliseconds (docs/deployment-shape.md, "The API log"). The
 * call makes no store request for them, so a sign-in stays at its three.
 *
 * A record carries the id the call gave it, and its item's key follows from that id alone, so a batch delivered
 * twice writes the same items again. A count is an ADD: a batch delivered twice counts twice, the accepted cost
 * (the counts are an overview of a SaaS's days, not a ledger; each user's own activity is exact).
 */
import { SHIPPED_KINDS, SHIPPED_MEMBER } from '../../schemas/apilog.js';
import { COUNTED_KINDS, utcDay, type CountedKind, type SignInCountsRepository } from '../users/sign-in-counts.js';
import { readApiEvent, type ApiEvent } from '../integration/api-events.js';
import type { StoredEvent } from '../integration/kept-events.js';
import { millisOfApiLogId, type ApiLogRecord, type ApiLogRepository } from './api-log.js';

export type ShippedLine =
  | { kind: 'api-log'; record: ApiLogRecord }
  | { kind: 'sign-in'; saasId: string; outcome: CountedKind; at: number; userId?: string }
  | { kind: 'event'; event: ApiEvent }
  | { kind: 'page-view'; saasId: string; userId: string; at: number; referer: string };

/** A signed call's record, as its function writes it for the writer. */
export const apiLogLine = (record: ApiLogRecord): string => JSON.stringify({ [SHIPPED_MEMBER]: SHIPPED_KINDS.apiLog, record });

/** A changing call's event (shared/domain/integration/api-events.ts), told beside its record. */
export const eventLine = (event: ApiEvent): string => JSON.stringify({ [SHIPPED_MEMBER]: SHIPPED_KINDS.event, event });

/**
 * A sign-in outcome that counts SaaS-wide (`at`: Unix seconds), once the write that settled it committed; a success
 * names its user, who is then active that day and month (shared/domain/analysis/active-users.ts) and whose directory
 * entry the writer gives the time (docs/decisions.md, decision 18).
 */
export const signInLine = (saasId: string, outcome: CountedKind, at: number, userId?: string): string =>
  JSON.stringify({ [SHIPPED_MEMBER]: SHIPPED_KINDS.signIn, saas_id: saasId, outcome, at, ...(userId ? { user_id: userId } : {}) });

/**
 * The page a SaaS's user called GetUserInfo from (`at`: Unix seconds; `referer`: its origin and path), for their
 * page histories (shared/domain/analysis/page-views.ts).
 */
export const pageViewLine = (saasId: string, userId: string, at: number, referer: string): string =>
  JSON.stringify({ [SHIPPED_MEMBER]: SHIPPED_KINDS.pageView, saas_id: saasId, user_id: userId, at, referer });

/** SaaS ids are UUIDs; a key part may never hold the key separator `#`. */
const SAAS_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const USER_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const METHOD = /^[A-Z]{1,16}$/;
/** 2001-09-09 to 2286-11-20 in Unix seconds: any time a record or count can honestly carry. */
const [EARLIEST, LATEST] = [1e9, 1e10];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown, max: number, min = 0): value is string => typeof value === 'string' && value.length >= min && value.length <= max;
const whole = (value: unknown, min: number, max: number): value is number =>
  Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;

function recordOf(value: unknown): ApiLogRecord | undefined {
  if (!isObject(value)) return undefined;
  const { id, saasId, at, method, uri, status, apiKey, requestId, sourceIp, referer, latencyMs, expiresAt } = value;
  if (!whole(at, EARLIEST * 1000, LATEST * 1000) || typeof id !== 'string' || millisOfApiLogId(id) !== at) return undefined;
  if (typeof saasId !== 'string' || !SAAS_ID.test(saasId) || typeof method !== 'string' || !METHOD.test(method)) return undefined;
  if (!text(uri, 2048, 1) || !uri.startsWith('/') || !whole(status, 100, 599) || !text(apiKey, 256, 1) || !text(requestId, 256)) return undefined;
  if (!text(sourceIp, 64) || !text(referer, 512) || !whole(latencyMs, 0, 86_400_000) || !whole(expiresAt, at / 1000, LATEST)) return undefined;
  return { id, saasId, at, method, uri, status, apiKey, requestId, sourceIp, referer, latencyMs, expiresAt };
}

/**
 * What one line carries, or undefined for anything else: the function's other log lines, the runtime's own, and
 * malformed or partial ones, which are left alone (a subscription may hand over lines its pattern only half read).
 */
export function readShippedLine(line: string): ShippedLine | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (value[SHIPPED_MEMBER] === SHIPPED_KINDS.apiLog) {
    const record = recordOf(value.record);
    return record && { kind: 'api-log', record };
  }
  if (value[SHIPPED_MEMBER] === SHIPPED_KINDS.signIn) {
    const { saas_id: saasId, outcome, at, user_id: userId } = value;
    if (typeof saasId !== 'string' || !SAAS_ID.test(saasId) || !(COUNTED_KINDS as readonly unknown[]).includes(outcome)) return undefined;
    if (!whole(at, EARLIEST, LATEST)) return undefined;
    if (userId !== undefined && (typeof userId !== 'string' || !USER_ID.test(userId))) return undefined;
    return { kind: 'sign-in', saasId, outcome: outcome as CountedKind, at, ...(userId ? { userId } : {}) };
  }
  if (value[SHIPPED_MEMBER] === SHIPPED_KINDS.pageView) {
    const { saas_id: saasId, user_id: userId, at, referer } = value;
    if (typeof saasId !== 'string' || !SAAS_ID.test(saasId) || typeof userId !== 'string' || !USER_ID.test(userId)) return undefined;
    if (!whole(at, EARLIEST, LATEST) || !text(referer, 512, 1)) return undefined;
    return { kind: 'page-view', saasId, userId, at, referer };
  }
  if (value[SHIPPED_MEMBER] === SHIPPED_KINDS.event) {
    const event = readApiEvent(value.event);
    return event && SAAS_ID.test(event.saasId) ? { kind: 'event', event } : undefined;
  }
  return undefined;
}

/** The shipped lines among log messages, in order; a message may hold several lines. */
export const readShippedLines = (messages: readonly string[]): ShippedLine[] =>
  messages.flatMap((message) => message.split('\n').flatMap((line) => readShippedLine(line) ?? []));

/** Count writes at once: a batch of many SaaS products' days is written in a few round trips, not one per day. */
const ADDS_AT_ONCE = 4;

/** Writes each item, ADDS_AT_ONCE at a time. */
async function fewAtOnce<T>(items: readonly T[], write: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += ADDS_AT_ONCE) await Promise.all(items.slice(i, i + ADDS_AT_ONCE).map(write));
}

/**
 * Writes a batch of lines: the events numbered (one counter write per subject), then the records and the events
 * together (BatchWriteItem, 25 items at a time, not one request for each kind; what the store hands back
 * unprocessed sent again), each once however often the batch holds it; then one ADD per SaaS and day with the
 * batch's counts; then each signed-in user's latest time in the batch to their directory entry, one write a user.
 * A failure throws, so the batch is delivered again (on AWS Lambda retries it, then sets it aside in the dead
 * letters): its records and events are written again harmlessly (an event under a new number, leaving a gap in its
 * subject's), and its counts that were added already count twice.
 */
export class ShippedLineWriter {
  constructor(
    private readonly deps: {
      /** The records and the numbered events, together (one BatchWriteItem for up to 25 of both). */
      logs: Pick<ApiLogRepository, 'putMany'>;
      counts: Pick<SignInCountsRepository, 'add'>;
      /** Numbers the events for delivery (integration/event-delivery.ts); `logs` keeps them. */
      events: { sequenced(events: readonly ApiEvent[]): Promise<StoredEvent[]> };
      /** Marks who signed in, per day and month (shared/domain/analysis/active-users.ts). */
      active: { signedIn(saasId: string, userId: string, at: number): Promise<unknown> };
      /** The user directory's copy of a sign-in's time, which the sign-in itself never writes (shared/store/user-repository.ts). */
      lastSignIns: { copyLastSignIn(saasId: string, userId: string, at: number): Promise<unknown> };
      /** Adds to users' page histories (shared/domain/analysis/page-views.ts). */
      pages: { viewed(saasId: string, userId: string, views: readonly { timestamp: number; referer: string }[]): Promise<unknown> };
    },
  ) {}

  async write(lines: readonly ShippedLine[]): Promise<{ records: number; countWrites: number; events: number }> {
    const records = new Map<string, ApiLogRecord>();
    const events = new Map<string, ApiEvent>();
    const days = new Map<string, { saasId: string; day: string; counts: Partial<Record<CountedKind, number>> }>();
    /** Who signed in, once per SaaS, user and day (the active users' marks). */
    const activeDays = new Map<string, { saasId: string; userId: string; at: number }>();
    /** Who signed in, once per SaaS and user, with the latest time (the directory entries' copies). */
    const latest = new Map<string, { saasId: string; userId: string; at: number }>();
    const views = new Map<string, { saasId: string; userId: string; views: { timestamp: number; referer: string }[] }>();
    for (const line of lines) {
      if (line.kind === 'api-log') {
        records.set(`${line.record.saasId}\n${line.record.id}`, line.record);
        continue;
      }
      if (line.kind === 'event') {
        events.set(`${line.event.saasId}\n${line.event.id}`, line.event);
        continue;
      }
      if (line.kind === 'page-view') {
        const key = `${line.saasId}\n${line.userId}`;
        const entry = views.get(key) ?? { saasId: line.saasId, userId: line.userId, views: [] };
        entry.views.push({ timestamp: line.at, referer: line.referer });
        views.set(key, entry);
        continue;
      }
      const day = utcDay(line.at);
      const key = `${line.saasId}\n${day}`;
      const entry = days.get(key) ?? { saasId: line.saasId, day, counts: {} };
      entry.counts[line.outcome] = (entry.counts[line.outcome] ?? 0) + 1;
      days.set(key, entry);
      if (line.outcome !== 'sign_in_succeeded' || !line.userId) continue;
      const signedIn = { saasId: line.saasId, userId: line.userId, at: line.at };
      activeDays.set(`${key}\n${line.userId}`, signedIn);
      const user = `${line.saasId}\n${line.userId}`;
      if ((latest.get(user)?.at ?? -1) < line.at) latest.set(user, signedIn);
    }
    const numbered = events.size > 0 ? await this.deps.events.sequenced([...events.values()]) : [];
    if (records.size > 0 || numbered.length > 0) await this.deps.logs.putMany([...records.values()], numbered);
    const adds = [...days.values()];
    await fewAtOnce(adds, ({ saasId, day, counts }) => this.deps.counts.add(saasId, day, counts));
    await fewAtOnce([...activeDays.values()], ({ saasId, userId, at }) => this.deps.active.signedIn(saasId, userId, at));
    await fewAtOnce([...views.values()], (v) => this.deps.pages.viewed(v.saasId, v.userId, v.views));
    await fewAtOnce([...latest.values()], ({ saasId, userId, at }) => this.deps.lastSignIns.copyLastSignIn(saasId, userId, at));
    return { records: records.size, countWrites: adds.length, events: events.size };
  }
}
