/**
 * The flows a user proves with an access token, through the API: e-mail update (request, confirm),
 * authenticator-app registration (secret code, register) and external account links (request, confirm),
 * with the mails they send read back from the SES stand-in.
 */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { nowSeconds, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { totpSecretContext, type UserRecord } from '../../shared/domain/users/users.js';
import { MAX_CODE_ATTEMPTS } from '../../shared/domain/users/verification-codes.js';
import { keys } from '../../shared/store/keys.js';
import { DynamoUserRepository } from '../../shared/store/user-repository.js';
import { federationService, userFlowService, userService, dynamo, secretBox, tableName } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { accessTokenOf } from '../support/tokens.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

interface User {
  id: string;
  email: string;
  sign_in_id: string;
}

const PASSWORD = 'Correct-horse-9';
const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;
const stored = (userId: string) => new DynamoUserRepository(dynamo(), tableName()).get(saasId, userId) as Promise<UserRecord>;
/** A sealed TOTP secret of the user, opened as sign-in opens it. */
const openedSecret = (userId: string, sealed: string) => secretBox().open(sealed, totpSecretContext(saasId, userId));
const get = async (key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

async function createUser(body: Record<string, unknown>, client = api): Promise<User> {
  const res = await client.post<User>('/users', { password: PASSWORD, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** A real access token of the user, as a sign-in would hand out. */
const tokenOf = (user: User, saas = saasId) => accessTokenOf(saas, user);
const deliveredTo = (to: string) => deliveredMail(h.sesUrl, saasId, to);

/** The one code in the last mail to `to`. */
async function codeMailedTo(to: string): Promise<string> {
  const mails = await deliveredTo(to);
  const code = /\b(\d{6})\b/.exec(mails.at(-1)?.body.text ?? mails.at(-1)?.body.html ?? '')?.[1];
  assert.ok(code, `a code in ${JSON.stringify(mails.at(-1))}`);
  return code;
}

/** A new e-mail user who asked to move to a new address, and the code mailed there. */
async function emailUpdateRequested(name: string) {
  const user = await createUser({ email: address(name) });
  const token = await tokenOf(user);
  const next = address(`${name}-new`);
  assert.equal((await api.post(`/users/${user.id}/email/request`, { email: next, access_token: token })).status, 200);
  return { user, token, next, code: await codeMailedTo(next) };
}

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
});
afterAll(async () => {
  resetClockForTests();
  await h.close();
});
afterEach(() => resetClockForTests());

describe('e-mail update', () => {
  it('mails a code to the new address with update_user_attribute; the code moves the user there, once', async () => {
    const user = await createUser({ email: address('Ada') });
    const token = await tokenOf(user);
    const next = address('Ada-New');
    const requested = await api.post(`/users/${user.id}/email/request`, { email: ` ${next} `, access_token: token });
    assert.equal(requested.status, 200, JSON.stringify(requested.body));
    assert.equal(requested.text, '');
    assert.equal((await stored(user.id)).email, user.email, 'nothing moves before the code is confirmed');

    const [mail, ...more] = await deliveredTo(next);
    assert.equal(more.length, 0);
    assert.deepEqual(await deliveredTo(user.email), [], 'the old address gets nothing');
    assert.equal(mail!.subject, 'Confirm your new e-mail address');
    const code = /code is (\d{6})\n\nIt is valid for 24 hours\.$/.exec(mail!.body.text ?? '')?.[1];
    assert.ok(code, mail!.body.text);
    const item = await get(keys.verificationCode(saasId, user.id, 'EMAIL_UPDATE'));
    assert.ok(item && !JSON.stringify(item).includes(code), 'the code is kept only as a hash');
    assert.equal(item.expiresAt, item.expires_at, 'the item carries the TTL attribute');

    const confirmed = await api.post(`/users/${user.id}/email/confirm`, { code, access_token: token });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal((await api.get<User>(`/users/${user.id}`)).body.email, next);
    assert.equal((await userService().findByUsername(saasId, next.toUpperCase()))?.id, user.id);
    assert.equal(await userService().findByUsername(saasId, user.email), undefined, 'the old address is free again');
    await createUser({ email: user.email });
    await expectError(api.post(`/users/${user.id}/email/confirm`, { code, access_token: token }), 400, 'invalid_code', 'code');
    assert.equal(await get(keys.verificationCode(saasId, user.id, 'EMAIL_UPDATE')), undefined);
  });

  it("the SaaS's own update_user_attribute template is applied, the code in place of {####}", async () => {
    await api.put('/notification-messages', { update_user_attribute: { subject: 'Acme: new address', message: '<p>Code: <b>{####}</b></p>' } });
    const user = await createUser({ email: address('Bea') });
    const next = address('bea-new');
    assert.equal((await api.post(`/users/${user.id}/email/request`, { email: next, access_token: await tokenOf(user) })).status, 200);
    const [mail] = await deliveredTo(next);
    assert.equal(mail!.subject, 'Acme: new address');
    assert.match(mail!.body.html ?? '', /^<p>Code: <b>\d{6}<\/b><\/p>$/);
    await api.put('/notification-messages', {
      update_user_attribute: { subject: 'Confirm your new e-mail address', message: 'Your verification code is {####}\n\nIt is valid for 24 hours.' },
    });
  });

  it('needs the access token of that very user: anything else is 401 with the sign-in page', async () => {
    const user = await createUser({ email: address('cy') });
    const other = await createUser({ email: address('dee') });
    const otherSaas = await h.newSaas();
    const body = (access_token: string) => ({ email: address('cy-new'), access_token });
    for (const token of [await tokenOf(other), 'not-a-jwt', '', await tokenOf(user, otherSaas.saasId)]) {
      const res = await api.post<{ data: { sign_in_page_url: string } }>(`/users/${user.id}/email/request`, body(token));
      await expectError(Promise.resolve(res), 401, 'invalid_token', 'access_token');
      assert.match(res.body.data.sign_in_page_url, /^https?:\/\/.+\/login\/[^/]+\/sign-in$/);
    }
    await expectError(api.post(`/users/${user.id}/email/confirm`, { code: '123456', access_token: await tokenOf(other) }), 401, 'invalid_token');
    await expectError(api.post(`/users/${user.id}/email/request`, { email: address('x') }), 400, 'invalid_parameter', 'access_token');
    assert.equal(await get(keys.verificationCode(saasId, user.id, 'EMAIL_UPDATE')), undefined, 'nothing was stored');
  });

  it('refuses a bad or taken address, and a sign-in-ID user, mailing nothing', async () => {
    const user = await createUser({ email: address('eve') });
    const token = await tokenOf(user);
    const taken = await createUser({ email: address('taken') });
    await expectError(api.post(`/users/${user.id}/email/request`, { email: 'nope', access_token: token }), 400, 'invalid_parameter', 'email');
    await expectError(
      api.post(`/users/${user.id}/email/request`, { email: taken.email.toUpperCase(), access_token: token }),
      400,
      'email_already_exists',
      'email',
    );
    const idUser = await createUser({ sign_in_id: `fay-${randomUUID().slice(0, 6)}` });
    const wanted = address('fay');
    await expectError(
      api.post(`/users/${idUser.id}/email/request`, { email: wanted, access_token: await tokenOf(idUser) }),
      400,
      'not_an_email_user',
      'email',
    );
    assert.equal(await get(keys.verificationCode(saasId, user.id, 'EMAIL_UPDATE')), undefined);
    assert.deepEqual(await deliveredTo(wanted), []);
    assert.deepEqual(await deliveredTo(taken.email), []);
    // Asking for one's own address again (another spelling) is no conflict.
    assert.equal((await api.post(`/users/${user.id}/email/request`, { email: user.email.toUpperCase(), access_token: token })).status, 200);
  });

  it('a wrong code changes nothing; a code is used up by wrong answers and dead after 24 hours', async () => {
    const { user, token, next, code } = await emailUpdateRequested('gus');
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) {
      await expectError(api.post(`/users/${user.id}/email/confirm`, { code: wrong, access_token: token }), 400, 'invalid_code', 'code');
    }
    assert.equal((await stored(user.id)).email, user.email);
    // The wrong answers used the code up: now even the right one is refused, until a new request.
    await expectError(api.post(`/users/${user.id}/email/confirm`, { code, access_token: token }), 400, 'invalid_code', 'code');
    assert.equal((await stored(user.id)).email, user.email);

    // Held from the request, so "just inside" is measured from it, not from a real clock a busy machine runs on.
    const requested = Date.now();
    setClockForTests(requested);
    await api.post(`/users/${user.id}/email/request`, { email: next, access_token: token });
    const fresh = await codeMailedTo(next);
    setClockForTests(requested + 24 * 3600 * 1000);
    const later = await tokenOf(user);
    await expectError(api.post(`/users/${user.id}/email/confirm`, { code: fresh, access_token: later }), 400, 'code_expired', 'code');
    setClockForTests(requested + 24 * 3600 * 1000 - 5000);
    assert.equal(
      (await api.post(`/users/${user.id}/email/confirm`, { code: fresh, access_token: await tokenOf(user) })).status,
      200,
      'just inside the 24 hours',
    );
    assert.equal((await stored(user.id)).email, next);
  });

  it('a newer request replaces the earlier code', async () => {
    const user = await createUser({ email: address('hal') });
    const token = await tokenOf(user);
    const first = address('hal-1');
    const second = address('hal-2');
    await api.post(`/users/${user.id}/email/request`, { email: first, access_token: token });
    const firstCode = await codeMailedTo(first);
    await api.post(`/users/${user.id}/email/request`, { email: second, access_token: token });
    const secondCode = await codeMailedTo(second);
    if (firstCode !== secondCode) {
      await expectError(api.post(`/users/${user.id}/email/confirm`, { code: firstCode, access_token: token }), 400, 'invalid_code');
    }
    assert.equal((await api.post(`/users/${user.id}/email/confirm`, { code: secondCode, access_token: token })).status, 200);
    assert.equal((await stored(user.id)).email, second);
  });

  it('checks again on confirm that the address is still free', async () => {
    const { user, token, next, code } = await emailUpdateRequested('ivy');
    await createUser({ email: next });
    await expectError(api.post(`/users/${user.id}/email/confirm`, { code, access_token: token }), 400, 'email_already_exists', 'email');
    assert.equal((await stored(user.id)).email, user.email);
  });

  it('two parallel confirms of one code: one change, one refusal', async () => {
    const { user, token, next, code } = await emailUpdateRequested('jo');
    const answers = await Promise.all([1, 2].map(() => api.post(`/users/${user.id}/email/confirm`, { code, access_token: token })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400]);
    assert.equal((await stored(user.id)).email, next);
  });

  it('refuses the token of a user that does not exist (or no longer does), and deleting a user takes the code', async () => {
    const ghost = { id: randomUUID(), email: address('ghost'), sign_in_id: '' };
    await expectError(
      api.post(`/users/${ghost.id}/email/request`, { email: address('g'), access_token: await tokenOf(ghost) }),
      401,
      'invalid_token',
    );
    await expectError(api.post(`/users/${ghost.id}/email/confirm`, { code: '123456', access_token: await tokenOf(ghost) }), 401, 'invalid_token');
    const user = await createUser({ email: address('kim') });
    await api.post(`/users/${user.id}/email/request`, { email: address('kim-new'), access_token: await tokenOf(user) });
    assert.ok(await get(keys.verificationCode(saasId, user.id, 'EMAIL_UPDATE')));
    assert.equal((await api.delete(`/users/${user.id}`)).status, 200);
    assert.equal(await get(keys.verificationCode(saasId, user.id, 'EMAIL_UPDATE')), undefined);
  });
});

describe('authenticator app', () => {
  const codeOf = (secret: string, offsetSteps = 0) => totpCodeAt(base32Decode(secret)!, totpStep(nowSeconds()) + offsetSteps);

  it('hands out a secret, kept sealed and pending until a code of the app registers it', async () => {
    const user = await createUser({ email: address('lee') });
    const token = await tokenOf(user);
    const res = await api.post<{ secret_code: string }>(`/users/${user.id}/mfa/software-token/secret-code`, { access_token: token });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const secret = res.body.secret_code;
    assert.match(secret, /^[A-Z2-7]{32}$/, '160 bits, base32');
    const pending = await stored(user.id);
    assert.equal(pending.mfa.software_token_registered, false);
    assert.equal(pending.mfa.sealed_totp_secret, undefined);
    assert.ok(!JSON.stringify(pending).includes(secret), 'the secret is stored sealed only');
    assert.equal(await openedSecret(user.id, pending.mfa.pending_sealed_totp_secret!), secret);
    await expectError(
      api.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'softwareToken' }),
      400,
      'software_token_not_registered',
    );

    const wrong = codeOf(secret, 5);
    for (const verification_code of [wrong, '12345', 'abcdef']) {
      await expectError(
        api.put(`/users/${user.id}/mfa/software-token`, { access_token: token, verification_code }),
        400,
        'invalid_verification_code',
        'verification_code',
      );
    }
    assert.equal((await stored(user.id)).mfa.software_token_registered, false);
    // The phone's clock may be a step behind.
    const registered = await api.put(`/users/${user.id}/mfa/software-token`, { access_token: token, verification_code: codeOf(secret, -1) });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    assert.equal(registered.text, '');
    const after = await stored(user.id);
    assert.equal(after.mfa.software_token_registered, true);
    assert.equal(after.mfa.pending_sealed_totp_secret, undefined);
    assert.equal(await openedSecret(user.id, after.mfa.sealed_totp_secret!), secret);
    assert.equal((await api.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'softwareToken' })).status, 200);
    await expectError(
      api.put(`/users/${user.id}/mfa/software-token`, { access_token: token, verification_code: codeOf(secret) }),
      400,
      'secret_code_not_created',
      'verification_code',
    );
  });

  it('a registered app keeps working until a new one is registered in its place', async () => {
    const user = await createUser({ sign_in_id: `mo-${randomUUID().slice(0, 6)}` });
    const token = await tokenOf(user);
    const first = (await api.post<{ secret_code: string }>(`/users/${user.id}/mfa/software-token/secret-code`, { access_token: token })).body
      .secret_code;
    assert.equal((await api.put(`/users/${user.id}/mfa/software-token`, { access_token: token, verification_code: codeOf(first) })).status, 200);
    const second = (await api.post<{ secret_code: string }>(`/users/${user.id}/mfa/software-token/secret-code`, { access_token: token })).body
      .secret_code;
    assert.notEqual(second, first);
    const between = await stored(user.id);
    assert.equal(between.mfa.software_token_registered, true);
    assert.equal(await openedSecret(user.id, between.mfa.sealed_totp_secret!), first);
    assert.equal((await api.put(`/users/${user.id}/mfa/software-token`, { access_token: token, verification_code: codeOf(second, 1) })).status, 200);
    assert.equal(await openedSecret(user.id, (await stored(user.id)).mfa.sealed_totp_secret!), second);
  });

  it("needs that user's access token, and refuses the token of an unknown user", async () => {
    const user = await createUser({ email: address('ned') });
    const other = await createUser({ email: address('oz') });
    await expectError(
      api.post(`/users/${user.id}/mfa/software-token/secret-code`, { access_token: await tokenOf(other) }),
      401,
      'invalid_token',
      'access_token',
    );
    await expectError(
      api.put(`/users/${user.id}/mfa/software-token`, { access_token: await tokenOf(other), verification_code: '123456' }),
      401,
      'invalid_token',
      'access_token',
    );
    await expectError(
      api.put(`/users/${user.id}/mfa/software-token`, { access_token: await tokenOf(user) }),
      400,
      'invalid_parameter',
      'verification_code',
    );
    assert.equal((await stored(user.id)).mfa.pending_sealed_totp_secret, undefined);
    const ghost = { id: randomUUID(), email: address('ghost'), sign_in_id: '' };
    await expectError(api.post(`/users/${ghost.id}/mfa/software-token/secret-code`, { access_token: await tokenOf(ghost) }), 401, 'invalid_token');
  });
});

