/**
 * The login screen's colours and the contrast rule its theme follows, apart from theme.ts (which needs Node) so
 * the operator console's preview of a theme (web/console/page/pages/login-theme.tsx) draws with the same ones.
 */
export interface Palette {
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

export const LIGHT: Palette = {
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

export const DARK: Palette = {
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
export function luminance(colour: string): number {
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
