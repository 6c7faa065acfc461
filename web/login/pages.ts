/**
 * The login screen's HTML: one page whose script shows one step at a time (sign in, a new password, a code,
 * a new account for an invitation), built from the SaaS's customize settings. Every value from settings or
 * the request is escaped; the SaaS's own HTML is shown in a sandboxed frame that runs no script.
 */
import { contextQuery } from './screen-context.js';
import { languageSwitch } from './language.js';
import { passkeySignInButton, passkeysForm } from './passkey-pages.js';
import { fill, type LoginTexts } from './texts/en.js';
import type { FirstForm, PageData, PasswordRules } from './page-data.js';
import type { LoginTheme } from '../../shared/schemas/login-theme.js';
import type { SaasPasswordPolicy } from '../../shared/domain/configuration/password-policy.js';
import { GOOGLE_MARK } from './google-mark.js';
import { themeLink } from './theme.js';
import { escapeHtml } from '../kit/html.js';
import { ENTRY_PATHS } from '../../shared/routes.js';

/** What the page shows of the SaaS (customize page settings, its sign-in page, the policy of sign-in IDs). */
export interface ScreenLook {
  title: string;
  icon: string;
  favicon: string;
  termsOfServiceUrl: string;
  privacyPolicyUrl: string;
  tagManagerId: string;
  signInIdEnabled: boolean;
  /** self_regist.enable: the sign-up form is offered. */
  selfSignUp: boolean;
  /** userOptIn: the sign-in form asks whether to remember this browser. */
  deviceRemembering: 'always' | 'userOptIn' | 'no';
  /** A Google client is set (PUT /identity-providers) and its button not hidden. */
  google: boolean;
  /** The sign-in setting passkeys.enable (our extension): the screen offers passkeys. */
  passkeys?: boolean;
  /** The SaaS's own HTML ('' for none) and the consents each page asks for. */
  pages: Record<PageName, { html_contents: string; is_terms_of_service: boolean; is_privacy_policy: boolean }>;
  /** The SaaS's theme (GET/PATCH /login-theme): its stylesheet follows login.css. */
  theme?: LoginTheme;
  /** The sign-in setting sign_up.password (our extension): `chosen` asks for the password at sign-up. */
  signUpPassword?: 'temporary' | 'chosen';
  /** The sign-in settings password_policy and password_length_first: every new-password field shows their rules. */
  passwordPolicy?: SaasPasswordPolicy;
  /** The sign-in setting password_sign_in.user_password_auth (our extension): imported users' first sign-in. */
  passwordSignIn?: boolean;
}

export type PageName = 'sign_in_page' | 'sign_up_page' | 'password_reset_page';

export type { FirstForm, PageData } from './page-data.js';

/** JSON inside a data block: `<` escaped so no value can end the block. */
const dataBlock = (data: PageData) => JSON.stringify(data).replace(/</g, '\\u003c');

const TAG_MANAGER_ORIGIN = 'https://www.googletagmanager.com';

/**
 * The page's Content-Security-Policy: our own script and style only, images from us or data URLs (the icon),
 * no frames of us anywhere, forms and fetches to us. The tag manager, when the SaaS set one, adds its origin.
 */
