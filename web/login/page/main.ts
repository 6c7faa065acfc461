/**
 * The hosted login screen's script: the SRP in the browser (web/login/srp.ts), one step at a time, then to the
 * SaaS's callback URL the server names. The password never leaves the page, except to create an account
 * (an invited user's, or a sign-up with a chosen password), which needs it, and after SRP refused it on a SaaS
 * that moved its users here (the first sign-in of an imported user, `api/password`). Texts come from the page's data block
 * (web/login/texts/), so this file holds no words of its own.
 */
import { passwordForms, SrpClient, verifierResponses } from '../srp.js';
import type { PageData } from '../page-data.js';
import { fill } from '../texts/en.js';
import { enrolPasskey, leaveOffer, offerPasskeys, setUpPasskeys, type PasskeyOffer } from './passkeys.js';
import { passwordFieldChecks } from './password-fields.js';

interface StepAnswer {
  redirect?: string;
  challenge?: Parameters<SrpClient['passwordClaim']>[0];
  challenge_name?: string;
  session?: string;
  username?: string;
  /** Offered when the SaaS remembers devices: confirm it with the ticket before leaving. */
  new_device?: { ticket: string };
  /** The SaaS offers passkeys: the page may show the person theirs before leaving (passkeys.ts). */
  passkeys?: PasskeyOffer;
  /** Passkeys required, and the person has none: create one with this ticket, then sign in with it (passkeys.ts). */
  passkey_enrolment?: { ticket: string };
  type?: string;
  message?: string;
}

const data = JSON.parse(document.getElementById('page-data')?.textContent ?? '{}') as PageData;
const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;
const input = (id: string) => element<HTMLInputElement>(id) as HTMLInputElement;
const FORMS = [
  'sign-in-form',
  'new-account-form',
  'new-password-form',
  'code-form',
  'sign-up-form',
  'forgot-form',
  'reset-form',
  'link-form',
  'passkeys-form',
  'sign-up-code-form',
  'consent-form',
] as const;
type FormId = (typeof FORMS)[number];

/** The follow-up step the server asked for, answered by the code or new-password form. */
let pending: { challenge_name: string; session: string; username: string } | undefined;
let joined = false;
/** The name the person signed in with, as typed: whose "not now" to a passkey this browser remembers. */
let person = '';
/** Whose password is being reset: the name the code was asked for. */
let resetting = '';
/** A sign-up with a chosen password waiting for its mailed code: the address and the password, kept only here. */
let signingUp: { email: string; password: string } | undefined;

if (data.tagManagerId) {
  const layer = ((window as unknown as { dataLayer?: object[] }).dataLayer ??= []);
  layer.push({ 'gtm.start': Date.now(), event: 'gtm.js' });
}

/** One form at a time, with the SaaS's HTML for its page (a frame marked data-with that form). */
function show(id: FormId): void {
  for (const form of FORMS) {
    const el = element(form);
    if (el) el.hidden = form !== id;
  }
  (element('heading') as HTMLElement).textContent = element(id)?.dataset.heading ?? '';
  for (const frame of document.querySelectorAll<HTMLElement>('iframe.custom')) {
    frame.hidden = frame.dataset.with !== (id === 'reset-form' ? 'forgot-form' : id);
  }
  element<HTMLInputElement>(id)?.querySelector('input')?.focus();
}

function say(status: string, error = ''): void {
  (element('status') as HTMLElement).textContent = status;
  const box = element('error') as HTMLElement;
  box.textContent = error;
  box.hidden = !error;
}

class Refused extends Error {
  constructor(
    message: string,
    readonly type = '',
  ) {
    super(message);
  }
}

