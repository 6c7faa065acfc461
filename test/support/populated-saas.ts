/**
 * A SaaS with a little of everything (definitions, tenants, users, memberships with roles, a pending plan
 * reservation, a marketplace link), made through the API, with names unique to it: the ground the request
 * fuzz and the isolation sweep stand on.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { onApi } from './other-api.js';
import type { Harness } from '../../dev-support/harness.js';
import { mintAccessToken } from './tokens.js';

export interface PopulatedSaas {
  saasId: string;
  /** The random part of every name of this SaaS. */
  tag: string;
  client: SignedClient;
  credentials: SignedClient['credentials'];
  tenantIds: [string, string];
  /** users[0]: e-mail user in both tenants; users[1]: sign-in-ID user in tenants[1]; users[2]: in no tenant. */
  users: { id: string; email: string; sign_in_id: string }[];
  envIds: [number, number];
  roleNames: [string, string];
  /** A user attribute, a SaaS-user attribute and a tenant attribute. */
  attributeNames: { user: string; saasUser: string; tenant: string };
  /** Cursors of real second pages: SaaS users, tenant users. */
  cursors: string[];
  /** users[0]'s access token. */
  accessToken: string;
  /** A pricing catalogue (a plan of one menu of a fixed and a usage unit, a tax rate) and a metering count of tenants[0]. */
  pricing: { planId: string; menuId: string; unitIds: string[]; taxRateId: string; meterId: string; meterName: string };
  /** Every id and name of this SaaS that no other SaaS should ever see. */
  secrets: string[];
}

async function created<T>(promise: Promise<{ status: number; body: T; text: string }>): Promise<T> {
  const res = await promise;
  assert.ok(res.status === 200 || res.status === 201, `${res.status} ${res.text}`);
  return res.body;
}