export function contentSecurityPolicy(tagManager: boolean, imageOrigin?: string, framedBy?: string): string {
  const extra = tagManager ? ` ${TAG_MANAGER_ORIGIN}` : '';
  // The theme's background image, when it is an https URL (web/login/theme.ts).
  const image = imageOrigin ? ` ${imageOrigin}` : '';
  return [
    "default-src 'none'",
    `script-src 'self'${extra}`,
    "style-src 'self'",
    `img-src 'self' data:${extra}${image}`,
    `connect-src 'self'${tagManager ? ' https://*.google-analytics.com https://*.googletagmanager.com' : ''}`,
    "frame-src 'self'",
    "form-action 'self'",
    // The operator console's theme preview (web/console) frames the sign-in page from the API's own origin.
    `frame-ancestors ${framedBy ?? "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
}

/** A one-time code's label and input. */
const codeField = (id: string, label: string) =>
  `<label for="${id}">${escapeHtml(label)}</label>\n<input id="${id}" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="8">`;

/**
 * A password being chosen: its label and input, the SaaS's rules listed up front (the script marks each met
 * as the person types), a show/hide toggle button and, at sign-up, a second field to confirm it.
 */
function newPasswordField(texts: LoginTexts, rules: PasswordRules | undefined, id: string, label: string, name: string, confirm = false): string {
  const t = texts.page;
  const state = `<span class="rule-state">${escapeHtml(texts.messages.ruleNotMet)}</span>`;
  const items = rules
    ? [
        ['length', fill(t.ruleLength, { count: String(rules.minimum_length) })],
        ...(rules.is_require_lowercase ? [['lowercase', t.ruleLowercase]] : []),
        ...(rules.is_require_uppercase ? [['uppercase', t.ruleUppercase]] : []),
        ...(rules.is_require_numbers ? [['number', t.ruleNumber]] : []),
        ...(rules.is_require_symbols ? [['symbol', t.ruleSymbol]] : []),
        ...(rules.length_first ? [] : [['outer-space', t.ruleNoOuterSpace]]),
      ]
    : [];
  const list = items.length
    ? `\n<p class="rules-intro" id="${id}-rules-intro">${escapeHtml(t.passwordRules)}</p>
<ul class="password-rules" id="${id}-rules" aria-labelledby="${id}-rules-intro">
${items.map(([rule, text]) => `<li data-rule="${rule}">${escapeHtml(text as string)} ${state}</li>`).join('\n')}
</ul>`
    : '';
  // Filled as the person types when the password is on the breached list (page/main.ts asks the screen's step).
  const breached = `\n<p class="breached" id="${id}-breached" aria-live="polite"></p>`;
  const describedBy = ` aria-describedby="${items.length ? `${id}-rules ` : ''}${id}-breached"`;
  const second = confirm
    ? `\n<label for="${id}-confirm">${escapeHtml(t.confirmPassword)}</label>
<input id="${id}-confirm" type="password" autocomplete="new-password" required maxlength="256" data-confirms="${id}" aria-describedby="${id}-match">
<p class="match" id="${id}-match" aria-live="polite"></p>`
    : '';
  return `<label for="${id}">${escapeHtml(label)}</label>
<input id="${id}" name="${name}" type="password" autocomplete="new-password" required maxlength="256" data-new-password${describedBy}>
<button type="button" class="reveal secondary" aria-pressed="false" aria-controls="${id}${confirm ? ` ${id}-confirm` : ''}">${escapeHtml(t.showPassword)}</button>${list}${breached}${second}`;
}

function link(url: string, text: string): string {
  return url ? `<a href="${escapeHtml(url)}" rel="noopener noreferrer" target="_blank">${escapeHtml(text)}</a>` : '';
}

/** The sign-in screen. `assets` is the URL of the screen's own files (`…/login/{saas}/assets/`). */
const SIGN_IN_AGAIN = {
  login_asked: 'signInAgainLoginAsked',
  too_old: 'signInAgainTooOld',
  second_factor: 'signInAgainSecondFactor',
  second_factor_asked: 'signInAgainSecondFactorAsked',
  other_tenant: 'signInAgainOtherTenant',
} as const;

/** Who is signed in, why they sign in again, and the way to another account (web/login/screen/resume.ts). */
function signedInNotice(texts: LoginTexts, data: PageData): string {
  const t = texts.page;
  const who = data.signedInAs as NonNullable<PageData['signedInAs']>;
  const again = new URLSearchParams({ again: '1', ...contextQuery(data) }).toString();
  return `<p class="notice" id="signed-in-as">${escapeHtml(fill(t.signedInAs, { name: who.name }))} ${escapeHtml(t[SIGN_IN_AGAIN[who.why]])}
<a href="sign-out?${escapeHtml(again)}" id="not-you">${escapeHtml(t.notYou)}</a> <a href="sessions" id="sessions-link">${escapeHtml(t.sessionsLink)}</a></p>`;
}

/**
 * The start of a page of the screen in the SaaS's look, up to its own head elements: language, no referrer, its
 * title, the SaaS's icon, the screen's style and the SaaS's theme.
 */
export function screenHead(texts: LoginTexts, look: ScreenLook, assets: string, title: string): string {
  return `<!doctype html>
<html lang="${texts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${escapeHtml(look.favicon || `${assets}../favicon.ico`)}">
<link rel="stylesheet" href="${assets}login.css">
${themeLink(assets, look.theme)}`;
}

export function loginPage(texts: LoginTexts, look: ScreenLook, data: PageData, assets: string): string {
  const t = texts.page;
  const title = look.title || t.defaultTitle;
  const usernameLabel = look.signInIdEnabled ? t.emailOrSignInId : t.email;
  const heading = data.invitation ? t.invitationHeading : t.signInHeading;
  const legal = [link(look.termsOfServiceUrl, t.termsOfService), link(look.privacyPolicyUrl, t.privacyPolicy)].filter(Boolean);
  const invited = data.invitation;
  return `${screenHead(texts, look, assets, title)}
<script id="page-data" type="application/json">${dataBlock(data)}</script>
<script src="${assets}login.js" defer></script>
${look.tagManagerId ? `<script src="${TAG_MANAGER_ORIGIN}/gtm.js?id=${encodeURIComponent(look.tagManagerId)}" async></script>` : ''}
</head>
<body>
<main>
${languageSwitch(texts, data)}
${look.icon ? `<img class="icon" src="${escapeHtml(look.icon)}" alt="">` : ''}
${
  // Without a title of its own the step's heading is the page's: never "Sign in" twice.
  look.title
    ? `<h1>${escapeHtml(title)}</h1>
<h2 id="heading">${escapeHtml(heading)}</h2>`
    : `<h1 id="heading">${escapeHtml(heading)}</h1>`
}
${invited ? `<p id="invitation-intro">${escapeHtml(fill(t.invitationIntro, { email: invited.email, saas: invited.saasName || title, tenant: invited.tenantName || invited.tenantId }))}</p>` : ''}
${data.signedInAs ? signedInNotice(texts, data) : ''}
${data.invitationProblem ? `<p class="notice" id="invitation-problem">${escapeHtml(fill(t.invitationUnusable, { reason: data.invitationProblem }))}</p>` : ''}
<noscript><p class="error">${escapeHtml(t.scriptNeeded)}</p></noscript>
<p id="status" class="status" role="status" aria-live="polite"></p>
<p id="error" class="error" role="alert" hidden></p>

<form id="sign-in-form" data-heading="${escapeHtml(heading)}" hidden>
<label for="username">${escapeHtml(usernameLabel)}</label>
<input id="username" name="username" autocomplete="username" required maxlength="256"${invited ? ` value="${escapeHtml(invited.email)}"` : data.signedInAs ? ` value="${escapeHtml(data.signedInAs.name)}"` : ''}>
<label for="password">${escapeHtml(t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
<button type="submit">${escapeHtml(t.signIn)}</button>
${invited ? `<button type="button" id="show-new-account" class="secondary">${escapeHtml(t.newHere)}</button>` : ''}
${look.google ? googleButton(texts, data) : ''}
${look.passkeys ? passkeySignInButton(texts) : ''}
<p class="links"><a href="forgot-password" data-form="forgot-form">${escapeHtml(t.forgotPassword)}</a>${
    look.selfSignUp && !invited ? ` · <a href="sign-up" data-form="sign-up-form">${escapeHtml(t.createAccountLink)}</a>` : ''
  }</p>
</form>

${look.selfSignUp ? signUpForm(texts, look, data) : ''}
${data.consent ? consentForm(texts, look, data.consent) : ''}

<form id="forgot-form" data-heading="${escapeHtml(t.forgotHeading)}" hidden>
<p>${escapeHtml(t.forgotIntro)}</p>
<label for="forgot-username">${escapeHtml(usernameLabel)}</label>
<input id="forgot-username" name="username" autocomplete="username" required maxlength="256">
<button type="submit">${escapeHtml(t.sendCode)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.backToSignIn)}</button>
</form>

<form id="reset-form" data-heading="${escapeHtml(t.forgotHeading)}" hidden>
<p>${escapeHtml(t.resetIntro)}</p>
${codeField('reset-code', t.code)}
${newPasswordField(texts, data.passwordRules, 'reset-password', t.newPassword, 'password')}
<button type="submit">${escapeHtml(t.resetPassword)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.backToSignIn)}</button>
</form>

${
  invited
    ? `<form id="new-account-form" data-heading="${escapeHtml(heading)}" hidden>
<p>${escapeHtml(fill(t.newAccountHeading, { email: invited.email }))}</p>
${codeField('account-code', t.code)}
${newPasswordField(texts, data.passwordRules, 'account-password', t.password, 'password', true)}
<button type="submit">${escapeHtml(t.createAccount)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.haveAccount)}</button>
</form>`
    : ''
}

<form id="new-password-form" data-heading="${escapeHtml(t.newPasswordHeading)}" hidden>
<p>${escapeHtml(t.newPasswordIntro)}</p>
${newPasswordField(texts, data.passwordRules, 'new-password', t.newPassword, 'new_password')}
<button type="submit">${escapeHtml(t.setPassword)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.startAgain)}</button>
</form>

${
  data.link
    ? `<form id="link-form" data-heading="${escapeHtml(t.linkHeading)}" hidden>
<p>${escapeHtml(fill(t.linkIntro, { email: data.link.email }))}</p>
${codeField('link-code', t.code)}
<button type="submit">${escapeHtml(t.linkAndSignIn)}</button>
</form>`
    : ''
}

${look.passkeys ? passkeysForm(texts) : ''}

<form id="code-form" data-heading="${escapeHtml(heading)}" hidden>
<p id="code-prompt" data-totp="${escapeHtml(t.totpPrompt)}" data-email="${escapeHtml(t.emailCodePrompt)}"></p>
${codeField('code', t.code)}
${
  // Asked only with a second factor: a remembered browser is what skips it next time.
  look.deviceRemembering === 'userOptIn'
    ? `<label class="check"><input type="checkbox" id="remember-device"> ${escapeHtml(t.rememberDevice)}</label>`
    : ''
}
<button type="submit">${escapeHtml(t.verify)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.startAgain)}</button>
</form>

