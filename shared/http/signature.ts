/**
 * The SAASUSSIGV1 request signature (docs/decisions.md): HMAC-SHA256, keyed with the API key's secret, over
 * time (YYYYMMDDHHmm, UTC) + API key + METHOD + host[:port] + path + ('?' + raw query) + raw body bytes.
 * Verified against the request exactly as received; JSON is never re-serialised.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignedRequest {
  method: string;
  /** host[:port] as the client sent it in the Host header. */
  host: string;
  /** The raw path, e.g. `/v1/auth/roles`. */
  path: string;
  /** The raw query string without `?`, or '' when there is none. */
  query: string;
  body: Buffer;
}

export interface SignatureHeader {
  signature: string;
  saasId: string;
  apiKey: string;
}

/** `202109011234` for 2021-09-01T12:34Z. */
export function signatureTime(at: Date): string {
  return at.toISOString().slice(0, 16).replace(/[-T:]/g, '');
}

export function computeSignature(secret: string, time: string, apiKey: string, request: SignedRequest): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(time + apiKey + request.method.toUpperCase() + request.host + request.path);
  if (request.query) hmac.update(`?${request.query}`);
  hmac.update(request.body);
  return hmac.digest('hex');
}

export function authorizationHeader(secret: string, saasId: string, apiKey: string, request: SignedRequest, at = new Date()): string {
  const sig = computeSignature(secret, signatureTime(at), apiKey, request);
  return `SAASUSSIGV1 Sig=${sig}, SaaSID=${saasId}, APIKey=${apiKey}`;
}

const HEADER = /^SAASUSSIGV1\s+(.+)$/;

/** Parses `SAASUSSIGV1 Sig=<hex>, SaaSID=<id>, APIKey=<key>`; undefined when it is not that shape. */
export function parseAuthorizationHeader(header: string | undefined): SignatureHeader | undefined {
  const m = header ? HEADER.exec(header.trim()) : null;
  if (!m) return undefined;
  const fields = new Map<string, string>();
  for (const part of (m[1] as string).split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return undefined;
    fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const signature = fields.get('Sig');
  const saasId = fields.get('SaaSID');
  const apiKey = fields.get('APIKey');
  if (!signature || !saasId || !apiKey || !/^[0-9a-f]{64}$/i.test(signature)) return undefined;
  return { signature: signature.toLowerCase(), saasId, apiKey };
}

/**
 * True when the signature matches a minute within `windowMinutes` either side of `now`. The minutes are tried
 * from `now` outwards and the first match ends the search: a client with a set clock costs one HMAC, not the
 * window's 2w+1 (7 at the default 3 minutes, about 0.05 ms of every call's CPU). Each comparison is in constant
 * time, so timing tells nothing of the signature; what an early match tells, the minute the client signed at,
 * is the client's own choice and secret from nobody. A signature that matches no minute costs all of them.
 */
export function verifySignature(secret: string, header: SignatureHeader, request: SignedRequest, now: Date, windowMinutes: number): boolean {
  const given = Buffer.from(header.signature, 'hex');
  for (let step = 0; step <= 2 * windowMinutes; step++) {
    // 0, -1, +1, -2, +2, …
    const offset = step % 2 === 0 ? step / 2 : -(step + 1) / 2;
    const time = signatureTime(new Date(now.getTime() + offset * 60_000));
    const expected = Buffer.from(computeSignature(secret, time, header.apiKey, request), 'hex');
    if (timingSafeEqual(expected, given)) return true;
  }
  return false;
}
