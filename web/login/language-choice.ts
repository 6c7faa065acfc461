/**
 * How a request's language is chosen among catalogues: `?lang=` first (as Cognito's managed login takes it), then
 * the cookie the page's language switch sets, then the browser's Accept-Language. Apart from language.ts, which
 * holds the screen's whole catalogues, so the not-found page of every API function (unmatched-page.ts) chooses
 * among its own few words without carrying the screen's.
 */
import { cookie } from '../kit/cookies.js';

export const LANG_COOKIE = 'login_lang';

/** The catalogue of a language tag (`ja`, `ja-JP`, `EN-us`), by its primary subtag. */
export function catalogueIn<T>(catalogues: Readonly<Record<string, T>>, tag: string | null | undefined): T | undefined {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return Object.hasOwn(catalogues, primary) ? catalogues[primary] : undefined;
}

/** Accept-Language's tags, most wanted first (q=0 means "not this one"). */
function acceptedTags(header: string): string[] {
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}

/** The catalogue the request asks for, or `fallback` when none matches. */
export function chooseIn<T>(
  catalogues: Readonly<Record<string, T>>,
  fallback: T,
  query: URLSearchParams,
  headers: Record<string, string | undefined>,
): T {
  return (
    catalogueIn(catalogues, query.get('lang')) ??
    catalogueIn(catalogues, cookie(headers.cookie, LANG_COOKIE)) ??
    acceptedTags(headers['accept-language'] ?? '')
      .map((tag) => catalogueIn(catalogues, tag))
      .find(Boolean) ??
    fallback
  );
}
