/**
 * What never leaves the service in a record of a call: the API log's query values (apilog/api-log.ts) and the
 * bodies an event carries (integration/api-events.ts) go through the same names.
 */

/** Names whose values are, or may be, a credential: a temporary code, a refresh or ID token, a signature, a secret. */
export const CREDENTIAL_NAME = /code|token|secret|password|passwd|key|session|signature|credential|assertion|ticket|otp|nonce|verifier|state/i;
/**
 * Names whose values are personal data: kept out of a URL, where proxies and browser histories keep them too. An
 * event's body keeps them: a SaaS is told the e-mail address of the user it created, as SaaSus tells it.
 */
export const PERSONAL_NAME = /e-?mail/i;
export const REDACTED = '[redacted]';

const MAX_DEPTH = 32;

/** A JSON value with every member a credential's name names replaced by REDACTED, at any depth. */
function redactedValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactedValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  // Members in code-point order, as SaaSus's Go service writes a decoded map back (encoding/json sorts keys).
  for (const name of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[name];
    out[name] = CREDENTIAL_NAME.test(name) && member !== null && member !== '' ? REDACTED : redactedValue(member, depth + 1);
  }
  return out;
}

/**
 * A request or answer body as an event carries it: its JSON written again with members sorted and credentials
 * redacted; '' for an empty body, and REDACTED for one that is not JSON (it could be anything).
 */
export function redactedJsonText(text: string): string {
  if (text.trim() === '') return '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return REDACTED;
  }
  return JSON.stringify(redactedValue(value, 0));
}
