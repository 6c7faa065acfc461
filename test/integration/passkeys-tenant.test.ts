/**
 * Passkeys required by a tenant (the tenant's `passkeys_required`, our extension, issue 43): a member of such a
 * tenant signs in only with a passkey, through the API or on the hosted screen, with or without an e-mail code;
 * the SaaS's other users sign in as before; no other SaaS can set it. Through the same handlers as the Lambdas, on
 * DynamoDB Local, with a software authenticator.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { openScreen, signInOnScreen } from '../support/screen-client.js';
import { enrolOnScreen, passkeySignInOnScreen, saasWithScreen } from '../support/passkey-screen.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const PASSWORD = 'Correct-horse-9';

let h: Harness;
let api: SignedClient;
let loginUrl: string;
/** The tenant that requires passkeys, and one that does not. */
let strict: string;
let relaxed: string;

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;

async function newTenant(client: SignedClient, props: object = {}): Promise<string> {
  const created = await client.post<{ id: string }>('/tenants', { name: 'T', attributes: {}, back_office_staff_email: 'ops@example.test', ...props });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

/** A new user, a member of each tenant given. */
async function member(...tenantIds: string[]): Promise<{ id: string; email: string }> {
  const email = address('m');
  const created = await api.post<{ id: string }>('/users', { email, password: PASSWORD });
  assert.equal(created.status, 201, created.text);
  for (const tenantId of tenantIds) assert.equal((await api.post(`/tenants/${tenantId}/users`, { email, attributes: {} })).status, 201);
  return { id: created.body.id, email };
}

const tenantRequires = async (tenantId: string) => (await api.get<{ passkeys_required?: boolean }>(`/tenants/${tenantId}`)).body.passkeys_required;

beforeAll(async () => {
  h = await startHarness();
  ({ api, loginUrl } = await saasWithScreen(h));
  strict = await newTenant(api);
  relaxed = await newTenant(api);
});
afterAll(async () => {
  await h?.close();
});

describe("the tenant's passkeys_required", () => {
  it('needs passkeys on for the SaaS, is answered only when set, and stays when an update leaves it out', async () => {
    await expectError(
      api.patch(`/tenants/${strict}`, { name: 'Strict', attributes: {}, back_office_staff_email: 'ops@example.test', passkeys_required: true }),
      400,
      'passkeys_not_enabled',
      'passkeys_required',
    );
    assert.equal(await tenantRequires(strict), undefined, 'a refusal changes nothing');
    assert.equal((await api.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    const props = { name: 'Strict', attributes: {}, back_office_staff_email: 'ops@example.test' };
    assert.equal((await api.patch(`/tenants/${strict}`, { ...props, passkeys_required: true })).status, 200);
    assert.equal(await tenantRequires(strict), true);
    // SaaSus's SDKs never send it: their update keeps it.
    assert.equal((await api.patch(`/tenants/${strict}`, { ...props, name: 'Strict Inc.' })).status, 200);
    assert.equal(await tenantRequires(strict), true);
    assert.equal(await tenantRequires(relaxed), undefined);
    await expectError(api.patch(`/tenants/${strict}`, { ...props, passkeys_required: 'yes' }), 400, 'invalid_parameter');
  });

  it('cannot be set or read by another SaaS', async () => {
    const other = await h.newSaas();
    assert.equal((await other.client.put('/sign-in-settings', { passkeys: { enable: true } })).status, 200);
    const props = { name: 'X', attributes: {}, back_office_staff_email: 'ops@example.test' };
    await expectError(other.client.patch(`/tenants/${relaxed}`, { ...props, passkeys_required: true }), 404, 'tenant_not_found');
    await expectError(other.client.get(`/tenants/${strict}`), 404, 'tenant_not_found');
    assert.equal(await tenantRequires(relaxed), undefined, "the other SaaS's call changed nothing here");
    // The other SaaS's own tenant of the same setting reaches none of this SaaS's users.
    await newTenant(other.client, { passkeys_required: true });
    const { email } = await member(relaxed);
    assert.equal((await srpSignIn(api, email, PASSWORD)).status, 200);
  });
});

describe('signing in as a member of a tenant that requires passkeys', () => {
  it('refuses a password through the API, with an e-mail code too, before any code is mailed', async () => {
    const { id, email } = await member(relaxed, strict);
    const refused = await srpSignIn(api, email, PASSWORD);
    assert.equal(refused.status, 403, refused.text);
    assert.equal((refused.body as unknown as { type: string }).type, 'passkey_required');
    assert.equal((await api.patch(`/users/${id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    const withCode = await srpSignIn(api, email, PASSWORD);
    assert.equal(withCode.status, 403, 'password and e-mail code are not enough');
    assert.equal((withCode.body as unknown as { type: string }).type, 'passkey_required');
    assert.equal((await srpSignIn(api, email, 'Wrong-horse-9')).status, 401, 'a wrong password is refused as always, first');
  });

  it('on the screen, the password enrols a first passkey, which signs in; the password alone is refused after', async () => {
    const { id, email } = await member(strict);
    const visit = await openScreen(loginUrl);
    const answer = await signInOnScreen(loginUrl, visit, email, PASSWORD);
    assert.equal(answer.redirect, undefined, 'a password alone does not reach the application');
    const enrolment = (answer.passkey_enrolment as { ticket?: string } | undefined)?.ticket;
    assert.equal(typeof enrolment, 'string', JSON.stringify(answer));

    const authenticator = new SoftAuthenticator();
    const enrolled = await enrolOnScreen(loginUrl, visit, enrolment as string, authenticator);
    assert.equal(enrolled.status, 200, JSON.stringify(enrolled.body));
    assert.equal((await api.get<{ passkeys: unknown[] }>(`/users/${id}/passkeys`)).body.passkeys.length, 1);

    const signedIn = await passkeySignInOnScreen(loginUrl, authenticator);
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    assert.equal(typeof signedIn.body.redirect, 'string');

    const refused = await signInOnScreen(loginUrl, await openScreen(loginUrl), email, PASSWORD).catch((error: Error) => error.message);
    assert.match(String(refused), /^answer: 403 .*passkey_required/);
  });

  it("leaves the other tenants' members and users of no tenant as they were", async () => {
    for (const user of [await member(relaxed), await member()]) {
      assert.equal((await srpSignIn(api, user.email, PASSWORD)).status, 200);
      assert.ok((await signInOnScreen(loginUrl, await openScreen(loginUrl), user.email, PASSWORD)).redirect);
    }
  });

  it('follows the membership and the setting: out of the tenant, or the setting off, a password signs in again', async () => {
    const { id, email } = await member(strict);
    assert.equal((await srpSignIn(api, email, PASSWORD)).status, 403);
    assert.equal((await api.delete(`/tenants/${strict}/users/${id}`)).status, 200);
    assert.equal((await srpSignIn(api, email, PASSWORD)).status, 200, 'no longer a member');

    const other = await member(strict);
    const props = { name: 'Strict Inc.', attributes: {}, back_office_staff_email: 'ops@example.test' };
    assert.equal((await api.patch(`/tenants/${strict}`, { ...props, passkeys_required: false })).status, 200);
    assert.equal((await srpSignIn(api, other.email, PASSWORD)).status, 200, 'the tenant no longer requires them');
    assert.equal((await api.patch(`/tenants/${strict}`, { ...props, passkeys_required: true })).status, 200);
    assert.equal((await srpSignIn(api, other.email, PASSWORD)).status, 403);
  });
});
