/** SaaS users through the API: create, read, passwords, sign-in names, attributes, MFA, providers, counts. */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { DEFAULT_PASSWORD_POLICY } from '../../shared/domain/configuration/password-policy.js';
import { brokenRule } from '../../shared/domain/configuration/password-rules.js';
import type { UserRecord } from '../../shared/domain/users/users.js';
import { keys } from '../../shared/store/keys.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import { userService, dynamo, tableName } from '../../shared/wiring.js';
import { expectError, type SaasUserBody } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail, unescapeHtml } from '../support/mail.js';
import { assertBreachedRefusal, assertStoredPassword, BREACHED_PASSWORD } from '../support/passwords.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

const PASSWORD = 'Correct-horse-9';
const stored = (userId: string, saas = saasId) => new DynamoUserRepository(dynamo(), tableName()).get(saas, userId) as Promise<UserRecord>;
const email = (name = 'user') => `${name}-${randomUUID().slice(0, 8)}@example.test`;
/** An item as stored, or undefined. */
const get = async (key: { pk: string; sk: string }) => (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key }))).Item;
/** Changes a stored profile directly: what another flow, or a step cut short, leaves behind. */
const updateProfile = (userId: string, UpdateExpression: string, ExpressionAttributeValues: Record<string, unknown>) =>
  dynamo().send(new UpdateCommand({ TableName: tableName(), Key: keys.userProfile(saasId, userId), UpdateExpression, ExpressionAttributeValues }));

async function createUser(body: Record<string, unknown>, client = api): Promise<SaasUserBody> {
  const res = await client.post<SaasUserBody>('/users', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const assertPassword = (userId: string, password: string) => assertStoredPassword(h, saasId, userId, password);

const deliveredTo = (to: string) => deliveredMail(h.sesUrl, saasId, to);

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
  for (const [attribute_name, attribute_type] of [
    ['nickname', 'string'],
    ['points', 'number'],
    ['vip', 'bool'],
    ['birthday', 'date'],
  ]) {
    assert.equal((await api.post('/saas-user-attributes', { attribute_name, display_name: attribute_name, attribute_type })).status, 201);
  }
  assert.equal((await api.post('/user-attributes', { attribute_name: 'department', display_name: 'Dept', attribute_type: 'string' })).status, 201);
});
afterAll(async () => {
  resetClockForTests();
  await h.close();
});
afterEach(() => resetClockForTests());

