/**
 * The login screen's theme (GET/PATCH /login-theme): this service's extension, as SaaSus themes its screen in
 * its console. Every value ends up in a stylesheet (web/login/theme.ts), so each is a closed shape that
 * cannot carry CSS: hex colours, a number, names from a list, an image as base64 data or a plain https URL.
 */
import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { WEB_URL_FORMAT } from './web-url.js';

const HexColour = Type.String({ pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'a colour: #rgb or #rrggbb' });
const HexColourOrEmpty = Type.String({
  pattern: '^(|#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}))$',
  description: "a colour (#rgb or #rrggbb), or '' for the screen's own",
});

/** As the icon and favicon of customize-page-settings; or an https URL without quotes, parentheses or spaces. */
export const BACKGROUND_IMAGE_MAX = 100_000;
const BackgroundImage = Type.String({
  maxLength: BACKGROUND_IMAGE_MAX,
  pattern:
    '^(|data:image/(png|jpeg|gif|webp|svg\\+xml);base64,[A-Za-z0-9+/]+={0,2}|https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~!$&*+,;=:@%/?-]*)?)$',
  format: WEB_URL_FORMAT,
  description: "a base64 data URL of a png, jpeg, gif, webp or svg image, or an https URL, of at most 100000 characters; or '' for none",
});

const Mode = Type.Union([Type.Literal('light'), Type.Literal('dark'), Type.Literal('auto')], {
  description: "light, dark, or auto (the person's system setting: prefers-color-scheme)",
});
const CornerRadius = Type.Integer({ minimum: 0, maximum: 24, description: "the corners' radius in CSS pixels" });
const LogoPosition = Type.Union([Type.Literal('center'), Type.Literal('left'), Type.Literal('hidden')], {
  description: 'where the icon of customize-page-settings shows: centred above the title, at its left, or not at all',
});

export const LoginTheme = Type.Object(
  {
    primary_color: HexColour,
    background_color: HexColourOrEmpty,
    background_image: BackgroundImage,
    mode: Mode,
    corner_radius: CornerRadius,
    logo_position: LogoPosition,
  },
  { $id: 'LoginTheme', additionalProperties: false },
);
export type LoginTheme = Static<typeof LoginTheme>;

export const LoginThemeUpdate = Type.Partial(LoginTheme, {
  $id: 'LoginThemeUpdate',
  additionalProperties: false,
  description: 'the members to change; the others stay as they are',
});
export type LoginThemeUpdate = Static<typeof LoginThemeUpdate>;

export const loginThemeSchemas = {
  getLoginTheme: { response: LoginTheme },
  updateLoginTheme: { body: LoginThemeUpdate },
};