describe('external account link', () => {
  /** What the login screen does when a Google account with the user's verified address signs in unlinked. */
  const googleSignsIn = (user: User, subject: string) =>
    federationService().signIn(saasId, { provider: 'Google', subject, email: user.email, emailVerified: true });

  it('a Google account meeting the address waits for the code mailed with verify_external_user; the code links its subject, once', async () => {
    await api.put('/notification-messages', { verify_external_user: { subject: 'Link at Acme', message: 'Link code: {####}.' } });
    const user = await createUser({ email: address('Pam') });
    await expectError(api.post('/external-users/request', { access_token: await tokenOf(user) }), 400, 'no_external_account', 'access_token');
    assert.deepEqual(await googleSignsIn(user, 'google-pam'), { kind: 'link_offered', userId: user.id, email: user.email });
    assert.equal((await deliveredTo(user.email)).length, 1);
    // Request mails a new code for the account that waits.
    const requested = await api.post('/external-users/request', { access_token: await tokenOf(user) });
    assert.equal(requested.status, 200, JSON.stringify(requested.body));
    assert.equal(requested.text, '');
    const mails = await deliveredTo(user.email);
    assert.deepEqual(
      mails.map((m) => m.subject),
      ['Link at Acme', 'Link at Acme'],
    );
    const code = /^Link code: (\d{6})\.$/.exec(mails[1]!.body.text ?? '')?.[1];
    assert.ok(code, mails[1]!.body.text);
    assert.deepEqual((await stored(user.id)).providers, {}, 'nothing is linked before the code is confirmed');

    const at = Math.floor(Date.now() / 1000) + 60;
    setClockForTests(at * 1000);
    const confirmed = await api.post('/external-users/confirm', { access_token: await tokenOf(user), code });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.deepEqual((await stored(user.id)).providers, { Google: { subject: 'google-pam', linked_at: at } });
    resetClockForTests();
    assert.equal((await googleSignsIn(user, 'google-pam')).kind, 'signed_in');
    await expectError(api.post('/external-users/confirm', { access_token: await tokenOf(user), code }), 400, 'invalid_code', 'code');
    await expectError(api.post('/external-users/request', { access_token: await tokenOf(user) }), 400, 'provider_already_linked', 'access_token');

    // The same Google account cannot be linked to a second user, even with a code offered for it.
    const other = await createUser({ email: address('pam-2') });
    await userFlowService().offerLink(saasId, await stored(other.id), 'Google', 'google-pam');
    const otherCode = await codeMailedTo(other.email);
    await expectError(api.post('/external-users/confirm', { access_token: await tokenOf(other), code: otherCode }), 400, 'external_account_taken');
    assert.deepEqual((await stored(other.id)).providers, {});

    // Unlinking frees the Google account and makes room for a new link.
    assert.equal((await api.delete(`/users/${user.id}/providers/Google`)).status, 200);
    await expectError(api.delete(`/users/${user.id}/providers/Google`), 404, 'provider_not_linked');
    assert.equal(await get(keys.externalIdentity(saasId, 'Google', 'google-pam')), undefined);
    assert.equal((await googleSignsIn(user, 'google-pam')).kind, 'link_offered');
    assert.equal((await api.post('/external-users/request', { access_token: await tokenOf(user) })).status, 200);
    await api.put('/notification-messages', {
      verify_external_user: { subject: 'Link your account', message: 'Your code to link your account is {####}\n\nIt is valid for 24 hours.' },
    });
  });

  it('Delete User frees the Google account for another user', async () => {
    const user = await createUser({ email: address('ray') });
    await googleSignsIn(user, 'google-ray');
    await api.post('/external-users/confirm', { access_token: await tokenOf(user), code: await codeMailedTo(user.email) });
    assert.equal((await get(keys.externalIdentity(saasId, 'Google', 'google-ray')))?.user_id, user.id);
    assert.equal((await api.delete(`/users/${user.id}`)).status, 200);
    assert.equal(await get(keys.externalIdentity(saasId, 'Google', 'google-ray')), undefined);
  });

  it('a wrong or expired code links nothing', async () => {
    const user = await createUser({ email: address('quin') });
    await googleSignsIn(user, 'google-quin');
    const code = await codeMailedTo(user.email);
    await expectError(
      api.post('/external-users/confirm', { access_token: await tokenOf(user), code: code === '999999' ? '999998' : '999999' }),
      400,
      'invalid_code',
      'code',
    );
    setClockForTests(Date.now() + 24 * 3600 * 1000 + 1000);
    await expectError(api.post('/external-users/confirm', { access_token: await tokenOf(user), code }), 400, 'code_expired', 'code');
    await expectError(api.post('/external-users/confirm', { access_token: await tokenOf(user), code: '123456' }), 400, 'code_expired', 'code');
    // After 24 hours nothing waits any more.
    await expectError(api.post('/external-users/request', { access_token: await tokenOf(user) }), 400, 'no_external_account', 'access_token');
    assert.deepEqual((await stored(user.id)).providers, {});
    resetClockForTests();
    await expectError(api.post('/external-users/confirm', { access_token: await tokenOf(user) }), 400, 'invalid_parameter', 'code');
  });

  it('refuses a token without an e-mail address, a bad token, and a user who is gone', async () => {
    const idUser = await createUser({ sign_in_id: `rex-${randomUUID().slice(0, 6)}` });
    await expectError(api.post('/external-users/request', { access_token: await tokenOf(idUser) }), 400, 'not_an_email_user', 'access_token');
    await expectError(api.post('/external-users/request', { access_token: 'garbage' }), 401, 'invalid_token', 'access_token');
    await expectError(api.post('/external-users/confirm', { access_token: 'garbage', code: '123456' }), 401, 'invalid_token', 'access_token');
    const user = await createUser({ email: address('sue') });
    const token = await tokenOf(user);
    await api.delete(`/users/${user.id}`);
    await expectError(api.post('/external-users/request', { access_token: token }), 401, 'invalid_token');
    await expectError(api.post('/external-users/confirm', { access_token: token, code: '123456' }), 401, 'invalid_token');
  });
});

