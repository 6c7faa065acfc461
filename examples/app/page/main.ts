/**
 * The login page: e-mail login and ID login (username + tenant id), the new-password and MFA-code steps,
 * and who is signed in. It talks only to its own backend; tokens stay in HttpOnly cookies it never sees,
 * and every call that touches them carries the CSRF token from GET /csrf.
 */
import { SrpClient, type PasswordChallenge } from '../../../client/srp.js';
import { CATALOGUES, chooseLanguage, fill, LANG_COOKIE, type Texts } from './texts.js';

interface Answer {
  success: boolean;
  message: string;
  [field: string]: unknown;
}

/** The step the backend asked for after the password, with what answers it. */
interface PendingChallenge {
  challenge_name: string;
  session: string;
  username: string;
}

interface SignedInUser {
  email?: string;
  sign_in_id?: string;
  id: string;
  tenants: {
    id: string;
    name: string;
    envs: { display_name?: string; name: string; roles: { display_name?: string; role_name: string }[] }[];
    plan?: { id: string; display_name: string };
    usage?: { metering_unit_name: string; count: number }[];
  }[];
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const input = (id: string) => element<HTMLInputElement>(id);

const views = ['login', 'new-password-form', 'code-form', 'signed-in'] as const;
let texts: Texts = chooseLanguage(location.search, document.cookie, navigator.languages);

/** The server's English answer in the page's language, when it is one the catalogue knows. */
const said = (message: string) => (Object.hasOwn(texts.server, message) ? texts.server[message as keyof Texts['server']] : message);

/** Every marked text, the page's language and title, and which language the switch shows as chosen. */
function applyTexts(): void {
  document.documentElement.lang = texts.lang;
  for (const el of document.querySelectorAll<HTMLElement>('[data-text]')) {
    const text = texts[el.dataset.text as Exclude<keyof Texts, 'server'>];
    if (typeof text === 'string') el.textContent = text;
  }
  document.title = texts.title;
  for (const el of document.querySelectorAll<HTMLElement>('[data-label]')) el.setAttribute('aria-label', texts.languageSwitch);
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-lang]')) {
    button.setAttribute('aria-pressed', String(button.dataset.lang === texts.lang));
  }
}

/** The switch: remembered in a cookie (a year), and `?lang=` dropped so the choice holds on reload. */
function switchTo(lang: string): void {
  const chosen = CATALOGUES[lang];
  if (!chosen) return;
  texts = chosen;
  document.cookie = `${LANG_COOKIE}=${lang}; path=/; max-age=31536000; samesite=lax`;
  const url = new URL(location.href);
  if (url.searchParams.has('lang')) {
    url.searchParams.delete('lang');
    history.replaceState(null, '', url);
  }
  applyTexts();
}
let csrfToken = '';
let pending: PendingChallenge | undefined;

async function call(method: 'GET' | 'POST', path: string, body?: object): Promise<Answer> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { 'x-csrf-token': csrfToken, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  try {
    return (await response.json()) as Answer;
  } catch {
    return { success: false, message: fill(texts.serverAnswered, { status: String(response.status) }) };
  }
}

function show(view: (typeof views)[number], status = ''): void {
  for (const id of views) element(id).hidden = id !== view;
  element('status').textContent = said(status);
}

function showError(message: string): void {
  const box = element('error');
  box.textContent = said(message);
  box.hidden = !message;
}

