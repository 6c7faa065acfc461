/** Tenants, plans, billing, payment linkage and tenant identity providers through the API. */
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { runScheduledWork as scheduledWork } from '../../functions/scheduled/handler.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { keys } from '../../shared/store/keys.js';
import { DynamoTenantRepository } from '../../shared/store/tenant-repository.js';
import { setHostsForTests } from '../../shared/http/public-fetch.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

interface TenantBody {
  id: string;
  name: string;
  attributes: Record<string, unknown>;
  plan_id?: string;
  next_plan_id?: string;
  using_next_plan_from?: number;
  delete_usage?: boolean;
  plan_histories: { plan_id: string; plan_applied_at: number; tax_rate_id?: string; proration_behavior?: string; delete_usage?: boolean }[];
  current_plan_period_start?: number;
  current_plan_period_end?: number;
  billing_info?: unknown;
}

const PLAN_A = '11111111-1111-4111-8111-111111111111';
const PLAN_B = '22222222-2222-4222-8222-222222222222';
const TAX = '33333333-3333-4333-8333-333333333333';

/** The domain clock, moved by tests; the signature check keeps real time. */
let clockOffset = 0;
const now = () => Math.floor((Date.now() + clockOffset) / 1000);
const advance = (seconds: number) => {
  clockOffset += seconds * 1000;
};

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
  setClockForTests(() => Date.now() + clockOffset);
  for (const [attribute_name, attribute_type] of [
    ['login_domain', 'string'],
    ['seats', 'number'],
    ['vip', 'bool'],
    ['since', 'date'],
  ]) {
    assert.equal((await api.post('/tenant-attributes', { attribute_name, display_name: attribute_name, attribute_type })).status, 201);
  }
});
afterAll(async () => {
  resetClockForTests();
  await h.close();
});

const props = (over: Record<string, unknown> = {}) => ({
  name: 'Acme',
  attributes: { login_domain: '@acme.test', seats: 5, vip: false, since: '2024-02-29' },
  back_office_staff_email: 'ops@acme.test',
  ...over,
});

