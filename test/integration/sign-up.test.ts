/** Sign Up, Resend Sign Up Confirmation Email and the marketplace operations, through the API. */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import type { MarketplaceCustomer } from '../../shared/domain/tenants/marketplace.js';
import { DEFAULT_PASSWORD_POLICY } from '../../shared/domain/configuration/password-policy.js';
import { brokenRule } from '../../shared/domain/configuration/password-rules.js';
import type { TenantRecord } from '../../shared/domain/tenants/tenants.js';
import type { UserRecord } from '../../shared/domain/users/users.js';
import { signRegistrationToken } from '../../shared/adapters/marketplace/signed-token-resolver.js';
import type { Tenant } from '../../shared/schemas/tenants.js';
import { keys } from '../../shared/store/keys.js';
import { DynamoTenantRepository } from '../../shared/store/tenant-repository.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import { userService, dynamo, tableName } from '../../shared/wiring.js';
import { expectError, type SaasUserBody } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail, unescapeHtml } from '../support/mail.js';
import { assertStoredPassword } from '../support/passwords.js';
import { mintAccessToken } from '../support/tokens.js';

const SECRET = 'test-marketplace-secret-0123456789abcdef';
process.env.MARKETPLACE_TOKEN_SECRET = SECRET;

let h: Harness;
let api: SignedClient;
let saasId: string;

const address = (name = 'user') => `${name}-${randomUUID().slice(0, 8)}@example.test`;
const users = () => new DynamoUserRepository(dynamo(), tableName());
const storedUser = (userId: string, saas = saasId) => users().get(saas, userId) as Promise<UserRecord>;
const storedTenant = (tenantId: string, saas = saasId) => new DynamoTenantRepository(dynamo(), tableName()).get(saas, tenantId);
const customer = (): MarketplaceCustomer => ({ customerIdentifier: `cust-${randomUUID().slice(0, 8)}`, productCode: 'prod-abc123' });
const registrationToken = (c: MarketplaceCustomer, expiresAt?: number) => signRegistrationToken(SECRET, c, expiresAt);

const deliveredTo = (to: string) => deliveredMail(h.sesUrl, saasId, to);

const assertPassword = (userId: string, password: string) => assertStoredPassword(h, saasId, userId, password);

/** The temporary password in a default-template mail, checked against the stored verifier. */
async function mailedPassword(userId: string, text: string | undefined): Promise<string> {
  const password = /temporary password is (\S+)/.exec(text ?? '')?.[1];
  assert.ok(password, text);
  assert.equal(brokenRule(password, DEFAULT_PASSWORD_POLICY), undefined);
  await assertPassword(userId, password);
  return password;
}

async function setSelfSignUp(enable: boolean, client = api): Promise<void> {
  assert.equal((await client.put('/sign-in-settings', { self_regist: { enable } })).status, 200);
}

async function signUp(email: string, client = api): Promise<SaasUserBody> {
  const res = await client.post<SaasUserBody>('/sign-up', { email });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** A signed-up user, as the marketplace flow makes them, and their access token. */
async function marketplaceBuyer(c: MarketplaceCustomer, client = api, saas = saasId) {
  const email = address('buyer');
  const res = await client.post<SaasUserBody>('/aws-marketplace/sign-up', { email, registration_token: await registrationToken(c) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { user: res.body, accessToken: await mintAccessToken({ saasId: saas, userId: res.body.id, email }) };
}

async function tenantCount(client = api): Promise<number> {
  return (await client.get<{ tenants: unknown[] }>('/tenants')).body.tenants.length;
}

/** Marks the user as having signed in, as the sign-in flow does. */
async function markSignedIn(userId: string): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.userProfile(saasId, userId),
      UpdateExpression: 'SET last_login_at = :at',
      ExpressionAttributeValues: { ':at': 1_900_000_000 },
    }),
  );
}

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
});
afterAll(() => h.close());

