/** The theme's stylesheet: readable text on any primary colour, and no way for a value to add CSS. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { DEFAULT_LOGIN_THEME } from '../../shared/domain/configuration/login-theme.js';
import { contrast, fullHex, textOn, themeStylesheet } from '../../web/login/theme.js';

const everyShortColour = () => Array.from({ length: 4096 }, (_, i) => `#${i.toString(16).padStart(3, '0')}`);

describe('the theme stylesheet', () => {
  it('follows WCAG 2 contrast: 21:1 black on white, 1:1 a colour on itself', () => {
    assert.equal(contrast('#000', '#fff'), 21);
    assert.equal(contrast('#2a46ad', '#2a46ad'), 1);
    assert.equal(fullHex('#AbC'), '#aabbcc');
  });

  it('puts text of AA contrast on every primary colour', () => {
    for (const colour of everyShortColour()) assert.ok(contrast(colour, textOn(colour)) >= 4.5, colour);
  });

  it('uses the primary colour for links only where it reads on the card, in light and dark', () => {
    for (const colour of everyShortColour()) {
      for (const [mode, card] of [
        ['light', '#ffffff'],
        ['dark', '#1b1e25'],
      ] as const) {
        const css = themeStylesheet({ ...DEFAULT_LOGIN_THEME, primary_color: colour, mode });
        const accent = /--accent: (#[0-9a-f]{6});/.exec(css)?.[1];
        assert.ok(accent && contrast(accent, card) >= 4.5, `${colour} ${mode}: ${accent}`);
      }
    }
  });

  it('writes an image URL as one CSS string, whatever it holds', () => {
    const css = themeStylesheet({ ...DEFAULT_LOGIN_THEME, background_image: 'https://a.example/x.png?q="); } * { color: red } /*' });
    const value = /url\((.*)\) center/.exec(css)?.[1] ?? '';
    // No bare quote, backslash, brace, parenthesis or space: each is a CSS escape, inside the one string.
    assert.match(value, /^"([^"\\\s(){}]|\\[0-9a-f]+ )*"$/);
    assert.ok(value.includes('\\22 \\29 '));
  });
});
