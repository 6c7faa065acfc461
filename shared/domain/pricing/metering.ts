/**
 * Metering counts of a tenant (docs/pricing.md): per metering unit and timestamp (Unix seconds), moved with
 * `add` and `sub` or set with `direct`, and read back by day, month or period in UTC.
 *
 * Exact under concurrency: every change is an atomic update in the store (an ADD of the delta, a condition
 * for what must hold), never a read followed by a write of what was read. A count never goes below zero:
 * `sub` is refused when the timestamp holds less, `direct` sets what it is given (zero or more).
 *
 * A timestamp's count is kept in up to `shards` items (write shards): updates go to the home shard, one
 * store request each, until the timestamp is hot; then they spread over the others (docs/decisions.md,
 * decision 13). Its count is their sum.
 *
 * No count, sum or answer passes 2^53 − 1 (docs/decisions.md, "Metering counts stop at 2^53 − 1"): a change
 * that would is refused by a condition in the store, so it changes nothing, and a sum that would is refused
 * when read.
 */
import { nowSeconds } from '../../clock.js';
import { DomainError, invalid, notFound } from '../../errors.js';
import type { AggregateUsage, MeteringCountUpdate } from '../../schemas/pricing.js';
import type { MeterRecord } from './catalogue-records.js';

export interface ShardCount {
  shard: number;
  count: number;
}

/**
 * The largest count kept or answered: the API's counts are JSON integers, which the JavaScript SDK (and every
 * `JSON.parse`) reads as doubles, exact only up to here (docs/decisions.md, "Metering counts stop at 2^53 − 1").
 */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/**
 * How MAX_COUNT splits once a timestamp spreads, so that its shards' sum never passes it without reading
 * them: each other shard holds at most `shard`, the home shard at most `home`; alone it holds up to `whole`.
 */
export interface ShardCaps {
  whole: number;
  home: number;
  shard: number;
}

export function shardCaps(shards: number): ShardCaps {
  const shard = shards > 1 ? Math.floor(MAX_COUNT / (2 * (shards - 1))) : 0;
  return { whole: MAX_COUNT, home: MAX_COUNT - (shards - 1) * shard, shard };
}

const tooLarge = (what: string) =>
  invalid('metering_count_too_large', `count: ${what} would pass ${MAX_COUNT}, the largest count kept exactly`, { field: 'count', limit: MAX_COUNT });

export interface TimestampCount {
  unit: string;
  timestamp: number;
  count: number;
}

/** The store's side (store/metering-repository.ts). Months are `YYYY-MM` (UTC). */
export interface MeteringRepository {
  /**
   * Adds `delta` to the timestamp's home shard (0) in one atomic update, unless the home shard would pass its
   * cap (undefined then): its new count, and whether the timestamp has spread to other shards (then that
   * count is not the whole).
   */
  addHome(
    saasId: string,
    tenantId: string,
    unit: string,
    timestamp: number,
    delta: number,
    caps: ShardCaps,
  ): Promise<{ count: number; spread: boolean } | undefined>;
  /**
   * Adds `delta` to another shard, atomically, marking the home shard `spread` before the shard's first
   * write; false (nothing written) when the shard would pass `caps.shard` or the home shard holds more than
   * `caps.home`.
   */
  add(saasId: string, tenantId: string, unit: string, timestamp: number, shard: number, delta: number, caps: ShardCaps): Promise<boolean>;
  /** The timestamp's shards that hold a count, read strongly consistent in one request. */
  shards(saasId: string, tenantId: string, unit: string, timestamp: number, shards: number): Promise<ShardCount[]>;
  /** Takes `take` from each named shard, all or none, each only while it holds at least that much. */
  take(saasId: string, tenantId: string, unit: string, timestamp: number, takes: ShardCount[]): Promise<boolean>;
  /** Sets the timestamp's count to `count` (shard 0) and empties its other shards, in one transaction. */
  set(saasId: string, tenantId: string, unit: string, timestamp: number, count: number, shards: number): Promise<void>;
  /**
   * Sets the timestamp's count to `count` in its home shard, unmarked, and empties the others, in one
   * transaction that holds only while every shard still holds what `held` says (absent when not named).
   */
  fold(saasId: string, tenantId: string, unit: string, timestamp: number, held: ShardCount[], count: number, shards: number): Promise<boolean>;
  /** Removes the timestamp's count (every shard), in one transaction. */
  remove(saasId: string, tenantId: string, unit: string, timestamp: number, shards: number): Promise<void>;
  /** A tenant's counts of one month, shards summed per unit and timestamp: one query (pages followed). */
  month(saasId: string, tenantId: string, month: string, only?: { unit: string; from: number; to: number }): Promise<TimestampCount[]>;
}

