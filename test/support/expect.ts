/** Assertions and answer shapes the API tests share. */
import assert from 'node:assert/strict';

/** The answer has this status and error type, and its message starts with the field it names. */
export async function expectError(promise: Promise<{ status: number; body: unknown }>, status: number, type: string, field?: string): Promise<void> {
  const res = await promise;
  assert.equal(res.status, status, JSON.stringify(res.body));
  const body = res.body as { type: string; message: string; data: object };
  assert.equal(body.type, type, body.message);
  assert.equal(typeof body.data, 'object');
  if (field) assert.ok(body.message.startsWith(`${field}:`), `message names ${field}: ${body.message}`);
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
