/**
 * What connects a SaaS to its own systems, in the export and the import (issue 39, docs/migration.md "Webhooks,
 * API keys and the payment provider"): its payment provider's key, its signed webhooks and its API keys. Their
 * secrets move as they are, so nothing on the SaaS's side changes at the cut-over: a webhook receiver goes on
 * verifying with the secret it has, the backends sign with the key and secret they have, and Stripe is called
 * with the same key. Each secret leaves only sealed under the operator's seal key (export-seal.ts), bound to its
 * row's kind and name, and without a key the row goes out without it; the import refuses such a row rather than
 * make a webhook, key or provider with a secret nobody holds.
 *
 * An API key's secret is a credential of the SaaS's whole API, so only the operator moves one: the export writes
 * api_key rows only when asked (`npm run admin -- export --api-keys --seal-key-file KEY`), and a job started
 * through the API (`migration:write`) refuses them, or any key holding migration:write could make itself a
 * key of every permission with a secret it sealed (docs/decisions.md, "An export's API keys"). The delivery log and
 * the outbox stay behind: events delivered there were delivered.
 *
 * A re-run changes nothing: a webhook or key already there under the row's id is `unchanged` (a key with another
 * secret is refused, not overwritten), and the provider's row is unchanged when the key there is the row's.
 */
import { invalid } from '../../errors.js';
import { openFromExport, sealForExport } from '../../crypto/export-seal.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { ApiKeyRow, PaymentProviderRow, WebhookRow } from '../../schemas/migration-integration.js';
import { MAX_WEBHOOKS, type WebhookEndpoint, type WebhookRepository, type WebhookSecrets } from '../integration/webhooks.js';

/** An API key as the accounts keep it (domain/accounts ranks above migration, so it is declared here). */
export interface StoredApiKey {
  apiKey: string;
  saasId: string;
  permissions: string[];
  description: string;
  /** Sealed by the service's box with {saasId, apiKey} as context (accounts.ts issueApiKey). */
  sealedSecret: string;
  createdAt: number;
  revokedAt?: number;
}

export interface IntegrationPorts {
  webhooks: Pick<WebhookRepository, 'webhooks' | 'webhook' | 'putWebhook'>;
  webhookSecrets: WebhookSecrets;
  /** Refuses (a 400) a URL the service may not post to, as creating a webhook does. */
  checkUrl(url: string, field: string): Promise<void>;
  apiKeys: {
    listApiKeys(saasId: string): Promise<StoredApiKey[]>;
    getApiKey(saasId: string, apiKey: string): Promise<StoredApiKey | undefined>;
    putApiKey(record: StoredApiKey): Promise<void>;
  };
  /** The permissions as issuing a key checks them (accounts.ts parsePermissions): throws its DomainError. */
  checkPermissions(list: readonly string[]): string[];
  /** Seals and opens API keys' secrets as the accounts do. */
  box: SecretBox;
  payment: {
    /** Whether a key is set, read without opening it. */
    configured(saasId: string): Promise<boolean>;
    /** The provider's key in the clear, or undefined when none is set. */
    secretKey(saasId: string): Promise<string | undefined>;
    configure(saasId: string, input: { provider: 'stripe'; secret_key: string }): Promise<void>;
  };
}

export type IntegrationRow = PaymentProviderRow | WebhookRow | ApiKeyRow;

/** What each sealed secret is bound to: it opens on its own row only. */
const binding = {
  payment: 'payment-provider.stripe',
  webhook: (id: string) => `webhook.${id}`,
  apiKey: (apiKey: string) => `api-key.${apiKey}`,
};
const apiKeyContext = (saasId: string, apiKey: string) => ({ saasId, apiKey });

/**
 * The rows, the provider first; secrets only when `sealKey` is given. API keys only when the operator asks for
 * them with a seal key (`apiKeys`): a file that carries them is a credential of the SaaS's whole API.
 */
export async function* integrationRows(
  ports: IntegrationPorts,
  saasId: string,
  sealKey: Buffer | undefined,
  apiKeys = false,
): AsyncGenerator<IntegrationRow> {
  const seal = (secret: string, boundTo: string) => (sealKey ? sealForExport(sealKey, secret, boundTo) : undefined);
  const withSecret = <T extends object>(row: T, field: string, sealed: string | undefined) => (sealed ? { ...row, [field]: sealed } : row);
  if (await ports.payment.configured(saasId)) {
    const row: PaymentProviderRow = { type: 'payment_provider', provider: 'stripe' };
    // Opened only to be sealed again: without a key the secret stays where it is.
    const paymentKey = sealKey ? await ports.payment.secretKey(saasId) : undefined;
    yield withSecret(row, 'secret_key', paymentKey === undefined ? undefined : seal(paymentKey, binding.payment));
  }
  const endpoints = [...(await ports.webhooks.webhooks(saasId))].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  for (const endpoint of endpoints) {
    const row: WebhookRow = {
      type: 'webhook',
      id: endpoint.id,
      url: endpoint.url,
      event_types: endpoint.eventTypes,
      description: endpoint.description,
      disabled: endpoint.disabled,
      created_at: endpoint.createdAt,
    };
    const secret = sealKey ? await ports.webhookSecrets.open(saasId, endpoint.id, endpoint.sealedSecret) : undefined;
    yield withSecret(row, 'secret', secret === undefined ? undefined : seal(secret, binding.webhook(endpoint.id)));
  }
  if (!apiKeys || !sealKey) return;
  const keys = (await ports.apiKeys.listApiKeys(saasId)).filter((key) => key.revokedAt === undefined);
  for (const key of keys.sort((a, b) => a.createdAt - b.createdAt || a.apiKey.localeCompare(b.apiKey))) {
    const row: ApiKeyRow = {
      type: 'api_key',
      api_key: key.apiKey,
      permissions: key.permissions,
      description: key.description,
      created_at: key.createdAt,
    };
    const secret = await ports.box.open(key.sealedSecret, apiKeyContext(saasId, key.apiKey));
    yield { ...row, secret: sealForExport(sealKey, secret, binding.apiKey(key.apiKey)) };
  }
}

