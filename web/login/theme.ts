/**
 * A SaaS's theme (GET/PATCH /login-theme) as a stylesheet of its own, `./assets/theme.css?v=<version>`, laid
 * over the screen's login.css: the page stays under `style-src 'self'` with no inline style. Its values are
 * closed shapes (shared/schemas/login-theme.ts), and the image URL is written as a CSS string with anything
 * but its own characters escaped, so nothing in a theme can add a rule.
 *
 * Contrast is chosen here, not left to the SaaS: text on the primary colour is white or black, whichever
 * contrasts more (at least 4.58:1 for any colour, WCAG 2 AA); links and outlined buttons use the primary colour
 * only where it reaches 4.5:1 on the card, else the card's text colour.
 */
import { createHash } from 'node:crypto';
import type { LoginTheme } from '../../shared/schemas/login-theme.js';
import type { ScreenRequest, ScreenResponse } from './screen-http.js';

interface Palette {
  page: string;
  card: string;
  text: string;
  muted: string;
  line: string;
  field: string;
  errorText: string;
  errorBack: string;
  noticeText: string;
  noticeBack: string;
}

const LIGHT: Palette = {
  page: '#f4f5f7',
  card: '#ffffff',
  text: '#1d2330',
  muted: '#4a5160',
  line: '#8a93a6',
  field: '#ffffff',
  errorText: '#8f0d0d',
  errorBack: '#fdecec',
  noticeText: '#3d3000',
  noticeBack: '#fff6dd',
};

const DARK: Palette = {
  page: '#0f1115',
  card: '#1b1e25',
  text: '#e8eaf0',
  muted: '#b4bac6',
  line: '#6b7385',
  field: '#12151b',
  errorText: '#ffc2c2',
  errorBack: '#3d1717',
  noticeText: '#f5e7c0',
  noticeBack: '#3a3118',
};