describe('create and read', () => {
  it('creates an e-mail user with a password of its own: trimmed, case kept, no mail, nothing temporary', async () => {
    const address = email('Alice');
    const user = await createUser({ email: `  ${address}  `, password: PASSWORD });
    assert.match(user.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(user, { id: user.id, email: address, sign_in_id: '', attributes: {}, last_login_at: 0 });
    assert.deepEqual((await api.get(`/users/${user.id}`)).body, user);
    const record = await assertPassword(user.id, PASSWORD);
    assert.equal(record.password.temporary, false);
    assert.equal(record.password.expires_at, undefined);
    assert.equal(record.session_version, 0);
    assert.deepEqual(record.mfa, { enabled: false, software_token_registered: false });
    assert.deepEqual(await deliveredTo(address), []);
    const listed = (await api.get<{ users: SaasUserBody[] }>('/users')).body.users;
    assert.deepEqual(
      listed.find((u) => u.id === user.id),
      user,
    );
  });

  it('mails a generated temporary password to an e-mail user created without one, with the create_user template', async () => {
    const fixed = Date.UTC(2030, 0, 15, 12, 0, 0);
    setClockForTests(fixed);
    const address = email('bob');
    const user = await createUser({ email: address, sign_in_id: '', password: '' });
    assert.equal(user.password, undefined, 'an e-mail user learns the password from the mail only');
    const [mail, ...more] = await deliveredTo(address);
    assert.equal(more.length, 0);
    assert.equal(mail!.subject, 'Your account has been created');
    const password = /temporary password is (\S+)/.exec(mail!.body.text ?? '')?.[1];
    assert.ok(password, mail!.body.text);
    assert.ok(!mail!.body.text!.includes('{####}'));
    assert.equal(brokenRule(password, DEFAULT_PASSWORD_POLICY), undefined);
    const record = await assertPassword(user.id, password);
    assert.equal(record.password.temporary, true);
    assert.equal(record.password.expires_at, fixed / 1000 + 7 * 86400, 'the policy default of 7 days');
  });

  it("uses the SaaS's own create_user template and its temporary password validity", async () => {
    await api.put('/notification-messages', { create_user: { subject: 'Welcome aboard', message: '<p>Your password: <b>{####}</b></p>' } });
    const settings = (await api.get<{ password_policy: object }>('/sign-in-settings')).body;
    await api.put('/sign-in-settings', { password_policy: { ...settings.password_policy, temporary_password_validity_days: 2 } });
    const fixed = Date.UTC(2030, 5, 1);
    setClockForTests(fixed);
    const address = email('carol');
    const user = await createUser({ email: address });
    const [mail] = await deliveredTo(address);
    assert.equal(mail!.subject, 'Welcome aboard');
    const password = /<b>(.+)<\/b>/.exec(mail!.body.html ?? '')?.[1];
    assert.ok(password);
    const unescaped = unescapeHtml(password);
    const record = await assertPassword(user.id, unescaped);
    assert.equal(record.password.expires_at, fixed / 1000 + 2 * 86400);
    await api.put('/sign-in-settings', { password_policy: settings.password_policy });
    await api.put('/notification-messages', {
      create_user: { subject: 'Your account has been created', message: 'An account has been created for you. Your temporary password is {####}' },
    });
  });

  it('hands a generated password to the caller for a sign-in-ID user, and mails nothing', async () => {
    const user = await createUser({ sign_in_id: 'Dave_01', email: null });
    assert.equal(user.sign_in_id, 'Dave_01');
    assert.equal(user.email, '');
    assert.ok(user.password);
    assert.equal(brokenRule(user.password, DEFAULT_PASSWORD_POLICY), undefined);
    const record = await assertPassword(user.id, user.password);
    assert.equal(record.password.temporary, true);
    const { password: _password, ...withoutPassword } = user;
    assert.deepEqual((await api.get(`/users/${user.id}`)).body, withoutPassword);
    const withPassword = await createUser({ sign_in_id: 'dave-02', password: PASSWORD });
    assert.equal(withPassword.password, undefined);
    assert.equal((await stored(withPassword.id)).password.temporary, false);
  });

  it('refuses bad input and stores nothing', async () => {
    const before = (await api.get<{ users: unknown[] }>('/users')).body.users.length;
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, 'invalid_parameter', 'email'],
      [{ email: '', sign_in_id: '' }, 'invalid_parameter', 'email'],
      [{ email: email(), sign_in_id: 'both' }, 'invalid_parameter', 'email'],
      [{ email: 'not-an-address' }, 'invalid_parameter', 'email'],
      [{ email: 'two@@example.test' }, 'invalid_parameter', 'email'],
      [{ email: 42 }, 'invalid_parameter', 'email'],
      [{ sign_in_id: 'has space' }, 'invalid_parameter', 'sign_in_id'],
      [{ sign_in_id: 'dot.ted' }, 'invalid_parameter', 'sign_in_id'],
      [{ sign_in_id: 'x'.repeat(51) }, 'invalid_parameter', 'sign_in_id'],
      [{ email: email(), password: 'short1!' }, 'password_policy_violation', 'password'],
      [{ email: email(), password: 'alllowercase-1' }, 'password_policy_violation', 'password'],
      [{ email: email(), password: 'NoNumbers-here' }, 'password_policy_violation', 'password'],
      [{ sign_in_id: 'nosymbol', password: 'NoSymbols123' }, 'password_policy_violation', 'password'],
    ];
    for (const [body, type, field] of cases) await expectError(api.post('/users', body), 400, type, field);
    const res = await api.post<{ data: { rule: string } }>('/users', { email: email(), password: 'NoSymbols123' });
    assert.equal(res.body.data.rule, 'is_require_symbols');
    await assertBreachedRefusal(api.post('/users', { email: email(), password: BREACHED_PASSWORD }));
    await assertBreachedRefusal(api.post('/users', { sign_in_id: 'breached', password: BREACHED_PASSWORD }));
    assert.equal((await api.get<{ users: unknown[] }>('/users')).body.users.length, before);
  });

  it('keeps e-mail addresses and sign-in IDs unique per SaaS, without regard to case', async () => {
    const address = email('erin');
    await createUser({ email: address, password: PASSWORD });
    await expectError(api.post('/users', { email: address.toUpperCase(), password: PASSWORD }), 400, 'email_already_exists', 'email');
    await expectError(api.post('/users', { email: ` ${address} ` }), 400, 'email_already_exists', 'email');
    await createUser({ sign_in_id: 'Frank' });
    await expectError(api.post('/users', { sign_in_id: 'frank' }), 400, 'sign_in_id_already_exists', 'sign_in_id');
    // The same names are free in another SaaS.
    const other = (await h.newSaas()).client;
    await createUser({ email: address, password: PASSWORD }, other);
    await createUser({ sign_in_id: 'FRANK' }, other);
  });

  it('twenty parallel creates of one e-mail address give exactly one user', async () => {
    const address = email('race');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post<{ type?: string }>('/users', { email: i % 2 ? address : address.toUpperCase(), password: PASSWORD }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(19).fill(400)]);
    for (const answer of answers.filter((a) => a.status === 400)) assert.equal(answer.body.type, 'email_already_exists');
    const found = (await api.get<{ users: SaasUserBody[] }>(`/users/search?email=${encodeURIComponent(address)}`)).body.users;
    assert.equal(found.length, 1);
    const signInAnswers = await Promise.all(Array.from({ length: 20 }, () => api.post('/users', { sign_in_id: 'racer' })));
    assert.equal(signInAnswers.filter((a) => a.status === 201).length, 1);
  });

  it('answers 404 for an unknown user on every user route', async () => {
    const id = randomUUID();
    await expectError(api.get(`/users/${id}`), 404, 'user_not_found');
    await expectError(api.get('/users/not-a-uuid'), 404, 'user_not_found');
    await expectError(api.delete(`/users/${id}`), 404, 'user_not_found');
    await expectError(api.patch(`/users/${id}/password`, { password: PASSWORD }), 404, 'user_not_found');
    await expectError(api.post(`/users/${id}/password/reset`), 404, 'user_not_found');
    await expectError(api.patch(`/users/${id}/email`, { email: email() }), 404, 'user_not_found');
    await expectError(api.patch(`/users/${id}/sign-in-id`, { sign_in_id: 'ghost' }), 404, 'user_not_found');
    await expectError(api.patch(`/users/${id}/attributes`, { attributes: {} }), 404, 'user_not_found');
    await expectError(api.get(`/users/${id}/mfa/preference`), 404, 'user_not_found');
    await expectError(api.patch(`/users/${id}/mfa/preference`, { enabled: false }), 404, 'user_not_found');
    await expectError(api.delete(`/users/${id}/providers/Google`), 404, 'user_not_found');
  });

  it('finds a user by sign-in name for the sign-in flow, in any case, through the owner item', async () => {
    const address = email('Gina');
    const user = await createUser({ email: address, password: PASSWORD });
    const byId = await createUser({ sign_in_id: 'Gina-2' });
    const users = userService();
    assert.equal((await users.findByUsername(saasId, ` ${address.toUpperCase()} `))?.id, user.id);
    assert.equal((await users.findByUsername(saasId, 'gina-2'))?.id, byId.id);
    assert.equal(await users.findByUsername(saasId, 'nobody@example.test'), undefined);
    assert.equal(await users.findByUsername(saasId, 'not a name'), undefined);
    assert.equal(await users.findByUsername((await h.newSaas()).saasId, address), undefined);
  });
});