/** What the import's job tells a row of these kinds. */
export interface IntegrationContext {
  sealKey: Buffer | undefined;
  /** Started by the operator (npm run admin -- import), not through the API: only then are API keys taken. */
  operator: boolean;
}

/** The row's secret opened with the job's seal key, or why not (a user's sealed password hash too, password-seal.ts). */
export function opened(field: string, sealed: string | undefined, boundTo: string, sealKey: Buffer | undefined): string {
  if (sealed === undefined) throw invalid('seal_key_missing', `${field}: is left out; export with a seal key`);
  if (!sealKey) throw invalid('seal_key_missing', `${field}: is sealed; start the job with the seal_key of the export`);
  const secret = openFromExport(sealKey, sealed, boundTo);
  if (secret === undefined) throw invalid('invalid_secret', `${field}: does not open with the seal_key for this row`);
  return secret;
}

export async function applyIntegrationRow(
  ports: IntegrationPorts,
  saasId: string,
  row: IntegrationRow,
  context: IntegrationContext,
): Promise<'imported' | 'unchanged'> {
  switch (row.type) {
    case 'payment_provider': {
      const secret = opened('secret_key', row.secret_key, binding.payment, context.sealKey);
      if ((await ports.payment.secretKey(saasId)) === secret) return 'unchanged';
      await ports.payment.configure(saasId, { provider: row.provider, secret_key: secret });
      return 'imported';
    }
    case 'webhook':
      return applyWebhook(ports, saasId, row, context);
    case 'api_key':
      return applyApiKey(ports, saasId, row, context);
  }
}

async function applyWebhook(
  ports: IntegrationPorts,
  saasId: string,
  row: WebhookRow,
  context: IntegrationContext,
): Promise<'imported' | 'unchanged'> {
  const secret = opened('secret', row.secret, binding.webhook(row.id), context.sealKey);
  if (await ports.webhooks.webhook(saasId, row.id)) return 'unchanged';
  await ports.checkUrl(row.url, 'url');
  if ((await ports.webhooks.webhooks(saasId)).length >= MAX_WEBHOOKS) {
    throw invalid('too_many_webhooks', `a SaaS has at most ${MAX_WEBHOOKS} webhooks`, { field: 'url' });
  }
  const endpoint: WebhookEndpoint = {
    saasId,
    id: row.id,
    url: row.url,
    eventTypes: [...new Set(row.event_types)],
    description: row.description,
    sealedSecret: await ports.webhookSecrets.seal(saasId, row.id, secret),
    disabled: row.disabled,
    ...(row.disabled ? { disabledReason: 'disabled at the export' } : {}),
    failures: 0,
    createdAt: row.created_at,
  };
  await ports.webhooks.putWebhook(endpoint);
  return 'imported';
}

async function applyApiKey(ports: IntegrationPorts, saasId: string, row: ApiKeyRow, context: IntegrationContext): Promise<'imported' | 'unchanged'> {
  if (!context.operator) {
    throw invalid(
      'api_key_not_importable',
      'api_key: API keys are imported by the operator only (npm run admin -- import FILE --seal-key-file KEY), never through the API',
    );
  }
  const secret = opened('secret', row.secret, binding.apiKey(row.api_key), context.sealKey);
  const permissions = ports.checkPermissions(row.permissions);
  const there = await ports.apiKeys.getApiKey(saasId, row.api_key);
  if (there) {
    if ((await ports.box.open(there.sealedSecret, apiKeyContext(saasId, row.api_key))) === secret) return 'unchanged';
    throw invalid('api_key_taken', `api_key: ${row.api_key} is there already with another secret; left as it is`);
  }
  await ports.apiKeys.putApiKey({
    apiKey: row.api_key,
    saasId,
    permissions,
    description: row.description,
    sealedSecret: await ports.box.seal(secret, apiKeyContext(saasId, row.api_key)),
    createdAt: row.created_at,
  });
  return 'imported';
}
