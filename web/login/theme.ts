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
import type { WebRequest, WebResponse } from '../kit/http.js';
import { webUrl } from '../../shared/schemas/web-url.js';
import { contrast, DARK, fullHex, LIGHT, textOn, type Palette } from './theme-colours.js';

export { contrast, fullHex, textOn };

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

/**
 * The origin of an https background image, for the page's img-src; undefined for none or a data URL. Parsed
 * with the rule the theme was saved under, so no stored value can make the page throw (issue 36).
 */
export function themeImageOrigin(theme: LoginTheme | undefined): string | undefined {
  return webUrl(theme?.background_image, ['https:'])?.origin;
}

/** The `<link>` of the theme, given the screen's assets URL. */
export function themeLink(assets: string, theme: LoginTheme | undefined): string {
  return theme ? `<link rel="stylesheet" href="${assets}theme.css?v=${themeVersion(themeStylesheet(theme))}">` : '';
}

/**
 * `./assets/theme.css`: kept for good under the version of its text, revalidated (ETag) under any other, so a
 * page always names the newest and a changed theme shows at the next page load.
 */
export function themeAnswer(theme: LoginTheme, request: WebRequest, headers: Record<string, string>): WebResponse {
  const css = themeStylesheet(theme);
  const version = themeVersion(css);
  const etag = `"${version}"`;
  const cache = new URLSearchParams(request.query).get('v') === version ? 'public, max-age=31536000, immutable' : 'no-cache';
  const common = { ...headers, 'cache-control': cache, etag };
  if (request.headers['if-none-match'] === etag) return { status: 304, headers: common, body: '', cookies: [] };
  return { status: 200, headers: { ...common, 'content-type': 'text/css; charset=utf-8' }, body: css, cookies: [] };
}
