/** Assertions the API tests share. */
import assert from 'node:assert/strict';
import { courier } from '../../shared/wiring.js';

/** The answer has this status and error type, and its message starts with the field it names. */
export async function expectError(promise: Promise<{ status: number; body: unknown }>, status: number, type: string, field?: string): Promise<void> {
  const res = await promise;
  assert.equal(res.status, status, JSON.stringify(res.body));
  const body = res.body as { type: string; message: string; data: object };
  assert.equal(body.type, type, body.message);
  assert.equal(typeof body.data, 'object');
  if (field) assert.ok(body.message.startsWith(`${field}:`), `message names ${field}: ${body.message}`);
}

export interface StoredMail {
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
}

/** Mail the SES stand-in holds for an address, oldest first. */
export async function mailsTo(sesUrl: string, address: string): Promise<StoredMail[]> {
  const store = (await (await fetch(`${sesUrl}/store`)).json()) as { emails: StoredMail[] };
  return store.emails.filter((m) => m.destination.to.includes(address));
}

/** Runs the courier for the SaaS, then reads the mail the SES stand-in holds for `to`. */
export async function deliveredMail(sesUrl: string, saasId: string, to: string): Promise<StoredMail[]> {
  await courier().deliverDue(saasId);
  return mailsTo(sesUrl, to);
}

/** A SaaS user as the API answers it; `password` only for a sign-in-ID user whose password the service made. */
export interface SaasUserBody {
  id: string;
  email: string;
  sign_in_id: string;
  attributes: Record<string, unknown>;
  last_login_at: number;
  password?: string;
}
