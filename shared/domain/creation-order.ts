/**
 * The order of records by when they were made. A record keeps the millisecond it was made (`created_ms`), so two
 * made within one second keep their order; one written before that was kept has only its second, read as the
 * second × 1000. Import jobs (shared/store/import-repository.ts) and feedback (communication/feedback.ts) both
 * list in this order.
 */

/** When a record was made, in milliseconds: its kept millisecond, else its second × 1000. */
export const createdMs = (ms: number | undefined, seconds: number): number => ms ?? seconds * 1000;

/** Oldest first by `created` (a record's createdMs), then by id; compare (b, a) for newest first. */
export const byCreation =
  <T extends { id: string }>(created: (item: T) => number) =>
  (a: T, b: T): number =>
    created(a) - created(b) || a.id.localeCompare(b.id);
