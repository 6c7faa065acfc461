/**
 * Passkeys required (sign-in setting `passkeys.required`, issue 43): a password signs nobody in, through the API
 * or on the hosted screen; on the screen it lets a person with no passkey yet enrol their first, and the sign-in
 * then ends with that passkey. With length first, the password's minimum is then 8 characters, not 15 (NIST SP
 * 800-63B-4 with a second factor), on every path that sets one and in the screen's rules. Through the same
 * handlers as the Lambdas, on DynamoDB Local.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { nowMillis, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { ENROLMENT_SECONDS } from '../../shared/domain/sign-in/passkey-enrolment.js';
import { EN } from '../../web/login/texts/en.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { openScreen, screenStep, signInOnScreen, type ScreenVisit } from '../support/screen-client.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { enrolOnScreen, passkeySignInOnScreen, saasWithScreen } from '../support/passkey-screen.js';

/** Nine characters, no composition: refused under length first alone (15), accepted with passkeys required (8). */
const SHORT_PASSPHRASE = 'ume ni uguisu'.slice(0, 9);
const PASSWORD = 'Correct-horse-9';

let h: Harness;
let api: SignedClient;
let loginUrl: string;

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;

async function newUser(password = PASSWORD): Promise<{ id: string; email: string }> {
  const email = address('u');
  const created = await api.post<{ id: string }>('/users', { email, password });
  assert.equal(created.status, 201, created.text);
  return { id: created.body.id, email };
}

/** The screen's password sign-in, which answers the enrolment ticket of a person with no passkey. */
async function enrolmentTicket(email: string, password = PASSWORD): Promise<{ visit: ScreenVisit; ticket: string }> {
  const visit = await openScreen(loginUrl);
  const answer = await signInOnScreen(loginUrl, visit, email, password);
  assert.equal(answer.redirect, undefined, 'a password alone does not reach the application');
  const ticket = (answer.passkey_enrolment as { ticket?: unknown } | undefined)?.ticket;
  assert.equal(typeof ticket, 'string', JSON.stringify(answer));
  return { visit, ticket: ticket as string };
}

const enrol = (visit: ScreenVisit, enrolment: string, authenticator: SoftAuthenticator) => enrolOnScreen(loginUrl, visit, enrolment, authenticator);
const passkeySignIn = (authenticator: SoftAuthenticator) => passkeySignInOnScreen(loginUrl, authenticator);

beforeAll(async () => {
  h = await startHarness();
  ({ api, loginUrl } = await saasWithScreen(h));
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => resetClockForTests());

describe('the setting passkeys.required', () => {
  it('is absent until chosen, needs passkeys.enable, and goes with the passkeys member it is part of', async () => {
    assert.deepEqual((await api.get<{ passkeys: unknown }>('/sign-in-settings')).body.passkeys, { enable: false });
    await expectError(api.put('/sign-in-settings', { passkeys: { enable: false, required: true } }), 400, 'invalid_parameter', 'passkeys');
    await expectError(api.put('/sign-in-settings', { passkeys: { enable: true, required: 'yes' } }), 400, 'invalid_parameter');
    assert.deepEqual((await api.get<{ passkeys: unknown }>('/sign-in-settings')).body.passkeys, { enable: false }, 'a refusal changes nothing');
    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true, required: true } })).status, 200);
    assert.deepEqual((await api.get<{ passkeys: unknown }>('/sign-in-settings')).body.passkeys, { enable: true, required: true });
    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    assert.deepEqual((await api.get<{ passkeys: unknown }>('/sign-in-settings')).body.passkeys, { enable: true });
  });
});