describe('passwords', () => {
  it('changes the password under the policy, ends sessions, and marks it temporary when asked', async () => {
    const user = await createUser({ email: email('henry'), password: PASSWORD });
    await expectError(api.patch(`/users/${user.id}/password`, { password: 'weak' }), 400, 'password_policy_violation', 'password');
    await assertBreachedRefusal(api.patch(`/users/${user.id}/password`, { password: BREACHED_PASSWORD }));
    await assertBreachedRefusal(api.patch(`/users/${user.id}/password`, { password: BREACHED_PASSWORD, temporary: true }));
    await expectError(api.patch(`/users/${user.id}/password`, {}), 400, 'invalid_parameter', 'password');
    await assertPassword(user.id, PASSWORD);
    const changed = await api.patch(`/users/${user.id}/password`, { password: 'Another-pass-2' });
    assert.equal(changed.status, 200);
    assert.equal(changed.text, '');
    const record = await assertPassword(user.id, 'Another-pass-2');
    assert.equal(record.password.temporary, false);
    assert.equal(record.session_version, 1);

    const fixed = Date.UTC(2031, 2, 3);
    setClockForTests(fixed);
    assert.equal((await api.patch(`/users/${user.id}/password`, { password: 'Temporary-pass-3', temporary: true })).status, 200);
    const temporary = await assertPassword(user.id, 'Temporary-pass-3');
    assert.equal(temporary.password.temporary, true);
    assert.equal(temporary.password.expires_at, fixed / 1000 + 7 * 86400);
    assert.equal(temporary.session_version, 2);
  });

  it('resets to a temporary password: returned, and mailed with forgot_password to an e-mail user', async () => {
    const address = email('iris');
    const user = await createUser({ email: address, password: PASSWORD });
    const res = await api.post<{ password: string }>(`/users/${user.id}/password/reset`);
    assert.equal(res.status, 200);
    assert.equal(brokenRule(res.body.password, DEFAULT_PASSWORD_POLICY), undefined);
    const record = await assertPassword(user.id, res.body.password);
    assert.equal(record.password.temporary, true);
    assert.equal(record.session_version, 1);
    const [mail, ...more] = await deliveredTo(address);
    assert.equal(more.length, 0);
    assert.equal(mail!.subject, 'Setting a new password');
    assert.ok(mail!.body.text?.includes(`To set a new password, use ${res.body.password}\n`), mail!.body.text);

    await api.put('/notification-messages', { forgot_password: { subject: 'Reset at Acme', message: 'Use {####} to sign in.' } });
    const again = await api.post<{ password: string }>(`/users/${user.id}/password/reset`);
    const mails = await deliveredTo(address);
    assert.equal(mails.length, 2);
    assert.equal(mails[1]!.subject, 'Reset at Acme');
    assert.equal(mails[1]!.body.text, `Use ${again.body.password} to sign in.`);
    await assertPassword(user.id, again.body.password);
  });

  it('resets a sign-in-ID user without mail', async () => {
    const user = await createUser({ sign_in_id: 'jack', password: PASSWORD });
    const res = await api.post<{ password: string }>(`/users/${user.id}/password/reset`);
    assert.equal(res.status, 200);
    await assertPassword(user.id, res.body.password);
  });
});

