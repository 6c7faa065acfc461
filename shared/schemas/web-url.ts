/**
 * One rule for every URL a SaaS stores (the theme's background image, the legal links, the callback URL, a
 * tenant's SAML metadata URL): the WHATWG URL parser, the very one the pages use (`new URL`), decides, not a
 * pattern. A pattern let `https://999.1.1.1`, `https://1.2.3.4.5`, `https://a.1` and `https://e.example:99999/x`
 * through, which the parser refuses; the login screen's Content-Security-Policy then threw on every page
 * (issue 36). The schemas keep their patterns for the shape (which scheme, no quotes or spaces) and add the
 * format below; the domain's reads of stored settings check with the same schemas (configuration/stored.ts).
 */
import { FormatRegistry } from '@sinclair/typebox';

/** The URL, parsed, when `value` is an absolute URL of one of `schemes` with a host; undefined for anything else. */
export function webUrl(value: unknown, schemes: readonly string[] = ['https:', 'http:']): URL | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  return schemes.includes(url.protocol) && url.hostname !== '' ? url : undefined;
}

/**
 * The format of a URL-valued setting: an http(s) URL must parse as above. '' and `data:` values (where a
 * field's pattern allows them: no image, an inline image) are left to the pattern, which is checked too.
 */
export const WEB_URL_FORMAT = 'web-url';
FormatRegistry.Set(WEB_URL_FORMAT, (value) => value === '' || value.startsWith('data:') || webUrl(value) !== undefined);
