/**
 * Stripe's API for PaymentProviderService (shared/domain/configuration/payment-provider.ts): form-encoded requests with the
 * SaaS's secret key as the bearer token. The base URL is configuration (STRIPE_API_BASE_URL), so tests and
 * `npm start` can point it at a local stand-in.
 */
import { createHash } from 'node:crypto';
import {
  paymentProviderRefused,
  paymentProviderUnavailable,
  type NewCustomer,
  type PaymentProviderPort,
} from '../../domain/configuration/payment-provider.js';

export class StripeClient implements PaymentProviderPort {
  constructor(
    private readonly baseUrl: string,
    /** For the whole call, answer included (STRIPE_TIMEOUT_MS). */
    private readonly timeoutMs: number,
  ) {}

  async createCustomer(secretKey: string, customer: NewCustomer): Promise<{ id: string }> {
    const form = new URLSearchParams({ name: customer.name, email: customer.email });
    for (const [name, value] of Object.entries(customer.metadata)) form.set(`metadata[${name}]`, value);
    const body = form.toString();
    let status: number;
    let text: string;
    try {
      const res = await fetch(`${this.baseUrl}/v1/customers`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secretKey}`,
          'content-type': 'application/x-www-form-urlencoded',
          // The same customer asked for again (a Connect retried after a timeout) gets Stripe's first answer back
          // for 24 hours, not a second customer.
          'idempotency-key': `customer-${createHash('sha256').update(body).digest('hex').slice(0, 48)}`,
        },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.status;
      text = await res.text();
    } catch (error) {
      // fetch rejects only when no whole answer came: the connection failed, or the time ran out.
      const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
      throw paymentProviderUnavailable(timedOut ? `no answer within ${this.timeoutMs} ms` : 'the connection failed');
    }
    const answer = (() => {
      try {
        return JSON.parse(text) as { id?: unknown; error?: { message?: string } };
      } catch {
        return {};
      }
    })();
    if (status < 200 || status >= 300 || typeof answer.id !== 'string') throw paymentProviderRefused(answer.error?.message ?? `HTTP ${status}`);
    return { id: answer.id };
  }
}
