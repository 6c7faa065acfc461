/**
 * The import file's rows of what connects a SaaS to its own systems (issue 39, docs/migration.md "Webhooks,
 * API keys and the payment provider"): its signed webhooks, its API keys and its payment provider's key. Each
 * secret in them travels sealed under the operator's seal key (shared/crypto/export-seal.ts), bound to its row,
 * and is absent from an export made without one. shared/domain/migration/integration-rows.ts writes and reads them.
 */
import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Uuid } from './common.js';

const Sealed = (what: string) => Type.String({ minLength: 1, maxLength: 1024, description: `${what}, sealed under the seal_key` });

/** A webhook endpoint under the id it had (the receiver sees it nowhere, but the deliveries' log names it). */
export const WebhookRow = Type.Object(
  {
    type: Type.Literal('webhook'),
    id: Uuid,
    url: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://' }),
    event_types: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description: '[] for every event' }),
    description: Type.String({ maxLength: 500 }),
    disabled: Type.Boolean(),
    created_at: Type.Integer({ minimum: 0 }),
    /** Its signing secret (whsec_…): the receiver goes on verifying with the one it has. */
    secret: Type.Optional(Sealed('the signing secret')),
  },
  { additionalProperties: false },
);
export type WebhookRow = Static<typeof WebhookRow>;

/** An API key the SaaS's backends sign with, under its own name; revoked keys are not exported. */
export const ApiKeyRow = Type.Object(
  {
    type: Type.Literal('api_key'),
    api_key: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9]+$' }),
    permissions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100 }),
    description: Type.String({ maxLength: 500 }),
    created_at: Type.Integer({ minimum: 0 }),
    /** The secret the backends sign with: only the operator's import (npm run admin -- import) takes it. */
    secret: Type.Optional(Sealed('the signing secret')),
  },
  { additionalProperties: false },
);
export type ApiKeyRow = Static<typeof ApiKeyRow>;

/** The payment provider's secret key (PUT /payment-provider). */
export const PaymentProviderRow = Type.Object(
  {
    type: Type.Literal('payment_provider'),
    provider: Type.Literal('stripe'),
    secret_key: Type.Optional(Sealed("the provider's secret key")),
  },
  { additionalProperties: false },
);
export type PaymentProviderRow = Static<typeof PaymentProviderRow>;

export const INTEGRATION_ROW_SCHEMAS = { payment_provider: PaymentProviderRow, webhook: WebhookRow, api_key: ApiKeyRow };
