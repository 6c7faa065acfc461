import { createHash } from 'node:crypto';

/**
 * The id this service gives the row of `external_id`: a UUID (version 8, RFC 9562's form for ids made by
 * one's own rule) from a digest of the SaaS, the kind and the external id. The same row gets the same id on
 * every run, which is what makes a re-run change nothing; two SaaS never share one.
 */
export function externalId(saasId: string, kind: 'user' | 'tenant', external: string): string {
  const b = createHash('sha256').update(`${saasId}\n${kind}\n${external}`).digest().subarray(0, 16);
  b[6] = ((b[6] as number) & 0x0f) | 0x80;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
