/**
 * The login screen's catalogues (web/login/texts/) and how a request picks one (web/login/language.ts):
 * a key missing in either catalogue fails here and in the compiler; `?lang=`, then the switch's cookie, then
 * Accept-Language, then English.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { CATALOGUES, catalogueOf, chooseTexts, LANG_COOKIE, rememberedLanguage, switchLanguage } from '../../web/login/language.js';
import { loginPage, type PageData, type ScreenLook } from '../../web/login/pages.js';
import { EN, type LoginTexts } from '../../web/login/texts/en.js';
import { JA } from '../../web/login/texts/ja.js';
import { NOT_FOUND } from '../../web/login/unmatched-page.js';

/** Every key path of a catalogue, with its text. */
function entries(texts: object, prefix = ''): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, value] of Object.entries(texts)) {
    if (typeof value === 'string') found.set(`${prefix}${key}`, value);
    else for (const [k, v] of entries(value as object, `${prefix}${key}.`)) found.set(k, v);
  }
  return found;
}
const marks = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the catalogues', () => {
  const english = entries(EN);

  it.each(Object.entries(CATALOGUES))('%s has every key of English, no other, each filled and with the same {marks}', (_lang, texts) => {
    const own = entries(texts);
    assert.deepEqual([...own.keys()].sort(), [...english.keys()].sort());
    for (const [key, text] of own) {
      assert.ok(text.trim(), `${key} is empty`);
      assert.deepEqual(marks(text), marks(english.get(key) ?? ''), `${key} fills other values than English`);
    }
  });

  it('Japanese is Japanese: every sentence differs from English and the words SaaSus uses are there', () => {
    for (const [key, text] of entries(JA)) if (key !== 'lang') assert.notEqual(text, english.get(key), `${key} is not translated`);
    assert.equal(JA.page.signIn, 'ログイン');
    assert.equal(JA.page.password, 'パスワード');
    assert.equal(JA.page.createAccountLink, '新規登録');
    assert.equal(JA.page.forgotPassword, 'パスワードをお忘れですか？');
  });

  it("the not-found page's own words (every API function's, apart from the catalogues) are each catalogue's, in every language", () => {
    assert.deepEqual(Object.keys(NOT_FOUND).sort(), Object.keys(CATALOGUES).sort());
    for (const [lang, texts] of Object.entries(CATALOGUES)) {
      assert.deepEqual(NOT_FOUND[lang], { lang: texts.lang, title: texts.page.notFoundTitle, text: texts.page.notFound });
    }
  });

  it('a catalogue missing a key does not compile', () => {
    const { signIn: _dropped, ...withoutSignIn } = JA.page;
    // @ts-expect-error the type of every catalogue names each key of English
    const broken: LoginTexts = { ...JA, page: withoutSignIn };
    assert.equal(broken.page.signIn, undefined);
  });
});

