/**
 * The SaaSus Integration API (/v1/integration), as its published definition (integration.yml) names members and
 * types: the EventBridge settings events go to, a test event, and a SaaS's own events (docs/events.md). Lengths
 * are this service's (the definition gives none); `GET /events` is our extension (the console's list).
 */
import * as Type from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { Uuid } from './common.js';

/** The definition's AwsRegion: every region but those of China. */
export const AWS_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'af-south-1',
  'ap-east-1',
  'ap-south-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ca-central-1',
  'eu-central-1',
  'eu-north-1',
  'eu-south-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'me-south-1',
  'sa-east-1',
] as const;

export const EventBridgeSettings = Type.Object(
  {
    aws_account_id: Type.String({ minLength: 12, maxLength: 12, description: 'AWS account id, 12 digits' }),
    aws_region: Type.Union(
      AWS_REGIONS.map((r) => Type.Literal(r)),
      { description: 'the region of the default bus events go to' },
    ),
  },
  { $id: 'EventBridgeSettings' },
);

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });
const EventMessage = Type.Object({
  event_type: Name("EventBridge's detail-type, such as api_call"),
  event_detail_type: Name('detail.event_type, such as create_user'),
  message: Type.String({ maxLength: 100_000, description: 'detail.event' }),
});

const Target = Type.Object({
  target: Type.String({ description: 'eventbridge' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  next_attempt_at: Type.Integer({ description: 'Unix seconds' }),
  last_error: Type.Optional(Type.String()),
});

const KeptEvent = Type.Object({
  id: Type.String({ description: 'log_id' }),
  at: Type.Integer({ description: 'Unix seconds of the call' }),
  detail_type: Type.String(),
  event_type: Type.String(),
  subject: Type.String({ description: 'what the event changes; sequence counts per subject' }),
  sequence: Type.Integer(),
  detail: Type.String({ description: "EventBridge's detail, as sent" }),
  targets: Type.Array(Target),
});

const noBody = {} satisfies OperationSchema;

const WebhookUrl = Type.String({
  minLength: 8,
  maxLength: 2048,
  pattern: '^https?://',
  description: 'https, to a public address (locally, http and loopback too)',
});
const EventTypes = Type.Array(Name('an event_type, such as create_tenant'), {
  maxItems: 100,
  description: 'the event types it wants; none or [] for every event',
});
const Description = Type.String({ maxLength: 500 });

export const Webhook = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    event_types: Type.Array(Type.String()),
    description: Type.String(),
    disabled: Type.Boolean(),
    disabled_reason: Type.Optional(Type.String()),
    failures: Type.Integer({ description: 'failed attempts since the last that went through' }),
    created_at: Type.Integer({ description: 'Unix seconds' }),
  },
  { $id: 'Webhook' },
);
const Secret = Type.String({ description: 'the signing secret (whsec_...), shown this once' });
const webhookParams = Type.Object({ webhook_id: Uuid });

const Delivery = Type.Object({
  event_id: Type.String(),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  next_attempt_at: Type.Integer(),
  last_error: Type.Optional(Type.String()),
  delivered_at: Type.Optional(Type.Integer()),
});

/** Signed webhooks, our extension (docs/events.md). */
export const webhookSchemas = {
  createWebhook: {
    body: Type.Object({ url: WebhookUrl, event_types: Type.Optional(EventTypes), description: Type.Optional(Description) }),
    response: Type.Intersect([Webhook, Type.Object({ secret: Secret })], { $id: 'NewWebhook' }),
  },
  getWebhooks: { response: Type.Object({ webhooks: Type.Array(Webhook) }, { $id: 'Webhooks' }) },
  getWebhook: { params: webhookParams, response: Webhook },
  updateWebhook: {
    params: webhookParams,
    body: Type.Object({
      url: Type.Optional(WebhookUrl),
      event_types: Type.Optional(EventTypes),
      description: Type.Optional(Description),
      disabled: Type.Optional(Type.Boolean()),
    }),
  },
  deleteWebhook: { params: webhookParams },
  rotateWebhookSecret: { params: webhookParams, response: Type.Object({ secret: Secret }, { $id: 'WebhookSecret' }) },
  getWebhookDeliveries: {
    params: webhookParams,
    query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
    response: Type.Object({ deliveries: Type.Array(Delivery) }, { $id: 'WebhookDeliveries' }),
  },
  replayWebhookDelivery: { params: Type.Object({ webhook_id: Uuid, event_id: Type.String({ minLength: 36, maxLength: 36 }) }) },
} satisfies Record<string, OperationSchema>;

export const integrationSchemas = {
  getEventBridgeSettings: { response: EventBridgeSettings },
  saveEventBridgeSettings: { body: EventBridgeSettings },
  deleteEventBridgeSettings: noBody,
  createEventBridgeEvent: { body: Type.Object({ event_messages: Type.Array(EventMessage, { minItems: 1, maxItems: 10 }) }) },
  createEventBridgeTestEvent: noBody,
  getEvents: {
    query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
    response: Type.Object({ events: Type.Array(KeptEvent) }, { $id: 'KeptEvents' }),
  },
  returnIntegrationInternalServerError: noBody,
} satisfies Record<string, OperationSchema>;