async function createTenant(client = api, over: Record<string, unknown> = {}): Promise<TenantBody> {
  const res = await client.post<TenantBody>('/tenants', props(over));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const details = async (id: string) => {
  const res = await api.get<TenantBody>(`/tenants/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

describe('tenants', () => {
  it('creates, lists, reads, updates and deletes', async () => {
    const created = await createTenant();
    assert.match(created.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(created.attributes, props().attributes);
    assert.deepEqual(created.plan_histories, []);
    const listed = await api.get<{ tenants: TenantBody[] }>('/tenants');
    assert.ok(listed.body.tenants.some((t) => t.id === created.id));
    assert.equal((await details(created.id)).name, 'Acme');

    const updated = await api.patch(`/tenants/${created.id}`, props({ name: 'Acme Corp', attributes: { seats: 9 } }));
    assert.equal(updated.status, 200);
    assert.equal(updated.text, '');
    const after = await details(created.id);
    assert.equal(after.name, 'Acme Corp');
    assert.deepEqual(after.attributes, { seats: 9 });

    assert.equal((await api.delete(`/tenants/${created.id}`)).status, 200);
    await expectError(api.get(`/tenants/${created.id}`), 404, 'tenant_not_found');
    await expectError(api.delete(`/tenants/${created.id}`), 404, 'tenant_not_found');
  });

  it('answers 404 for an unknown tenant on every tenant route', async () => {
    const id = randomUUID();
    await expectError(api.get(`/tenants/${id}`), 404, 'tenant_not_found');
    await expectError(api.patch(`/tenants/${id}`, props()), 404, 'tenant_not_found');
    await expectError(api.delete(`/tenants/${id}`), 404, 'tenant_not_found');
    await expectError(api.put(`/tenants/${id}/plans`, { next_plan_id: PLAN_A }), 404, 'tenant_not_found');
    await expectError(
      api.put(`/tenants/${id}/billing-info`, {
        name: 'n',
        address: { street: 's', city: 'c', state: 's', country: 'JP', postal_code: '1' },
        invoice_language: 'ja-JP',
      }),
      404,
      'tenant_not_found',
    );
    await expectError(api.get(`/tenants/${id}/identity-providers`), 404, 'tenant_not_found');
    await expectError(
      api.put(`/tenants/${id}/identity-providers`, { provider_type: 'SAML', identity_provider_props: null }),
      404,
      'tenant_not_found',
    );
    await expectError(api.get(`/tenants/${id}/stripe-customer`), 404, 'tenant_not_found');
    await expectError(api.put(`/tenants/${id}/stripe-customer`, { customer_id: 'cus_1', subscription_schedule_id: '' }), 404, 'tenant_not_found');
  });

  it('refuses bad tenant input and stores nothing', async () => {
    const before = (await api.get<{ tenants: unknown[] }>('/tenants')).body.tenants.length;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: undefined }, 'invalid_parameter', 'name'],
      [{ name: '   ' }, 'invalid_parameter', 'name'],
      [{ attributes: undefined }, 'invalid_parameter', 'attributes'],
      [{ back_office_staff_email: undefined }, 'invalid_parameter', 'back_office_staff_email'],
      [{ back_office_staff_email: 'not-an-email' }, 'invalid_parameter', 'back_office_staff_email'],
      [{ attributes: { unknown: 'x' } }, 'invalid_attribute', 'attributes.unknown'],
      [{ attributes: { seats: 'five' } }, 'invalid_attribute', 'attributes.seats'],
      [{ attributes: { vip: 'yes' } }, 'invalid_attribute', 'attributes.vip'],
      [{ attributes: { login_domain: 42 } }, 'invalid_attribute', 'attributes.login_domain'],
      [{ attributes: { since: '2025-02-29' } }, 'invalid_attribute', 'attributes.since'],
      [{ attributes: { since: '2025/01/01' } }, 'invalid_attribute', 'attributes.since'],
      [{ attributes: { since: null } }, 'invalid_parameter', 'attributes.since'],
    ];
    for (const [over, type, field] of cases) {
      const body = props(over);
      for (const [k, v] of Object.entries(over)) if (v === undefined) delete (body as Record<string, unknown>)[k];
      await expectError(api.post('/tenants', body), 400, type, field);
    }
    assert.equal((await api.get<{ tenants: unknown[] }>('/tenants')).body.tenants.length, before);

    const tenant = await createTenant();
    await expectError(api.patch(`/tenants/${tenant.id}`, { name: 'x', attributes: {} }), 400, 'invalid_parameter', 'back_office_staff_email');
    await expectError(api.patch(`/tenants/${tenant.id}`, props({ attributes: { seats: true } })), 400, 'invalid_attribute', 'attributes.seats');
    assert.deepEqual((await details(tenant.id)).attributes, props().attributes);
  });

  it('deletes what the tenant holds, with the mirrors its items name, and keeps everything else', async () => {
    const tenant = await createTenant();
    const db = dynamo();
    const contents = keys.tenantContents(saasId, tenant.id).pk;
    const userView = { pk: `SAAS#${saasId}#USER#u1`, sk: `TENANT#${tenant.id}` };
    const otherUserItem = { pk: `SAAS#${saasId}#USER#u1`, sk: 'PROFILE' };
    await db.send(new PutCommand({ TableName: tableName(), Item: { pk: contents, sk: 'MEMBER#u1', entity: 'Membership', v: 1, mirror: userView } }));
    await db.send(new PutCommand({ TableName: tableName(), Item: { pk: contents, sk: 'ROLE#u1#1#admin', entity: 'RoleAssignment', v: 1 } }));
    await db.send(new PutCommand({ TableName: tableName(), Item: { ...userView, entity: 'UserMembership', v: 1 } }));
    await db.send(new PutCommand({ TableName: tableName(), Item: { ...otherUserItem, entity: 'User', v: 1 } }));

    assert.equal((await api.delete(`/tenants/${tenant.id}`)).status, 200);
    const get = async (key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: tableName(), Key: key }))).Item;
    assert.equal(await get({ pk: contents, sk: 'MEMBER#u1' }), undefined);
    assert.equal(await get({ pk: contents, sk: 'ROLE#u1#1#admin' }), undefined);
    assert.equal(await get(userView), undefined);
    assert.ok(await get(otherUserItem), 'the user stays');
  });
});