/** Runs one step with the form's buttons disabled; any failure is shown, never thrown. */
async function busy(form: HTMLFormElement, step: () => Promise<void>): Promise<void> {
  const buttons = [...form.querySelectorAll('button')];
  buttons.forEach((b) => (b.disabled = true));
  showError('');
  try {
    await step();
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

function selectTab(tab: 'email' | 'id'): void {
  element('tab-email').setAttribute('aria-selected', String(tab === 'email'));
  element('tab-id').setAttribute('aria-selected', String(tab === 'id'));
  element('email-form').hidden = tab !== 'email';
  element('id-form').hidden = tab !== 'id';
  showError('');
}

function renderUser(user: SignedInUser): void {
  element('who').textContent = user.email || user.sign_in_id || user.id;
  const list = element('tenants');
  list.replaceChildren(
    ...user.tenants.map((tenant) => {
      const item = document.createElement('li');
      const roles = tenant.envs.flatMap((env) => env.roles.map((role) => `${role.display_name || role.role_name} (${env.display_name || env.name})`));
      item.textContent = `${tenant.name}${roles.length ? `: ${roles.join(', ')}` : ''}`;
      item.dataset.tenantId = tenant.id;
      const billing = document.createElement('div');
      billing.className = 'plan';
      const usage = (tenant.usage ?? []).map((u) => `${u.metering_unit_name} ${u.count}`);
      billing.textContent = `Plan: ${tenant.plan?.display_name ?? 'none'}${usage.length ? ` · this month: ${usage.join(', ')}` : ''}`;
      item.append(billing);
      return item;
    }),
  );
  show('signed-in');
}

/** The signed-in user, refreshing the tokens once when the ID token has expired; else the login form. */
async function showSession(): Promise<void> {
  let me = await call('GET', '/me');
  if (!me.success && (await call('POST', '/refresh')).success) me = await call('GET', '/me');
  if (me.success) renderUser(me.user as SignedInUser);
  else show('login');
}

async function handleStep(step: Answer): Promise<void> {
  if (!step.success) throw new Error(step.message);
  if (step.signed_in) {
    pending = undefined;
    return showSession();
  }
  pending = { challenge_name: String(step.challenge_name), session: String(step.session), username: String(step.username) };
  if (pending.challenge_name === 'NEW_PASSWORD_REQUIRED') {
    show('new-password-form', step.message);
    input('new-password').focus();
  } else {
    element('code-prompt').textContent = said(step.message);
    show('code-form', step.message);
    input('code').focus();
  }
}

/** SRP_A out, the challenge back, the proof out: the password itself never leaves this function. */
async function signInWith(path: '/sign-in' | '/challenge-id', fields: Record<string, string>, password: HTMLInputElement): Promise<void> {
  const srp = new SrpClient();
  const challenge = await call('POST', path, { ...fields, srp_a: await srp.srpA() });
  if (!challenge.success) throw new Error(challenge.message);
  const claim = await srp.passwordClaim(challenge as unknown as PasswordChallenge, password.value);
  password.value = '';
  await handleStep(await call('POST', '/sign-in/challenge', claim));
}

async function answerPending(fields: Record<string, string>): Promise<void> {
  if (!pending) return show('login');
  await handleStep(await call('POST', '/verify', { ...pending, ...fields }));
}

function startAgain(): void {
  pending = undefined;
  showError('');
  show('login');
}

function wire(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-lang]')) {
    button.addEventListener('click', () => switchTo(button.dataset.lang ?? ''));
  }
  element('tab-email').addEventListener('click', () => selectTab('email'));
  element('tab-id').addEventListener('click', () => selectTab('id'));
  const on = (id: string, step: (form: HTMLFormElement) => Promise<void>) => {
    const form = element<HTMLFormElement>(id);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(form, () => step(form));
    });
  };
  on('email-form', () => signInWith('/sign-in', { username: input('email').value.trim() }, input('email-password')));
  on('id-form', () =>
    signInWith('/challenge-id', { user_id: input('user-id').value.trim(), tenant_id: input('tenant-id').value.trim() }, input('id-password')),
  );
  on('new-password-form', async () => {
    const newPassword = input('new-password');
    const value = newPassword.value;
    newPassword.value = '';
    await answerPending({ new_password: value });
  });
  on('code-form', async () => {
    const code = input('code');
    const value = code.value.trim();
    code.value = '';
    await answerPending({ code: value });
  });
  for (const button of document.querySelectorAll('.start-again')) button.addEventListener('click', startAgain);
  element('sign-out').addEventListener('click', async () => {
    const answer = await call('POST', '/sign-out');
    if (!answer.success) return showError(answer.message);
    show('login', texts.signedOut);
  });

  const tenantId = new URLSearchParams(location.search).get('tenant_id');
  if (tenantId) {
    input('tenant-id').value = tenantId;
    selectTab('id');
  }
}

async function start(): Promise<void> {
  applyTexts();
  element('status').textContent = texts.loading;
  wire();
  const answer = await call('GET', '/csrf');
  csrfToken = String(answer.csrf_token ?? '');
  await showSession();
}

start().catch((error: unknown) => {
  show('login');
  showError(fill(texts.couldNotStart, { detail: error instanceof Error ? error.message : String(error) }));
});
