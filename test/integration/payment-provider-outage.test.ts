/**
 * The payment provider unreachable or slower than the service's timeout (STRIPE_TIMEOUT_MS, held small here):
 * Connect (PATCH /stripe/init, PATCH /v1/pricing/stripe/init) answers 503 payment_provider_unavailable in the
 * error shape, never a 500, and leaves no tenant half-linked; a retry links each tenant to the one customer made
 * (the Idempotency-Key), and what does not call the provider (Disconnect, a linked plan change) still works.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { expectError } from '../support/expect.js';
import { onApi } from '../support/other-api.js';
import { newTenant, STAND_IN_KEY, startHarnessWithStripe, stripeCustomerOf, type StripeStandIn } from '../support/stripe-stand-in.js';

let world: Awaited<ReturnType<typeof startHarnessWithStripe>>;
let api: SignedClient;
let pricing: SignedClient;
let stripe: StripeStandIn;

beforeAll(async () => {
  // The harness reads the configuration when it starts: a timeout of one second, not Stripe's eight.
  process.env.STRIPE_TIMEOUT_MS = '1000';
  world = await startHarnessWithStripe();
  ({ api, stripe } = world);
  pricing = onApi(api, 'pricing');
  assert.equal((await api.put('/payment-provider', { provider: 'stripe', secret_key: STAND_IN_KEY })).status, 200);
});
afterAll(() => world.close());

const tenant = (name: string) => newTenant(api, name);
const customerOf = (tenantId: string) => stripeCustomerOf(api, tenantId);
const unavailable = async (call: Promise<{ status: number; body: unknown; text: string }>) => {
  await expectError(call, 503, 'payment_provider_unavailable');
};

describe('the payment provider out of reach', () => {
  let acme: string;

  it('slower than the timeout: 503 with nothing linked; a retry links the one customer the slow call made', async () => {
    acme = await tenant('Acme');
    stripe.control.holding = true;
    await unavailable(pricing.patch('/stripe/init'));
    await expectError(customerOf(acme), 404, 'payment_customer_not_found');
    stripe.control.holding = false;
    stripe.release(); // the provider made the customer after the service stopped waiting
    assert.equal(stripe.customersMade(), 1);
    assert.equal((await api.patch('/stripe/init')).status, 200);
    assert.equal((await customerOf(acme)).body.customer_id, 'cus_standin1');
    assert.equal(stripe.customersMade(), 1, 'the retry made no second customer');
  });

  it('stopped: 503 on both routes, nothing linked; Disconnect, links and plan changes need no provider', async () => {
    const late = await tenant('Late');
    await stripe.close();
    await unavailable(api.patch('/stripe/init'));
    await unavailable(pricing.patch('/stripe/init'));
    await expectError(customerOf(late), 404, 'payment_customer_not_found');
    assert.equal(
      (await api.put(`/tenants/${acme}/plans`, { next_plan_id: 'a1b2c3d4-0000-4000-8000-000000000001', proration_behavior: 'none' })).status,
      200,
    );
    assert.equal((await api.put(`/tenants/${late}/stripe-customer`, { customer_id: 'cus_own', subscription_schedule_id: '' })).status, 200);
    assert.equal((await pricing.delete('/stripe')).status, 200);
    await expectError(customerOf(acme), 404, 'payment_customer_not_found');
  });
});