describe('plans', () => {
  afterEach(() => {
    clockOffset = 0;
  });

  it('applies a plan now, with a history entry and the current period', async () => {
    const tenant = await createTenant();
    assert.equal((await api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, next_plan_tax_rate_id: TAX })).status, 200);
    const t = await details(tenant.id);
    assert.equal(t.plan_id, PLAN_A);
    assert.equal(t.plan_histories.length, 1);
    assert.equal(t.plan_histories[0]!.plan_id, PLAN_A);
    assert.equal(t.plan_histories[0]!.tax_rate_id, TAX);
    assert.ok(Math.abs(t.plan_histories[0]!.plan_applied_at - now()) <= 2);
    assert.equal(t.current_plan_period_start, t.plan_histories[0]!.plan_applied_at);
    assert.ok(t.current_plan_period_end! - t.current_plan_period_start! >= 28 * 86400);
    assert.equal(t.next_plan_id, undefined);
    advance(40 * 86400);
    const later = await details(tenant.id);
    assert.ok(later.current_plan_period_start! > t.current_plan_period_start!, 'the period moved on');
    assert.ok(later.current_plan_period_start! <= now() && now() < later.current_plan_period_end!);
  });

  it('reserves a plan at least five minutes ahead and applies it once it is due, on read', async () => {
    const tenant = await createTenant();
    await expectError(
      api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_B, using_next_plan_from: now() + 299 }),
      400,
      'invalid_parameter',
      'using_next_plan_from',
    );
    // A few seconds of margin: the server reads the clock a moment after the test does.
    const from = now() + 305;
    assert.equal((await api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_B, using_next_plan_from: from })).status, 200);
    const pending = await details(tenant.id);
    assert.equal(pending.next_plan_id, PLAN_B);
    assert.equal(pending.using_next_plan_from, from);
    assert.equal(pending.plan_id, undefined);

    advance(306);
    const applied = await details(tenant.id);
    assert.equal(applied.plan_id, PLAN_B);
    assert.equal(applied.next_plan_id, undefined);
    assert.deepEqual(applied.plan_histories, [{ plan_id: PLAN_B, plan_applied_at: from }]);
    assert.equal((await details(tenant.id)).plan_histories.length, 1, 'a second read applies nothing');
  });

  it('cancels a reservation by a request without next_plan_id, unless it deletes usage', async () => {
    const tenant = await createTenant();
    await api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, using_next_plan_from: now() + 600 });
    assert.equal((await api.put(`/tenants/${tenant.id}/plans`, {})).status, 200);
    assert.equal((await details(tenant.id)).next_plan_id, undefined);
    // Empty strings and zeros mean "not given".
    assert.equal((await api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: '', using_next_plan_from: 0 })).status, 200);

    await expectError(
      api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, using_next_plan_from: now() + 600, delete_usage: true }),
      400,
      'payment_provider_not_linked',
      'delete_usage',
    );
    await expectError(
      api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, proration_behavior: 'none' }),
      400,
      'payment_provider_not_linked',
      'proration_behavior',
    );
    // An SDK user, who has no call for it, is told which route links the customer.
    const refusal = await api.put<{ message: string }>(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, proration_behavior: 'none' });
    assert.match(refusal.body.message, /PUT \/tenants\/\{tenant_id\}\/stripe-customer/);
    assert.equal((await api.put(`/tenants/${tenant.id}/stripe-customer`, { customer_id: 'cus_1', subscription_schedule_id: 'sub_1' })).status, 200);
    const from = now() + 600;
    assert.equal(
      (
        await api.put(`/tenants/${tenant.id}/plans`, {
          next_plan_id: PLAN_A,
          using_next_plan_from: from,
          delete_usage: true,
          proration_behavior: 'always_invoice',
        })
      ).status,
      200,
    );
    await expectError(api.put(`/tenants/${tenant.id}/plans`, {}), 400, 'reservation_not_cancelable');
    await expectError(api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_B }), 400, 'reservation_not_cancelable');
    const still = await details(tenant.id);
    assert.equal(still.next_plan_id, PLAN_A);
    assert.equal(still.delete_usage, true);
    assert.equal(still.plan_id, undefined);
    advance(601);
    const applied = await details(tenant.id);
    assert.deepEqual(applied.plan_histories, [{ plan_id: PLAN_A, plan_applied_at: from, proration_behavior: 'always_invoice', delete_usage: true }]);
  });

  it('refuses malformed plan requests', async () => {
    const tenant = await createTenant();
    await expectError(api.put(`/tenants/${tenant.id}/plans`, { using_next_plan_from: now() + 900 }), 400, 'invalid_parameter', 'next_plan_id');
    await expectError(api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: 'plan-1' }), 400, 'invalid_parameter', 'next_plan_id');
    await expectError(
      api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, next_plan_tax_rate_id: 'x' }),
      400,
      'invalid_parameter',
      'next_plan_tax_rate_id',
    );
    await expectError(
      api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, using_next_plan_from: 'soon' }),
      400,
      'invalid_parameter',
      'using_next_plan_from',
    );
    await expectError(
      api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, proration_behavior: 'sometimes' }),
      400,
      'invalid_parameter',
      'proration_behavior',
    );
    const t = await details(tenant.id);
    assert.equal(t.plan_id, undefined);
    assert.deepEqual(t.plan_histories, []);
  });

  it('the scheduled worker applies due reservations without any read', async () => {
    const tenant = await createTenant();
    const from = now() + 305;
    assert.equal((await api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_A, using_next_plan_from: from })).status, 200);
    const repo = new DynamoTenantRepository(dynamo(), tableName());
    assert.equal((await scheduledWork()).reservationsApplied, 0, 'not due yet');
    advance(305);
    assert.ok((await scheduledWork()).reservationsApplied >= 1);
    const stored = await repo.get(saasId, tenant.id);
    assert.equal(stored?.plan_id, PLAN_A);
    assert.equal(stored?.reservation, undefined);
    assert.deepEqual(stored?.plan_histories, [{ plan_id: PLAN_A, plan_applied_at: from }]);
  });

  it('applies a reservation once when the worker and reads race', async () => {
    for (let round = 0; round < 5; round++) {
      const tenant = await createTenant();
      const reserved = await api.put(`/tenants/${tenant.id}/plans`, { next_plan_id: PLAN_B, using_next_plan_from: now() + 305 });
      assert.equal(reserved.status, 200);
      advance(306);
      const results = await Promise.all([
        scheduledWork(),
        api.get(`/tenants/${tenant.id}`),
        api.get('/tenants'),
        scheduledWork(),
        api.get(`/tenants/${tenant.id}`),
      ]);
      for (const r of results) if ('status' in r) assert.equal(r.status, 200);
      const t = await details(tenant.id);
      assert.equal(t.plan_id, PLAN_B);
      assert.equal(t.plan_histories.length, 1, `round ${round}: ${JSON.stringify(t.plan_histories)}`);
    }
  });
});

