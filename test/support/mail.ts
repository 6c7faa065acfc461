/** Mail as the courier delivers it: run it for a SaaS, then read what the SES stand-in holds. */
import { courier } from '../../shared/wiring.js';
import { mailsTo, type StoredMail } from './expect.js';

/** Delivers the SaaS's due mail, then answers every mail sent to `to`, oldest first. */
export async function deliveredMail(sesUrl: string, saasId: string, to: string): Promise<StoredMail[]> {
  await courier().deliverDue(saasId);
  return mailsTo(sesUrl, to);
}
