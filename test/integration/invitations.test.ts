/**
 * Tenant invitations through the API: create (by a member's access token, with a mail carrying the link),
 * list, get, delete, validity, and acceptance as an existing user or a new one, all in one transaction.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { nowSeconds, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { resetConfigForTests } from '../../shared/config.js';
import { KEEP_EXPIRED_SECONDS } from '../../shared/domain/tenants/invitations.js';
import { keys } from '../../shared/store/keys.js';
import { userService, dynamo, tableName } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { defineEnvsAndRoles } from '../support/definitions.js';
import { deliveredMail } from '../support/mail.js';
import { assertBreachedRefusal, assertStoredPassword, BREACHED_PASSWORD } from '../support/passwords.js';
import { accessTokenOf } from '../support/tokens.js';

let h: Harness;
let api: SignedClient;
let saasId: string;
let tenantA: string;
let tenantB: string;
/** A member of tenant A, who invites. */
let inviter: User;

interface User {
  id: string;
  email: string;
  sign_in_id: string;
}

interface InvitationBody {
  id: string;
  email: string;
  envs: { id: number; name: string; display_name: string; roles: { role_name: string; display_name: string }[] }[];
  expired_at: number;
  status: string;
  invitation_url: string;
}

const PASSWORD = 'Correct-horse-9';
const DAY = 86400;
const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;
const get = async (key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

async function createUser(body: Record<string, unknown>, client = api): Promise<User> {
  const res = await client.post<User>('/users', { password: PASSWORD, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function createTenant(name: string, client = api): Promise<string> {
  const res = await client.post<{ id: string }>('/tenants', { name, attributes: {}, back_office_staff_email: 'ops@example.test' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

const tokenOf = (user: User, saas = saasId) => accessTokenOf(saas, user);

const ADMIN_IN_PROD = [{ id: 1, role_names: ['admin'] }];

async function invite(email: string, envs: unknown = ADMIN_IN_PROD, tenantId = tenantA, by = inviter): Promise<InvitationBody> {
  const res = await api.post<InvitationBody>(`/tenants/${tenantId}/invitations`, { email, access_token: await tokenOf(by), envs });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const invitations = async (tenantId = tenantA) =>
  (await api.get<{ invitations: InvitationBody[] }>(`/tenants/${tenantId}/invitations`)).body.invitations;
const validity = async (id: string) => (await api.get<{ is_valid: boolean }>(`/invitations/${id}/validity`)).body.is_valid;
const statusOf = async (invitation: InvitationBody, tenantId = tenantA) =>
  (await api.get<InvitationBody>(`/tenants/${tenantId}/invitations/${invitation.id}`)).body.status;
const membersOf = async (tenantId: string) =>
  (await api.get<{ users: { id: string; email: string; envs: InvitationBody['envs'] }[] }>(`/tenants/${tenantId}/users`)).body.users;

const deliveredTo = (to: string) => deliveredMail(h.sesUrl, saasId, to);

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
  await defineEnvsAndRoles(api);
  tenantA = await createTenant('Acme');
  tenantB = await createTenant('Bolt');
  inviter = await createUser({ email: address('inviter') });
  assert.equal((await api.post(`/tenants/${tenantA}/users`, { email: inviter.email, attributes: {} })).status, 201);
});
afterAll(async () => {
  resetClockForTests();
  await h.close();
});
afterEach(() => resetClockForTests());

describe('create, read, delete', () => {
  it('creates a pending invitation with named envs and roles, a link on the default domain, and a mail carrying it', async () => {
    const at = nowSeconds();
    setClockForTests(at * 1000);
    const email = address('Newcomer');
    const invitation = await invite(` ${email} `, [
      { id: 2, role_names: ['viewer'] },
      { id: 1, role_names: ['viewer', 'admin', 'admin'] },
    ]);
    assert.match(invitation.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(invitation, {
      id: invitation.id,
      email,
      envs: [
        {
          id: 1,
          name: 'prod',
          display_name: 'Production',
          roles: [
            { role_name: 'admin', display_name: 'Administrator' },
            { role_name: 'viewer', display_name: 'Viewer' },
          ],
        },
        { id: 2, name: 'dev', display_name: 'Development', roles: [{ role_name: 'viewer', display_name: 'Viewer' }] },
      ],
      expired_at: at + 7 * DAY,
      status: 'pending',
      invitation_url: `${h.api.baseUrl}/login/${saasId}/invitation?invitation_id=${invitation.id}&tenant_id=${tenantA}`,
    });
    assert.deepEqual((await api.get(`/tenants/${tenantA}/invitations/${invitation.id}`)).body, invitation);
    assert.deepEqual(
      (await invitations()).find((i) => i.id === invitation.id),
      invitation,
    );
    assert.equal(await validity(invitation.id), true);

    const [mail, ...more] = await deliveredTo(email);
    assert.equal(more.length, 0);
    assert.equal(mail!.subject, 'You have been invited');
    assert.equal(mail!.body.text, `You have been invited to join a team. Accept the invitation here: ${invitation.invitation_url}`);
  });

  it("builds the link to the SaaS's login screen, not to a domain_name that serves nothing, and applies its invite_tenant_user template", async () => {
    const saas = await h.newSaas();
    await saas.client.put('/basic-info', { domain_name: 'login.acme.test', from_email_address: 'no-reply@acme.test' });
    await saas.client.put('/notification-messages', { invite_tenant_user: { subject: 'Join Acme', message: '<a href="{####}">Join</a>' } });
    await saas.client.post('/envs', { id: 1, name: 'prod', display_name: 'Production' });
    const tenantId = await createTenant('Own', saas.client);
    const member = await createUser({ email: address('own') }, saas.client);
    await saas.client.post(`/tenants/${tenantId}/users`, { email: member.email, attributes: {} });
    const email = address('guest');
    const res = await saas.client.post<InvitationBody>(`/tenants/${tenantId}/invitations`, {
      email,
      access_token: await tokenOf(member, saas.saasId),
      envs: [{ id: 1, role_names: [] }],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.invitation_url, `${h.api.baseUrl}/login/${saas.saasId}/invitation?invitation_id=${res.body.id}&tenant_id=${tenantId}`);
    assert.deepEqual(res.body.envs, [], 'an env without roles grants nothing to show');
    const [mail] = await deliveredMail(h.sesUrl, saas.saasId, email);
    assert.equal(mail!.subject, 'Join Acme');
    assert.equal(mail!.body.html, `<a href="${res.body.invitation_url.replace('&', '&amp;')}">Join</a>`);
  });

  it('links to the SaaS’s screen on a host of its own when the deployment gives each SaaS one', async () => {
    h.usePerSaasHosts(true);
    try {
      const invitation = await invite(address('own-host'));
      assert.equal(
        invitation.invitation_url,
        `http://${saasId}.localhost:${h.api.port}/v1/auth/login/${saasId}/invitation?invitation_id=${invitation.id}&tenant_id=${tenantA}`,
      );
    } finally {
      h.usePerSaasHosts(false);
    }
  });

  it('takes its lifetime from INVITATION_LIFETIME_SECONDS', async () => {
    process.env.INVITATION_LIFETIME_SECONDS = '3600';
    resetConfigForTests();
    try {
      const at = nowSeconds();
      setClockForTests(at * 1000);
      assert.equal((await invite(address('soon'))).expired_at, at + 3600);
    } finally {
      delete process.env.INVITATION_LIFETIME_SECONDS;
      resetConfigForTests();
    }
  });

  it('refuses a bad inviter, tenant, address, env or role, storing and mailing nothing', async () => {
    const before = (await invitations()).length;
    const email = address('nobody');
    const body = async (over: Record<string, unknown> = {}) => ({ email, access_token: await tokenOf(inviter), envs: ADMIN_IN_PROD, ...over });
    const outsider = await createUser({ email: address('outsider') });
    const memberOfB = await createUser({ email: address('b-member') });
    await api.post(`/tenants/${tenantB}/users`, { email: memberOfB.email, attributes: {} });
    const post = async (over: Record<string, unknown>, tenantId = tenantA) => api.post(`/tenants/${tenantId}/invitations`, await body(over));

    await expectError(post({ access_token: 'garbage' }), 401, 'invalid_token', 'access_token');
    await expectError(post({ access_token: await tokenOf(inviter, (await h.newSaas()).saasId) }), 401, 'invalid_token', 'access_token');
    await expectError(post({ access_token: await tokenOf(outsider) }), 403, 'inviter_not_member', 'access_token');
    await expectError(post({ access_token: await tokenOf(memberOfB) }), 403, 'inviter_not_member', 'access_token');
    await expectError(post({}, randomUUID()), 404, 'tenant_not_found');
    await expectError(post({ email: 'not-an-address' }), 400, 'invalid_parameter', 'email');
    await expectError(post({ envs: [{ id: 9, role_names: ['admin'] }] }), 404, 'env_not_found');
    await expectError(post({ envs: [{ id: 1, role_names: ['admin', 'ghost'] }] }), 400, 'role_not_found', 'envs');
    await expectError(post({ envs: [{ id: 0, role_names: [] }] }), 400, 'invalid_parameter', 'envs.0.id');
    await expectError(post({ envs: undefined }), 400, 'invalid_parameter', 'envs');
    await expectError(post({ access_token: undefined }), 400, 'invalid_parameter', 'access_token');
    assert.equal((await invitations()).length, before);
    assert.deepEqual(await deliveredTo(email), []);
  });

  it('deletes an invitation: gone from reads, and refused when validated', async () => {
    const email = address('dropped');
    const invitation = await invite(email);
    const res = await api.delete(`/tenants/${tenantA}/invitations/${invitation.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
    await expectError(api.get(`/tenants/${tenantA}/invitations/${invitation.id}`), 404, 'invitation_not_found');
    await expectError(api.delete(`/tenants/${tenantA}/invitations/${invitation.id}`), 404, 'invitation_not_found');
    assert.ok(!(await invitations()).some((i) => i.id === invitation.id));
    assert.equal(await validity(invitation.id), false);
    await expectError(api.patch(`/invitations/${invitation.id}/validate`, { email, password: PASSWORD }), 400, 'invitation_deleted', 'invitation_id');
    assert.equal(await userService().findByUsername(saasId, email), undefined);
  });

  it('answers 404 for invitations and tenants that do not exist', async () => {
    const id = randomUUID();
    await expectError(api.get(`/tenants/${tenantA}/invitations/${id}`), 404, 'invitation_not_found');
    await expectError(api.delete(`/tenants/${tenantA}/invitations/${id}`), 404, 'invitation_not_found');
    await expectError(api.get(`/invitations/${id}/validity`), 404, 'invitation_not_found');
    await expectError(api.patch(`/invitations/${id}/validate`, { email: address('x'), password: PASSWORD }), 404, 'invitation_not_found');
    await expectError(api.get(`/tenants/${randomUUID()}/invitations`), 404, 'tenant_not_found');
    await expectError(api.get(`/tenants/${randomUUID()}/invitations/${id}`), 404, 'tenant_not_found');
  });
});

describe('validate', () => {
  it('as the existing user of the access token: a member with the invited roles, the invitation accepted', async () => {
    const user = await createUser({ email: address('Existing') });
    const invitation = await invite(user.email.toUpperCase(), [
      { id: 1, role_names: ['admin'] },
      { id: 2, role_names: ['viewer'] },
    ]);
    const res = await api.patch(`/invitations/${invitation.id}/validate`, { access_token: await tokenOf(user), email: '', password: '' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.text, '');
    const member = (await membersOf(tenantA)).find((m) => m.id === user.id);
    assert.deepEqual(member?.envs, invitation.envs);
    assert.deepEqual(
      invitation.envs.map((e) => [e.id, e.roles.map((r) => r.role_name)]),
      [
        [1, ['admin']],
        [2, ['viewer']],
      ],
    );
    assert.equal(await statusOf(invitation), 'accepted');
    assert.equal(await validity(invitation.id), false);
    await expectError(
      api.patch(`/invitations/${invitation.id}/validate`, { access_token: await tokenOf(user) }),
      400,
      'invitation_accepted',
      'invitation_id',
    );
  });

  it('with e-mail and password: creates the user under the password policy, in the same transaction', async () => {
    const email = address('Fresh');
    const invitation = await invite(email);
    await expectError(api.patch(`/invitations/${invitation.id}/validate`, { email, password: 'weak' }), 400, 'password_policy_violation', 'password');
    await assertBreachedRefusal(api.patch(`/invitations/${invitation.id}/validate`, { email, password: BREACHED_PASSWORD }));
    await expectError(api.patch(`/invitations/${invitation.id}/validate`, { email }), 400, 'invalid_parameter', 'password');
    await expectError(api.patch(`/invitations/${invitation.id}/validate`, {}), 400, 'invalid_parameter', 'email');
    assert.equal(await userService().findByUsername(saasId, email), undefined, 'a refused acceptance creates nobody');

    const res = await api.patch(`/invitations/${invitation.id}/validate`, { access_token: null, email: email.toUpperCase(), password: PASSWORD });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const user = await userService().findByUsername(saasId, email);
    assert.ok(user);
    const record = await assertStoredPassword(h, saasId, user.id, PASSWORD);
    assert.equal(record.password.temporary, false, 'the password is their own');
    assert.deepEqual((await membersOf(tenantA)).find((m) => m.id === user.id)?.envs, invitation.envs);
    assert.equal(await statusOf(invitation), 'accepted');
    assert.deepEqual(await deliveredTo(email.toUpperCase()), [], 'a user who chose a password gets no password mail');
  });

  it('refuses the wrong person and an existing user without a token, and changes nothing', async () => {
    const invited = await createUser({ email: address('invited') });
    const someoneElse = await createUser({ email: address('else') });
    const idUser = await createUser({ sign_in_id: `id-${randomUUID().slice(0, 6)}` });
    const invitation = await invite(invited.email);
    const validate = (body: Record<string, unknown>) => api.patch(`/invitations/${invitation.id}/validate`, body);
    await expectError(validate({ access_token: await tokenOf(someoneElse) }), 400, 'email_mismatch', 'access_token');
    await expectError(validate({ access_token: await tokenOf(idUser) }), 400, 'email_mismatch', 'access_token');
    await expectError(validate({ email: address('stranger'), password: PASSWORD }), 400, 'email_mismatch', 'email');
    await expectError(validate({ email: invited.email, password: PASSWORD }), 400, 'access_token_required', 'access_token');
    await expectError(validate({ access_token: 'garbage' }), 401, 'invalid_token', 'access_token');
    assert.equal(await statusOf(invitation), 'pending');
    assert.ok(!(await membersOf(tenantA)).some((m) => [invited.id, someoneElse.id, idUser.id].includes(m.id)));
  });

  it('refuses a user who is already a member, leaving the invitation pending', async () => {
    const user = await createUser({ email: address('member') });
    await api.post(`/tenants/${tenantA}/users`, { email: user.email, attributes: {} });
    const invitation = await invite(user.email);
    await expectError(api.patch(`/invitations/${invitation.id}/validate`, { access_token: await tokenOf(user) }), 400, 'user_already_member');
    assert.equal(await statusOf(invitation), 'pending');
    assert.deepEqual((await membersOf(tenantA)).find((m) => m.id === user.id)?.envs, [], 'the membership keeps its roles');
  });

  it('expires on our own clock: shown as expired, refused, then gone after the keeping time', async () => {
    const at = nowSeconds();
    setClockForTests(at * 1000);
    const email = address('late');
    const invitation = await invite(email);
    setClockForTests((invitation.expired_at - 1) * 1000);
    assert.equal(await validity(invitation.id), true);
    setClockForTests(invitation.expired_at * 1000);
    assert.equal(await validity(invitation.id), false);
    assert.equal(await statusOf(invitation), 'expired');
    assert.equal((await invitations()).find((i) => i.id === invitation.id)?.status, 'expired');
    await expectError(api.patch(`/invitations/${invitation.id}/validate`, { email, password: PASSWORD }), 400, 'invitation_expired', 'invitation_id');
    assert.equal(await userService().findByUsername(saasId, email), undefined);
    const stored = await get(keys.invitation(saasId, tenantA, invitation.id));
    assert.equal(stored?.expiresAt, invitation.expired_at + KEEP_EXPIRED_SECONDS, 'the TTL attribute');

    setClockForTests((invitation.expired_at + KEEP_EXPIRED_SECONDS) * 1000);
    assert.ok(!(await invitations()).some((i) => i.id === invitation.id));
    await expectError(api.get(`/tenants/${tenantA}/invitations/${invitation.id}`), 404, 'invitation_not_found');
    await expectError(api.get(`/invitations/${invitation.id}/validity`), 404, 'invitation_not_found');
    await expectError(api.patch(`/invitations/${invitation.id}/validate`, { email, password: PASSWORD }), 404, 'invitation_not_found');
  });

  it('two parallel validations of one invitation: one membership and one 400', async () => {
    const user = await createUser({ email: address('racer') });
    const invitation = await invite(user.email);
    const token = await tokenOf(user);
    const answers = await Promise.all(
      [1, 2].map(() => api.patch<{ type: string }>(`/invitations/${invitation.id}/validate`, { access_token: token })),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400]);
    assert.equal((await membersOf(tenantA)).filter((m) => m.id === user.id).length, 1);

    const email = address('new-racer');
    const fresh = await invite(email);
    const created = await Promise.all(
      [1, 2].map(() => api.patch<{ type: string }>(`/invitations/${fresh.id}/validate`, { email, password: PASSWORD })),
    );
    assert.deepEqual(created.map((a) => a.status).sort(), [200, 400]);
    const members = (await membersOf(tenantA)).filter((m) => m.email === email);
    assert.equal(members.length, 1, 'one user, one membership');
    assert.equal((await api.get<{ users: unknown[] }>(`/users/search?email=${encodeURIComponent(email)}`)).body.users.length, 1);
  });
});

describe('isolation', () => {
  it("tenant A's invitations never appear for tenant B, nor for another SaaS", async () => {
    const invitation = await invite(address('a-only'));
    assert.ok(!(await invitations(tenantB)).some((i) => i.id === invitation.id));
    await expectError(api.get(`/tenants/${tenantB}/invitations/${invitation.id}`), 404, 'invitation_not_found');
    await expectError(api.delete(`/tenants/${tenantB}/invitations/${invitation.id}`), 404, 'invitation_not_found');
    assert.equal(await statusOf(invitation), 'pending', 'a delete through another tenant changed nothing');

    const other = (await h.newSaas()).client;
    await expectError(other.get(`/tenants/${tenantA}/invitations`), 404, 'tenant_not_found');
    await expectError(other.get(`/tenants/${tenantA}/invitations/${invitation.id}`), 404, 'tenant_not_found');
    await expectError(other.delete(`/tenants/${tenantA}/invitations/${invitation.id}`), 404, 'invitation_not_found');
    await expectError(other.get(`/invitations/${invitation.id}/validity`), 404, 'invitation_not_found');
    await expectError(
      other.patch(`/invitations/${invitation.id}/validate`, { email: invitation.email, password: PASSWORD }),
      404,
      'invitation_not_found',
    );
    assert.equal(await validity(invitation.id), true);
  });

  it('deleting the tenant deletes its invitations and their pointers', async () => {
    const tenantId = await createTenant('Doomed');
    await api.post(`/tenants/${tenantId}/users`, { email: inviter.email, attributes: {} });
    const invitation = await invite(address('doomed'), ADMIN_IN_PROD, tenantId);
    assert.equal((await api.delete(`/tenants/${tenantId}`)).status, 200);
    assert.equal(await get(keys.invitation(saasId, tenantId, invitation.id)), undefined);
    assert.equal(await get(keys.invitationPointer(saasId, invitation.id)), undefined);
    await expectError(api.get(`/invitations/${invitation.id}/validity`), 404, 'invitation_not_found');
  });

  it('a read-only key lists invitations but cannot create, delete or accept them', async () => {
    const invitation = await invite(address('ro'));
    const reader = await h.newKey(saasId, ['user:read']);
    assert.equal((await reader.get(`/tenants/${tenantA}/invitations`)).status, 200);
    assert.equal((await reader.get(`/invitations/${invitation.id}/validity`)).status, 200);
    assert.equal(
      (await reader.post(`/tenants/${tenantA}/invitations`, { email: address('x'), access_token: await tokenOf(inviter), envs: [] })).status,
      403,
    );
    assert.equal((await reader.delete(`/tenants/${tenantA}/invitations/${invitation.id}`)).status, 403);
    assert.equal((await reader.patch(`/invitations/${invitation.id}/validate`, { email: invitation.email, password: PASSWORD })).status, 403);
  });
});
