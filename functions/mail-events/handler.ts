/**
 * Bounce and complaint events of the stack's SES configuration set, from EventBridge: each names the SaaS
 * and mail through the tags the courier set, and the address is remembered so it is not mailed again.
 */
import type { EventBridgeEvent } from 'aws-lambda';
import { nowSeconds } from '../../shared/clock.js';
import { recordMailEvent, type SesMailEvent } from '../../shared/domain/mail/mail-suppression.js';
import { observed } from '../../shared/observability.js';
import { suppressionRepository } from '../../shared/wiring.js';

export const handler = observed(async (event: EventBridgeEvent<string, SesMailEvent>) => {
  const suppressed = await recordMailEvent(suppressionRepository(), event.detail, nowSeconds());
  return { suppressed: suppressed.length };
});