describe('sign-in names', () => {
  it('changes the e-mail address, moving its uniqueness with it', async () => {
    const first = email('kate');
    const taken = email('taken');
    const user = await createUser({ email: first, password: PASSWORD });
    await createUser({ email: taken, password: PASSWORD });
    await expectError(api.patch(`/users/${user.id}/email`, { email: taken.toUpperCase() }), 400, 'email_already_exists', 'email');
    await expectError(api.patch(`/users/${user.id}/email`, { email: 'nope' }), 400, 'invalid_parameter', 'email');
    await expectError(api.patch(`/users/${user.id}/email`, {}), 400, 'invalid_parameter', 'email');
    const next = email('Kate-new');
    assert.equal((await api.patch(`/users/${user.id}/email`, { email: ` ${next} ` })).status, 200);
    assert.equal((await api.get<SaasUserBody>(`/users/${user.id}`)).body.email, next);
    const users = userService();
    assert.equal((await users.findByUsername(saasId, next))?.id, user.id);
    assert.equal(await users.findByUsername(saasId, first), undefined);
    // The old address is free again; the new one is not.
    await createUser({ email: first, password: PASSWORD });
    await expectError(api.post('/users', { email: next }), 400, 'email_already_exists');
    // A change of case only keeps the name.
    assert.equal((await api.patch(`/users/${user.id}/email`, { email: next.toUpperCase() })).status, 200);
    // Stored normalised: the local part as given, the domain in lower case.
    assert.equal(
      (await api.get<SaasUserBody>(`/users/${user.id}`)).body.email,
      next.toUpperCase().replace(/@.*$/, (domain) => domain.toLowerCase()),
    );
    assert.equal((await users.findByUsername(saasId, next))?.id, user.id);
    // The password verifier does not depend on the name.
    await assertPassword(user.id, PASSWORD);
  });

  it('changes the sign-in ID under the same rules, and refuses to mix the kinds', async () => {
    const user = await createUser({ sign_in_id: 'liam', password: PASSWORD });
    const mailUser = await createUser({ email: email('mia'), password: PASSWORD });
    await createUser({ sign_in_id: 'Noah' });
    await expectError(api.patch(`/users/${user.id}/sign-in-id`, { sign_in_id: 'noah' }), 400, 'sign_in_id_already_exists', 'sign_in_id');
    await expectError(api.patch(`/users/${user.id}/sign-in-id`, { sign_in_id: 'bad id' }), 400, 'invalid_parameter', 'sign_in_id');
    await expectError(api.patch(`/users/${user.id}/sign-in-id`, { sign_in_id: '' }), 400, 'invalid_parameter', 'sign_in_id');
    await expectError(api.patch(`/users/${user.id}/email`, { email: email() }), 400, 'not_an_email_user', 'email');
    await expectError(api.patch(`/users/${mailUser.id}/sign-in-id`, { sign_in_id: 'mia' }), 400, 'not_a_sign_in_id_user', 'sign_in_id');
    assert.equal((await api.patch(`/users/${user.id}/sign-in-id`, { sign_in_id: 'Liam-2' })).status, 200);
    assert.equal((await api.get<SaasUserBody>(`/users/${user.id}`)).body.sign_in_id, 'Liam-2');
    await createUser({ sign_in_id: 'liam' });
    await expectError(api.post('/users', { sign_in_id: 'LIAM-2' }), 400, 'sign_in_id_already_exists');
  });

  it('two parallel changes to one free name: exactly one wins', async () => {
    const a = await createUser({ sign_in_id: 'olivia-a' });
    const b = await createUser({ sign_in_id: 'olivia-b' });
    const answers = await Promise.all([
      api.patch(`/users/${a.id}/sign-in-id`, { sign_in_id: 'olivia' }),
      api.patch(`/users/${b.id}/sign-in-id`, { sign_in_id: 'OLIVIA' }),
    ]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400]);
    const holders = (await api.get<{ users: SaasUserBody[] }>('/users/search?sign_in_id=olivia')).body.users.map((u) => u.sign_in_id.toLowerCase());
    assert.equal(holders.filter((name) => name === 'olivia').length, 1);
  });
});

