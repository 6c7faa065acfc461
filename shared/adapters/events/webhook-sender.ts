/**
 * Signed webhook requests (shared/domain/integration/webhooks.ts): signed by the maintained `standardwebhooks`
 * package, as the Standard Webhooks specification has it (webhook-id, webhook-timestamp, webhook-signature over
 * `id.timestamp.body`), so a receiver verifies them with the same package in any language.
 */
import { Webhook } from 'standardwebhooks';
import type { WebhookSenderPort } from '../../domain/integration/webhooks.js';

/** Posts a body with its headers; the status, or why there is none (the wiring's checked post). */
export type Post = (url: string, body: string, headers: Record<string, string>) => Promise<{ status?: number; error?: string }>;

export class StandardWebhookSender implements WebhookSenderPort {
  constructor(private readonly post: Post) {}

  async send(url: string, secret: string, messageId: string, payload: string, at: Date): Promise<string> {
    const signature = new Webhook(secret).sign(messageId, at, payload);
    const answer = await this.post(url, payload, {
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
      'user-agent': 'tenant-identity-service-webhooks',
    });
    if (answer.error !== undefined) return answer.error;
    return answer.status !== undefined && answer.status >= 200 && answer.status < 300 ? '' : `answered ${answer.status ?? 'nothing'}`;
  }
}