describe('Sign Up', () => {
  it('is refused while self sign-up is off (the default), storing and mailing nothing', async () => {
    const email = address('early');
    await expectError(api.post('/sign-up', { email }), 400, 'self_sign_up_disabled', 'self_regist');
    assert.equal(await userService().findByUsername(saasId, email), undefined);
    assert.deepEqual(await deliveredTo(email), []);
  });

  it('creates an e-mail user whose temporary password is mailed with the sign_up template', async () => {
    await setSelfSignUp(true);
    const email = address('Ann');
    const user = await signUp(email);
    assert.deepEqual(user, { id: user.id, email, sign_in_id: '', attributes: {}, last_login_at: 0 });
    assert.deepEqual((await api.get(`/users/${user.id}`)).body, user);
    const [mail, ...more] = await deliveredTo(email);
    assert.equal(more.length, 0);
    assert.equal(mail!.subject, 'Welcome: your temporary password');
    assert.ok(!mail!.body.text!.includes('{####}'));
    await mailedPassword(user.id, mail!.body.text);
    const record = await storedUser(user.id);
    assert.equal(record.password.temporary, true);
    assert.ok(record.password.expires_at);
  });

  it("uses the SaaS's own sign_up template, with {####} replaced", async () => {
    await api.put('/notification-messages', { sign_up: { subject: 'Welcome to Acme', message: 'Sign in with <b>{####}</b> now.' } });
    const email = address('bea');
    const user = await signUp(email);
    const [mail] = await deliveredTo(email);
    assert.equal(mail!.subject, 'Welcome to Acme');
    const password = /<b>(.+)<\/b>/.exec(mail!.body.html ?? '')?.[1];
    assert.ok(password, mail!.body.html);
    await assertPassword(user.id, unescapeHtml(password));
    await api.put('/notification-messages', {
      sign_up: { subject: 'Welcome: your temporary password', message: 'Welcome! Your temporary password is {####}' },
    });
  });

  it('refuses an address already taken (in any case), and a malformed one', async () => {
    const email = address('cleo');
    await signUp(email);
    await expectError(api.post('/sign-up', { email: email.toUpperCase() }), 400, 'email_already_exists', 'email');
    assert.equal((await deliveredTo(email)).length, 1, 'only the first sign-up mailed');
    await expectError(api.post('/sign-up', { email: 'not-an-address' }), 400, 'invalid_parameter', 'email');
    await expectError(api.post('/sign-up', {}), 400, 'invalid_parameter', 'email');
    await expectError(api.post('/sign-up', { email: 42 }), 400, 'invalid_parameter', 'email');
  });
});

describe('Resend Sign Up Confirmation Email', () => {
  it('mails a new temporary password with resend_code; the old one stops working', async () => {
    await setSelfSignUp(true);
    const email = address('dina');
    const user = await signUp(email);
    const [first] = await deliveredTo(email);
    const before = await storedUser(user.id);
    const oldPassword = /temporary password is (\S+)/.exec(first!.body.text ?? '')?.[1] as string;

    assert.equal((await api.post('/sign-up/resend', { email: email.toUpperCase() })).status, 200);
    const mails = await deliveredTo(email);
    assert.equal(mails.length, 2);
    assert.equal(mails[1]!.subject, 'Your temporary password');
    const newPassword = await mailedPassword(user.id, mails[1]!.body.text);
    assert.notEqual(newPassword, oldPassword);
    const after = await storedUser(user.id);
    assert.notEqual(after.password.verifier, before.password.verifier);
    assert.equal(after.password.temporary, true);
  });

  it('is refused once the user has signed in, or chosen a password of their own, and changes nothing', async () => {
    const signedIn = await signUp(address('eve'));
    await markSignedIn(signedIn.id);
    const before = await storedUser(signedIn.id);
    await expectError(api.post('/sign-up/resend', { email: signedIn.email }), 400, 'user_already_confirmed', 'email');
    assert.deepEqual(await storedUser(signedIn.id), before);

    const ownPassword = await signUp(address('fay'));
    assert.equal((await api.patch(`/users/${ownPassword.id}/password`, { password: 'Own-password-77' })).status, 200);
    await expectError(api.post('/sign-up/resend', { email: ownPassword.email }), 400, 'user_already_confirmed', 'email');
    assert.equal((await deliveredTo(ownPassword.email)).length, 1, 'the sign-up mail only');
  });

  it('holds the rule in the store: a sign-in that lands between the read and the write wins', async () => {
    const user = await signUp(address('gia'));
    const stale = await storedUser(user.id);
    await markSignedIn(user.id);
    const before = await storedUser(user.id);
    await assert.rejects(userService().resendTemporaryPassword(saasId, stale), { code: 'user_already_confirmed' });
    assert.deepEqual(await storedUser(user.id), before);
    assert.equal((await deliveredTo(user.email)).length, 1, 'no resend mail went out');
  });

  it('answers 404 for an address nobody signed up with, and works whether self sign-up is on or off', async () => {
    await expectError(api.post('/sign-up/resend', { email: address('nobody') }), 404, 'user_not_found', 'email');
    const user = await signUp(address('hana'));
    await setSelfSignUp(false);
    assert.equal((await api.post('/sign-up/resend', { email: user.email })).status, 200);
    assert.equal((await deliveredTo(user.email)).length, 2);
    await setSelfSignUp(true);
  });

  it('resends to a user the SaaS created with a temporary password, too', async () => {
    const email = address('ida');
    const created = await api.post<SaasUserBody>('/users', { email });
    assert.equal(created.status, 201);
    assert.equal((await deliveredTo(email))[0]?.subject, 'Your account has been created');
    assert.equal((await api.post('/sign-up/resend', { email })).status, 200);
    const mails = await deliveredTo(email);
    assert.equal(mails.length, 2);
    assert.equal(mails[1]!.subject, 'Your temporary password');
    await mailedPassword(created.body.id, mails[1]!.body.text);
  });
});

