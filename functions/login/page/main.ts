/**
 * The hosted login screen's script: the SRP in the browser (client/srp.ts), one step at a time, then to the
 * SaaS's callback URL the server names. The password never leaves the page, except to create an invited
 * user's account (which, like any sign-up, needs it). Texts come from the page's data block
 * (functions/login/texts/), so this file holds no words of its own.
 */
import { SrpClient, verifierResponses } from '../../../client/srp.js';
import type { PageData } from '../pages.js';
import { fill } from '../texts/en.js';

interface StepAnswer {
  redirect?: string;
  challenge?: Parameters<SrpClient['passwordClaim']>[0];
  challenge_name?: string;
  session?: string;
  username?: string;
  type?: string;
  message?: string;
}

const data = JSON.parse(document.getElementById('page-data')?.textContent ?? '{}') as PageData;
const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;
const input = (id: string) => element<HTMLInputElement>(id) as HTMLInputElement;
const FORMS = ['sign-in-form', 'new-account-form', 'new-password-form', 'code-form'] as const;
type FormId = (typeof FORMS)[number];

/** The follow-up step the server asked for, answered by the code or new-password form. */
let pending: { challenge_name: string; session: string; username: string } | undefined;
let joined = false;

if (data.tagManagerId) {
  const layer = ((window as unknown as { dataLayer?: object[] }).dataLayer ??= []);
  layer.push({ 'gtm.start': Date.now(), event: 'gtm.js' });
}

function show(id: FormId): void {
  for (const form of FORMS) {
    const el = element(form);
    if (el) el.hidden = form !== id;
  }
  element<HTMLInputElement>(id)?.querySelector('input')?.focus();
}

function say(status: string, error = ''): void {
  (element('status') as HTMLElement).textContent = status;
  const box = element('error') as HTMLElement;
  box.textContent = error;
  box.hidden = !error;
}

class Refused extends Error {}

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
  if (!response.ok) throw new Refused(answer.message ?? data.messages.unavailable);
  return answer;
}

const context = () => ({
  ...(data.state !== undefined ? { state: data.state } : {}),
  ...(data.invitation && !joined ? { invitation: { id: data.invitation.id, tenant_id: data.invitation.tenantId } } : {}),
});

/** An answer that ends at the callback URL, or asks for one more step. */
function follow(answer: StepAnswer): void {
  if (answer.redirect) {
    say(data.messages.redirecting);
    window.location.assign(answer.redirect);
    return;
  }
  pending = { challenge_name: answer.challenge_name ?? '', session: answer.session ?? '', username: answer.username ?? '' };
  say('');
  if (pending.challenge_name === 'NEW_PASSWORD_REQUIRED') return show('new-password-form');
  const prompt = element('code-prompt') as HTMLElement;
  prompt.textContent = (pending.challenge_name === 'EMAIL_OTP' ? prompt.dataset.email : prompt.dataset.totp) ?? '';
  show('code-form');
}

async function signIn(username: string, password: string): Promise<void> {
  const srp = new SrpClient();
  const started = await post('start', { username, srp_a: await srp.srpA() });
  if (!started.challenge) throw new Refused(data.messages.unavailable);
  const claim = await srp.passwordClaim(started.challenge, password);
  follow(await post('answer', { challenge_name: 'PASSWORD_VERIFIER', session: claim.session, responses: verifierResponses(claim), ...context() }));
}

async function answerPending(response: string, value: string): Promise<void> {
  if (!pending) return show('sign-in-form');
  const { challenge_name, session, username } = pending;
  follow(await post('answer', { challenge_name, session, responses: { USERNAME: username, [response]: value }, ...context() }));
}

/** Runs one step with the form's buttons disabled; a refusal is announced, never thrown. */
function onSubmit(id: FormId, step: () => Promise<void>): void {
  const form = element<HTMLFormElement>(id);
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    const buttons = [...form.querySelectorAll('button')];
    buttons.forEach((b) => (b.disabled = true));
    say(data.messages.working);
    step()
      .catch((error: unknown) => say('', error instanceof Refused ? error.message : fill(data.messages.refused, { detail: String(error) })))
      .finally(() => buttons.forEach((b) => (b.disabled = false)));
  });
}

onSubmit('sign-in-form', () => signIn(input('username').value.trim(), input('password').value));
onSubmit('new-password-form', () => answerPending('NEW_PASSWORD', input('new-password').value));
onSubmit('code-form', () =>
  answerPending(pending?.challenge_name === 'EMAIL_OTP' ? 'EMAIL_OTP_CODE' : 'SOFTWARE_TOKEN_MFA_CODE', input('code').value.trim()),
);
onSubmit('new-account-form', async () => {
  const invitation = data.invitation;
  if (!invitation) return;
  const password = input('account-password').value;
  const { email } = (await post('join', { invitation: { id: invitation.id, tenant_id: invitation.tenantId }, password })) as { email?: string };
  joined = true;
  await signIn(email ?? invitation.email, password);
});

element('show-new-account')?.addEventListener('click', () => show('new-account-form'));
for (const button of document.querySelectorAll('.start-again')) {
  button.addEventListener('click', () => {
    pending = undefined;
    say('');
    show('sign-in-form');
  });
}
show('sign-in-form');
