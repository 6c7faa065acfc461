/** The login page's files, read once at start-up: the page, its style and its bundled script. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type StaticFiles = ReadonlyMap<string, { type: string; body: Uint8Array }>;

const PAGE_FILES = [
  ['/', 'index.html', 'text/html; charset=utf-8'],
  ['/styles.css', 'styles.css', 'text/css; charset=utf-8'],
  ['/app.js', 'app.js', 'text/javascript; charset=utf-8'],
  ['/favicon.svg', 'favicon.svg', 'image/svg+xml'],
] as const;

export function loadStaticFiles(publicDir: string): StaticFiles {
  return new Map(PAGE_FILES.map(([path, file, type]) => [path, { type, body: readFileSync(join(publicDir, file)) }]));
}
