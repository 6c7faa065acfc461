/**
 * Passkeys on the hosted screen (web/login/screen/passkeys.ts): "Sign in with a passkey" on the sign-in form,
 * and after a sign-in the person's passkeys, each removable, with "Add a passkey". The WebAuthn calls are
 * @simplewebauthn/browser's; the server makes and checks every challenge. Texts come from the page.
 */
import { browserSupportsWebAuthn, startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import type { PageData } from '../page-data.js';
import { fill } from '../texts/en.js';

interface PasskeyView {
  id: string;
  device_type: 'singleDevice' | 'multiDevice';
  created_at: number;
  last_used_at: number;
}

/** What a finished sign-in hands the page when the SaaS offers passkeys. */
export interface PasskeyOffer {
  ticket: string;
  count: number;
  /** The sign-in's code, held back until the page leaves (leaveOffer). */
  hold: string;
}

/** What the main script lends this module: its steps, its messages and its forms. */
export interface PasskeyPage {
  data: PageData;
  post(step: string, body: object): Promise<Record<string, unknown>>;
  /** Handles a sign-in's answer as a password sign-in's. */
  follow(answer: Record<string, unknown>): Promise<void>;
  /** What the page was opened for (state, PKCE challenge, authorization, invitation). */
  context(): object;
  busy(buttons: HTMLButtonElement[], step: () => Promise<void>): void;
  show(id: 'sign-in-form' | 'passkeys-form'): void;
  say(status: string, error?: string): void;
  refused(message: string): Error;
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;

let page: PasskeyPage | undefined;
let held: { ticket: string; redirect: string } | undefined;
/** Passkeys required: the ticket that lets a person with none create their first (then they sign in with it). */
let enrolment: string | undefined;

/** A WebAuthn call the person cancelled, or one the browser refused: said in their words. */
function ceremonyFailed(error: unknown): Error {
  const messages = (page as PasskeyPage).data.messages;
  if (error instanceof WebAuthnError || (error instanceof DOMException && error.name === 'NotAllowedError')) {
    return (page as PasskeyPage).refused(messages.passkeyCancelled);
  }
  return error instanceof Error ? error : (page as PasskeyPage).refused(String(error));
}

const day = (seconds: number) => new Date(seconds * 1000).toLocaleDateString(document.documentElement.lang || undefined);

/** The list, built with textContent only. */
function render(passkeys: PasskeyView[]): void {
  const list = element<HTMLUListElement>('passkey-list') as HTMLUListElement;
  const text = list.dataset;
  list.replaceChildren();
  if (passkeys.length === 0) {
    const none = document.createElement('li');
    none.textContent = text.none ?? '';
    list.append(none);
  }
  for (const passkey of passkeys) {
    const item = document.createElement('li');
    const label = document.createElement('span');
    const used = passkey.last_used_at ? fill(text.used ?? '', { date: day(passkey.last_used_at) }) : (text.never ?? '');
    label.textContent = `${(passkey.device_type === 'multiDevice' ? text.synced : text.device) ?? ''} · ${fill(text.created ?? '', {
      date: day(passkey.created_at),
    })}, ${used}`;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'secondary remove-passkey';
    remove.textContent = text.remove ?? '';
    remove.setAttribute('aria-label', `${text.remove ?? ''}: ${label.textContent}`);
    remove.addEventListener('click', () =>
      page?.busy([remove], async () => {
        await page?.post('passkey/remove', { ticket: held?.ticket, passkey_id: passkey.id });
        await refresh();
        page?.say(page.data.messages.passkeyRemoved);
      }),
    );
    item.append(label, ' ', remove);
    list.append(item);
  }
}

async function refresh(): Promise<number> {
  const { passkeys } = (await (page as PasskeyPage).post('passkey/list', { ticket: held?.ticket })) as { passkeys: PasskeyView[] };
  render(passkeys);
  return passkeys.length;
}

const declinedSlot = (person: string) => `login-passkey-declined:${new URL('.', window.location.href).pathname}:${person.toLowerCase()}`;

/**
 * After a sign-in: shows the person's passkeys when they asked to see them, or offers one when they have none
 * (unless they declined on this browser). True when the page stays for that; the continue button then leaves.
 */
export async function offerPasskeys(offer: PasskeyOffer | undefined, redirect: string, person: string): Promise<boolean> {
  if (!page || !offer || !browserSupportsWebAuthn()) return false;
  const manage = element<HTMLInputElement>('manage-passkeys')?.checked ?? false;
  const declined = person !== '' && window.localStorage.getItem(declinedSlot(person)) === '1';
  if (!manage && (offer.count > 0 || declined)) return false;
  held = { ticket: offer.ticket, redirect };
  const intro = element('passkeys-intro') as HTMLElement;
  intro.textContent = (offer.count === 0 ? intro.dataset.offer : intro.dataset.manage) ?? '';
  await refresh();
  page.say('');
  page.show('passkeys-form');
  const continueButton = element<HTMLButtonElement>('passkeys-continue') as HTMLButtonElement;
  continueButton.onclick = () =>
    page?.busy([continueButton], async () => {
      // "Not now" to the offer is remembered for this person on this browser.
      if (offer.count === 0 && person) window.localStorage.setItem(declinedSlot(person), '1');
      await leaveOffer(offer, redirect);
    });
  return true;
}

/**
 * Leaves for the SaaS. The server held the sign-in's code back while this page could offer passkeys: it is saved
 * now, so its few seconds start when the person leaves, however long they stayed.
 */
export async function leaveOffer(offer: PasskeyOffer | undefined, redirect: string): Promise<void> {
  if (offer && page) await page.post('passkey/continue', { hold: offer.hold });
  page?.say(page.data.messages.redirecting);
  window.location.assign(redirect);
}

/**
 * Passkeys required, the password right and no passkey yet: the passkeys form says so and "Add a passkey" creates
 * it with the enrolment ticket; the sign-in then finishes with that passkey, as the sign-in form's button does.
 */
export function enrolPasskey(ticket: string): Promise<void> {
  if (!page) return Promise.resolve();
  if (!browserSupportsWebAuthn()) throw page.refused(page.data.messages.passkeyUnsupported);
  enrolment = ticket;
  const intro = element('passkeys-intro') as HTMLElement;
  intro.textContent = intro.dataset.required ?? '';
  (element('passkey-list') as HTMLElement).hidden = true;
  (element('passkeys-continue') as HTMLElement).hidden = true;
  page.say('');
  page.show('passkeys-form');
  element<HTMLButtonElement>('add-passkey')?.focus();
  return Promise.resolve();
}

/** A passkey's sign-in: the device signs the server's challenge, and the answer is followed as a password's. */
async function signInWithPasskey(lent: PasskeyPage): Promise<void> {
  const { challenge_id, options } = (await lent.post('passkey/sign-in-options', {})) as { challenge_id: string; options: never };
  let response;
  try {
    response = await startAuthentication({ optionsJSON: options });
  } catch (error) {
    throw ceremonyFailed(error);
  }
  await lent.follow(await lent.post('passkey/sign-in', { challenge_id, response, ...lent.context() }));
}

/** Creates a passkey: for the signed-in person (their ticket), or the first one of an enrolment. */
async function createPasskey(lent: PasskeyPage, step: 'register' | 'enrol', body: object): Promise<void> {
  const { challenge_id, options } = (await lent.post(`passkey/${step}-options`, body)) as { challenge_id: string; options: never };
  let response;
  try {
    response = await startRegistration({ optionsJSON: options });
  } catch (error) {
    throw ceremonyFailed(error);
  }
  await lent.post(`passkey/${step}`, { ...body, challenge_id, response });
}

/** Wires the passkey buttons; without WebAuthn in this browser they stay hidden. */
export function setUpPasskeys(lent: PasskeyPage): void {
  page = lent;
  const signIn = element<HTMLButtonElement>('sign-in-with-passkey');
  if (!signIn) return;
  if (!browserSupportsWebAuthn()) {
    (signIn.parentElement as HTMLElement).hidden = true;
    return;
  }
  signIn.addEventListener('click', () => lent.busy([signIn], () => signInWithPasskey(lent)));
  const add = element<HTMLButtonElement>('add-passkey') as HTMLButtonElement;
  add.addEventListener('click', () =>
    lent.busy([add], async () => {
      if (enrolment !== undefined) {
        await createPasskey(lent, 'enrol', { enrolment });
        enrolment = undefined;
        lent.say(lent.data.messages.passkeyAdded);
        return signInWithPasskey(lent);
      }
      await createPasskey(lent, 'register', { ticket: held?.ticket });
      const intro = element('passkeys-intro') as HTMLElement;
      intro.textContent = intro.dataset.manage ?? '';
      await refresh();
      lent.say(lent.data.messages.passkeyAdded);
    }),
  );
}