describe('length first with a second factor: 8 characters, not 15', () => {
  it('applies 8 on every path that sets a password, and the screen lists 8', async () => {
    assert.equal((await api.put('/sign-in-settings', { password_length_first: { enable: true }, passkeys: { enable: true } })).status, 200);
    const refused = await api.post<{ type: string; data: { rule: string } }>('/users', { email: address('s'), password: SHORT_PASSPHRASE });
    assert.equal(refused.status, 400, 'without passkeys required, length first asks 15');
    assert.equal(refused.body.data.rule, 'minimum_length');
    assert.equal(((await openScreen(loginUrl)).data?.passwordRules as { minimum_length: number }).minimum_length, 15);

    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true, required: true } })).status, 200);
    const user = await newUser(SHORT_PASSPHRASE);
    assert.equal((await api.patch(`/users/${user.id}/password`, { password: 'sakura 88' })).status, 200, 'a change');
    const tooShort = await api.patch<{ data: { rule: string } }>(`/users/${user.id}/password`, { password: 'sakura7' });
    assert.equal(tooShort.status, 400, 'seven characters stay too few');
    assert.equal(tooShort.body.data.rule, 'minimum_length');
    const breached = await api.patch<{ data: { rule: string } }>(`/users/${user.id}/password`, { password: 'password1' });
    assert.equal(breached.body.data.rule, 'breached', 'the breach screen as always');
    const rules = (await openScreen(loginUrl)).data?.passwordRules as { minimum_length: number; length_first: boolean };
    assert.equal(rules.minimum_length, 8);
    assert.equal(rules.length_first, true);
  });
});

describe('signing in when passkeys are required', () => {
  beforeAll(async () => {
    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true, required: true } })).status, 200);
  });

  it('refuses a password through the API, with or without a passkey, and names the rule', async () => {
    const { email } = await newUser();
    const answer = await srpSignIn(api, email, PASSWORD);
    assert.equal(answer.status, 403, answer.text);
    assert.equal((answer.body as unknown as { type: string }).type, 'passkey_required');
    assert.doesNotMatch(answer.text, /enrolment|ticket/, 'the API hands out no enrolment');
    assert.equal((await srpSignIn(api, email, 'Wrong-horse-9')).status, 401, 'a wrong password is refused as always, first');
  });

  it('on the screen, a password enrols the first passkey, which then signs in; the password alone is refused after', async () => {
    const { id, email } = await newUser();
    const { visit, ticket } = await enrolmentTicket(email);
    const authenticator = new SoftAuthenticator();
    const enrolled = await enrol(visit, ticket, authenticator);
    assert.equal(enrolled.status, 200, JSON.stringify(enrolled.body));

    const signedIn = await passkeySignIn(authenticator);
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    assert.ok(typeof signedIn.body.redirect === 'string');

    // The same ticket adds no second passkey: a password never adds one beside the person's own.
    const again = await enrol(visit, ticket, new SoftAuthenticator());
    assert.equal(again.status, 403, JSON.stringify(again.body));
    assert.equal(again.body.type, 'passkey_required');
    const listed = await api.get<{ passkeys: unknown[] }>(`/users/${id}/passkeys`);
    assert.equal(listed.body.passkeys.length, 1);

    const refused = await signInOnScreen(loginUrl, await openScreen(loginUrl), email, PASSWORD).catch((error: Error) => error.message);
    assert.match(String(refused), /^answer: 403 /);
    const body = JSON.parse(String(refused).slice('answer: 403 '.length)) as { type: string; message: string };
    assert.equal(body.type, 'passkey_required');
    assert.equal(body.message, EN.messages.passkeyRequired, "said in the person's words");
  });

  it('refuses a ticket that is forged, of another SaaS, or too old', async () => {
    const { email } = await newUser();
    const { visit, ticket } = await enrolmentTicket(email);
    const forged = await enrol(visit, `${ticket.slice(0, -4)}AAAA`, new SoftAuthenticator());
    assert.equal(forged.status, 400, JSON.stringify(forged.body));
    assert.equal(forged.body.type, 'ticket_expired');

    const other = await h.newSaas();
    assert.equal((await other.client.put('/sign-in-settings', { passkeys: { enable: true, required: true } })).status, 200);
    const otherUrl = `${h.api.baseUrl}/login/${other.saasId}/`;
    const elsewhere = await screenStep(otherUrl, await openScreen(otherUrl), 'passkey/enrol-options', { enrolment: ticket });
    assert.equal(elsewhere.status, 400, 'sealed for its own SaaS');

    setClockForTests(nowMillis() + (ENROLMENT_SECONDS + 1) * 1000);
    const late = await enrol(visit, ticket, new SoftAuthenticator());
    assert.equal(late.status, 400, JSON.stringify(late.body));
    assert.equal(late.body.type, 'ticket_expired');
  });

  it('asks for nothing more of a password once the setting is off again', async () => {
    const { email } = await newUser();
    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    assert.equal((await srpSignIn(api, email, PASSWORD)).status, 200);
    assert.ok((await signInOnScreen(loginUrl, await openScreen(loginUrl), email, PASSWORD)).redirect);
    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true, required: true } })).status, 200);
  });
});