describe('isolation', () => {
  it("another SaaS's key reaches none of these users, even with a user's token", async () => {
    const user = await createUser({ email: address('tia') });
    const token = await tokenOf(user);
    const other = await h.newSaas();
    await expectError(other.client.post(`/users/${user.id}/email/request`, { email: address('tia-2'), access_token: token }), 401, 'invalid_token');
    await expectError(other.client.post(`/users/${user.id}/mfa/software-token/secret-code`, { access_token: token }), 401, 'invalid_token');
    await expectError(other.client.post('/external-users/request', { access_token: token }), 401, 'invalid_token');
    // A token the other SaaS minted for this user id names nobody there.
    const foreign = await tokenOf(user, other.saasId);
    await expectError(other.client.post(`/users/${user.id}/mfa/software-token/secret-code`, { access_token: foreign }), 401, 'invalid_token');
    await expectError(other.client.post('/external-users/request', { access_token: foreign }), 401, 'invalid_token');
    const untouched = await stored(user.id);
    assert.equal(untouched.mfa.pending_sealed_totp_secret, undefined);
    assert.equal(await get(keys.verificationCode(saasId, user.id, 'EMAIL_UPDATE')), undefined);
    assert.equal(await get(keys.verificationCode(saasId, user.id, 'EXTERNAL_LINK', 'Google')), undefined);
  });

  it('a read-only key cannot start these flows', async () => {
    const user = await createUser({ email: address('uma') });
    const reader = await h.newKey(saasId, ['user:read']);
    assert.equal((await reader.post(`/users/${user.id}/mfa/software-token/secret-code`, { access_token: await tokenOf(user) })).status, 403);
    assert.equal((await reader.post('/external-users/request', { access_token: await tokenOf(user) })).status, 403);
  });
});
