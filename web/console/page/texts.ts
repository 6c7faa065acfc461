/** The page's catalogue: chosen once from the page data's language. */
import { EN, fill, type ConsoleTexts } from '../texts/en.js';
import { JA } from '../texts/ja.js';

export const CATALOGUES: Record<string, ConsoleTexts> = { en: EN, ja: JA };
let current: ConsoleTexts = EN;

export function useLanguage(lang: string): void {
  current = CATALOGUES[lang] ?? EN;
}
export const t = (): ConsoleTexts => current;
export { fill };