describe('Sign Up with marketplace', () => {
  it('creates the user with a valid registration token even while self sign-up is off', async () => {
    await setSelfSignUp(false);
    const email = address('mia');
    const res = await api.post<SaasUserBody>('/aws-marketplace/sign-up', { email, registration_token: await registrationToken(customer()) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body, { id: res.body.id, email, sign_in_id: '', attributes: {}, last_login_at: 0 });
    const [mail] = await deliveredTo(email);
    assert.equal(mail!.subject, 'Welcome: your temporary password');
    await mailedPassword(res.body.id, mail!.body.text);
  });

  it('refuses a forged, expired, malformed or missing token before storing anything', async () => {
    const email = address('nia');
    const c = customer();
    const refusals: [unknown, string][] = [
      [await signRegistrationToken('another-secret-of-enough-length-000000', c), 'registration_token'],
      [await registrationToken(c, Math.floor(Date.now() / 1000) - 10), 'registration_token'],
      ['not-a-token', 'registration_token'],
      [(await registrationToken(c)).slice(0, -3), 'registration_token'],
    ];
    for (const [token, field] of refusals) {
      await expectError(api.post('/aws-marketplace/sign-up', { email, registration_token: token }), 400, 'invalid_registration_token', field);
    }
    await expectError(api.post('/aws-marketplace/sign-up', { email }), 400, 'invalid_parameter', 'registration_token');
    assert.equal(await userService().findByUsername(saasId, email), undefined);
    assert.deepEqual(await deliveredTo(email), []);
  });
});

describe('Confirm Sign Up with marketplace', () => {
  it('creates a tenant linked to the customer, with the signed-in user as its member', async () => {
    const c = customer();
    const { user, accessToken } = await marketplaceBuyer(c);
    const res = await api.post<Tenant>('/aws-marketplace/sign-up-confirm', {
      tenant_name: 'Buyer Inc',
      access_token: accessToken,
      registration_token: await registrationToken(c),
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body, { id: res.body.id, name: 'Buyer Inc', attributes: {}, back_office_staff_email: user.email, plan_histories: [] });
    assert.equal((await api.get<Tenant>(`/tenants/${res.body.id}`)).body.name, 'Buyer Inc');
    const members = (await api.get<{ users: { id: string }[] }>(`/tenants/${res.body.id}/users`)).body.users;
    assert.deepEqual(
      members.map((m) => m.id),
      [user.id],
    );
    const stored = (await storedTenant(res.body.id)) as TenantRecord;
    assert.equal(stored.marketplace?.customer_identifier, c.customerIdentifier);
    assert.equal(stored.marketplace?.product_code, c.productCode);
  });

  it("names the tenant after the user's address when no name is given", async () => {
    const c = customer();
    const { user, accessToken } = await marketplaceBuyer(c);
    const res = await api.post<Tenant>('/aws-marketplace/sign-up-confirm', {
      tenant_name: '',
      access_token: accessToken,
      registration_token: await registrationToken(c),
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.name, user.email);
  });

  it('refuses a customer already linked, creating no tenant: tenant, link and membership commit together', async () => {
    const c = customer();
    const first = await marketplaceBuyer(c);
    const token = await registrationToken(c);
    const body = { tenant_name: 'First', access_token: first.accessToken, registration_token: token };
    assert.equal((await api.post('/aws-marketplace/sign-up-confirm', body)).status, 201);
    const count = await tenantCount();
    const second = await marketplaceBuyer(c);
    await expectError(
      api.post('/aws-marketplace/sign-up-confirm', { ...body, access_token: second.accessToken }),
      400,
      'marketplace_customer_already_linked',
      'registration_token',
    );
    assert.equal(await tenantCount(), count);
    assert.deepEqual((await api.get<{ users: unknown[] }>(`/tenants/all/users/${second.user.id}`)).body.users, []);
  });

  it('refuses a bad access token (401) or registration token (400), creating nothing', async () => {
    const c = customer();
    const { accessToken } = await marketplaceBuyer(c);
    const count = await tenantCount();
    const token = await registrationToken(c);
    const res = await api.post<{ data: { sign_in_page_url?: string } }>('/aws-marketplace/sign-up-confirm', {
      access_token: 'not.a.jwt',
      registration_token: token,
    });
    assert.equal(res.status, 401);
    assert.ok(res.body.data.sign_in_page_url);
    await expectError(
      api.post('/aws-marketplace/sign-up-confirm', { access_token: accessToken, registration_token: 'forged' }),
      400,
      'invalid_registration_token',
      'registration_token',
    );
    await expectError(api.post('/aws-marketplace/sign-up-confirm', { registration_token: token }), 400, 'invalid_parameter', 'access_token');
    assert.equal(await tenantCount(), count);
  });

  it('answers 401 when the token belongs to a user who no longer exists', async () => {
    const c = customer();
    const { user, accessToken } = await marketplaceBuyer(c);
    assert.equal((await api.delete(`/users/${user.id}`)).status, 200);
    const count = await tenantCount();
    await expectError(
      api.post('/aws-marketplace/sign-up-confirm', { access_token: accessToken, registration_token: await registrationToken(c) }),
      401,
      'invalid_token',
    );
    assert.equal(await tenantCount(), count);
  });

  it('frees the customer when its tenant is deleted', async () => {
    const c = customer();
    const { accessToken } = await marketplaceBuyer(c);
    const body = { tenant_name: 'Short-lived', access_token: accessToken, registration_token: await registrationToken(c) };
    const first = await api.post<Tenant>('/aws-marketplace/sign-up-confirm', body);
    assert.equal(first.status, 201);
    assert.equal((await api.delete(`/tenants/${first.body.id}`)).status, 200);
    const claim = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.marketplaceCustomer(saasId, c.customerIdentifier) }));
    assert.equal(claim.Item, undefined);
    assert.equal((await api.post('/aws-marketplace/sign-up-confirm', body)).status, 201);
  });
});