export interface MeteringDeps {
  counts: MeteringRepository;
  /** The metering unit of that name (cached briefly per warm instance). */
  meter(saasId: string, unitName: string): Promise<MeterRecord | undefined>;
  /** Every metering unit of the SaaS (for a tenant's counts of all units). */
  meters(saasId: string): Promise<MeterRecord[]>;
  /** Whether the tenant exists (cached briefly per warm instance). */
  tenantExists(saasId: string, tenantId: string): Promise<boolean>;
  /** Write shards per timestamp (METERING_WRITE_SHARDS). */
  shards: number;
  /** Updates per second of one timestamp, seen by this instance, beyond which it writes to the other shards. */
  hotPerSecond: number;
}

/** Whether an error is the store saying one item or partition takes no more writes just now. */
const isThrottled = (error: unknown) => ['ThrottlingException', 'ProvisionedThroughputExceededException'].includes((error as Error).name);

/**
 * How often this instance updated each timestamp in the current second, for the timestamps it updates: a
 * busy one spreads its writes over the shards (decision 13). Bounded like store/recent.ts.
 */
class Heat {
  private readonly seen = new Map<string, { second: number; updates: number; spread: boolean }>();

  /** Counts one update; whether the timestamp is hot (or spread already, by this instance). */
  hot(key: string, threshold: number): boolean {
    const second = Math.floor(Date.now() / 1000);
    const entry = this.seen.get(key);
    if (!entry || entry.second !== second) {
      // A new second starts cold: a spread timestamp is marked again when it spreads again (a `direct` or a
      // delete in between may have replaced the home shard and its mark).
      this.seen.delete(key);
      this.seen.set(key, { second, updates: 1, spread: false });
      if (this.seen.size > 10_000) this.seen.delete(this.seen.keys().next().value as string);
      return false;
    }
    entry.updates++;
    return entry.spread || entry.updates > threshold;
  }

  /** The timestamp stays spread, for this instance, for the rest of the second. */
  spread(key: string): void {
    const entry = this.seen.get(key);
    if (!entry?.spread) this.seen.set(key, { second: Math.floor(Date.now() / 1000), updates: 0, ...entry, spread: true });
  }
}
const heat = new Heat();

const SUB_ATTEMPTS = 5;
/** A period spans at most this long: one query per month it touches. */
const MAX_PERIOD_SECONDS = 366 * 86_400;

export const monthOf = (timestamp: number) => new Date(timestamp * 1000).toISOString().slice(0, 7);
const dateOf = (timestamp: number) => new Date(timestamp * 1000).toISOString().slice(0, 10);

/** The first and last second of a UTC day `YYYY-MM-DD`; a 400 for a day that does not exist. */
export function dayBounds(date: string): { from: number; to: number } {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) {
    throw invalid('invalid_parameter', `date: ${date} is not a day of the calendar (YYYY-MM-DD)`, { field: 'date' });
  }
  return { from: ms / 1000, to: ms / 1000 + 86_399 };
}

export function monthBounds(month: string): { from: number; to: number } {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const from = Date.UTC(year, m - 1, 1) / 1000;
  return { from, to: Date.UTC(year, m, 1) / 1000 - 1 };
}

/** The months from `from` to `to`, in order. */
function monthsBetween(from: number, to: number): string[] {
  const months: string[] = [];
  for (let at = monthBounds(monthOf(from)).from; at <= to; at = monthBounds(monthOf(at)).to + 1) months.push(monthOf(at));
  return months;
}

/**
 * The sum of counts each within MAX_COUNT, refused (never rounded) past it: `total + count` is compared as
 * `count > MAX_COUNT - total`, where both sides are exact. A stored count past the bound (written before it
 * was kept) reads as more than MAX_COUNT, and is refused too.
 */
function exactSum(counts: readonly { count: number }[], what: string): number {
  let total = 0;
  for (const { count } of counts) {
    if (count > MAX_COUNT - total) throw tooLarge(what);
    total += count;
  }
  return total;
}

/** `sum`: the period's total; `max`: its largest count at one timestamp. */
function aggregate(counts: readonly TimestampCount[], how: AggregateUsage, unit: string): number {
  if (how === 'max') return exactSum([{ count: counts.reduce((max, c) => Math.max(max, c.count), 0) }], `the largest count of ${unit}`);
  return exactSum(counts, `the sum of ${unit}'s counts`);
}

const sumOf = (shards: readonly ShardCount[]) => exactSum(shards, 'the count');

export class MeteringService {
  private readonly caps: ShardCaps;

