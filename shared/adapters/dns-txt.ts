/**
 * The DNS TXT records a domain's proof is read from (shared/domain/tenants/verified-domains.ts): node:dns on
 * AWS and on a laptop, or the records a test publishes (`setTxtRecordsForTests`), so no test depends on
 * external DNS. A name without TXT records is 'missing'; a resolver that fails throws, and proves nothing.
 */
import { Resolver } from 'node:dns/promises';
import type { TxtResolver } from '../domain/tenants/verified-domains.js';

const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);
const TIMEOUT_MS = 3000;

const systemTxt: TxtResolver = async (name) => {
  const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: 2 });
  try {
    // A long record comes in 255-character strings: one record is their concatenation (RFC 7208, 3.3).
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch (error) {
    if (ABSENT.has((error as { code?: string }).code ?? '')) return 'missing';
    throw error;
  }
};

let recordsForTests: Record<string, string[] | 'failing'> | undefined;

export const txtResolver = (): TxtResolver => async (name) => {
  if (!recordsForTests) return systemTxt(name);
  const records = Object.entries(recordsForTests).find(([published]) => published.toLowerCase() === name.toLowerCase())?.[1];
  if (records === 'failing') throw Object.assign(new Error(`queryTxt ESERVFAIL ${name}`), { code: 'ESERVFAIL' });
  return records ?? 'missing';
};

/** Tests only: the TXT records of each name, as the object holds them when asked ('failing': the resolver fails for it); other names have none. */
export function setTxtRecordsForTests(records: Record<string, string[] | 'failing'> | undefined): void {
  recordsForTests = records;
}
