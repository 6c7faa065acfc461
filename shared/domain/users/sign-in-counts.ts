/**
 * A SaaS's sign-ins, refused proofs and lockouts counted per UTC day, for the console's overview. The counts
 * are not written by the sign-in (it stays at its three store requests): each outcome is told to a sink that
 * adds them up and writes them a batch at a time, so a count may trail its sign-in by that batch's delay.
 */
import type { ActivityKind } from './activity.js';

/** The activity kinds counted SaaS-wide. */
export const COUNTED_KINDS = ['sign_in_succeeded', 'sign_in_failed', 'locked_out'] as const satisfies readonly ActivityKind[];
export type CountedKind = (typeof COUNTED_KINDS)[number];

export const isCountedKind = (kind: ActivityKind): kind is CountedKind => (COUNTED_KINDS as readonly ActivityKind[]).includes(kind);

/** One day's counts; a kind with none is 0. */
export type DayCounts = { day: string } & Record<CountedKind, number>;

export interface SignInCountsRepository {
  /** Adds to one day's counts (atomic: concurrent adds all count). */
  add(saasId: string, day: string, counts: Partial<Record<CountedKind, number>>): Promise<void>;
  /** The days from `fromDay` to `toDay` (both included, YYYY-MM-DD) that have counts, oldest first. */
  days(saasId: string, fromDay: string, toDay: string): Promise<DayCounts[]>;
}

/** The UTC day (YYYY-MM-DD) of a Unix time in seconds. */
export const utcDay = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().slice(0, 10);
