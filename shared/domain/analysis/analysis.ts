/**
 * The Analysis API (/v1/analysis), from what the service keeps: the counts of creates and GetUserInfo calls per day
 * come from the API log (so as far back as it keeps calls); active users are counted from the sign-ins
 * (active-users.ts), SaaS-wide, beside the figures the SaaS saves with PUT (SaaSus's definition has the SaaS send
 * them, per tenant); the users' page histories are what the SaaS saves with PUT, histories kept one month; page
 * statistics are computed from those histories.
 */
import { invalid } from '../../errors.js';
import type { ApiLogRecord, ApiLogRepository } from '../apilog/api-log.js';
import type { ActiveUserMarks } from './active-users.js';

export type ActiveUsersType = 'daily' | 'monthly';

export interface ActiveUsersRow {
  type: ActiveUsersType;
  date: string;
  tenant_id: string;
  env_id: number;
  active_users: number;
}

export interface BehaviorEntry {
  timestamp: number;
  referer: string;
}

/** One user's histories of one UTC day. */
export interface BehaviorDay {
  userId: string;
  /** Unix seconds of the day's start. */
  day: number;
  histories: BehaviorEntry[];
}

export interface AnalysisRepository {
  putActiveUsers(saasId: string, row: ActiveUsersRow): Promise<void>;
  /** The rows of `type` with `from <= date <= to` (strings of one shape compare as dates). */
  activeUsers(saasId: string, type: ActiveUsersType, from: string, to: string): Promise<ActiveUsersRow[]>;
  /** Replaces a user's histories of one day; kept until `expiresAt` (Unix seconds). */
  putBehaviorDay(saasId: string, day: BehaviorDay, expiresAt: number): Promise<void>;
  behaviorOfUser(saasId: string, userId: string, fromDay: number): Promise<BehaviorDay[]>;
  /** Every user's days from `fromDay` to `toDay` (Unix seconds of day starts, both included). */
  behaviorBetween(saasId: string, fromDay: number, toDay: number): Promise<BehaviorDay[]>;
}

const DAY = 86_400;
const MONTH = 31 * DAY;
/** The most days one question may span: a year, so one answer stays small. */
const MAX_DAYS = 366;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
/**
 * The tenant and environment the counted active users answer under: SaaS-wide (a sign-in is to the SaaS, not to one
 * tenant), so the nil UUID, SaaSus's key for no tenant, and environment 0, which no SaaSus environment has.
 */
export const COUNTED_TENANT = { tenant_id: NIL_UUID, env_id: 0 } as const;

export const dayStart = (seconds: number) => Math.floor(seconds / DAY) * DAY;
/** When a day's histories are dropped: a month after the day ends. */
export const behaviorExpiresAt = (day: number) => day + MONTH + DAY;

function dateOf(value: string, field: string, shape: 'day' | 'month'): number {
  const full = shape === 'month' ? `${value}-01` : value;
  const ms = Date.parse(`${full}T00:00:00Z`);
  const pattern = shape === 'month' ? /^\d{4}-\d{2}$/ : /^\d{4}-\d{2}-\d{2}$/;
  if (!pattern.test(value) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== full) {
    throw invalid('invalid_parameter', `${field}: must be a date ${shape === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD'}`, { field });
  }
  return ms / 1000;
}

function range(start: string, end: string, startField: string, endField: string): [number, number] {
  const from = dateOf(start, startField, 'day');
  const to = dateOf(end, endField, 'day');
  if (to < from) throw invalid('invalid_parameter', `${endField}: must not be before ${startField}`, { field: endField });
  if ((to - from) / DAY >= MAX_DAYS)
    throw invalid('invalid_parameter', `${endField}: at most ${MAX_DAYS} days after ${startField}`, { field: endField });
  return [from, to];
}

