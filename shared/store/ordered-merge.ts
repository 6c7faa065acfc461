import type { Positioned } from '../domain/paging.js';

/**
 * DynamoDB's order of string sort keys: their UTF-8 bytes, which is code point order. JavaScript's `<` compares
 * UTF-16 units, which differs only where a surrogate (a code point past U+FFFF) meets a unit from U+E000 up.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Sources each in ascending position order, as one list in that order, each position once (an entry that
 * moved between sources while they were read is met twice; the second is dropped), only positions after
 * `after`. A source's next item is asked for only when the merge needs it: a reader that stops after a page
 * makes no read past it.
 */
export async function* mergeAscending<T>(sources: AsyncIterator<Positioned<T>>[], after?: string): AsyncGenerator<Positioned<T>> {
  const heads = await Promise.all(sources.map((source) => source.next()));
  let last = after;
  let taken = -1;
  try {
    for (;;) {
      if (taken >= 0) heads[taken] = await (sources[taken] as AsyncIterator<Positioned<T>>).next();
      taken = -1;
      let best: Positioned<T> | undefined;
      for (const [i, head] of heads.entries()) {
        if (head.done) continue;
        if (best === undefined || compareKeys(head.value.position, best.position) < 0) {
          best = head.value;
          taken = i;
        }
      }
      if (best === undefined) return;
      if (last !== undefined && compareKeys(best.position, last) <= 0) continue;
      last = best.position;
      yield best;
    }
  } finally {
    await Promise.all(sources.map((source) => source.return?.()));
  }
}