describe('Link an existing tenant with marketplace', () => {
  async function tenantWithMember(userEmail: string): Promise<string> {
    const tenant = await api.post<Tenant>('/tenants', { name: 'Existing', attributes: {}, back_office_staff_email: 'ops@example.test' });
    assert.equal(tenant.status, 201);
    assert.equal((await api.post(`/tenants/${tenant.body.id}/users`, { email: userEmail, attributes: {} })).status, 201);
    return tenant.body.id;
  }

  it('links a tenant the user belongs to; linking again changes nothing', async () => {
    const c = customer();
    const { user, accessToken } = await marketplaceBuyer(c);
    const tenantId = await tenantWithMember(user.email);
    const body = { tenant_id: tenantId, access_token: accessToken, registration_token: await registrationToken(c) };
    const res = await api.patch('/aws-marketplace/link', body);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, '');
    const linked = (await storedTenant(tenantId)) as TenantRecord;
    assert.equal(linked.marketplace?.customer_identifier, c.customerIdentifier);
    assert.equal((await api.patch('/aws-marketplace/link', { ...body, tenant_id: tenantId.toUpperCase() })).status, 200);
    assert.deepEqual((await storedTenant(tenantId))?.marketplace, linked.marketplace);
  });

  it('refuses a tenant linked to another customer, and a customer linked to another tenant', async () => {
    const c = customer();
    const { user, accessToken } = await marketplaceBuyer(c);
    const tenantA = await tenantWithMember(user.email);
    const tenantB = await tenantWithMember(user.email);
    assert.equal(
      (await api.patch('/aws-marketplace/link', { tenant_id: tenantA, access_token: accessToken, registration_token: await registrationToken(c) }))
        .status,
      200,
    );
    await expectError(
      api.patch('/aws-marketplace/link', { tenant_id: tenantA, access_token: accessToken, registration_token: await registrationToken(customer()) }),
      400,
      'tenant_already_linked',
      'tenant_id',
    );
    await expectError(
      api.patch('/aws-marketplace/link', { tenant_id: tenantB, access_token: accessToken, registration_token: await registrationToken(c) }),
      400,
      'marketplace_customer_already_linked',
      'registration_token',
    );
    assert.equal((await storedTenant(tenantA))?.marketplace?.customer_identifier, c.customerIdentifier);
    assert.equal((await storedTenant(tenantB))?.marketplace, undefined);
  });

  it('answers 403 to a user who does not belong to the tenant, 404 for a missing tenant, 400 for a bad token', async () => {
    const c = customer();
    const member = await marketplaceBuyer(c);
    const outsider = await marketplaceBuyer(c);
    const tenantId = await tenantWithMember(member.user.email);
    const token = await registrationToken(c);
    await expectError(
      api.patch('/aws-marketplace/link', { tenant_id: tenantId, access_token: outsider.accessToken, registration_token: token }),
      403,
      'not_a_tenant_member',
      'access_token',
    );
    await expectError(
      api.patch('/aws-marketplace/link', { tenant_id: randomUUID(), access_token: member.accessToken, registration_token: token }),
      404,
      'tenant_not_found',
    );
    await expectError(
      api.patch('/aws-marketplace/link', { tenant_id: tenantId, access_token: member.accessToken, registration_token: 'x' }),
      400,
      'invalid_registration_token',
      'registration_token',
    );
    await expectError(
      api.patch('/aws-marketplace/link', { tenant_id: 'not-a-uuid', access_token: member.accessToken, registration_token: token }),
      400,
      'invalid_parameter',
      'tenant_id',
    );
    assert.equal((await storedTenant(tenantId))?.marketplace, undefined);
    const claim = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.marketplaceCustomer(saasId, c.customerIdentifier) }));
    assert.equal(claim.Item, undefined, 'no refused link left a claim behind');
  });
});

