/** Sends one rendered mail with SES v2 and says whether a failure is worth retrying. */
import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { RenderedMail } from './render.js';

export interface OutgoingMail extends RenderedMail {
  from: string;
  replyTo?: string;
  to: string;
  /** SES EmailTags: they come back in bounce and complaint events, naming the SaaS and the mail. */
  tags?: Record<string, string>;
}

export interface MailSenderPort {
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
}

/** Throttling, 5xx and network failures: SES did not take the mail, so sending again cannot duplicate it. */
export class RetryableSendError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryableSendError';
  }
}

const THROTTLING = new Set(['TooManyRequestsException', 'ThrottlingException', 'Throttling', 'LimitExceededException', 'SendingPausedException']);

export function isRetryable(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  if (e.name && THROTTLING.has(e.name)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429;
  // No HTTP answer at all: refused, reset, timed out.
  return true;
}

export class SesMailSender implements MailSenderPort {
  /**
   * The client must have maxAttempts 1: the courier owns retries, so each attempt is counted and logged.
   * On AWS every mail goes through the stack's configuration set, whose events report bounces.
   */
  constructor(
    private readonly ses: SESv2Client,
    private readonly configurationSet?: string,
  ) {}

  async send(mail: OutgoingMail): Promise<{ messageId: string }> {
    try {
      const out = await this.ses.send(
        new SendEmailCommand({
          FromEmailAddress: mail.from,
          ...(mail.replyTo ? { ReplyToAddresses: [mail.replyTo] } : {}),
          Destination: { ToAddresses: [mail.to] },
          ...(this.configurationSet ? { ConfigurationSetName: this.configurationSet } : {}),
          ...(mail.tags ? { EmailTags: Object.entries(mail.tags).map(([Name, Value]) => ({ Name, Value })) } : {}),
          Content: {
            Simple: {
              Subject: { Data: mail.subject, Charset: 'UTF-8' },
              Body: mail.html ? { Html: { Data: mail.html, Charset: 'UTF-8' } } : { Text: { Data: mail.text ?? '', Charset: 'UTF-8' } },
            },
          },
        }),
      );
      return { messageId: out.MessageId ?? '' };
    } catch (error) {
      if (isRetryable(error)) throw new RetryableSendError((error as Error).message ?? 'SES failed', { cause: error });
      throw error;
    }
  }
}