/** `envIds`: env ids are numbers each SaaS picks; two SaaS may use the same ones or not. */
export async function populatedSaas(h: Harness, envIds: [number, number] = [1, 2]): Promise<PopulatedSaas> {
  const { saasId, client } = await h.newSaas();
  const tag = randomUUID().slice(0, 8);
  const attributeNames = { user: `dept_${tag}`, saasUser: `nick_${tag}`, tenant: `tier_${tag}` };
  const roleNames: [string, string] = [`admin_${tag}`, `viewer_${tag}`];
  const definition = (name: string) => ({ attribute_name: name, display_name: name, attribute_type: 'string' });
  await created(client.post('/user-attributes', definition(attributeNames.user)));
  await created(client.post('/saas-user-attributes', definition(attributeNames.saasUser)));
  await created(client.post('/tenant-attributes', definition(attributeNames.tenant)));
  for (const role_name of roleNames) await created(client.post('/roles', { role_name, display_name: role_name }));
  for (const id of envIds) await created(client.post('/envs', { id, name: `env${id}_${tag}`, display_name: `Env ${id}` }));

  const tenant = (n: number) =>
    created(
      client.post<{ id: string }>('/tenants', {
        name: `tenant${n}_${tag}`,
        attributes: { [attributeNames.tenant]: `gold_${tag}` },
        back_office_staff_email: `staff${n}_${tag}@example.test`,
      }),
    );
  const tenantIds: [string, string] = [(await tenant(1)).id, (await tenant(2)).id];
  await created(
    client.put(`/tenants/${tenantIds[0]}/plans`, { next_plan_id: randomUUID(), using_next_plan_from: Math.floor(Date.now() / 1000) + 86_400 }),
  );
  await created(client.put(`/tenants/${tenantIds[1]}/stripe-customer`, { customer_id: `cus_${tag}`, subscription_schedule_id: `sub_${tag}` }));

  const users = [
    await created(
      client.post<{ id: string; email: string; sign_in_id: string }>('/users', { email: `alice_${tag}@example.test`, password: 'Correct-horse-9' }),
    ),
    await created(
      client.post<{ id: string; email: string; sign_in_id: string }>('/users', { sign_in_id: `bob_${tag}`, password: 'Correct-horse-9' }),
    ),
    await created(
      client.post<{ id: string; email: string; sign_in_id: string }>('/users', { email: `carol_${tag}@example.test`, password: 'Correct-horse-9' }),
    ),
  ];
  await created(client.patch(`/users/${users[0]!.id}/attributes`, { attributes: { [attributeNames.saasUser]: `ally_${tag}` } }));
  const join = (tenantId: string, user: { email: string; sign_in_id: string }) =>
    created(
      client.post(`/tenants/${tenantId}/users`, {
        ...(user.email ? { email: user.email } : { sign_in_id: user.sign_in_id }),
        attributes: { [attributeNames.user]: `sales_${tag}` },
      }),
    );
  await join(tenantIds[0], users[0]!);
  await join(tenantIds[1], users[0]!);
  await join(tenantIds[1], users[1]!);
  await created(client.post(`/tenants/${tenantIds[0]}/users/${users[0]!.id}/envs/${envIds[0]}/roles`, { role_names: roleNames }));
  await created(client.post(`/tenants/${tenantIds[1]}/users/${users[1]!.id}/envs/${envIds[1]}/roles`, { role_names: [roleNames[1]] }));

  const cursors = [
    (await created(client.get<{ cursor: string }>('/users/search?limit=1'))).cursor,
    (await created(client.get<{ cursor: string }>('/tenants/all/users/search?limit=1'))).cursor,
  ];
  assert.ok(cursors.every(Boolean), 'the fixtures make second pages');
  const accessToken = await mintAccessToken({ saasId, userId: users[0]!.id, email: users[0]!.email });

  // The Pricing API's catalogue, after the tenants' plans (made while the SaaS had no catalogue yet).
  const prices = onApi(client, 'pricing');
  const meterName = `calls_${tag}`;
  const meter = await created(prices.post<{ id: string }>('/metering/units', { unit_name: meterName, display_name: meterName, description: '' }));
  const unitBase = { display_name: `unit_${tag}`, description: '', currency: 'JPY' };
  const units = [
    await created(
      prices.post<{ id: string }>('/units', { ...unitBase, name: `base_${tag}`, type: 'fixed', unit_amount: 500, recurring_interval: 'month' }),
    ),
    await created(
      prices.post<{ id: string }>('/units', {
        ...unitBase,
        name: `usage_${tag}`,
        type: 'usage',
        unit_amount: 5,
        upper_count: 0,
        metering_unit_name: meterName,
      }),
    ),
  ];
  const menu = await created(
    prices.post<{ id: string }>('/menus', { name: `menu_${tag}`, display_name: '', description: '', unit_ids: units.map((u) => u.id) }),
  );
  const plan = await created(prices.post<{ id: string }>('/plans', { name: `plan_${tag}`, display_name: '', description: '', menu_ids: [menu.id] }));
  const taxRate = await created(
    prices.post<{ id: string }>('/tax-rates', {
      name: `vat_${tag}`,
      display_name: '',
      percentage: 10,
      inclusive: false,
      country: 'JP',
      description: '',
    }),
  );
  await created(prices.put(`/metering/tenants/${tenantIds[0]}/units/${meterName}/timestamp/1767225600`, { method: 'add', count: 7 }));

  return {
    saasId,
    tag,
    client,
    credentials: client.credentials,
    tenantIds,
    users,
    envIds,
    roleNames,
    attributeNames,
    cursors: cursors as string[],
    accessToken,
    pricing: { planId: plan.id, menuId: menu.id, unitIds: units.map((u) => u.id), taxRateId: taxRate.id, meterId: meter.id, meterName },
    secrets: [
      plan.id,
      menu.id,
      ...units.map((u) => u.id),
      taxRate.id,
      meter.id,
      meterName,
      `plan_${tag}`,
      `vat_${tag}`,
      ...tenantIds,
      ...users.map((u) => u.id),
      ...users.map((u) => u.email || u.sign_in_id),
      ...roleNames,
      ...Object.values(attributeNames),
      `env${envIds[0]}_${tag}`,
      `gold_${tag}`,
      `sales_${tag}`,
      `ally_${tag}`,
      `cus_${tag}`,
      `tenant1_${tag}`,
    ],
  };
}
