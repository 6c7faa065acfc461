/** SES v2 clients, built once per cold start from the settings the wiring passes. */
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { traced } from '../../observability.js';

/** Where SES is: the region, and locally the stand-in's URL. */
export interface SesSettings {
  region: string;
  endpoint: string | undefined;
}

let managing: SESv2Client | undefined;
let sending: SESv2Client | undefined;

function build({ region, endpoint }: SesSettings, maxAttempts?: number): SESv2Client {
  return traced(new SESv2Client({ region, ...(endpoint ? { endpoint } : {}), ...(maxAttempts ? { maxAttempts } : {}) }));
}

/** For identities and account status: the SDK's standard retries are right here. */
export function sesClient(settings: SesSettings): SESv2Client {
  return (managing ??= build(settings));
}

/** For sending: one attempt per call, because the courier counts, spaces and records every attempt. */
export function sesSendingClient(settings: SesSettings): SESv2Client {
  return (sending ??= build(settings, 1));
}

/** The local runner and tests point the same process at another SES stand-in. */
export function resetSesClientsForTests(): void {
  managing = undefined;
  sending = undefined;
}
