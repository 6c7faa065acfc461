/**
 * Paged searches. A search reads an ordered source (an index or a partition, chosen by the filter) from a
 * position and keeps what matches. The cursor is the position of the last item handed out, base64url
 * encoded, and a MAC of it under a per-deployment key, bound to the SaaS and the search (its filter): only a
 * cursor this deployment handed out for this very search is taken back, so an altered cursor, even one
 * still in range, answers 400. Beneath that, the source rebuilds its read from its own partition (so a
 * cursor cannot reach another SaaS) and accepts only positions inside the filter's range.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { constantTimeEqual } from '../crypto/compare.js';
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

/** Bytes of the MAC a cursor carries: 128 bits, beyond guessing. */
const MAC_BYTES = 16;

/** Seals positions into cursors and opens them again; `scope` names the SaaS and the search with its filter. */
export class Cursors {
  private key: Promise<Buffer> | undefined;

  /** `secret`: a deployment secret; the cursor key is derived from it for this use alone. */
  constructor(private readonly secret: () => Promise<Buffer>) {}

  private macKey(): Promise<Buffer> {
    this.key ??= this.secret().then((secret) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'search cursors v1', 32)));
    this.key.catch(() => (this.key = undefined));
    return this.key;
  }

  private async mac(scope: string, position: string): Promise<Buffer> {
    return createHmac('sha256', await this.macKey())
      .update(`${scope}\n${position}`)
      .digest()
      .subarray(0, MAC_BYTES);
  }

  async seal(scope: string, position: string): Promise<string> {
    return `${Buffer.from(position, 'utf8').toString('base64url')}.${(await this.mac(scope, position)).toString('base64url')}`;
  }

  async open(scope: string, cursor: string): Promise<string> {
    const [encoded, mac, ...rest] = cursor.split('.');
    if (!encoded || !mac || rest.length > 0) throw badCursor();
    const position = Buffer.from(encoded, 'base64url').toString('utf8');
    // Only the canonical encoding of a position is a cursor, and only with this deployment's MAC for this search.
    if (Buffer.from(position, 'utf8').toString('base64url') !== encoded) throw badCursor();
    if (!constantTimeEqual(mac, (await this.mac(scope, position)).toString('base64url'))) throw badCursor();
    return position;
  }
}

/** How a search's cursors are sealed: the deployment's cursors and the search's scope (SaaS, search, filter). */
export interface CursorScope {
  cursors: Cursors;
  scope: string;
}

/** The next `limit` items of the source that `keep` accepts, after the cursor's position. */
export async function readPage<T>(
  source: OrderedSource<T>,
  sealing: CursorScope,
  cursor: string | undefined,
  limit: number,
  keep: (item: T) => boolean = () => true,
): Promise<Page<T>> {
  const after = cursor === undefined ? undefined : await sealing.cursors.open(sealing.scope, cursor);
  if (after !== undefined && !source.accepts(after)) throw badCursor();
  const kept: Positioned<T>[] = [];
  for await (const entry of source.read(after)) {
    if (!keep(entry.item)) continue;
    // One more match than the page holds proves a next page; the cursor is the last item handed out.
    if (kept.length === limit) {
      const last = kept[limit - 1] as Positioned<T>;
      return { items: kept.map((k) => k.item), cursor: await sealing.cursors.seal(sealing.scope, last.position) };
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