${customFrame(texts, look, 'sign_in_page', 'sign-in-form', assets)}${customFrame(texts, look, 'sign_up_page', 'sign-up-form', assets)}${customFrame(
    texts,
    look,
    'password_reset_page',
    'forgot-form',
    assets,
  )}
${legal.length ? `<footer>${legal.join(' · ')}</footer>` : ''}
</main>
</body>
</html>
`;
}

/** A plain link (no script needed): it carries what the page was opened for to the provider and back. */
function googleButton(texts: LoginTexts, data: PageData): string {
  const query = new URLSearchParams(contextQuery(data));
  const href = `federated/google${query.size ? `?${query.toString()}` : ''}`;
  return `<p class="divider"><span>${escapeHtml(texts.page.or)}</span></p>
<p class="federated"><a id="sign-in-with-google" class="button secondary" href="${escapeHtml(href)}">${GOOGLE_MARK}<span>${escapeHtml(texts.page.signInWithGoogle)}</span></a></p>`;
}

/**
 * The SaaS's HTML for one page, shown with its form: sandboxed (no script, no same origin), in a document of
 * the screen's stylesheets so it reads in the screen's font and colours. The page's CSP applies inside too.
 */
function customFrame(texts: LoginTexts, look: ScreenLook, page: PageName, form: FirstForm, assets: string): string {
  const html = look.pages[page].html_contents;
  const doc = `<!doctype html><html lang="${texts.lang}"><head><meta charset="utf-8"><link rel="stylesheet" href="${assets}login.css">${themeLink(assets, look.theme)}</head><body class="custom-content">${html}</body></html>`;
  return html
    ? `<iframe class="custom" data-with="${form}" hidden title="${escapeHtml(texts.page.customContent)}" sandbox="" srcdoc="${escapeHtml(doc)}"></iframe>\n`
    : '';
}

/** The consents the sign-up page asks for, each a required checkbox with its link. */
function consents(texts: LoginTexts, look: ScreenLook, prefix: string): string {
  const t = texts.page;
  const { is_terms_of_service, is_privacy_policy } = look.pages.sign_up_page;
  const consent = (id: string, asked: boolean, text: string, url: string, name: string) =>
    asked
      ? `<label class="check"><input type="checkbox" id="${id}" required> ${fill(escapeHtml(text), { link: url ? link(url, name) : escapeHtml(name) })}</label>`
      : '';
  return `${consent(`${prefix}terms`, is_terms_of_service, t.acceptTerms, look.termsOfServiceUrl, t.termsOfService)}
