/** Mail as the SES stand-in holds it, and as the courier delivers it. */
import { courier } from '../../shared/wiring.js';

export interface StoredMail {
  from: string;
  replyTo: string[];
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
}

/** Mail the SES stand-in holds for an address, oldest first. */
export async function mailsTo(sesUrl: string, address: string): Promise<StoredMail[]> {
  const store = (await (await fetch(`${sesUrl}/store`)).json()) as { emails: StoredMail[] };
  return store.emails.filter((m) => m.destination.to.includes(address));
}

/** Delivers the SaaS's due mail, then answers every mail sent to `to`, oldest first. */
export async function deliveredMail(sesUrl: string, saasId: string, to: string): Promise<StoredMail[]> {
  await courier().deliverDue(saasId);
  return mailsTo(sesUrl, to);
}

/** A value as it was before an HTML template escaped it (shared/adapters/mail/render.ts). */
export const unescapeHtml = (html: string) =>
  html.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
