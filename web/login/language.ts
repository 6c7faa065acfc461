/**
 * Which catalogue a request is answered in (the rule is language-choice.ts's); English when none matches.
 * The switch is a plain link (`./language?to=ja&page=…`), so it works by keyboard and without script.
 */
import { BASE_PATH } from '../../shared/routes.js';
import { setCookie } from '../kit/cookies.js';
import { catalogueIn, chooseIn, LANG_COOKIE } from './language-choice.js';
import type { PageData } from './page-data.js';
import { EN, type LoginTexts } from './texts/en.js';
import { JA } from './texts/ja.js';

/**
 * Every catalogue, by its language tag: a translation is one more file in texts/, one more line here and one in
 * unmatched-page.ts (NOT_FOUND).
 */
export const CATALOGUES: Readonly<Record<string, LoginTexts>> = { en: EN, ja: JA };

export { LANG_COOKIE };
const LANG_COOKIE_SECONDS = 365 * 24 * 3600;
/** The screen, the authorization server and the SAML function all read it: the service's whole path. */
const LANG_COOKIE_PATH = `${BASE_PATH}/`;

/** The catalogue of a language tag (`ja`, `ja-JP`, `EN-us`), by its primary subtag. */
export const catalogueOf = (tag: string | null | undefined): LoginTexts | undefined => catalogueIn(CATALOGUES, tag);

export const chooseTexts = (query: URLSearchParams, headers: Record<string, string | undefined>): LoginTexts =>
  chooseIn(CATALOGUES, EN, query, headers);

const langCookie = (lang: string, secure: boolean) =>
  setCookie(LANG_COOKIE, lang, { path: LANG_COOKIE_PATH, sameSite: 'Lax', secure }, LANG_COOKIE_SECONDS);

/**
 * A page opened with `?lang=` keeps that language for the rest of the visit (the Google or SAML round trip, the
 * pages after it), as the switch does: the same cookie.
 */
export function rememberedLanguage(query: URLSearchParams, secure: boolean): string | undefined {
  const chosen = catalogueOf(query.get('lang'));
  return chosen ? langCookie(chosen.lang, secure) : undefined;
}

/** The screen's pages the switch may return to (screen.ts serves each); nothing else, so it sends nobody away. */
const PAGES = new Set(['', 'sign-in', 'sign-up', 'forgot-password', 'set-password', 'invitation', 'link', 'sessions']);
/** What those pages read from their query: all the switch carries back. */
const CARRIED = ['state', 'code_challenge', 'code_challenge_method', 'authorization', 'invitation_id', 'tenant_id', 'ticket'];

/**
 * `./language?to=ja&page=sign-up&state=…`: remembers the choice and goes back to the same page of the same
 * screen, with what it was opened for. Undefined for any other language (the caller answers 404).
 */
export function switchLanguage(screenPath: string, query: URLSearchParams, secure: boolean) {
  const to = query.get('to') ?? '';
  const page = query.get('page') ?? '';
  if (!Object.hasOwn(CATALOGUES, to) || !PAGES.has(page)) return undefined;
  const back = new URLSearchParams();
  for (const name of CARRIED) {
    const value = query.get(name);
    if (value !== null) back.set(name, value);
  }
  return {
    status: 303,
    headers: {
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      location: `${screenPath}${page}${back.size ? `?${back.toString()}` : ''}`,
      'set-cookie': langCookie(to, secure),
    },
    body: '',
  };
}

/** The page the page data describes, as the switch names it: `page` and what it was opened for. */
function currentPage(data: PageData): URLSearchParams {
  const query = new URLSearchParams();
  const page = data.invitation
    ? 'invitation'
    : data.link
      ? 'link'
      : data.first === 'sign-up-form'
        ? 'sign-up'
        : data.first === 'forgot-form'
          ? 'forgot-password'
          : data.first === 'reset-form'
            ? 'set-password'
            : '';
  query.set('page', page);
  if (data.authorization !== undefined) query.set('authorization', data.authorization);
  if (data.state !== undefined) query.set('state', data.state);
  if (data.code_challenge !== undefined) {
    query.set('code_challenge', data.code_challenge);
    query.set('code_challenge_method', 'S256');
  }
  if (data.invitation) {
    query.set('invitation_id', data.invitation.id);
    query.set('tenant_id', data.invitation.tenantId);
  }
  if (data.link) query.set('ticket', data.link.ticket);
  return query;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** The switch: a link per language, each named in its own language; the current one marked, not a link. */
export function languageSwitch(texts: LoginTexts, data: PageData | { page: 'sessions' }): string {
  const items = Object.values(CATALOGUES).map((catalogue) => {
    if (catalogue.lang === texts.lang) return `<span lang="${catalogue.lang}" aria-current="true">${escape(catalogue.languageName)}</span>`;
    const query = 'page' in data ? new URLSearchParams({ page: data.page }) : currentPage(data);
    query.set('to', catalogue.lang);
    return `<a href="language?${escape(query.toString())}" lang="${catalogue.lang}" hreflang="${catalogue.lang}">${escape(catalogue.languageName)}</a>`;
  });
  return `<nav class="languages" aria-label="${escape(texts.page.languageSwitch)}">${items.join(' ')}</nav>`;
}
