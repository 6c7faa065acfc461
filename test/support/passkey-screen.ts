/**
 * Passkeys on the hosted screen with a software authenticator, as the page does it: enrol a first passkey with
 * the ticket a password gave (passkeys required), and sign in with one. Shared by the passkeys-required tests.
 */
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import type { Harness } from '../../dev-support/harness.js';
import { openScreen, screenStep, type ScreenVisit } from './screen-client.js';
import type { SoftAuthenticator } from './soft-authenticator.js';

/** A new SaaS whose screen has a callback to send a finished sign-in to: its id, its client and its screen's address. */
export async function saasWithScreen(h: Harness): Promise<{ saasId: string; api: SignedClient; loginUrl: string }> {
  const saas = await h.newSaas();
  assert.equal((await saas.client.put('/auth-info', { callback_url: 'https://app.example.test/callback' })).status, 200);
  return { saasId: saas.saasId, api: saas.client, loginUrl: `${h.api.baseUrl}/login/${saas.saasId}/` };
}

/** One step of the screen, its status and JSON body. */
export async function stepJson(
  loginUrl: string,
  visit: ScreenVisit,
  name: string,
  body: object,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await screenStep(loginUrl, visit, name, body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Creates a first passkey with an enrolment ticket; the last step's answer (or the refused first). */
export async function enrolOnScreen(loginUrl: string, visit: ScreenVisit, enrolment: string, authenticator: SoftAuthenticator) {
  const options = await stepJson(loginUrl, visit, 'passkey/enrol-options', { enrolment });
  if (options.status !== 200) return options;
  const { challenge_id, options: creation } = options.body as { challenge_id: string; options: Parameters<SoftAuthenticator['register']>[0] };
  const origin = new URL(loginUrl).origin;
  return stepJson(loginUrl, visit, 'passkey/enrol', { enrolment, challenge_id, response: authenticator.register(creation, { origin }) });
}

/** "Sign in with a passkey" on a newly opened screen. */
export async function passkeySignInOnScreen(loginUrl: string, authenticator: SoftAuthenticator) {
  const visit = await openScreen(loginUrl);
  const options = await stepJson(loginUrl, visit, 'passkey/sign-in-options', {});
  assert.equal(options.status, 200, JSON.stringify(options.body));
  const { challenge_id, options: request } = options.body as { challenge_id: string; options: Parameters<SoftAuthenticator['authenticate']>[0] };
  const origin = new URL(loginUrl).origin;
  return stepJson(loginUrl, visit, 'passkey/sign-in', { challenge_id, response: authenticator.authenticate(request, { origin }) });
}