async function post(step: string, body: object): Promise<StepAnswer> {
  const response = await fetch(`api/${step}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': data.csrf },
    body: JSON.stringify(body),
  });
  let answer: StepAnswer;
  try {
    answer = (await response.json()) as StepAnswer;
  } catch {
    throw new Refused(data.messages.unavailable);
  }
  if (!response.ok) throw new Refused(answer.message ?? data.messages.unavailable, answer.type);
  return answer;
}

const context = () => ({
  ...(data.state !== undefined ? { state: data.state } : {}),
  ...(data.code_challenge !== undefined ? { code_challenge: data.code_challenge } : {}),
  ...(data.authorization !== undefined ? { authorization: data.authorization } : {}),
  ...(data.invitation && !joined ? { invitation: { id: data.invitation.id, tenant_id: data.invitation.tenantId } } : {}),
});

/**
 * The device the service offered: the server makes its secret and keeps it in an HttpOnly cookie of this
 * screen's steps (web/login/screen/remembered-devices.ts), so no script here, ours or another's, ever holds it.
 * The next sign-in in this browser answers the device's steps on the server, in place of the MFA code.
 */
async function keepDevice(offered: NonNullable<StepAnswer['new_device']>): Promise<void> {
  const remember = element<HTMLInputElement>('remember-device')?.checked ?? true;
  await post('device', { ticket: offered.ticket, remember });
}

/** An answer that ends at the callback URL, or asks for one more step. */
async function follow(answer: StepAnswer): Promise<void> {
  if (answer.passkey_enrolment) return enrolPasskey(answer.passkey_enrolment.ticket);
  if (answer.redirect) {
    // Signing in does not wait on the device: a device that could not be kept is simply not remembered.
    if (answer.new_device) await keepDevice(answer.new_device).catch(() => undefined);
    if (await offerPasskeys(answer.passkeys, answer.redirect, person).catch(() => false)) return;
    return leaveOffer(answer.passkeys, answer.redirect);
  }
  pending = { challenge_name: answer.challenge_name ?? '', session: answer.session ?? '', username: answer.username ?? '' };
  say('');
  if (pending.challenge_name === 'NEW_PASSWORD_REQUIRED') return show('new-password-form');
  const prompt = element('code-prompt') as HTMLElement;
  prompt.textContent = (pending.challenge_name === 'EMAIL_OTP' ? prompt.dataset.email : prompt.dataset.totp) ?? '';
  show('code-form');
}

/** Signs in with the NFKC form of the password, then as typed if that was refused and differs (srp.ts, passwordForms). */
async function signIn(username: string, password: string): Promise<void> {
  const [normalized, typed] = passwordForms(password);
  try {
    await prove(username, normalized ?? password);
  } catch (error) {
    if (!(typed !== undefined && error instanceof Refused && error.type === 'not_authorized')) throw error;
    await prove(username, typed);
  }
}

async function prove(username: string, password: string, again = true): Promise<void> {
  person = username;
  const srp = new SrpClient();
  const started = await post('start', { username, srp_a: await srp.srpA() });
  if (!started.challenge) throw new Refused(data.messages.unavailable);
  const claim = await srp.passwordClaim(started.challenge, password);
  try {
    await follow(
      await post('answer', { challenge_name: 'PASSWORD_VERIFIER', session: claim.session, responses: verifierResponses(claim), ...context() }),
    );
  } catch (error) {
    // SRP cannot prove a user still on an imported hash: where the SaaS allows it, the password goes to the
    // server once, which checks that hash and replaces it (web/login/screen/password-step.ts).
    if (data.passwordSignIn && error instanceof Refused && error.type === 'not_authorized') {
      return follow(await post('password', { username, password, ...context() }));
    }
    // The service forgot the browser's device (removed, or never confirmed): the server forgot its cookie too.
    if (!(again && error instanceof Refused && error.type === 'device_not_found')) throw error;
    await prove(username, password, false);
  }
}

async function answerPending(response: string, value: string): Promise<void> {
  if (!pending) return show('sign-in-form');
  const { challenge_name, session, username } = pending;
  await follow(await post('answer', { challenge_name, session, responses: { USERNAME: username, [response]: value }, ...context() }));
}

/** Runs one step with these buttons disabled; a refusal is announced, never thrown. */
function busy(buttons: HTMLButtonElement[], step: () => Promise<void>): void {
  buttons.forEach((b) => (b.disabled = true));
  say(data.messages.working);
  step()
    .catch((error: unknown) => say('', error instanceof Refused ? error.message : fill(data.messages.refused, { detail: String(error) })))
    .finally(() => buttons.forEach((b) => (b.disabled = false)));
}

function onSubmit(id: FormId, step: () => Promise<void>): void {
  const form = element<HTMLFormElement>(id);
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    busy([...form.querySelectorAll('button')], step);
  });
}

onSubmit('sign-in-form', () => signIn(input('username').value.trim(), input('password').value));

/**
 * The address first (home-realm discovery, web/login/screen/home-realm.ts): an address of a domain a tenant
 * verified goes straight to that tenant's identity provider, once typed (Tab or Enter), with no password asked.
 */
async function homeRealm(email: string): Promise<void> {
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || data.invitation) return;
  const { state, code_challenge, authorization } = data;
  const answer = await post('discover', {
    email,
    ...(state !== undefined ? { state } : {}),
    ...(code_challenge ? { code_challenge } : {}),
    ...(authorization ? { authorization } : {}),
  }).catch(() => ({}) as StepAnswer);
  if (answer.redirect) window.location.assign(answer.redirect);
}
input('username')?.addEventListener('change', () => void homeRealm(input('username').value.trim()));
onSubmit('new-password-form', () => answerPending('NEW_PASSWORD', input('new-password').value));
onSubmit('code-form', () =>
  answerPending(pending?.challenge_name === 'EMAIL_OTP' ? 'EMAIL_OTP_CODE' : 'SOFTWARE_TOKEN_MFA_CODE', input('code').value.trim()),
);
onSubmit('new-account-form', async () => {
  const invitation = data.invitation;
  if (!invitation) return;
  const password = input('account-password').value;
  const code = input('account-code').value.trim();
  const { email } = (await post('join', { invitation: { id: invitation.id, tenant_id: invitation.tenantId }, code, password })) as { email?: string };
  joined = true;
  await signIn(email ?? invitation.email, password);
});

onSubmit('link-form', async () => {
  if (!data.link) return;
  await follow(await post('link', { ticket: data.link.ticket, code: input('link-code').value.trim() }));
});

const accepted = (id: string) => element<HTMLInputElement>(id)?.checked ?? false;
onSubmit('sign-up-form', async () => {
  const email = input('sign-up-email').value.trim();
  const consents = { accepted_terms: accepted('accept-terms'), accepted_privacy: accepted('accept-privacy') };
  if (element('sign-up-form')?.dataset.chosen !== undefined) {
    // The chosen password: a code goes to the address; the account is made when the code comes back.
    const password = input('sign-up-password').value;
    await post('sign-up', { email, password, ...consents });
    signingUp = { email, password };
    const intro = element('sign-up-code-intro') as HTMLElement;
    intro.textContent = fill(intro.dataset.text ?? '', { email });
    show('sign-up-code-form');
    say(fill(data.messages.signUpCodeSent, { email }));
    return;
  }
  await post('sign-up', { email, ...consents });
  input('username').value = email;
  show('sign-in-form');
  say(fill(data.messages.signUpSent, { email }));
});
onSubmit('sign-up-code-form', async () => {
  if (!signingUp) return show('sign-up-form');
  const { email, password } = signingUp;
  await post('sign-up-confirm', { email, code: input('sign-up-code').value.trim(), password });
  signingUp = undefined;
  await signIn(email, password);
});
onSubmit('consent-form', async () => {
  if (!data.consent) return;
  await follow(
    await post('consent', { ticket: data.consent.ticket, accepted_terms: accepted('consent-terms'), accepted_privacy: accepted('consent-privacy') }),
  );
});

const { checkRules, checkMatch, checkBreached } = passwordFieldChecks(
  data,
  element,
  async (password) => (await post('password-check', { password })) as { breached?: boolean },
);
for (const field of document.querySelectorAll<HTMLInputElement>('input[data-new-password]')) {
  field.addEventListener('input', () => {
    checkRules(field);
    checkBreached(field);
    const confirm = element<HTMLInputElement>(`${field.id}-confirm`);
    if (confirm) checkMatch(confirm);
  });
}
for (const confirm of document.querySelectorAll<HTMLInputElement>('input[data-confirms]')) {
  confirm.addEventListener('input', () => checkMatch(confirm));
  checkMatch(confirm);
}
// Show/hide: a toggle button (aria-pressed) for the fields it controls; its name stays, its state changes.
for (const toggle of document.querySelectorAll<HTMLButtonElement>('button.reveal')) {
  toggle.addEventListener('click', () => {
    const shown = toggle.getAttribute('aria-pressed') !== 'true';
    toggle.setAttribute('aria-pressed', String(shown));
    for (const id of (toggle.getAttribute('aria-controls') ?? '').split(' ')) {
      const field = element<HTMLInputElement>(id);
      if (field) field.type = shown ? 'text' : 'password';
    }
  });
}
onSubmit('forgot-form', async () => {
  resetting = input('forgot-username').value.trim();
  await post('forgot', { username: resetting });
  show('reset-form');
  say(fill(data.messages.resetSent, { username: resetting }));
});
/**
 * `./set-password#username=…&code=…`, the link mailed to a user imported without a password: the reset form
 * with the name and code of the fragment (never sent to a server), which leaves the address bar at once (the
 * language switch keeps it). A link without them is the forgotten-password form.
 */
function openSetPasswordLink(): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, '', location.pathname + location.search);
  const [username, code] = [fragment.get('username') ?? '', fragment.get('code') ?? ''];
  if (!username || !code) return show('forgot-form');
  resetting = username;
  // The switch goes through the server and back to this page: a fragment on its link survives the redirect.
  for (const other of document.querySelectorAll<HTMLAnchorElement>('nav.languages a')) other.hash = fragment.toString();
  show('reset-form');
  input('reset-code').value = code;
  input('reset-password').focus();
  say(fill(data.messages.setPasswordFor, { username }));
}
onSubmit('reset-form', async () => {
  const password = input('reset-password').value;
  await post('reset', { username: resetting, code: input('reset-code').value.trim(), password });
  await signIn(resetting, password);
});

// A new person first proves the invited address: a code is mailed to it, then the form asks for it.
const newAccount = element<HTMLButtonElement>('show-new-account');
newAccount?.addEventListener('click', () =>
  busy([newAccount], async () => {
    const invitation = data.invitation;
    if (!invitation) return;
    await post('join-code', { invitation: { id: invitation.id, tenant_id: invitation.tenantId } });
    say('');
    show('new-account-form');
  }),
);
// The links work without the script too (they are pages of their own); with it, they only switch the form.
for (const anchor of document.querySelectorAll<HTMLAnchorElement>('a[data-form]')) {
  anchor.addEventListener('click', (event) => {
    event.preventDefault();
    say('');
    show(anchor.dataset.form as FormId);
  });
}
for (const button of document.querySelectorAll('.start-again')) {
  button.addEventListener('click', () => {
    pending = undefined;
    say('');
    show('sign-in-form');
  });
}
setUpPasskeys({
  data,
  post: (step, body) => post(step, body) as Promise<Record<string, unknown>>,
  follow: (answer) => follow(answer as StepAnswer),
  context,
  busy,
  show,
  say,
  refused: (message) => new Refused(message),
});
if (data.first === 'reset-form') openSetPasswordLink();
else show(data.first);