${consent(`${prefix}privacy`, is_privacy_policy, t.acceptPrivacy, look.privacyPolicyUrl, t.privacyPolicy)}`;
}

/**
 * Sign-up: an e-mail address and the consents; with the chosen password (sign_up.password), the password and
 * its confirmation too, then the form for the mailed code.
 */
function signUpForm(texts: LoginTexts, look: ScreenLook, data: PageData): string {
  const t = texts.page;
  const chosen = look.signUpPassword === 'chosen';
  const form = `<form id="sign-up-form" data-heading="${escapeHtml(t.signUpHeading)}"${chosen ? ' data-chosen' : ''} hidden>
<p>${escapeHtml(chosen ? t.signUpChosenIntro : t.signUpIntro)}</p>
<label for="sign-up-email">${escapeHtml(t.email)}</label>
<input id="sign-up-email" name="email" type="email" autocomplete="email" required maxlength="254">
${chosen ? newPasswordField(texts, data.passwordRules, 'sign-up-password', t.password, 'password', true) : ''}
${consents(texts, look, 'accept-')}
<button type="submit">${escapeHtml(chosen ? t.signUpChosen : t.signUp)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.backToSignIn)}</button>
</form>`;
  if (!chosen) return form;
  return `${form}

<form id="sign-up-code-form" data-heading="${escapeHtml(t.signUpHeading)}" hidden>
<p id="sign-up-code-intro" data-text="${escapeHtml(t.signUpCodeIntro)}"></p>
${codeField('sign-up-code', t.code)}
<button type="submit">${escapeHtml(t.confirmSignUp)}</button>
<button type="button" class="secondary start-again">${escapeHtml(t.backToSignIn)}</button>
</form>`;
}

/** A provider's sign-in would make a new account: the consents first (screen.ts, `./consent`). */
function consentForm(texts: LoginTexts, look: ScreenLook, consent: { email: string }): string {
  const t = texts.page;
  return `<form id="consent-form" data-heading="${escapeHtml(t.consentHeading)}" hidden>