/** #rgb or #rrggbb (the schema's shapes) as #rrggbb. */
export function fullHex(colour: string): string {
  const hex = colour.slice(1).toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

/** WCAG 2 relative luminance. */
function luminance(colour: string): number {
  const hex = fullHex(colour);
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

/** White or black, whichever reads better on the colour. */
export const textOn = (colour: string) => (contrast(colour, '#ffffff') >= contrast(colour, '#000000') ? '#ffffff' : '#000000');

/** Only the characters the schema lets through stay as they are; a CSS string escape for anything else. */
const cssString = (text: string) => `"${text.replace(/[^A-Za-z0-9._~!$&*+,;=:@%/?#-]/g, (c) => `\\${c.codePointAt(0)!.toString(16)} `)}"`;

function variables(palette: Palette, theme: LoginTheme): string {
  const primary = fullHex(theme.primary_color);
  const accent = contrast(primary, palette.card) >= 4.5 ? primary : palette.text;
  const page = theme.background_color ? fullHex(theme.background_color) : palette.page;
  return [
    `--page: ${page}`,
    `--card: ${palette.card}`,
    `--text: ${palette.text}`,
    `--muted: ${palette.muted}`,
    `--line: ${palette.line}`,
    `--field: ${palette.field}`,
    `--primary: ${primary}`,
    `--on-primary: ${textOn(primary)}`,
    `--accent: ${accent}`,
    `--error-text: ${palette.errorText}`,
    `--error-back: ${palette.errorBack}`,
    `--notice-text: ${palette.noticeText}`,
    `--notice-back: ${palette.noticeBack}`,
  ]
    .map((line) => `  ${line};`)
    .join('\n');
}

const LOGO: Record<LoginTheme['logo_position'], string> = {
  center: '',
  left: '.icon {\n  margin-left: 0;\n}\nh1,\nh2 {\n  text-align: left;\n}\n',
  hidden: '.icon {\n  display: none;\n}\n',
};

/** The stylesheet of a theme: the same theme, the same text, so its hash is its version. */
export function themeStylesheet(theme: LoginTheme): string {
  const radius = theme.corner_radius;
  const control = Math.min(Math.round(radius / 2), 12);
  const image = theme.background_image ? ` url(${cssString(theme.background_image)}) center / cover no-repeat` : '';
  const schemes =
    theme.mode === 'auto'
      ? `:root {\n  color-scheme: light dark;\n${variables(LIGHT, theme)}\n}\n@media (prefers-color-scheme: dark) {\n  :root {\n${variables(DARK, theme).replace(/^/gm, '  ')}\n  }\n}\n`
      : `:root {\n  color-scheme: ${theme.mode};\n${variables(theme.mode === 'dark' ? DARK : LIGHT, theme)}\n}\n`;
  return `/* The SaaS's theme (GET/PATCH /login-theme), over login.css. */
${schemes}html {
  /* The background image covers the window, or the page when it is longer. */
  min-height: 100%;
}
body {
  background: var(--page)${image};
  color: var(--text);
}
main {
  background: var(--card);
  border-radius: ${radius}px;
}
@media (max-width: 30rem) {
  main {
    border-radius: 0;
  }
}
input {
  background: var(--field);
  color: var(--text);
  border-color: var(--line);
  border-radius: ${control}px;
}
input:focus,
button:focus,
a:focus {
  outline-color: var(--accent);
}
button,
a.button {
  background: var(--primary);
  border-color: var(--primary);
  color: var(--on-primary);
  border-radius: ${control}px;
}
a.button.secondary,
button.secondary {
  background: var(--card);
  border-color: var(--accent);
  color: var(--accent);
}
a {
  color: var(--accent);
}
.error {
  color: var(--error-text);
  background: var(--error-back);
}
.notice {
  color: var(--notice-text);
  background: var(--notice-back);
}
.status {
  color: var(--muted);
}
.divider {
  display: flex;
  align-items: center;
  gap: 0.75rem;
  margin: 1.1rem 0 0;
  color: var(--muted);
  font-size: 0.85rem;
}
.divider::before,
.divider::after {
  content: '';
  flex: 1;
  border-top: 1px solid var(--line);
}
.federated {
  margin: 0.6rem 0 0;
}
#sign-in-with-google {
  display: flex;
  align-items: center;
  justify-content: center;
  gap: 0.6rem;
  margin-top: 0;
}
.google-mark {
  width: 18px;
  height: 18px;
  flex: none;
}
/* The SaaS's own HTML, in its frame: the screen's font and colours on the card. */
body.custom-content {
  background: transparent;
  margin: 0;
}
${LOGO[theme.logo_position]}`;
}

/** The version in the stylesheet's URL: a new theme, a new URL, so the old one may be kept for good. */
export const themeVersion = (css: string) => createHash('sha256').update(css).digest('base64url').slice(0, 16);

/** The origin of an https background image, for the page's img-src; undefined for none or a data URL. */
export function themeImageOrigin(theme: LoginTheme | undefined): string | undefined {
  const image = theme?.background_image ?? '';
  return image.startsWith('https://') ? new URL(image).origin : undefined;
}

/** The `<link>` of the theme, given the screen's assets URL. */
export function themeLink(assets: string, theme: LoginTheme | undefined): string {
  return theme ? `<link rel="stylesheet" href="${assets}theme.css?v=${themeVersion(themeStylesheet(theme))}">` : '';
}

/**
 * `./assets/theme.css`: kept for good under the version of its text, revalidated (ETag) under any other, so a
 * page always names the newest and a changed theme shows at the next page load.
 */
export function themeAnswer(theme: LoginTheme, request: ScreenRequest, headers: Record<string, string>): ScreenResponse {
  const css = themeStylesheet(theme);
  const version = themeVersion(css);
  const etag = `"${version}"`;
  const cache = request.query.get('v') === version ? 'public, max-age=31536000, immutable' : 'no-cache';
  const common = { ...headers, 'cache-control': cache, etag };
  if (request.headers['if-none-match'] === etag) return { status: 304, headers: common, body: '' };
  return { status: 200, headers: { ...common, 'content-type': 'text/css; charset=utf-8' }, body: css };
}
