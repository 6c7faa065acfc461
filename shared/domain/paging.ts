/**
 * Paged searches. A search reads an ordered source (an index or a partition, chosen by the filter) from a
 * position and keeps what matches. The cursor is the position of the last item handed out, base64url
 * encoded and nothing more: the source rebuilds its read from its own partition (so a cursor cannot reach
 * another SaaS) and accepts only positions inside the filter's range (so it cannot reach past the filter).
 */
import { invalid } from '../errors.js';

export interface Positioned<T> {
  position: string;
  item: T;
}

export interface OrderedSource<T> {
  /** Whether `position` is one this source could have handed out for its filter. */
  accepts(position: string): boolean;
  /** Items strictly after `position` (from the start without one), in a fixed order, read as they are needed. */
  read(after: string | undefined): AsyncIterable<Positioned<T>>;
}

export interface Page<T> {
  items: T[];
  /** Present only when there is a next page. */
  cursor?: string;
}

export const MAX_PAGE_SIZE = 100;

const badCursor = () => invalid('invalid_cursor', 'cursor: is not a cursor of this search; start again without one', { field: 'cursor' });

function positionOf(cursor: string): string {
  const position = Buffer.from(cursor, 'base64url').toString('utf8');
  // Only the canonical encoding of a position is a cursor: anything else was made or altered by hand.
  if (!cursor || Buffer.from(position, 'utf8').toString('base64url') !== cursor) throw badCursor();
  return position;
}

/** The next `limit` items of the source that `keep` accepts, after the cursor's position. */
export async function readPage<T>(
  source: OrderedSource<T>,
  cursor: string | undefined,
  limit: number,
  keep: (item: T) => boolean = () => true,
): Promise<Page<T>> {
  const after = cursor === undefined ? undefined : positionOf(cursor);
  if (after !== undefined && !source.accepts(after)) throw badCursor();
  const kept: Positioned<T>[] = [];
  for await (const entry of source.read(after)) {
    if (!keep(entry.item)) continue;
    // One more match than the page holds proves a next page; the cursor is the last item handed out.
    if (kept.length === limit) {
      const last = kept[limit - 1] as Positioned<T>;
      return { items: kept.map((k) => k.item), cursor: Buffer.from(last.position, 'utf8').toString('base64url') };
    }
    kept.push(entry);
  }
  return { items: kept.map((k) => k.item) };
}

/** Every item of the source, in its order. */
export async function collect<T>(source: OrderedSource<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const entry of source.read(undefined)) items.push(entry.item);
  return items;
}
