/**
 * Seeds one SaaS for the scale benchmark straight into the store, in parallel BatchWriteItem requests: every
 * kind of item is first made once through the API (a template: a user, a tenant, a membership with a role,
 * an invitation with its pointer and mail, a reported user count, a plan reservation), read back raw, and then
 * cloned with its ids and names swapped. So the seeded items are the ones the service writes, key shapes and
 * attributes included, without a service call per item.
 */
import { BatchWriteCommand, ScanCommand } from '../shared/store/dynamo-client.js';
import { dynamo, tableName } from '../shared/wiring.js';
import { ENTITY } from '../shared/store/keys.js';

type Item = Record<string, unknown>;

/** Every item of the table (the bench's own, small when templates are read). */
export async function scanTable(): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const out = await dynamo().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

const keyOf = (item: Item) => `${item.pk as string}\n${item.sk as string}`;

/** The items `work` adds to the table. */
export async function itemsMadeBy(work: () => Promise<unknown>): Promise<Item[]> {
  const before = new Set((await scanTable()).map(keyOf));
  await work();
  return (await scanTable()).filter((item) => !before.has(keyOf(item)));
}

/** A deep copy with every string's occurrences of each `from` replaced by its `to` (sets and maps included). */
export function rewrite<T>(value: T, swaps: readonly (readonly [string, string])[]): T {
  const go = (v: unknown): unknown => {
    if (typeof v === 'string') return swaps.reduce((s, [from, to]) => (s.includes(from) ? s.replaceAll(from, to) : s), v);
    if (v instanceof Set) return new Set([...v].map(go));
    if (Array.isArray(v)) return v.map(go);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, go(x)]));
    return v;
  };
  return go(value) as T;
}

export const byEntity = (items: Item[], entity: string) => items.filter((item) => item.entity === entity);

/** A mail as it is once sent: final, out of the outbox's due index (what the outbox holds after a day of invitations). */
export function sentMail(item: Item): Item {
  const { gsi1pk: _pk, gsi1sk: _sk, sealedValue: _sealed, claim: _claim, claimedUntil: _until, ...rest } = item;
  return { ...rest, status: 'sent', sentAt: rest.createdAt ?? 0 };
}

export { ENTITY };

const WRITE_BATCH = 25;
/** Batches in flight at once: enough to keep DynamoDB Local's writer busy on 2 cores. */
const IN_FLIGHT = 8;

/** Writes the items with plain puts, IN_FLIGHT batches of 25 at a time, resending what comes back unprocessed. */
export async function putAll(items: Item[], onProgress?: (written: number) => void): Promise<void> {
  let next = 0;
  let written = 0;
  const worker = async () => {
    while (next < items.length) {
      const batch = items.slice(next, next + WRITE_BATCH);
      next += WRITE_BATCH;
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let round = 0; pending.length > 0; round++) {
        if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** round)));
        try {
          const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
          pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
        } catch (error) {
          // DynamoDB Local on a busy machine may be slower than the client's attempt timeout: puts are idempotent, send again.
          if (round >= 20 || !(error as { retryable?: boolean }).retryable) throw error;
        }
      }
      written += batch.length;
      onProgress?.(written);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}
