/**
 * The Integration API's operations (/v1/integration, shared/domain/integration, docs/events.md), served by the
 * configuration group's function (shared/routes.ts): where a SaaS's events go is part of its configuration.
 */
import { HttpProblem } from '../../shared/http/errors.js';
import type { Static } from '@sinclair/typebox';
import { integrationSchemas as s, webhookSchemas as w, type EventBridgeSettings } from '../../shared/schemas/integration.js';
import { operation } from '../../shared/schemas/operation.js';
import { integrationService as integration, webhookService as webhooks } from '../../shared/wiring.js';

export const integrationOperations = {
  getEventBridgeSettings: operation(
    s.getEventBridgeSettings,
    (_, ctx) => integration().eventBridgeSettings(ctx.saasId) as Promise<Static<typeof EventBridgeSettings>>,
  ),
  saveEventBridgeSettings: operation(s.saveEventBridgeSettings, ({ body }, ctx) => integration().saveEventBridgeSettings(ctx.saasId, body)),
  deleteEventBridgeSettings: operation(s.deleteEventBridgeSettings, (_, ctx) => integration().deleteEventBridgeSettings(ctx.saasId)),
  createEventBridgeEvent: operation(s.createEventBridgeEvent, ({ body }, ctx) =>
    integration().sendEvents(ctx.saasId, body.event_messages, ctx.requestId),
  ),
  createEventBridgeTestEvent: operation(s.createEventBridgeTestEvent, (_, ctx) => integration().sendTestEvent(ctx.saasId, ctx.requestId)),
  getEvents: operation(s.getEvents, ({ query }, ctx) => integration().recentEvents(ctx.saasId, query.limit ?? 50)),
  createWebhook: operation(w.createWebhook, ({ body }, ctx) => webhooks().create(ctx.saasId, body)),
  getWebhooks: operation(w.getWebhooks, (_, ctx) => webhooks().list(ctx.saasId)),
  getWebhook: operation(w.getWebhook, ({ params }, ctx) => webhooks().get(ctx.saasId, params.webhook_id)),
  updateWebhook: operation(w.updateWebhook, ({ params, body }, ctx) => webhooks().update(ctx.saasId, params.webhook_id, body)),
  deleteWebhook: operation(w.deleteWebhook, ({ params }, ctx) => webhooks().delete(ctx.saasId, params.webhook_id)),
  rotateWebhookSecret: operation(w.rotateWebhookSecret, ({ params }, ctx) => webhooks().rotateSecret(ctx.saasId, params.webhook_id)),
  getWebhookDeliveries: operation(w.getWebhookDeliveries, ({ params, query }, ctx) =>
    webhooks().deliveries(ctx.saasId, params.webhook_id, query.limit ?? 50),
  ),
  replayWebhookDelivery: operation(w.replayWebhookDelivery, ({ params }, ctx) =>
    webhooks().replay(ctx.saasId, params.webhook_id, params.event_id.toLowerCase()),
  ),
  returnIntegrationInternalServerError: operation(s.returnIntegrationInternalServerError, async () => {
    throw new HttpProblem(500, 'internal_server_error', 'Internal server error (GET /errors/internal-server-error always answers this)');
  }),
};
