/**
 * A SaaS's payment provider (Stripe): its secret key, kept sealed and answered masked, and the two operations
 * the SDKs call. Connect (PATCH /stripe/init) gives every tenant that has no payment customer yet a new
 * customer of the provider and links it (the link proration and usage deletion on plan changes need);
 * Disconnect (DELETE /stripe) ends every tenant's link, leaving the provider's customers and their invoices
 * where they are. This service keeps no pricing plans, so Connect creates no products or prices.
 *
 * The key is set with this service's extension route PUT /payment-provider (SaaSus sets it in its console).
 */
import { invalid, unavailable } from '../../errors.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { PaymentCustomer } from '../../schemas/tenants.js';
import { maskSecret } from './configuration.js';
import type { SettingsRepository } from './settings.js';

export interface NewCustomer {
  name: string;
  email: string;
  metadata: Record<string, string>;
}

/**
 * The provider's API, as far as Connect needs it. Refusals are `payment_provider_refused` errors; no answer in
 * time (unreachable, slow) is `payment_provider_unavailable`. A call retried with the same customer makes no
 * second one, so a call that timed out after the provider acted is finished by the next Connect.
 */
export interface PaymentProviderPort {
  createCustomer(secretKey: string, customer: NewCustomer): Promise<{ id: string }>;
}

export interface PaymentProviderSettings {
  provider: 'stripe' | '';
  /** Masked: ******** and the last four characters; '' when none is set. */
  secret_key: string;
}

/**
 * The tenants Connect and Disconnect link to customers, as far as they need them. The tenant repository fills it;
 * declared here, not borrowed from tenants/, because configuration/ ranks below tenants/ (docs/architecture.md, Layers).
 */
export interface PaymentLinkRepository {
  list(saasId: string): Promise<{ id: string; name: string; back_office_staff_email: string; payment_customer?: PaymentCustomer }[]>;
  patch(saasId: string, tenantId: string, patch: { payment_customer: PaymentCustomer | null }): Promise<boolean>;
}

/** `{}` once the key was removed. */
type StoredProvider = { provider: 'stripe'; sealed_key: string; key_hint: string } | Record<string, never>;

const DOCUMENT = 'payment-provider';
/** Stripe's secret and restricted keys. */
const STRIPE_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,247}$/;
const sealingContext = (saasId: string) => ({ saasId, purpose: 'payment-provider' });

export const paymentProviderNotConfigured = () =>
  invalid(
    'payment_provider_not_configured',
    'no payment provider is configured for this SaaS: set its Stripe secret key with PUT /payment-provider {provider, secret_key} ' +
      '(or link one tenant to a customer with PUT /tenants/{tenant_id}/stripe-customer)',
  );

export const paymentProviderRefused = (reason: string) => invalid('payment_provider_refused', `the payment provider refused the request: ${reason}`);

export const paymentProviderUnavailable = (reason: string) =>
  unavailable(
    'payment_provider_unavailable',
    `the payment provider could not be reached (${reason}); nothing was linked by this call: try again later`,
  );

export class PaymentProviderService {
  constructor(private readonly deps: { settings: SettingsRepository; box: SecretBox; tenants: PaymentLinkRepository; client: PaymentProviderPort }) {}

  async settings(saasId: string): Promise<PaymentProviderSettings> {
    const stored = await this.deps.settings.get<StoredProvider>(saasId, DOCUMENT);
    return stored?.sealed_key ? { provider: stored.provider, secret_key: stored.key_hint } : { provider: '', secret_key: '' };
  }

  /** Sets the key (sealed at once); an empty key removes the provider. */
  async configure(saasId: string, input: { provider: 'stripe'; secret_key: string }): Promise<void> {
    if (input.secret_key === '') {
      await this.deps.settings.put<StoredProvider>(saasId, DOCUMENT, {});
      return;
    }
    if (!STRIPE_KEY.test(input.secret_key)) {
      throw invalid('invalid_parameter', 'secret_key: must be a Stripe secret key (sk_test_..., sk_live_..., or a restricted rk_ key)', {
        field: 'secret_key',
      });
    }
    await this.deps.settings.put<StoredProvider>(saasId, DOCUMENT, {
      provider: input.provider,
      sealed_key: await this.deps.box.seal(input.secret_key, sealingContext(saasId)),
      key_hint: maskSecret(input.secret_key),
    });
  }

  /**
   * PATCH /stripe/init. Tenants linked already are left as they are, so a retried Connect finishes the job; a
   * tenant is linked only once its customer was answered, so a refusal or an outage half-way leaves every
   * tenant either linked to its customer or not linked at all.
   */
  async connect(saasId: string): Promise<void> {
    const secretKey = await this.secretKey(saasId);
    for (const tenant of await this.deps.tenants.list(saasId)) {
      if (tenant.payment_customer) continue;
      const customer = await this.deps.client.createCustomer(secretKey, {
        name: tenant.name,
        email: tenant.back_office_staff_email,
        metadata: { saas_id: saasId, tenant_id: tenant.id },
      });
      await this.deps.tenants.patch(saasId, tenant.id, { payment_customer: { customer_id: customer.id, subscription_schedule_id: '' } });
    }
  }

  /** DELETE /stripe: every tenant's link ends; the provider's customers stay. */
  async disconnect(saasId: string): Promise<void> {
    await this.secretKey(saasId);
    for (const tenant of await this.deps.tenants.list(saasId)) {
      if (tenant.payment_customer) await this.deps.tenants.patch(saasId, tenant.id, { payment_customer: null });
    }
  }

  /** The key in the clear, for the export to seal under the operator's key (migration/integration-rows.ts); undefined when none is set. */
  async exportedKey(saasId: string): Promise<string | undefined> {
    const stored = await this.deps.settings.get<StoredProvider>(saasId, DOCUMENT);
    return stored?.sealed_key ? this.deps.box.open(stored.sealed_key, sealingContext(saasId)) : undefined;
  }

  private async secretKey(saasId: string): Promise<string> {
    const stored = await this.deps.settings.get<StoredProvider>(saasId, DOCUMENT);
    if (!stored?.sealed_key) throw paymentProviderNotConfigured();
    return this.deps.box.open(stored.sealed_key, sealingContext(saasId));
  }
}