const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** Which metric a call of the API log counts for, and the tenant it names, if any. */
function metricOf(record: ApiLogRecord): { type: string; tenantId?: string } | undefined {
  if (record.method !== 'POST' || record.status !== 201) return undefined;
  const path = record.uri.split('?')[0] as string;
  if (path === '/v1/auth/tenants') return { type: 'create_tenant' };
  if (path === '/v1/auth/users') return { type: 'create_saas_user' };
  const tenantUser = /^\/v1\/auth\/tenants\/([^/]+)\/users$/.exec(path);
  return tenantUser ? { type: 'create_tenant_user', tenantId: decodeURIComponent(tenantUser[1] as string) } : undefined;
}

const splitIds = (ids: string | undefined) =>
  ids
    ? new Set(
        ids
          .split(',')
          .map((id) => id.trim().toLowerCase())
          .filter(Boolean),
      )
    : undefined;

export class AnalysisService {
  constructor(
    private readonly deps: {
      analysis: AnalysisRepository & Pick<ActiveUserMarks, 'counts'>;
      logs: Pick<ApiLogRepository, 'between'>;
      /** Unix seconds. */
      now: () => number;
    },
  ) {}

  async updateActiveUsers(saasId: string, row: ActiveUsersRow): Promise<void> {
    dateOf(row.date, 'date', row.type === 'monthly' ? 'month' : 'day');
    await this.deps.analysis.putActiveUsers(saasId, { ...row, tenant_id: row.tenant_id.toLowerCase() });
  }

  async activeUsers(saasId: string, query: { type: ActiveUsersType; date_from: string; date_to?: string; tenant_id?: string; env_id?: number }) {
    const shape = query.type === 'monthly' ? 'month' : 'day';
    dateOf(query.date_from, 'date_from', shape);
    if (query.date_to !== undefined) dateOf(query.date_to, 'date_to', shape);
    if (query.env_id !== undefined && query.tenant_id === undefined) {
      throw invalid('invalid_parameter', 'env_id: needs tenant_id', { field: 'env_id' });
    }
    const to = query.date_to ?? '9999-12-31';
    const [saved, counted] = await Promise.all([
      this.deps.analysis.activeUsers(saasId, query.type, query.date_from, to),
      this.deps.analysis.counts(saasId, query.type, query.date_from, to),
    ]);
    // A figure the SaaS saved for the same date, tenant and environment is its word, and stands.
    const savedKeys = new Set(saved.map((r) => `${r.date}#${r.tenant_id}#${r.env_id}`));
    const rows = [
      ...saved,
      ...counted
        .filter((c) => !savedKeys.has(`${c.date}#${COUNTED_TENANT.tenant_id}#${COUNTED_TENANT.env_id}`))
        .map((c) => ({ type: query.type, date: c.date, ...COUNTED_TENANT, active_users: c.active_users })),
    ].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    const tenant = query.tenant_id?.toLowerCase();
    return {
      data: rows
        .filter((r) => (tenant === undefined || r.tenant_id === tenant) && (query.env_id === undefined || r.env_id === query.env_id))
        .map(({ date, tenant_id, env_id, active_users }) => ({ date, tenant_id, env_id, active_users })),
    };
  }

  /** A user's histories of the day `timestamp` falls in, replacing what was saved for that day. */
  async updateBehaviorDay(saasId: string, input: { timestamp: number; user_id: string; histories: BehaviorEntry[] }): Promise<void> {
    const day = dayStart(input.timestamp);
    const histories = input.histories.map(({ timestamp, referer }) => ({ timestamp, referer })).sort((a, b) => a.timestamp - b.timestamp);
    await this.deps.analysis.putBehaviorDay(saasId, { userId: input.user_id.toLowerCase(), day, histories }, behaviorExpiresAt(day));
  }

  /** The user's histories of the past month, oldest day first. */
  async behaviorHistories(saasId: string, userId: string) {
    const days = await this.deps.analysis.behaviorOfUser(saasId, userId.toLowerCase(), dayStart(this.deps.now()) - MONTH);
    return { histories: days.map((d) => ({ behaved_at: d.day, histories: d.histories })) };
  }

