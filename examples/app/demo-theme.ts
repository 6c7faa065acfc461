/**
 * `npm start` shows the demo SaaS's login screen branded (PATCH /login-theme, this service's extension), so the
 * theme is seen at once; a theme or title the SaaS set itself is left as it is.
 */
import type { SignedClient } from '../../client/signed-fetch.js';

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0f766e"/><path d="M18 46 32 16l14 30h-8l-6-14-6 14z" fill="#fff"/></svg>`;
const BACKGROUND = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0f766e"/><stop offset="1" stop-color="#134e4a"/></linearGradient></defs><rect width="800" height="600" fill="url(#g)"/></svg>`;
const svg = (text: string) => `data:image/svg+xml;base64,${Buffer.from(text).toString('base64')}`;

export const DEMO_THEME = {
  primary_color: '#0f766e',
  background_color: '#134e4a',
  background_image: svg(BACKGROUND),
  mode: 'auto',
  corner_radius: 14,
  logo_position: 'center',
} as const;

/** The screen's own colour (the service's default theme): a theme still showing it was never set. */
const SCREEN_PRIMARY = '#2a46ad';

export async function brandDemoScreen(admin: SignedClient): Promise<void> {
  const theme = await admin.get<{ primary_color: string; background_image: string }>('/login-theme');
  if (theme.status === 200 && theme.body.primary_color === SCREEN_PRIMARY && !theme.body.background_image)
    await admin.patch('/login-theme', DEMO_THEME);
  const settings = await admin.get<{ title: string; icon: string }>('/customize-page-settings');
  if (settings.status === 200 && !settings.body.title && !settings.body.icon) {
    await admin.patch('/customize-page-settings', { ...settings.body, title: 'Demo SaaS', icon: svg(LOGO), favicon: svg(LOGO) });
  }
}
