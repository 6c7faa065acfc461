/**
 * The payment provider, against a local Stripe stand-in: the key is sealed and answered masked; Connect
 * (PATCH /stripe/init) gives each unlinked tenant a Stripe customer and links it, once; a key Stripe refuses
 * links nothing; Disconnect (DELETE /stripe) ends every link. Without a key both say what to set.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { keys } from '../../shared/store/keys.js';
import { expectError } from '../support/expect.js';
import { newTenant, STAND_IN_KEY, startHarnessWithStripe, stripeCustomerOf, type StripeStandIn } from '../support/stripe-stand-in.js';

let world: Awaited<ReturnType<typeof startHarnessWithStripe>>;
let api: SignedClient;
let saasId: string;
let stripe: StripeStandIn;

beforeAll(async () => {
  world = await startHarnessWithStripe();
  ({ api, saasId, stripe } = world);
});
afterAll(() => world.close());

const tenant = (name: string) => newTenant(api, name);
const customerOf = (tenantId: string) => stripeCustomerOf(api, tenantId);

describe('the payment provider', () => {
  it('without a key, Connect and Disconnect say what to set, and nothing reaches Stripe', async () => {
    for (const call of [api.patch('/stripe/init'), api.delete('/stripe')]) {
      const res = await call;
      assert.equal(res.status, 400);
      assert.equal((res.body as { type: string }).type, 'payment_provider_not_configured');
      assert.match((res.body as { message: string }).message, /PUT \/payment-provider/);
    }
    assert.deepEqual(await api.get('/payment-provider').then((r) => r.body), { provider: '', secret_key: '' });
    assert.equal(stripe.requests.length, 0);
  });

  it('keeps the key sealed and answers it masked; refuses what is not a Stripe key', async () => {
    await expectError(
      api.put('/payment-provider', { provider: 'stripe', secret_key: 'pk_test_public123456' }),
      400,
      'invalid_parameter',
      'secret_key',
    );
    assert.equal((await api.put('/payment-provider', { provider: 'stripe', secret_key: STAND_IN_KEY })).status, 200);
    assert.deepEqual((await api.get('/payment-provider')).body, { provider: 'stripe', secret_key: `********${STAND_IN_KEY.slice(-4)}` });
    const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.setting(saasId, 'payment-provider') }));
    assert.ok(!JSON.stringify(stored.Item).includes(STAND_IN_KEY), 'the key is stored sealed');
  });

  it('Connect gives each unlinked tenant a customer once; a linked tenant keeps its own; plan changes with proration then work', async () => {
    const acme = await tenant('Acme');
    const linked = await tenant('Linked');
    assert.equal((await api.put(`/tenants/${linked}/stripe-customer`, { customer_id: 'cus_own', subscription_schedule_id: 'sub_own' })).status, 200);
    const before = stripe.requests.length;
    assert.equal((await api.patch('/stripe/init')).status, 200);
    const made = stripe.requests.slice(before);
    assert.equal(made.length, 1);
    assert.equal(made[0]!.authorization, `Bearer ${STAND_IN_KEY}`);
    assert.deepEqual(made[0]!.form, { name: 'Acme', email: 'acme@example.test', 'metadata[saas_id]': saasId, 'metadata[tenant_id]': acme });
    assert.match((await customerOf(acme)).body.customer_id, /^cus_standin\d+$/);
    assert.equal((await customerOf(linked)).body.customer_id, 'cus_own');
    assert.equal((await api.patch('/stripe/init')).status, 200);
    assert.equal(stripe.requests.length, before + 1, 'a second Connect makes no customer');
    assert.equal(
      (await api.put(`/tenants/${acme}/plans`, { next_plan_id: 'a1b2c3d4-0000-4000-8000-000000000001', proration_behavior: 'none' })).status,
      200,
    );
  });

  it('a key Stripe refuses links nothing; Disconnect ends every link', async () => {
    const orphan = await tenant('Orphan');
    assert.equal((await api.put('/payment-provider', { provider: 'stripe', secret_key: 'sk_test_revoked0000000000' })).status, 200);
    await expectError(api.patch('/stripe/init'), 400, 'payment_provider_refused');
    await expectError(customerOf(orphan), 404, 'payment_customer_not_found');

    assert.equal((await api.delete('/stripe')).status, 200);
    const tenants = (await api.get<{ tenants: { id: string }[] }>('/tenants')).body.tenants;
    for (const { id } of tenants) await expectError(customerOf(id), 404, 'payment_customer_not_found');
    assert.equal((await api.put('/payment-provider', { provider: 'stripe', secret_key: '' })).status, 200);
    await expectError(api.patch('/stripe/init'), 400, 'payment_provider_not_configured');
  });
});