describe('isolation', () => {
  it("keeps another SaaS out of this SaaS's users, tenants and customers", async () => {
    const other = await h.newSaas();
    await setSelfSignUp(true);
    await setSelfSignUp(true, other.client);
    const email = address('shared');
    const mine = await signUp(email);
    // The same address is a different person in another SaaS; Resend there knows nothing of ours.
    const theirs = await signUp(email, other.client);
    assert.notEqual(theirs.id, mine.id);
    await expectError(other.client.post('/sign-up/resend', { email: address('only-mine') }), 404, 'user_not_found');

    const c = customer();
    const buyer = await marketplaceBuyer(c);
    const confirmed = await api.post<Tenant>('/aws-marketplace/sign-up-confirm', {
      access_token: buyer.accessToken,
      registration_token: await registrationToken(c),
    });
    assert.equal(confirmed.status, 201);
    const token = await registrationToken(c);
    // Our user's token does not verify in the other SaaS; their user cannot reach our tenant.
    const stolen = await other.client.post('/aws-marketplace/sign-up-confirm', { access_token: buyer.accessToken, registration_token: token });
    assert.equal(stolen.status, 401);
    const theirBuyer = await marketplaceBuyer(c, other.client, other.saasId);
    await expectError(
      other.client.patch('/aws-marketplace/link', { tenant_id: confirmed.body.id, access_token: theirBuyer.accessToken, registration_token: token }),
      404,
      'tenant_not_found',
    );
    // A customer is linked per SaaS: the other SaaS may link the same marketplace customer to a tenant of its own.
    const theirs2 = await other.client.post<Tenant>('/aws-marketplace/sign-up-confirm', {
      access_token: theirBuyer.accessToken,
      registration_token: token,
    });
    assert.equal(theirs2.status, 201, JSON.stringify(theirs2.body));
    assert.equal((await storedTenant(confirmed.body.id))?.marketplace?.customer_identifier, c.customerIdentifier);
    assert.equal((await storedTenant(theirs2.body.id))?.marketplace, undefined, 'not visible under our SaaS');
    assert.equal((await storedTenant(theirs2.body.id, other.saasId))?.marketplace?.customer_identifier, c.customerIdentifier);
  });
});
