/**
 * The passkey parts of the screen's HTML (web/login/screen/passkeys.ts has the steps): kept apart from the
 * server code so the page's script, which reads pages.ts's types, never compiles Node modules.
 */
import { escapeHtml } from '../kit/html.js';
import type { LoginTexts } from './texts/en.js';

/** The sign-in form's way in with a passkey (shown only when the SaaS offers passkeys). */
export function passkeySignInButton(texts: LoginTexts): string {
  return `<p class="federated"><button type="button" id="sign-in-with-passkey" class="secondary">${escapeHtml(texts.page.signInWithPasskey)}</button></p>
<label class="check"><input type="checkbox" id="manage-passkeys"> ${escapeHtml(texts.page.managePasskeysAfter)}</label>`;
}

/**
 * After a sign-in: the person's passkeys, each removable, and "Add a passkey". The list is filled by the
 * script (its items are made with textContent, never HTML).
 */
export function passkeysForm(texts: LoginTexts): string {
  const t = texts.page;
  return `<form id="passkeys-form" data-heading="${escapeHtml(t.passkeysHeading)}" hidden>
<p id="passkeys-intro" data-offer="${escapeHtml(t.passkeysOffer)}" data-manage="${escapeHtml(t.passkeysIntro)}" data-required="${escapeHtml(
    t.passkeysRequired,
  )}"></p>
<ul id="passkey-list" class="passkeys" data-none="${escapeHtml(t.noPasskeys)}" data-created="${escapeHtml(t.passkeyCreated)}" data-used="${escapeHtml(
    t.passkeyLastUsed,
  )}" data-never="${escapeHtml(t.passkeyNeverUsed)}" data-synced="${escapeHtml(t.passkeySynced)}" data-device="${escapeHtml(
    t.passkeyThisDevice,
  )}" data-remove="${escapeHtml(t.removePasskey)}"></ul>
<button type="button" id="add-passkey">${escapeHtml(t.addPasskey)}</button>
<button type="button" id="passkeys-continue" class="secondary">${escapeHtml(t.passkeysContinue)}</button>
</form>`;
}
