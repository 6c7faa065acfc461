/**
 * A SaaS's login screen theme (this service's extension: SaaSus themes its screen in its console). One settings
 * document; reads fill in the screen's own look, so a SaaS that never set one sees what the screen shows.
 */
import { invalid } from '../../errors.js';
import { LoginTheme, type LoginThemeUpdate } from '../../schemas/login-theme.js';
import type { SettingsRepository } from './settings.js';
import { usableSettings } from './stored.js';

const DOCUMENT = 'login-theme';

export const DEFAULT_LOGIN_THEME: LoginTheme = {
  primary_color: '#2a46ad',
  background_color: '',
  background_image: '',
  mode: 'auto',
  corner_radius: 8,
  logo_position: 'center',
};

export class LoginThemeService {
  constructor(private readonly settings: SettingsRepository) {}

  async theme(saasId: string): Promise<LoginTheme> {
    return { ...DEFAULT_LOGIN_THEME, ...(await this.stored(saasId)) };
  }

  /** What can be used of the stored theme: a value no page can use (an older row's) is left out. */
  private async stored(saasId: string): Promise<Partial<LoginTheme>> {
    const stored = await this.settings.get<unknown>(saasId, DOCUMENT);
    return usableSettings<LoginTheme>(LoginTheme, stored, { saasId, document: DOCUMENT }) ?? {};
  }

  /** Changes the members given; a data URL whose base64 does not decode is refused like the icon's. */
  async update(saasId: string, update: LoginThemeUpdate): Promise<void> {
    const image = update.background_image;
    if (image?.startsWith('data:')) {
      const data = image.slice(image.indexOf(',') + 1);
      if (Buffer.from(data, 'base64').toString('base64').replace(/=+$/, '') !== data.replace(/=+$/, '')) {
        throw invalid('invalid_parameter', 'background_image: is not valid base64', { field: 'background_image' });
      }
    }
    const current = await this.stored(saasId);
    await this.settings.put<Partial<LoginTheme>>(saasId, DOCUMENT, { ...current, ...update });
  }
}