<p>${escapeHtml(fill(t.consentIntro, { email: consent.email }))}</p>
${consents(texts, look, 'consent-')}
<button type="submit">${escapeHtml(t.consentContinue)}</button>
<p class="links"><a href="./">${escapeHtml(t.backToSignIn)}</a></p>
</form>`;
}

/**
 * The screen's files by absolute path, for its pages served elsewhere (the authorization server, the SAML
 * function): a SaaS's (its theme.css is its theme), or the shared ones (the product's theme).
 */
export const screenAssets = (saasId?: string) => `${ENTRY_PATHS.login}${saasId ? `${saasId}/` : ''}assets/`;

/**
 * A message page's policy. A SaaS's may show its theme's https background image from wherever it is: the page
 * runs no script and has no form, so an image from anywhere learns nothing from it.
 */
export const messagePagePolicy = (themed: boolean) => contentSecurityPolicy(false, themed ? 'https:' : undefined);

/** A page that only says something (unknown SaaS, unknown page, a way in that failed): no script, no form. */
export function messagePage(
  texts: Pick<LoginTexts, 'lang'>,
  title: string,
  message: string,
  assets?: string,
  action?: { href: string; text: string },
): string {
  return `<!doctype html>
<html lang="${texts.lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
${assets ? `<link rel="stylesheet" href="${assets}login.css"><link rel="stylesheet" href="${assets}theme.css">\n<link rel="icon" href="${assets}../favicon.ico">` : ''}</head>
<body><main><h1>${escapeHtml(title)}</h1><p id="message">${escapeHtml(message)}</p>${
    action ? `\n<p class="links"><a id="action" href="${escapeHtml(action.href)}">${escapeHtml(action.text)}</a></p>` : ''
  }</main></body>
</html>
`;
}
