/** The login screen's HTML (web/login/pages.ts): every value from settings or the request is inert. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { contentSecurityPolicy, loginPage, type PageData, type ScreenLook } from '../../web/login/pages.js';
import { escapeHtml } from '../../web/kit/html.js';
import { EN, fill } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';

const HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
const noPage = { html_contents: '', is_terms_of_service: false, is_privacy_policy: false };

const look = (over: Partial<ScreenLook> = {}): ScreenLook => ({
  title: '',
  icon: '',
  favicon: '',
  termsOfServiceUrl: '',
  privacyPolicyUrl: '',
  tagManagerId: '',
  signInIdEnabled: false,
  selfSignUp: false,
  deviceRemembering: 'no',
  google: false,
  pages: { sign_in_page: noPage, sign_up_page: noPage, password_reset_page: noPage },
  ...over,
});
const data = (over: Partial<PageData> = {}): PageData => ({ csrf: 'c'.repeat(43), first: 'sign-in-form', messages: EN.messages, ...over });

/** The page's script elements: only our data block and our own file. */
const scripts = (html: string) => [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);

describe('the login page', () => {
  it('escapes the title, links, state and invitation address, and ends no data block early', () => {
    const html = loginPage(
      EN,
      look({ title: HOSTILE, termsOfServiceUrl: `https://acme.test/${HOSTILE}` }),
      data({ state: `</script>${HOSTILE}`, invitation: { id: 'i', tenantId: 't', email: HOSTILE } }),
      '/v1/auth/login/s/assets/',
    );
    assert.deepEqual(scripts(html), ['<script id="page-data" type="application/json">', '<script src="/v1/auth/login/s/assets/login.js" defer>']);
    assert.doesNotMatch(html, /<img src=x/i, 'no element of the hostile value');
    const block = /<script id="page-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    assert.equal((JSON.parse(block) as PageData).state, `</script>${HOSTILE}`);
  });

  it('shows the SaaS’s HTML only in a frame sandboxed without script or origin', () => {
    const html = loginPage(
      EN,
      look({ pages: { sign_in_page: { ...noPage, html_contents: HOSTILE }, sign_up_page: noPage, password_reset_page: noPage } }),
      data(),
      '/a/',
    );
    const frame = /<iframe[^>]*>/.exec(html)?.[0] ?? '';
    assert.match(frame, / sandbox="" /);
    assert.doesNotMatch(frame.replace(/srcdoc="[^"]*"/, ''), /script/);
    assert.equal(scripts(html).length, 2);
  });

  it("names the screen's default icon when the SaaS set none, so browsers do not ask the API for /favicon.ico", () => {
    const icon = (html: string) => [...html.matchAll(/<link rel="icon" href="([^"]*)">/g)].map((m) => m[1]);
    // The screen serves its default icon at <screen>favicon.ico (dead-ends.ts); assets are <screen>assets/.
    assert.deepEqual(icon(loginPage(EN, look(), data(), '/a/assets/')), ['/a/assets/../favicon.ico']);
    assert.deepEqual(icon(loginPage(EN, look({ favicon: 'https://acme.test/i.png' }), data(), '/a/assets/')), ['https://acme.test/i.png']);
  });

  it('offers sign-up and its consents only as the settings say', () => {
    assert.doesNotMatch(loginPage(EN, look(), data(), '/a/'), /sign-up-form/);
    const consents = { ...noPage, is_terms_of_service: true };
    const html = loginPage(
      EN,
      look({ selfSignUp: true, pages: { sign_in_page: noPage, sign_up_page: consents, password_reset_page: noPage } }),
      data(),
      '/a/',
    );
    assert.match(html, /id="accept-terms" required/);
    assert.doesNotMatch(html, /accept-privacy/);
  });

  it('allows the tag manager’s origin only when the SaaS set one', () => {
    assert.doesNotMatch(contentSecurityPolicy(false), /googletagmanager/);
    assert.match(contentSecurityPolicy(true), /script-src 'self' https:\/\/www\.googletagmanager\.com/);
    for (const policy of [contentSecurityPolicy(false), contentSecurityPolicy(true)]) assert.match(policy, /frame-ancestors 'none'/);
    const html = loginPage(EN, look({ tagManagerId: 'GTM-ABC123' }), data({ tagManagerId: 'GTM-ABC123' }), '/a/');
    assert.match(html, /<script src="https:\/\/www\.googletagmanager\.com\/gtm\.js\?id=GTM-ABC123" async>/);
  });
});

describe('new passwords and consents on the page', () => {
  const rules = {
    minimum_length: 12,
    is_require_lowercase: true,
    is_require_uppercase: false,
    is_require_numbers: true,
    is_require_symbols: false,
    symbols: '!@#',
  };
  const consentsAsked = { ...noPage, is_terms_of_service: true, is_privacy_policy: true };

  it.each([EN, JA])("lists the policy's rules under every new-password field, with its toggle ($lang)", (texts) => {
    const html = loginPage(
      texts,
      look({ selfSignUp: true, signUpPassword: 'chosen' }),
      data({ passwordRules: rules, messages: texts.messages }),
      '/a/',
    );
    for (const field of ['sign-up-password', 'new-password', 'reset-password']) {
      const list = new RegExp(`<ul class="password-rules" id="${field}-rules"[^>]*>(.*?)</ul>`, 's').exec(html)?.[1] ?? '';
      const items = [...list.matchAll(/data-rule="([a-z-]+)"/g)].map((m) => m[1]);
      assert.deepEqual(items, ['length', 'lowercase', 'number', 'outer-space'], field);
      assert.ok(list.includes(fill(texts.page.ruleLength, { count: '12' })), field);
      assert.match(html, new RegExp(`<button type="button" class="reveal secondary" aria-pressed="false" aria-controls="${field}[^"]*">`));
    }
    assert.match(html, /id="sign-up-password-confirm"/, 'sign-up asks twice');
    assert.doesNotMatch(html, /id="(new|reset)-password-confirm"/);
  });

  it('keeps the temporary-password sign-up without a password field by default', () => {
    const html = loginPage(EN, look({ selfSignUp: true }), data({ passwordRules: rules }), '/a/');
    const form = /<form id="sign-up-form".*?<\/form>/s.exec(html)?.[0] ?? '';
    assert.ok(form.includes(EN.page.signUpIntro));
    assert.doesNotMatch(form, /type="password"/);
    assert.doesNotMatch(html, /sign-up-code-form/);
  });

  it.each([EN, JA])('asks a provider’s new account for the consents, naming its address ($lang)', (texts) => {
    const page = { sign_in_page: noPage, sign_up_page: consentsAsked, password_reset_page: noPage };
    const html = loginPage(
      texts,
      look({ pages: page, termsOfServiceUrl: 'https://acme.test/terms' }),
      data({ first: 'consent-form', consent: { ticket: 't', email: `new${HOSTILE}@example.com` }, messages: texts.messages }),
      '/a/',
    );
    const form = /<form id="consent-form".*?<\/form>/s.exec(html)?.[0] ?? '';
    assert.match(form, /<input type="checkbox" id="consent-terms" required>/);
    assert.match(form, /<input type="checkbox" id="consent-privacy" required>/);
    assert.match(form, /href="https:\/\/acme\.test\/terms"/);
    assert.doesNotMatch(form, /<img src=x/i);
    assert.ok(form.includes(escapeHtml(fill(texts.page.consentIntro, { email: `new${HOSTILE}@example.com` }))));
  });
});