describe('billing, payment linkage and identity providers', () => {
  const billing = {
    name: 'Acme KK',
    address: { street: '1-2-3 Chiyoda', city: 'Chiyoda-ku', state: 'Tokyo', country: 'JP', postal_code: '100-0001' },
    invoice_language: 'ja-JP',
  };

  it('stores billing information and refuses bad addresses', async () => {
    const tenant = await createTenant();
    assert.equal((await api.put(`/tenants/${tenant.id}/billing-info`, billing)).status, 200);
    assert.deepEqual((await details(tenant.id)).billing_info, billing);
    const withInfo = { ...billing, address: { ...billing.address, additional_address_info: 'Bldg 4' } };
    assert.equal((await api.put(`/tenants/${tenant.id}/billing-info`, withInfo)).status, 200);

    const bad: [unknown, string][] = [
      [{ ...billing, address: { ...billing.address, country: 'XX' } }, 'address.country'],
      [{ ...billing, address: { ...billing.address, country: 'jp' } }, 'address.country'],
      [{ ...billing, address: { ...billing.address, country: 'JPN' } }, 'address.country'],
      [{ ...billing, address: { ...billing.address, street: undefined } }, 'address.street'],
      [{ ...billing, address: { ...billing.address, postal_code: ' ' } }, 'address.postal_code'],
      [{ ...billing, invoice_language: 'fr-FR' }, 'invoice_language'],
      [{ ...billing, name: undefined }, 'name'],
      [{ name: 'x', invoice_language: 'en-US' }, 'address'],
    ];
    for (const [body, field] of bad) {
      await expectError(api.put(`/tenants/${tenant.id}/billing-info`, JSON.parse(JSON.stringify(body))), 400, 'invalid_parameter', field);
    }
    assert.deepEqual((await details(tenant.id)).billing_info, withInfo);
  });

  it('links a payment-provider customer', async () => {
    const tenant = await createTenant();
    await expectError(api.get(`/tenants/${tenant.id}/stripe-customer`), 404, 'payment_customer_not_found');
    await expectError(
      api.put(`/tenants/${tenant.id}/stripe-customer`, { customer_id: '', subscription_schedule_id: '' }),
      400,
      'invalid_parameter',
      'customer_id',
    );
    assert.equal(
      (await api.put(`/tenants/${tenant.id}/stripe-customer`, { customer_id: 'cus_9', subscription_schedule_id: 'sub_sched_9' })).status,
      200,
    );
    assert.deepEqual((await api.get(`/tenants/${tenant.id}/stripe-customer`)).body, {
      customer_id: 'cus_9',
      subscription_schedule_id: 'sub_sched_9',
    });
  });

  it('turns SAML on and off', async () => {
    const tenant = await createTenant();
    assert.deepEqual((await api.get(`/tenants/${tenant.id}/identity-providers`)).body, {});
    const saml = {
      email_attribute: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
      metadata_url: 'https://idp.example.com/metadata.xml',
    };
    // The metadata host must resolve to a public address (said here: no test depends on external DNS).
    setHostsForTests({ 'idp.example.com': '93.184.215.14' });
    assert.equal((await api.put(`/tenants/${tenant.id}/identity-providers`, { provider_type: 'SAML', identity_provider_props: saml })).status, 200);
    const on = (await api.get<{ saml: { sign_in_url: string } }>(`/tenants/${tenant.id}/identity-providers`)).body;
    // Where the tenant's users start: the SaaS's login screen, which sends them to the tenant's identity provider.
    assert.equal(on.saml.sign_in_url, `${h.api.baseUrl}/login/${saasId}/saml?tenant_id=${tenant.id}`);
    assert.deepEqual({ ...on.saml, sign_in_url: undefined }, { ...saml, sign_in_url: undefined });

    await expectError(
      api.put(`/tenants/${tenant.id}/identity-providers`, { provider_type: 'OIDC', identity_provider_props: saml }),
      400,
      'invalid_parameter',
      'provider_type',
    );
    await expectError(
      api.put(`/tenants/${tenant.id}/identity-providers`, {
        provider_type: 'SAML',
        identity_provider_props: { ...saml, metadata_url: 'http://idp.example.com/m' },
      }),
      400,
      'invalid_parameter',
      'identity_provider_props',
    );
    assert.equal((await api.put(`/tenants/${tenant.id}/identity-providers`, { provider_type: 'SAML', identity_provider_props: null })).status, 200);
    assert.deepEqual((await api.get(`/tenants/${tenant.id}/identity-providers`)).body, {});
  });
});

