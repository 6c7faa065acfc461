/**
 * Pricing: the catalogue (units, metering units, menus, plans, tax rates), metering counts and the SaaS's payment
 * provider. What belongs here: a service of the Pricing or Billing API. Pricing reads tenants only through the
 * ports its services declare (MeteringService's tenantExists), filled from the tenant repository, never from
 * tenants.ts, which depends on this file the other way (its PlanCatalogue port).
 */
import { config } from '../config.js';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../http/compression.js';
import { StripeClient } from '../adapters/payment/stripe-client.js';
import { PaymentProviderService } from '../domain/configuration/payment-provider.js';
import { CatalogueService } from '../domain/pricing/catalogue.js';
import { MeteringService } from '../domain/pricing/metering.js';
import { Recent } from '../store/recent.js';
import { secretBox } from './clients.js';
import { catalogueRepository, meteringRepository, settingsRepository, tenantRepository } from './repositories.js';

/** The Pricing API's catalogue: units, metering units, menus, plans, tax rates (shared/domain/pricing). */
export const catalogueService = () => new CatalogueService(catalogueRepository(), LAMBDA_RESPONSE_LIMIT_BYTES);

/** Tenants the metering function found, kept SETTINGS_CACHE_SECONDS per warm instance (store/recent.ts). */
const knownTenants = new Recent<true | undefined>();

/** Metering counts: the Pricing API's hot path. */
export const meteringService = () => {
  const catalogue = catalogueRepository();
  return new MeteringService({
    counts: meteringRepository(),
    meter: (saasId, unitName) => catalogue.meterByName(saasId, unitName),
    meters: async (saasId) => (await catalogue.read(saasId)).meters.sort((a, b) => a.unit_name.localeCompare(b.unit_name)),
    tenantExists: async (saasId, tenantId) =>
      (await knownTenants.get(`${saasId}\n${tenantId}`, config().settingsCacheSeconds, async () =>
        (await tenantRepository().get(saasId, tenantId)) ? true : undefined,
      )) === true,
    shards: config().meteringWriteShards,
    hotPerSecond: config().meteringHotUpdatesPerSecond,
  });
};

/** The SaaS's payment provider: its key, Connect and Disconnect (PATCH /stripe/init, DELETE /stripe). */
export const paymentProviderService = () =>
  new PaymentProviderService({
    settings: settingsRepository(),
    box: secretBox(),
    tenants: tenantRepository(),
    client: new StripeClient(config().stripeApiBaseUrl, config().stripeTimeoutMs),
  });
