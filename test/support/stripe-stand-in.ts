/**
 * A local stand-in for the part of Stripe's API the service calls (POST /v1/customers), on 127.0.0.1: it
 * checks the bearer key, answers as Stripe does (a `cus_` id, or `{error: {message}}` with 401), replays the
 * answer to a request whose `Idempotency-Key` it saw before (as Stripe does for 24 hours), and keeps every
 * request for the test to look at. `holding` makes it keep its answers until `release()`, as a provider slower
 * than the service's timeout would. Point the service at it with STRIPE_API_BASE_URL before the harness
 * starts.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

export const STAND_IN_KEY = 'sk_test_standin0123456789';

export interface StripeRequest {
  method: string;
  path: string;
  authorization: string;
  idempotencyKey: string;
  form: Record<string, string>;
}

export async function startStripeStandIn() {
  const requests: StripeRequest[] = [];
  let next = 1;
  const replays = new Map<string, object>();
  const held: (() => void)[] = [];
  const control = { holding: false };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const idempotencyKey = String(req.headers['idempotency-key'] ?? '');
      const request = { method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization ?? '', idempotencyKey, form };
      requests.push(request);
      const answer = (status: number, body: object) => {
        const send = () => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (control.holding) held.push(send);
        else send();
      };
      if (request.authorization !== `Bearer ${STAND_IN_KEY}`)
        return answer(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      if (request.method !== 'POST' || request.path !== '/v1/customers') return answer(404, { error: { message: 'Unrecognized request URL' } });
      const customer = replays.get(idempotencyKey) ?? { id: `cus_standin${next++}`, object: 'customer', name: form.name, email: form.email };
      if (idempotencyKey) replays.set(idempotencyKey, customer);
      return answer(200, customer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    control,
    /** The customers made (a replayed answer makes none). */
    customersMade: () => next - 1,
    /** Sends every answer held so far (to a client that may have stopped waiting). */
    release: () => held.splice(0).forEach((send) => send()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type StripeStandIn = Awaited<ReturnType<typeof startStripeStandIn>>;

/** A test file's harness whose service calls a Stripe stand-in of its own, and a SaaS with a full key. */
export async function startHarnessWithStripe(): Promise<{
  h: Harness;
  stripe: StripeStandIn;
  api: SignedClient;
  saasId: string;
  close(): Promise<void>;
}> {
  const stripe = await startStripeStandIn();
  process.env.STRIPE_API_BASE_URL = stripe.url;
  const h = await startHarness();
  const { client: api, saasId } = await h.newSaas();
  return {
    h,
    stripe,
    api,
    saasId,
    async close() {
      await h.close();
      await stripe.close();
    },
  };
}

/** A new tenant of the SaaS, its back-office address made from its name. */
export async function newTenant(api: SignedClient, name: string): Promise<string> {
  const res = await api.post<{ id: string }>('/tenants', { name, attributes: {}, back_office_staff_email: `${name.toLowerCase()}@example.test` });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

/** The tenant's link to a payment customer (404 payment_customer_not_found when none). */
export const stripeCustomerOf = (api: SignedClient, tenantId: string) => api.get<{ customer_id: string }>(`/tenants/${tenantId}/stripe-customer`);
