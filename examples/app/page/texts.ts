/**
 * Every word of the example application's page, in English and Japanese, as the hosted login screen keeps its
 * own (web/login/texts/). The page marks each text with `data-text="key"`; the server's answers are in
 * English (the spec fixes some of them), so the page shows each known one in the chosen language.
 */
export const EN = {
  lang: 'en',
  languageName: 'English',
  languageSwitch: 'Language',
  title: 'Example SaaS: sign in',
  heading: 'Example SaaS',
  loading: 'Loading…',
  emailTab: 'E-mail login',
  idTab: 'ID login',
  hosted: 'Sign in with the hosted screen',
  hostedNote: "(the service's login page for this SaaS)",
  emailOrId: 'E-mail address or sign-in ID',
  password: 'Password',
  username: 'Username',
  tenantId: 'Tenant ID',
  signIn: 'Sign in',
  temporaryIntro: 'Your password was temporary. Choose a new one to finish signing in.',
  newPassword: 'New password',
  setPassword: 'Set password and sign in',
  startAgain: 'Start again',
  codePrompt: 'Enter your code.',
  code: 'Code',
  verify: 'Verify',
  signedInAs: 'Signed in as',
  yourTenants: 'Your tenants',
  signOut: 'Sign out',
  signedOut: 'Signed out.',
  couldNotStart: 'The page could not start: {detail}',
  serverAnswered: 'The server answered {status}',
  /** The server's answers, by their English words (examples/app/server): shown as is in English. */
  server: {
    'Choose a new password': 'Choose a new password',
    'Enter the code from your authenticator app': 'Enter the code from your authenticator app',
    'Enter the code we sent to your e-mail address': 'Enter the code we sent to your e-mail address',
    'Incorrect username or password.': 'Incorrect username or password.',
    'The code is wrong or has expired.': 'The code is wrong or has expired.',
    'Your temporary password has expired. Ask for a new one.': 'Your temporary password has expired. Ask for a new one.',
    'The sign-in service is unavailable. Try again later.': 'The sign-in service is unavailable. Try again later.',
    'Your session has ended. Sign in again.': 'Your session has ended. Sign in again.',
    'Invalid request format': 'Invalid request format',
    'Tenant not found': 'Tenant not found',
    'Tenant does not have login_domain attribute configured': 'Tenant does not have login_domain attribute configured',
    'SignIn challenge failed': 'SignIn challenge failed',
    'Missing or wrong CSRF token: reload the page': 'Missing or wrong CSRF token: reload the page',
  },
} as const;

/** Every catalogue has each key of English and no other: `JA` does not compile while one is missing. */
type Words = { [K in Exclude<keyof typeof EN, 'server'>]: string } & { server: Record<keyof (typeof EN)['server'], string> };

export const JA: Words = {
  lang: 'ja',
  languageName: '日本語',
  languageSwitch: '言語',
  title: 'Example SaaS: ログイン',
  heading: 'Example SaaS',
  loading: '読み込み中…',
  emailTab: 'メールアドレスでログイン',
  idTab: 'IDでログイン',
  hosted: 'ログイン画面でログイン',
  hostedNote: '（このSaaSのためにサービスが提供するログインページ）',
  emailOrId: 'メールアドレスまたはサインインID',
  password: 'パスワード',
  username: 'ユーザー名',
  tenantId: 'テナントID',
  signIn: 'ログイン',
  temporaryIntro: '仮パスワードでログインしました。ログインを完了するには、新しいパスワードを設定してください。',
  newPassword: '新しいパスワード',
  setPassword: 'パスワードを設定してログイン',
  startAgain: '最初からやり直す',
  codePrompt: '確認コードを入力してください。',
  code: '確認コード',
  verify: '確認',
  signedInAs: 'ログイン中のユーザー:',
  yourTenants: '所属テナント',
  signOut: 'ログアウト',
  signedOut: 'ログアウトしました。',
  couldNotStart: 'ページを開始できませんでした: {detail}',
  serverAnswered: 'サーバーがステータス {status} を返しました',
  server: {
    'Choose a new password': '新しいパスワードを設定してください',
    'Enter the code from your authenticator app': '認証アプリに表示されているコードを入力してください',
    'Enter the code we sent to your e-mail address': 'メールアドレスに送信した確認コードを入力してください',
    'Incorrect username or password.': 'ユーザー名またはパスワードが正しくありません。',
    'The code is wrong or has expired.': '確認コードが正しくないか、有効期限が切れています。',
    'Your temporary password has expired. Ask for a new one.': '仮パスワードの有効期限が切れています。新しい仮パスワードを発行してください。',
    'The sign-in service is unavailable. Try again later.': 'ログインサービスを利用できません。しばらくしてからお試しください。',
    'Your session has ended. Sign in again.': 'セッションが終了しました。もう一度ログインしてください。',
    'Invalid request format': 'リクエストの形式が正しくありません',
    'Tenant not found': 'テナントが見つかりません',
    'Tenant does not have login_domain attribute configured': 'テナントに login_domain 属性が設定されていません',
    'SignIn challenge failed': 'ログインを開始できませんでした',
    'Missing or wrong CSRF token: reload the page': 'CSRF トークンがないか正しくありません。ページを再読み込みしてください',
  },
};

export type Texts = Words;
export const CATALOGUES: Readonly<Record<string, Texts>> = { en: EN, ja: JA };

export const LANG_COOKIE = 'app_lang';

/** `?lang=`, then the switch's cookie, then the browser's languages (its Accept-Language), then English. */
export function chooseLanguage(search: string, cookies: string, browserLanguages: readonly string[]): Texts {
  const of = (tag: string | null | undefined) => {
    const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
    return Object.hasOwn(CATALOGUES, primary) ? CATALOGUES[primary] : undefined;
  };
  const cookie = /(?:^|;\s*)app_lang=([^;]*)/.exec(cookies)?.[1];
  return of(new URLSearchParams(search).get('lang')) ?? of(cookie) ?? browserLanguages.map(of).find(Boolean) ?? EN;
}

/** A text with its `{name}` marks filled in. */
export const fill = (text: string, values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (mark, name: string) => values[name] ?? mark);
