/** SES v2 clients, built once per cold start. */
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '../../config.js';
import { traced } from '../../observability.js';

let managing: SESv2Client | undefined;
let sending: SESv2Client | undefined;

function build(maxAttempts?: number): SESv2Client {
  const { region, sesEndpoint } = config();
  return traced(new SESv2Client({ region, ...(sesEndpoint ? { endpoint: sesEndpoint } : {}), ...(maxAttempts ? { maxAttempts } : {}) }));
}

/** For identities and account status: the SDK's standard retries are right here. */
export function sesClient(): SESv2Client {
  return (managing ??= build());
}

/** For sending: one attempt per call, because the courier counts, spaces and records every attempt. */
export function sesSendingClient(): SESv2Client {
  return (sending ??= build(1));
}

export function resetSesClientsForTests(): void {
  managing = undefined;
  sending = undefined;
}