  constructor(private readonly deps: MeteringDeps) {
    this.caps = shardCaps(deps.shards);
  }

  /** Unknown tenants and units are a 404, before anything is written. */
  private async meterOf(saasId: string, tenantId: string, unitName: string): Promise<MeterRecord> {
    const [meter, tenant] = await Promise.all([this.deps.meter(saasId, unitName), this.deps.tenantExists(saasId, tenantId)]);
    if (!tenant) throw notFound('tenant_not_found', `no tenant with id ${tenantId}`);
    if (!meter) throw notFound('metering_unit_not_found', `no metering unit named ${unitName} (POST /v1/pricing/metering/units makes one)`);
    return meter;
  }

  private async tenant(saasId: string, tenantId: string): Promise<void> {
    if (!(await this.deps.tenantExists(saasId, tenantId))) throw notFound('tenant_not_found', `no tenant with id ${tenantId}`);
  }

  async update(saasId: string, tenantId: string, unitName: string, timestamp: number | 'now', change: MeteringCountUpdate) {
    await this.meterOf(saasId, tenantId, unitName);
    const at = timestamp === 'now' ? nowSeconds() : timestamp;
    const { counts, shards } = this.deps;
    let count: number;
    if (change.method === 'direct') {
      await counts.set(saasId, tenantId, unitName, at, change.count, shards);
      count = change.count;
    } else {
      if (change.method === 'add')
        return { metering_unit_name: unitName, timestamp: at, count: await this.add(saasId, tenantId, unitName, at, change.count) };
      await this.subtract(saasId, tenantId, unitName, at, change.count);
      count = sumOf(await counts.shards(saasId, tenantId, unitName, at, shards));
    }
    return { metering_unit_name: unitName, timestamp: at, count };
  }

  /**
   * One atomic update of the home shard, whose answer is the count while the timestamp has not spread: one
   * store request. A timestamp this instance updates more than `hotPerSecond` times a second, or whose home
   * shard is throttled, spreads: the update goes to another shard at random (the home shard marked `spread`
   * before that shard's first write) and the count is read back from all of them. Each shard holds at most
   * its part of MAX_COUNT (shardCaps); an add that finds its part full, near the bound, is folded instead.
   */
  private async add(saasId: string, tenantId: string, unit: string, at: number, amount: number): Promise<number> {
    const { counts, shards, hotPerSecond } = this.deps;
    const key = `${saasId}\n${tenantId}\n${unit}\n${at}`;
    const whole = async () => sumOf(await counts.shards(saasId, tenantId, unit, at, shards));
    const spread = () => {
      heat.spread(key);
      return counts.add(saasId, tenantId, unit, at, 1 + Math.floor(Math.random() * (shards - 1)), amount, this.caps);
    };
    if (shards > 1 && heat.hot(key, hotPerSecond) && (await spread())) return whole();
    let home: Awaited<ReturnType<MeteringRepository['addHome']>>;
    try {
      home = await counts.addHome(saasId, tenantId, unit, at, amount, this.caps);
    } catch (error) {
      if (shards === 1 || !isThrottled(error)) throw error;
      if (await spread()) return whole();
      throw error;
    }
    if (!home) return this.fold(saasId, tenantId, unit, at, amount);
    return home.spread ? whole() : home.count;
  }

  /**
   * An add the shards' caps refused: the whole count is read, the add refused when it would pass MAX_COUNT,
   * else the count is folded into the home shard, unmarked (so it may hold up to MAX_COUNT alone again), on
   * the condition that no shard changed since the read.
   */
  private async fold(saasId: string, tenantId: string, unit: string, at: number, amount: number): Promise<number> {
    for (let attempt = 0; attempt < SUB_ATTEMPTS; attempt++) {
      const held = await this.deps.counts.shards(saasId, tenantId, unit, at, this.deps.shards);
      const total = sumOf(held);
      if (amount > MAX_COUNT - total) throw tooLarge(`${unit} holds ${total} at ${at}; adding ${amount}`);
      if (await this.deps.counts.fold(saasId, tenantId, unit, at, held, total + amount, this.deps.shards)) return total + amount;
    }
    throw new DomainError('conflict', 'concurrent_update', `the count of ${unit} at ${at} changed at the same time; try again`);
  }

