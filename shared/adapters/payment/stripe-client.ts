/**
 * Stripe's API for PaymentProviderService (shared/domain/configuration/payment-provider.ts): form-encoded requests with the
 * SaaS's secret key as the bearer token. The base URL is configuration (STRIPE_API_BASE_URL), so tests and
 * `npm start` can point it at a local stand-in.
 */
import { paymentProviderRefused, type NewCustomer, type PaymentProviderPort } from '../../domain/configuration/payment-provider.js';

export class StripeClient implements PaymentProviderPort {
  constructor(private readonly baseUrl: string) {}

  async createCustomer(secretKey: string, customer: NewCustomer): Promise<{ id: string }> {
    const form = new URLSearchParams({ name: customer.name, email: customer.email });
    for (const [name, value] of Object.entries(customer.metadata)) form.set(`metadata[${name}]`, value);
    const res = await fetch(`${this.baseUrl}/v1/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      signal: AbortSignal.timeout(8000),
    });
    const body = (await res.json().catch(() => ({}))) as { id?: string; error?: { message?: string } };
    if (!res.ok || typeof body.id !== 'string') throw paymentProviderRefused(body.error?.message ?? `HTTP ${res.status}`);
    return { id: body.id };
  }
}
