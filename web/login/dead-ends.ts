/**
 * What a browser reads where a sign-in cannot go on: a refusal worded in the person's language (not the
 * service's English error message), a provider that cannot be used, and the icon browsers ask for by themselves.
 * Every such answer is a page in the screen's look, never JSON (docs/login-screen.md, "No dead ends").
 */
import type { DomainError } from '../../shared/errors.js';
import { contentSecurityPolicy, messagePage } from './pages.js';
import { fill, type LoginTexts, type NotFoundTexts } from './texts/en.js';

/** The refusals of the Google, SAML and link steps (screen/federation.ts, functions/saml, saml/ticket.ts, screen/federated-steps.ts), as a person reads them. */
const STEP_TEXT: Readonly<Record<string, keyof LoginTexts['page']>> = {
  invalid_flow: 'stepExpired',
  flow_expired: 'stepExpired',
  ticket_expired: 'stepExpired',
  saml_replayed: 'providerRefused',
  invalid_parameter: 'stepExpired',
  provider_not_configured: 'providerUnavailable',
  saml_not_configured: 'providerUnavailable',
  saml_refused: 'providerRefused',
  provider_refused: 'providerRefused',
};

/** The sentence for a refusal on the way back from a provider or a ticket; the service's own words otherwise. */
export function refusalText(texts: LoginTexts, error: DomainError): string {
  const name = STEP_TEXT[error.code];
  // The provider's own reason (`access_denied`), when it gave one, helps whoever the person asks for help.
  if (name) return fill(texts.page[name], { detail: /\(([^)]+)\)/.exec(error.message)?.[1] ?? error.message.replace(/^[^:]*:\s*/, '') });
  return fill(texts.messages.refused, { detail: error.message.replace(/^[^:]*:\s*/, '') });
}

/** A padlock on the screen's blue: shown by browsers where a SaaS set no favicon. */
export const DEFAULT_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fbf"/>' +
  '<path d="M11 14v-3a5 5 0 0 1 10 0v3" fill="none" stroke="#fff" stroke-width="2.5"/>' +
  '<rect x="8" y="14" width="16" height="11" rx="2" fill="#fff"/></svg>';

export interface IconAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Binary icons (a data URL's bytes): the body is base64. */
  isBase64Encoded?: boolean;
}

/**
 * A SaaS's icon may be an SVG, served from the API's shared origin too: opened by itself it would be a document
 * of that origin, so it runs nothing (an <img> or a tab icon never runs an SVG's script anyway).
 */
const ICON_HEADERS = {
  'cache-control': 'public, max-age=3600',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
};

/** The SaaS's favicon (customize page settings hold it as a data URL: served as its bytes), or the default icon. */
export function faviconAnswer(favicon: string | undefined): IconAnswer {
  const data = /^data:(image\/[a-z0-9.+-]+)(;base64)?,(.*)$/i.exec(favicon ?? '');
  if (data) {
    const [, type = 'image/png', base64, payload = ''] = data;
    const bytes = base64 ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8');
    return { status: 200, headers: { ...ICON_HEADERS, 'content-type': type }, body: bytes.toString('base64'), isBase64Encoded: true };
  }
  return { status: 200, headers: { ...ICON_HEADERS, 'content-type': 'image/svg+xml' }, body: DEFAULT_ICON };
}

/** A catalogue's words for the not-found page. */
export const notFoundTexts = (texts: LoginTexts): NotFoundTexts => ({ lang: texts.lang, title: texts.page.notFoundTitle, text: texts.page.notFound });

/**
 * An address under the screen's prefixes that nothing answers: a page for a browser (it asks for HTML), the
 * error shape for a program.
 */
export function notFoundFor(accept: string | undefined, texts: NotFoundTexts, assets: string) {
  if (!/text\/html/.test(accept ?? '')) return undefined;
  return {
    status: 404,
    headers: {
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(false),
    },
    body: messagePage(texts, texts.title, texts.text, assets),
  };
}