describe('plan reset', () => {
  it('clears plans, reservations, histories and linkage of every tenant, page after page, and runs again safely', async () => {
    const reset = (await h.newSaas()).client;
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push((await createTenant(reset, { name: `T${i}`, attributes: {} })).id);
    for (const id of ids.slice(0, 60)) await reset.put(`/tenants/${id}/plans`, { next_plan_id: PLAN_A });
    for (const id of ids.slice(100)) await reset.put(`/tenants/${id}/plans`, { next_plan_id: PLAN_B, using_next_plan_from: now() + 900 });
    await reset.put(`/tenants/${ids[119]}/stripe-customer`, { customer_id: 'cus_x', subscription_schedule_id: '' });

    assert.equal((await reset.put('/plans/reset')).status, 200);
    assert.equal((await reset.put('/plans/reset')).status, 200);
    const tenants = (await reset.get<{ tenants: TenantBody[] }>('/tenants')).body.tenants;
    assert.equal(tenants.length, 120);
    for (const t of tenants) {
      assert.equal(t.plan_id, undefined);
      assert.equal(t.next_plan_id, undefined);
      assert.deepEqual(t.plan_histories, []);
      assert.ok(t.name.startsWith('T'), 'the tenant itself stays');
    }
    await expectError(reset.get(`/tenants/${ids[119]}/stripe-customer`), 404, 'payment_customer_not_found');
    // Reservations are gone from the worker's index too.
    advance(1000);
    assert.equal((await scheduledWork()).reservationsApplied, 0);
    clockOffset = 0;
  });
});

describe('isolation', () => {
  it('a key of SaaS B sees and touches none of SaaS A tenants', async () => {
    const a = await createTenant();
    const b = (await h.newSaas()).client;
    assert.deepEqual((await b.get('/tenants')).body, { tenants: [] });
    await expectError(b.get(`/tenants/${a.id}`), 404, 'tenant_not_found');
    await expectError(b.patch(`/tenants/${a.id}`, props({ attributes: {} })), 404, 'tenant_not_found');
    await expectError(b.put(`/tenants/${a.id}/plans`, { next_plan_id: PLAN_A }), 404, 'tenant_not_found');
    await expectError(b.delete(`/tenants/${a.id}`), 404, 'tenant_not_found');
    assert.equal((await b.put('/plans/reset')).status, 200);
    // B's tenant attribute definitions are its own: A's names are unknown there.
    await expectError(b.post('/tenants', props()), 400, 'invalid_attribute');
    const still = await details(a.id);
    assert.equal(still.name, 'Acme');
    const readOnly = await h.newKey(saasId, ['tenant:read']);
    assert.equal((await readOnly.get(`/tenants/${a.id}`)).status, 200);
    assert.equal((await readOnly.delete(`/tenants/${a.id}`)).status, 403);
  });
});
