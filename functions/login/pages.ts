/**
 * The login screen's HTML: one page whose script shows one step at a time (sign in, a new password, a code,
 * a new account for an invitation), built from the SaaS's customize settings. Every value from settings or
 * the request is escaped; the SaaS's own HTML is shown in a sandboxed frame that runs no script.
 */
import { fill, type LoginTexts } from './texts/en.js';

/** What the page shows of the SaaS (customize page settings, its sign-in page, the policy of sign-in IDs). */
export interface ScreenLook {
  title: string;
  icon: string;
  favicon: string;
  termsOfServiceUrl: string;
  privacyPolicyUrl: string;
  tagManagerId: string;
  signInIdEnabled: boolean;
  /** The SaaS's own HTML for the sign-in page ('' for none). */
  signInPage: { html_contents: string };
}

/** What the script needs to know, in a JSON data block (never run: script-src allows only our file). */
export interface PageData {
  csrf: string;
  state?: string;
  invitation?: { id: string; tenantId: string; email: string };
  /** Why the invitation cannot be accepted: the page says so and offers plain sign-in. */
  invitationProblem?: string;
  messages: LoginTexts['messages'];
  tagManagerId?: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** JSON inside a data block: `<` escaped so no value can end the block. */
const dataBlock = (data: PageData) => JSON.stringify(data).replace(/</g, '\\u003c');

const TAG_MANAGER_ORIGIN = 'https://www.googletagmanager.com';

/**
 * The page's Content-Security-Policy: our own script and style only, images from us or data URLs (the icon),
 * no frames of us anywhere, forms and fetches to us. The tag manager, when the SaaS set one, adds its origin.
 */
export function contentSecurityPolicy(tagManager: boolean): string {
  const extra = tagManager ? ` ${TAG_MANAGER_ORIGIN}` : '';
  return [
    "default-src 'none'",
    `script-src 'self'${extra}`,
    "style-src 'self'",
    `img-src 'self' data:${extra}`,
    `connect-src 'self'${tagManager ? ' https://*.google-analytics.com https://*.googletagmanager.com' : ''}`,
    "frame-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function link(url: string, text: string): string {
  return url ? `<a href="${escapeHtml(url)}" rel="noopener noreferrer" target="_blank">${escapeHtml(text)}</a>` : '';
}

/** The sign-in screen. `assets` is the URL of the screen's own files (`…/login/{saas}/assets/`). */
export function loginPage(texts: LoginTexts, look: ScreenLook, data: PageData, assets: string): string {
  const t = texts.page;
  const title = look.title || t.defaultTitle;
  const usernameLabel = look.signInIdEnabled ? t.emailOrSignInId : t.email;
  const heading = data.invitation ? t.invitationHeading : t.signInHeading;
  const legal = [link(look.termsOfServiceUrl, t.termsOfService), link(look.privacyPolicyUrl, t.privacyPolicy)].filter(Boolean);
  const invited = data.invitation;
  return `<!doctype html>
<html lang="${texts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
${look.favicon ? `<link rel="icon" href="${escapeHtml(look.favicon)}">` : ''}
<link rel="stylesheet" href="${assets}login.css">
<script id="page-data" type="application/json">${dataBlock(data)}</script>
<script src="${assets}login.js" defer></script>
${look.tagManagerId ? `<script src="${TAG_MANAGER_ORIGIN}/gtm.js?id=${encodeURIComponent(look.tagManagerId)}" async></script>` : ''}
</head>
<body>
<main>
${look.icon ? `<img class="icon" src="${escapeHtml(look.icon)}" alt="">` : ''}
<h1>${escapeHtml(title)}</h1>
<h2 id="heading">${escapeHtml(heading)}</h2>
${invited ? `<p id="invitation-intro">${escapeHtml(fill(t.invitationIntro, { email: invited.email }))}</p>` : ''}
${data.invitationProblem ? `<p class="notice" id="invitation-problem">${escapeHtml(fill(t.invitationUnusable, { reason: data.invitationProblem }))}</p>` : ''}
<noscript><p class="error">${escapeHtml(t.scriptNeeded)}</p></noscript>
<p id="status" class="status" role="status" aria-live="polite"></p>
<p id="error" class="error" role="alert" hidden></p>

<form id="sign-in-form" hidden>
<label for="username">${escapeHtml(usernameLabel)}</label>
<input id="username" name="username" autocomplete="username" required maxlength="256"${invited ? ` value="${escapeHtml(invited.email)}"` : ''}>
<label for="password">${escapeHtml(t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
<button type="submit">${escapeHtml(t.signIn)}</button>
${invited ? `<button type="button" id="show-new-account" class="secondary">${escapeHtml(t.newHere)}</button>` : ''}
</form>

${
  invited
    ? `<form id="new-account-form" hidden>
<p>${escapeHtml(fill(t.newAccountHeading, { email: invited.email }))}</p>
<label for="account-password">${escapeHtml(t.password)}</label>
<input id="account-password" name="password" type="password" autocomplete="new-password" required maxlength="256">
<button type="submit">${escapeHtml(t.createAccount)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.haveAccount)}</button>
</form>`
    : ''
}

<form id="new-password-form" hidden>
<p>${escapeHtml(t.newPasswordIntro)}</p>
<label for="new-password">${escapeHtml(t.newPassword)}</label>
<input id="new-password" name="new_password" type="password" autocomplete="new-password" required maxlength="256">
<button type="submit">${escapeHtml(t.setPassword)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.startAgain)}</button>
</form>

<form id="code-form" hidden>
<p id="code-prompt" data-totp="${escapeHtml(t.totpPrompt)}" data-email="${escapeHtml(t.emailCodePrompt)}"></p>
<label for="code">${escapeHtml(t.code)}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="8">
<button type="submit">${escapeHtml(t.verify)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.startAgain)}</button>
</form>

${
  look.signInPage.html_contents
    ? `<iframe class="custom" title="${escapeHtml(t.customContent)}" sandbox="" srcdoc="${escapeHtml(look.signInPage.html_contents)}"></iframe>`
    : ''
}
${legal.length ? `<footer>${legal.join(' · ')}</footer>` : ''}
</main>
</body>
</html>
`;
}

/** A page with only a heading and a sentence: unknown SaaS, unknown page. */
export function notFoundPage(texts: LoginTexts, assets?: string): string {
  return `<!doctype html>
<html lang="${texts.lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(texts.page.notFoundTitle)}</title>
${assets ? `<link rel="stylesheet" href="${assets}login.css">` : ''}</head>
<body><main><h1>${escapeHtml(texts.page.notFoundTitle)}</h1><p>${escapeHtml(texts.page.notFound)}</p></main></body>
</html>
`;
}