  /** From the fullest shard when it holds enough, else from several at once; never below zero. */
  private async subtract(saasId: string, tenantId: string, unit: string, at: number, amount: number): Promise<void> {
    if (amount === 0) return;
    for (let attempt = 0; attempt < SUB_ATTEMPTS; attempt++) {
      const held = (await this.deps.counts.shards(saasId, tenantId, unit, at, this.deps.shards)).sort((a, b) => b.count - a.count);
      const total = sumOf(held);
      if (total < amount) {
        throw invalid('metering_count_negative', `count: ${unit} holds ${total} at ${at}; subtracting ${amount} would make it negative`, {
          field: 'count',
        });
      }
      const takes: ShardCount[] = [];
      let left = amount;
      for (const shard of held) {
        if (left === 0) break;
        const take = Math.min(shard.count, left);
        takes.push({ shard: shard.shard, count: take });
        left -= take;
      }
      if (await this.deps.counts.take(saasId, tenantId, unit, at, takes)) return;
    }
    throw new DomainError('conflict', 'concurrent_update', `the count of ${unit} at ${at} changed at the same time; try again`);
  }

  async deleteTimestamp(saasId: string, tenantId: string, unitName: string, timestamp: number): Promise<void> {
    await this.meterOf(saasId, tenantId, unitName);
    await this.deps.counts.remove(saasId, tenantId, unitName, timestamp, this.deps.shards);
  }

  private async unitCounts(saasId: string, tenantId: string, unit: string, from: number, to: number): Promise<TimestampCount[]> {
    const months = monthsBetween(from, to);
    const parts = await Promise.all(months.map((month) => this.deps.counts.month(saasId, tenantId, month, { unit, from, to })));
    return parts.flat().sort((a, b) => a.timestamp - b.timestamp);
  }

  async dateCount(saasId: string, tenantId: string, unitName: string, date: string | 'today') {
    const day = date === 'today' ? dateOf(nowSeconds()) : date;
    const { from, to } = dayBounds(day);
    const meter = await this.meterOf(saasId, tenantId, unitName);
    const counts = await this.unitCounts(saasId, tenantId, unitName, from, to);
    return { metering_unit_name: unitName, date: day, count: aggregate(counts, meter.aggregate_usage, unitName) };
  }

  async monthCount(saasId: string, tenantId: string, unitName: string, month: string | 'this') {
    const m = month === 'this' ? monthOf(nowSeconds()) : month;
    const meter = await this.meterOf(saasId, tenantId, unitName);
    const { from, to } = monthBounds(m);
    const counts = await this.deps.counts.month(saasId, tenantId, m, { unit: unitName, from, to });
    return { metering_unit_name: unitName, month: m, count: aggregate(counts, meter.aggregate_usage, unitName) };
  }

  /** Every metering unit of the SaaS, each with its count in the tenant's month or day (0 when none). */
  private async allUnits<K extends 'date' | 'month'>(saasId: string, tenantId: string, key: K, value: string, from: number, to: number) {
    const [meters] = await Promise.all([this.deps.meters(saasId), this.tenant(saasId, tenantId)]);
    const counts = (await this.deps.counts.month(saasId, tenantId, monthOf(from))).filter((c) => c.timestamp >= from && c.timestamp <= to);
    return {
      counts: meters.map((meter) => ({
        metering_unit_name: meter.unit_name,
        [key]: value,
        count: aggregate(
          counts.filter((c) => c.unit === meter.unit_name),
          meter.aggregate_usage,
          meter.unit_name,
        ),
      })) as ({ metering_unit_name: string; count: number } & Record<K, string>)[],
    };
  }

  dateCounts(saasId: string, tenantId: string, date: string) {
    const { from, to } = dayBounds(date);
    return this.allUnits(saasId, tenantId, 'date', date, from, to);
  }

  monthCounts(saasId: string, tenantId: string, month: string) {
    const { from, to } = monthBounds(month);
    return this.allUnits(saasId, tenantId, 'month', month, from, to);
  }

  /** Counts per timestamp from `start` to `end` (inclusive); by default from the start of end's month to now. */
  async period(saasId: string, tenantId: string, unitName: string, start?: number, end?: number) {
    const to = end ?? nowSeconds();
    const from = start ?? monthBounds(monthOf(to)).from;
    if (from > to) throw invalid('invalid_parameter', 'start_timestamp: must not be after end_timestamp', { field: 'start_timestamp' });
    if (to - from > MAX_PERIOD_SECONDS) {
      throw invalid('invalid_parameter', `end_timestamp: a period spans at most ${MAX_PERIOD_SECONDS} seconds (366 days)`, {
        field: 'end_timestamp',
      });
    }
    await this.meterOf(saasId, tenantId, unitName);
    const counts = await this.unitCounts(saasId, tenantId, unitName, from, to);
    return {
      metering_unit_name: unitName,
      counts: counts.map(({ timestamp, count }) => ({ timestamp, count: exactSum([{ count }], `the count at ${timestamp}`) })),
    };
  }
}
