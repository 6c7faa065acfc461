/**
 * Attack replay: addresses that render as another address or hide one (NUL, ESC, bidi overrides, zero-width
 * characters, display-name forms, markup, non-ASCII look-alikes) were accepted for users, invitations and
 * the sender address. Every entry point now answers 400 naming the field and stores nothing; an accepted
 * address is stored with its domain in lower case.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { mintAccessToken } from '../support/tokens.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

const HOSTILE = [
  'nul\u0000@example.com',
  'esc\u001b[31m@example.com',
  'evil\u202emoc.elpmaxe@example.com',
  'zero\u200bwidth@example.com',
  '"Support" <support@example.com>',
  '<b>bold</b>@example.com',
  'аdmin@example.com',
  'admin@exаmple.com',
];

beforeAll(async () => {
  h = await startHarness();
  ({ client: api, saasId } = await h.newSaas());
});
afterAll(() => h.close());

async function refused(call: Promise<{ status: number; body: unknown }>, field: string, label: string) {
  const res = await call;
  assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
  const body = res.body as { type: string; message: string };
  assert.equal(body.type, 'invalid_parameter', label);
  assert.match(body.message, new RegExp(`^(body\\.)?${field}:`), label);
}

describe('hostile e-mail addresses', () => {
  it('are refused by every operation that takes one, and nothing is stored', async () => {
    const user = await api.post<{ id: string }>('/users', { email: `owner-${randomUUID().slice(0, 6)}@example.com`, password: 'Correct-horse-9' });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    const token = await mintAccessToken({ saasId, userId: user.body.id, email: 'owner@example.com' });
    const tenant = await api.post<{ id: string }>('/tenants', { name: 'acme', attributes: {}, back_office_staff_email: 'staff@example.com' });
    assert.equal(tenant.status, 201, JSON.stringify(tenant.body));
    assert.equal((await api.put('/sign-in-settings', { self_regist: { enable: true } })).status, 200);

    for (const address of HOSTILE) {
      const label = JSON.stringify(address);
      await refused(api.post('/users', { email: address, password: 'Correct-horse-9' }), 'email', `create ${label}`);
      await refused(api.patch(`/users/${user.body.id}/email`, { email: address }), 'email', `change ${label}`);
      await refused(api.post(`/users/${user.body.id}/email/request`, { email: address, access_token: token }), 'email', `request ${label}`);
      await refused(
        api.post(`/tenants/${tenant.body.id}/invitations`, { email: address, access_token: token, envs: [] }),
        'email',
        `invite ${label}`,
      );
      await refused(api.post('/sign-up', { email: address }), 'email', `sign up ${label}`);
      await refused(
        api.put('/basic-info', { domain_name: 'login.example.com', from_email_address: address }),
        'from_email_address',
        `sender ${label}`,
      );
      await refused(
        api.post('/tenants', { name: 'x', attributes: {}, back_office_staff_email: address }),
        'back_office_staff_email',
        `staff ${label}`,
      );
    }
    const users = await api.get<{ users: { email: string }[] }>('/users');
    assert.deepEqual(
      users.body.users.map((u) => u.email).filter((e) => e !== '' && !e.startsWith('owner-')),
      [],
      'no user was made with a hostile address',
    );
  });

  it('an accepted address is stored with its domain in lower case', async () => {
    const res = await api.post<{ email: string }>('/users', {
      email: ` Mixed.Case-${randomUUID().slice(0, 6)}@Example.COM `,
      password: 'Correct-horse-9',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.email, /^Mixed\.Case-[0-9a-f]{6}@example\.com$/);
  });
});