  /** Views and unique users per page (the referer's origin and path) among the histories of the period. */
  async pageStatistics(saasId: string, start: number, end: number) {
    if (end < start) throw invalid('invalid_parameter', 'end_timestamp: must not be before start_timestamp', { field: 'end_timestamp' });
    if (end - start > MAX_DAYS * DAY)
      throw invalid('invalid_parameter', `end_timestamp: at most ${MAX_DAYS} days after start_timestamp`, { field: 'end_timestamp' });
    const days = await this.deps.analysis.behaviorBetween(saasId, dayStart(start), dayStart(end));
    const pages = new Map<string, { views: number; users: Set<string> }>();
    const users = new Set<string>();
    let views = 0;
    for (const day of days) {
      for (const entry of day.histories) {
        if (entry.timestamp < start || entry.timestamp > end) continue;
        const page = pages.get(entry.referer) ?? { views: 0, users: new Set<string>() };
        page.views += 1;
        page.users.add(day.userId);
        pages.set(entry.referer, page);
        users.add(day.userId);
        views += 1;
      }
    }
    return {
      start_date: start,
      end_date: end,
      total_page_views: views,
      total_unique_users: users.size,
      page_statistics: [...pages.entries()]
        .map(([page_url, p]) => ({ page_url, total_views: p.views, unique_users: p.users.size }))
        .sort((a, b) => b.total_views - a.total_views || (a.page_url < b.page_url ? -1 : 1)),
    };
  }

  /** Creates of tenants, SaaS users or tenant users per day, from the API log (tenant users also by tenant). */
  async aggregatedMetrics(saasId: string, query: { metrics_type: string; start_date: string; end_date: string; tenant_ids?: string }) {
    const [from, to] = range(query.start_date, query.end_date, 'start_date', 'end_date');
    const tenants = splitIds(query.tenant_ids);
    const days = new Map<string, { count: number; details: Record<string, number> }>();
    for (let day = from; day <= to; day += DAY) days.set(isoDay(day), { count: 0, details: {} });
    for await (const record of this.records(saasId, from, to)) {
      const metric = metricOf(record);
      if (metric?.type !== query.metrics_type) continue;
      if (metric.tenantId && tenants && !tenants.has(metric.tenantId.toLowerCase())) continue;
      const entry = days.get(isoDay(Math.floor(record.at / 1000))) as { count: number; details: Record<string, number> };
      entry.count += 1;
      if (metric.tenantId) entry.details[metric.tenantId] = (entry.details[metric.tenantId] ?? 0) + 1;
    }
    const withDetails = query.metrics_type === 'create_tenant_user';
    return { metrics: [...days.entries()].map(([date, e]) => ({ date, count: e.count, ...(withDetails ? { details: e.details } : {}) })) };
  }

  /**
   * GetUserInfo calls per day. The API log does not know which tenant a user's call was for, so every call is
   * counted under the nil UUID (SaaSus's own key for calls of no tenant); `tenant_ids` without it leaves them out.
   */
  async aggregatedUserInfo(saasId: string, query: { start_date: string; end_date: string; tenant_ids?: string }) {
    const [from, to] = range(query.start_date, query.end_date, 'start_date', 'end_date');
    const tenants = splitIds(query.tenant_ids);
    const counts = new Map<string, number>();
    for (let day = from; day <= to; day += DAY) counts.set(isoDay(day), 0);
    if (!tenants || tenants.has(NIL_UUID)) {
      for await (const record of this.records(saasId, from, to)) {
        if (record.method !== 'GET' || record.status !== 200 || (record.uri.split('?')[0] as string) !== '/v1/auth/userinfo') continue;
        const day = isoDay(Math.floor(record.at / 1000));
        counts.set(day, (counts.get(day) ?? 0) + 1);
      }
    }
    return {
      metrics: [...counts.entries()].map(([date, count]) => ({ date, details: (count > 0 ? { [NIL_UUID]: count } : {}) as Record<string, number> })),
    };
  }

  private async *records(saasId: string, from: number, to: number): AsyncIterable<ApiLogRecord> {
    for await (const { item } of this.deps.logs.between(saasId, from * 1000, (to + DAY) * 1000).read(undefined)) yield item;
  }
}