describe('attributes', () => {
  it('sets, keeps and removes SaaS user attribute values, checked against their definitions', async () => {
    const user = await createUser({ email: email('paul'), password: PASSWORD });
    const set = await api.patch(`/users/${user.id}/attributes`, {
      attributes: { nickname: 'Pauly', points: 12.5, vip: true, birthday: '2000-02-29' },
    });
    assert.equal(set.status, 200);
    assert.deepEqual((await api.get<SaasUserBody>(`/users/${user.id}`)).body.attributes, {
      nickname: 'Pauly',
      points: 12.5,
      vip: true,
      birthday: '2000-02-29',
    });
    assert.equal((await api.patch(`/users/${user.id}/attributes`, { attributes: { points: 13, birthday: null } })).status, 200);
    assert.deepEqual((await api.get<SaasUserBody>(`/users/${user.id}`)).body.attributes, { nickname: 'Pauly', points: 13, vip: true });

    const bad: [Record<string, unknown>, string, string][] = [
      [{ unknown: 'x' }, 'invalid_attribute', 'attributes.unknown'],
      [{ department: 'Sales' }, 'invalid_attribute', 'attributes.department'],
      [{ points: '13' }, 'invalid_attribute', 'attributes.points'],
      [{ vip: 'yes' }, 'invalid_attribute', 'attributes.vip'],
      [{ birthday: '2001-02-29' }, 'invalid_attribute', 'attributes.birthday'],
      [{ birthday: '2001/01/01' }, 'invalid_attribute', 'attributes.birthday'],
      [{ nickname: ['a'] }, 'invalid_parameter', 'attributes.nickname'],
    ];
    for (const [attributes, type, field] of bad) {
      await expectError(api.patch(`/users/${user.id}/attributes`, { attributes: { nickname: 'changed', ...attributes } }), 400, type, field);
    }
    await expectError(api.patch(`/users/${user.id}/attributes`, {}), 400, 'invalid_parameter', 'attributes');
    assert.deepEqual(
      (await api.get<SaasUserBody>(`/users/${user.id}`)).body.attributes,
      { nickname: 'Pauly', points: 13, vip: true },
      'a refused change changes nothing',
    );
  });
});