describe('choosing the language', () => {
  const choose = (query: string, headers: Record<string, string> = {}) => chooseTexts(new URLSearchParams(query), headers).lang;

  it('takes ?lang= first, then the cookie, then Accept-Language, and English when nothing matches', () => {
    const all = { cookie: `${LANG_COOKIE}=en`, 'accept-language': 'en-US,en' };
    assert.equal(choose('lang=ja', all), 'ja');
    assert.equal(choose('', { cookie: `other=1; ${LANG_COOKIE}=ja`, 'accept-language': 'en-US' }), 'ja');
    assert.equal(choose('', { 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.8' }), 'ja');
    assert.equal(choose('lang=fr', { cookie: `${LANG_COOKIE}=xx`, 'accept-language': 'fr-FR, de;q=0.5' }), 'en');
    assert.equal(choose(''), 'en');
  });

  it('weighs Accept-Language by q and skips what it refuses', () => {
    assert.equal(choose('', { 'accept-language': 'en;q=0.4, ja;q=0.8' }), 'ja');
    assert.equal(choose('', { 'accept-language': 'ja;q=0, en' }), 'en');
    assert.equal(choose('', { 'accept-language': 'fr, *, JA-jp' }), 'ja');
    assert.equal(catalogueOf('zh-TW'), undefined);
  });

  it('a page opened with ?lang= keeps the language for the rest of the visit, in the same cookie; nothing else sets it', () => {
    assert.match(rememberedLanguage(new URLSearchParams('lang=ja-JP'), false) ?? '', new RegExp(`^${LANG_COOKIE}=ja; Path=/v1/auth/;`));
    assert.equal(rememberedLanguage(new URLSearchParams('lang=fr'), false), undefined);
    assert.equal(rememberedLanguage(new URLSearchParams(''), false), undefined);
  });

  it('the switch remembers the choice and goes back to the same page of the same screen, and nowhere else', () => {
    const screen = '/v1/auth/login/s1/';
    const answer = switchLanguage(screen, new URLSearchParams('to=ja&page=sign-up&state=abc&evil=https://x.test'), true);
    assert.equal(answer?.status, 303);
    assert.equal(answer?.headers.location, `${screen}sign-up?state=abc`);
    assert.match(
      answer?.headers['set-cookie'] ?? '',
      new RegExp(`^${LANG_COOKIE}=ja; Path=/v1/auth/; HttpOnly; SameSite=Lax; Max-Age=\\d+; Secure$`),
    );
    assert.equal(switchLanguage(screen, new URLSearchParams('to=ja&page=//evil.test'), true), undefined);
    assert.equal(switchLanguage(screen, new URLSearchParams('to=../x&page='), true), undefined);
  });
});

describe('the page in each language', () => {
  const noPage = { html_contents: '', is_terms_of_service: false, is_privacy_policy: false };
  const look: ScreenLook = {
    title: '',
    icon: '',
    favicon: '',
    termsOfServiceUrl: '',
    privacyPolicyUrl: '',
    tagManagerId: '',
    signInIdEnabled: false,
    selfSignUp: true,
    deviceRemembering: 'userOptIn',
    google: false,
    pages: { sign_in_page: noPage, sign_up_page: noPage, password_reset_page: noPage },
  };
  const data = (texts: LoginTexts, over: Partial<PageData> = {}): PageData => ({
    csrf: 'c'.repeat(43),
    first: 'sign-in-form',
    messages: texts.messages,
    ...over,
  });

  it.each([EN, JA])('is marked with its language, offers the other, and says "sign in" once ($lang)', (texts) => {
    const html = loginPage(texts, look, data(texts, { state: 'st' }), '/a/');
    assert.match(html, new RegExp(`<html lang="${texts.lang}">`));
    const other = texts === EN ? JA : EN;
    assert.match(html, new RegExp(`<a href="language\\?page=&amp;state=st&amp;to=${other.lang}" lang="${other.lang}"`));
    assert.equal(html.match(new RegExp(`>${texts.page.signInHeading}</h`, 'g'))?.length, 1, 'one heading says it');
  });

  it('asks to remember the browser only beside the second factor', () => {
    const html = loginPage(EN, look, data(EN), '/a/');
    const signInForm = /<form id="sign-in-form".*?<\/form>/s.exec(html)?.[0] ?? '';
    const codeForm = /<form id="code-form".*?<\/form>/s.exec(html)?.[0] ?? '';
    assert.doesNotMatch(signInForm, /remember-device/);
    assert.match(codeForm, /id="remember-device"/);
  });

  it('names the tenant and the SaaS of an invitation', () => {
    const invitation = { id: 'i', tenantId: 't', email: 'a@example.com', saasName: 'Acme Cloud', tenantName: 'Tokyo Office' };
    const html = loginPage(JA, look, data(JA, { invitation }), '/a/');
    assert.match(html, /Acme Cloud から a@example\.com 宛に、Tokyo Office への招待が届いています/);
  });
});
