/**
 * What may be used of a stored settings document. A document holds what was valid when it was written; older
 * rows, imported data or a looser rule of the past may hold what no page can use (a URL the parser refuses, a
 * string where a number goes). Every member a reader names is checked against the schema its writes are
 * checked with (shared/schemas/web-url.ts for URLs); one that fails is left out, so the reader's default
 * stands, and is counted (StoredSettingUnusable) and logged, so the login screen and the API keep answering and
 * an operator learns what to fix (issue 36).
 */
import type { TObject } from '@sinclair/typebox';
import { log } from '../../log.js';
import { metrics } from '../../metrics.js';
import { checker } from '../../schemas/check.js';

/** Counts and logs a stored value left out; the value itself is not logged (it may be anything, of any size). */
export function unusableSetting(where: { saasId: string; document: string }, member: string): void {
  metrics.count('StoredSettingUnusable');
  log.warn('a stored setting cannot be used and is left out', { saasId: where.saasId, document: where.document, member });
}

/**
 * The members of `stored` that `shape` names and accepts (a member it does not name is no setting: dropped
 * unnoticed); undefined for a document never saved. A document that is not an object is left out whole.
 */
export function usableSettings<T extends object>(
  shape: TObject,
  stored: unknown,
  where: { saasId: string; document: string },
): Partial<T> | undefined {
  if (stored === undefined) return undefined;
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) {
    unusableSetting(where, '(document)');
    return {};
  }
  const usable: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(stored)) {
    const schema = Object.hasOwn(shape.properties, member) ? shape.properties[member] : undefined;
    if (schema === undefined) continue;
    if (checker(schema).Check(value)) usable[member] = value;
    else unusableSetting(where, member);
  }
  return usable as Partial<T>;
}