describe('MFA preference and linked providers', () => {
  it('enables MFA by e-mail, refuses softwareToken until an app is registered, and turns off', async () => {
    const user = await createUser({ email: email('quinn'), password: PASSWORD });
    const preference = () => api.get(`/users/${user.id}/mfa/preference`).then((r) => r.body);
    assert.deepEqual(await preference(), { enabled: false });
    await expectError(api.patch(`/users/${user.id}/mfa/preference`, { enabled: true }), 400, 'invalid_parameter', 'method');
    await expectError(api.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'sms' }), 400, 'invalid_parameter', 'method');
    await expectError(
      api.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'softwareToken' }),
      400,
      'software_token_not_registered',
      'method',
    );
    await expectError(api.patch(`/users/${user.id}/mfa/preference`, { method: 'email' }), 400, 'invalid_parameter', 'enabled');
    assert.deepEqual(await preference(), { enabled: false });

    assert.equal((await api.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    // E-mail codes stay outside the SDK model's method enum: mfa_method names them.
    assert.deepEqual(await preference(), { enabled: true, mfa_method: 'email' });
    // The MFA registration flow sets this flag; until then only e-mail codes can be chosen.
    await updateProfile(user.id, 'SET mfa.software_token_registered = :yes', { ':yes': true });
    assert.equal((await api.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'softwareToken' })).status, 200);
    assert.deepEqual(await preference(), { enabled: true, method: 'softwareToken', mfa_method: 'softwareToken' });
    assert.equal((await api.patch(`/users/${user.id}/mfa/preference`, { enabled: false, method: 'email' })).status, 200);
    assert.deepEqual(await preference(), { enabled: false });
    assert.equal((await stored(user.id)).mfa.software_token_registered, true, 'turning MFA off keeps the registered app');

    const signInUser = await createUser({ sign_in_id: 'quinn' });
    await expectError(api.patch(`/users/${signInUser.id}/mfa/preference`, { enabled: true, method: 'email' }), 400, 'invalid_parameter', 'method');
  });

  it('unlinks a linked provider; an unknown provider is 400, one not linked is 404', async () => {
    const user = await createUser({ email: email('rose'), password: PASSWORD });
    await expectError(api.delete(`/users/${user.id}/providers/Facebook`), 400, 'unknown_provider', 'provider_name');
    await expectError(api.delete(`/users/${user.id}/providers/Google`), 404, 'provider_not_linked');
    // The account-link flow records links like this.
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.userProfile(saasId, user.id),
        UpdateExpression: 'SET providers.Google = :link',
        ExpressionAttributeValues: { ':link': { subject: 'google-sub-1', linked_at: 1 } },
      }),
    );
    assert.deepEqual((await stored(user.id)).providers, { Google: { subject: 'google-sub-1', linked_at: 1 } });
    assert.equal((await api.delete(`/users/${user.id}/providers/google`)).status, 200);
    assert.deepEqual((await stored(user.id)).providers, {});
    await expectError(api.delete(`/users/${user.id}/providers/Google`), 404, 'provider_not_linked');
  });
});

describe('counts', () => {
  it('saves the SaaS user count and reads it back with its time', async () => {
    assert.deepEqual((await api.get('/users/count')).body, { count: 0, updated_at: 0 });
    await expectError(api.post('/users/count', { count: -1 }), 400, 'invalid_parameter', 'count');
    await expectError(api.post('/users/count', { count: 1.5 }), 400, 'invalid_parameter', 'count');
    await expectError(api.post('/users/count', {}), 400, 'invalid_parameter', 'count');
    setClockForTests(Date.UTC(2032, 0, 1));
    const saved = await api.post('/users/count', { count: 42 });
    assert.equal(saved.status, 200);
    assert.equal(saved.text, '');
    assert.deepEqual((await api.get('/users/count')).body, { count: 42, updated_at: Date.UTC(2032, 0, 1) / 1000 });
    assert.equal((await api.post('/users/count', { count: 0 })).status, 200);
    assert.equal((await api.get<{ count: number }>('/users/count')).body.count, 0);
  });
});

