/**
 * The login page's files, read once at start-up: the page, its style and its bundled script. The page itself
 * is sent in the browser's language, as the service's hosted screen is (web/login/language.ts): `?lang=`, then
 * the switch's cookie, then Accept-Language, English when none matches. The page's script makes the same
 * choice (page/texts.ts), so what the server sends is what the script keeps, and a browser without script
 * still reads its own language.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppRequest } from './http.js';

export interface StaticFile {
  type: string;
  body: Uint8Array;
  /** What else the answer depends on, for caches: the page, on the language it was chosen by. */
  vary?: string;
}
export interface StaticFiles {
  get(path: string, request: Pick<AppRequest, 'query' | 'cookies' | 'headers'>): StaticFile | undefined;
}

const PAGE_FILES = [
  ['/styles.css', 'styles.css', 'text/css; charset=utf-8'],
  ['/app.js', 'app.js', 'text/javascript; charset=utf-8'],
  ['/favicon.svg', 'favicon.svg', 'image/svg+xml'],
] as const;

/** One catalogue of public/texts.json (written by build.ts from page/texts.ts): the strings the page marks. */
type Catalogue = Readonly<Record<string, unknown>>;
const LANG_COOKIE = 'app_lang';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** index.html with every `data-text` element, the title, the switch's label and `<html lang>` in one language. */
function localize(html: string, texts: Catalogue): string {
  const text = (key: string, fallback: string) => (typeof texts[key] === 'string' ? escape(texts[key]) : fallback);
  return html
    .replace(/<html lang="[^"]*">/, `<html lang="${text('lang', 'en')}">`)
    .replace(/(data-text="(\w+)"[^>]*>)([^<]*)</g, (_all, open: string, key: string, old: string) => `${open}${text(key, old)}<`)
    .replace(/aria-label="[^"]*"( data-label="(\w+)")/g, (all, rest: string, key: string) =>
      typeof texts[key] === 'string' ? `aria-label="${escape(texts[key])}"${rest}` : all,
    );
}

/**
 * Accept-Language's tags in the order sent, less those refused with q=0: browsers list them most wanted first,
 * so this small rule picks what the screen's fuller one (which also sorts by q) picks for them.
 */
const acceptedTags = (header: string) =>
  header
    .split(',')
    .filter((part) => !/;\s*q=0(\.0*)?\s*$/.test(part))
    .map((part) => part.split(';')[0] ?? '');

export function loadStaticFiles(publicDir: string): StaticFiles {
  const files = new Map<string, StaticFile>(PAGE_FILES.map(([path, file, type]) => [path, { type, body: readFileSync(join(publicDir, file)) }]));
  const html = readFileSync(join(publicDir, 'index.html'), 'utf8');
  const catalogues = JSON.parse(readFileSync(join(publicDir, 'texts.json'), 'utf8')) as Record<string, Catalogue>;
  const pages = new Map(Object.entries(catalogues).map(([lang, texts]) => [lang, Buffer.from(localize(html, texts))]));
  const pageIn = (tag: string | null | undefined) => pages.get((tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '');
  return {
    get(path, request) {
      if (path !== '/') return files.get(path);
      const body =
        pageIn(request.query.get('lang')) ??
        pageIn(request.cookies[LANG_COOKIE]) ??
        acceptedTags(request.headers['accept-language'] ?? '')
          .map(pageIn)
          .find(Boolean) ??
        (pages.get('en') as Buffer);
      return { type: 'text/html; charset=utf-8', body, vary: 'Accept-Language, Cookie' };
    },
  };
}