describe('delete', () => {
  it('removes the user, everything in their partition and what it names, and frees the name', async () => {
    const address = email('sam');
    const user = await createUser({ email: address, password: PASSWORD });
    await api.patch(`/users/${user.id}/attributes`, { attributes: { nickname: 'Sammy' } });
    // What the sign-in flow keeps with a user: an item in their partition, and one elsewhere that it names.
    const partition = keys.userProfile(saasId, user.id).pk;
    const elsewhere = { pk: `SAAS#${saasId}#REFRESH`, sk: `TOKEN#${randomUUID()}` };
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...elsewhere, entity: 'Test', v: 1 } }));
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: { pk: partition, sk: 'DEVICE#1', entity: 'Test', v: 1, mirror: elsewhere } }));

    const res = await api.delete(`/users/${user.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id: user.id, email: address, sign_in_id: '', user_attribute: { nickname: 'Sammy' }, tenants: [] });
    await expectError(api.get(`/users/${user.id}`), 404, 'user_not_found');
    await expectError(api.delete(`/users/${user.id}`), 404, 'user_not_found');
    assert.ok(!(await api.get<{ users: SaasUserBody[] }>('/users')).body.users.some((u) => u.id === user.id));
    assert.equal(await get({ pk: partition, sk: 'DEVICE#1' }), undefined);
    assert.equal(await get(elsewhere), undefined);
    assert.equal(await get(keys.userProfile(saasId, user.id)), undefined);
    assert.equal(await get(keys.loginOwner(saasId, { kind: 'email', value: address })), undefined);
    await createUser({ email: address, password: PASSWORD });
  });

  it('a delete cut short after hiding the user is finished by the next one, which frees the name', async () => {
    const address = email('cut');
    const user = await createUser({ email: address, password: PASSWORD });
    const tenant = await api.post<{ id: string }>('/tenants', { name: 'Cut', attributes: {}, back_office_staff_email: 'ops@cut.test' });
    assert.equal((await api.post(`/tenants/${tenant.body.id}/users`, { email: address, attributes: {} })).status, 201);
    // What the first step of Delete User leaves when the store goes away right after it.
    await updateProfile(user.id, 'SET deleting = :yes REMOVE gsi1pk, gsi1sk', { ':yes': true });
    await expectError(api.delete(`/users/${user.id}`), 404, 'user_not_found');
    assert.equal(await get(keys.userProfile(saasId, user.id)), undefined);
    assert.equal(await get(keys.loginOwner(saasId, { kind: 'email', value: address })), undefined);
    assert.equal(await get(keys.membership(saasId, tenant.body.id, user.id)), undefined);
    assert.equal(await get(keys.userMembership(saasId, user.id, tenant.body.id)), undefined);
    assert.equal((await api.post('/users', { email: address, password: PASSWORD })).status, 201);
  });
});

describe('isolation and permissions', () => {
  it("another SaaS's key sees none of these users and changes nothing", async () => {
    const user = await createUser({ email: email('tina'), password: PASSWORD });
    const other = (await h.newSaas()).client;
    assert.deepEqual((await other.get('/users')).body, { users: [] });
    assert.deepEqual((await other.get(`/users/search?id=${user.id}`)).body, { users: [] });
    await expectError(other.get(`/users/${user.id}`), 404, 'user_not_found');
    await expectError(other.patch(`/users/${user.id}/password`, { password: 'Other-pass-1' }), 404, 'user_not_found');
    await expectError(other.patch(`/users/${user.id}/email`, { email: email() }), 404, 'user_not_found');
    await expectError(other.delete(`/users/${user.id}`), 404, 'user_not_found');
    await assertPassword(user.id, PASSWORD);
    assert.equal((await api.get(`/users/${user.id}`)).status, 200);
  });

  it('a read-only key reads users but cannot change them', async () => {
    const reader = await h.newKey(saasId, ['user:read']);
    assert.equal((await reader.get('/users')).status, 200);
    assert.equal((await reader.post('/users', { email: email() })).status, 403);
    assert.equal((await reader.post('/users/count', { count: 1 })).status, 403);
  });
});
