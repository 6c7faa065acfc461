/** The one place that runs transactions: writes built by the repositories, refusals named by rule. */
import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoClient,
  type TransactItem,
} from './dynamo-client.js';
import type { AtomicWrite, CommitOutcome, Committer, WritePart } from '../domain/atomic.js';
import { AwsServiceError } from '../adapters/aws/json-service.js';
import { MAIL_RATE_RULE, tooManyMails } from '../domain/mail/mail.js';
import type { ItemKey } from './keys.js';
import type { Update } from './update.js';

/** DynamoDB's limit of items in one transaction. */
const TRANSACTION_LIMIT = 100;
const CONFLICT_ATTEMPTS = 6;
/**
 * DynamoDB refuses a transaction over 4 MB. The size here is measured as JSON, near what DynamoDB counts (names
 * and values) but not the same, so a transaction stops well below it.
 */
const TRANSACTION_BYTES = 2_000_000;
/** Transactions of one commitEach in flight at once. */
const TRANSACTIONS_AT_ONCE = 4;
/** The reasons a transaction was cancelled with nothing decided: the same request may succeed a moment later. */
const NOTHING_DECIDED = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

export const part = (rule: string, op: TransactItem): WritePart => ({ rule, op });

export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

export const EXISTS: Condition = { expression: 'attribute_exists(#pk)', names: { '#pk': 'pk' } };
/** The item exists and is not being deleted (tenants and users hide before they go). */
export const LIVE: Condition = {
  expression: 'attribute_exists(#pk) AND attribute_not_exists(#deleting)',
  names: { '#pk': 'pk', '#deleting': 'deleting' },
};

/** Both conditions must hold. */
export function both(a: Condition, b: Condition): Condition {
  return {
    expression: `${a.expression} AND ${b.expression}`,
    names: { ...a.names, ...b.names },
    values: { ...a.values, ...b.values },
  };
}

/** The condition's parts of a request, merged with those of the update it guards. */
export function conditionInput(condition: Condition, update?: Update) {
  const names = { ...update?.names, ...condition.names };
  const values = { ...update?.values, ...condition.values };
  return {
    ConditionExpression: condition.expression,
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}

export const check = (table: string, key: ItemKey, condition: Condition, rule: string): WritePart =>
  part(rule, { ConditionCheck: { TableName: table, Key: key, ...conditionInput(condition) } });

/** A new item: refused when one with its key exists. */
export const putNew = (table: string, item: ItemKey & Record<string, unknown>, rule: string): WritePart =>
  part(rule, { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } });

/** A conditional update: the input of one UpdateCommand, and the body of a transaction's Update part. */
export const updateRequest = (table: string, key: ItemKey, change: Update, condition: Condition) => ({
  TableName: table,
  Key: key,
  UpdateExpression: change.expression(),
  ...conditionInput(condition, change),
});

export const update = (table: string, key: ItemKey, change: Update, condition: Condition, rule: string): WritePart =>
  part(rule, { Update: updateRequest(table, key, change, condition) });

export const remove = (table: string, key: ItemKey, condition: Condition, rule: string): WritePart =>
  part(rule, { Delete: { TableName: table, Key: key, ...conditionInput(condition) } });

/** The item a transaction's part names, as one string, and whether the part writes it (or only checks it). */
function target(op: TransactItem): { item: string; writes: boolean } {
  const [kind, body] = Object.entries(op)[0] as [string, { TableName: string; Key?: ItemKey; Item?: ItemKey }];
  const key = body.Key ?? (body.Item as ItemKey);
  return { item: `${body.TableName}\n${key.pk}\n${key.sk}`, writes: kind !== 'ConditionCheck' };
}

/** One transaction of commitEach: its parts (a check several rows share is there once), and which rows each part serves. */
interface Together {
  ops: TransactItem[];
  rowsOf: number[][];
}

/**
 * The rows as transactions of at most TRANSACTION_LIMIT parts and TRANSACTION_BYTES, in order. A check that rows
 * share (the same item, the same condition) is sent once; a row that would touch an item the transaction touches
 * otherwise starts the next one (DynamoDB refuses a transaction that names an item twice).
 */
function pack(rows: readonly (readonly WritePart[])[], indices: readonly number[]): Together[] {
  const all: Together[] = [];
  let current: Together = { ops: [], rowsOf: [] };
  let parts = new Map<string, { json: string; at: number }>();
  let bytes = 0;
  for (const index of indices) {
    const own = (rows[index] as readonly WritePart[]).map((p) => {
      const op = p.op as TransactItem;
      return { op, json: JSON.stringify(op), ...target(op) };
    });
    const fresh = own.filter((p) => parts.get(p.item)?.json !== p.json || p.writes);
    const clash = fresh.some((p) => parts.has(p.item));
    const size = fresh.reduce((sum, p) => sum + p.json.length, 0);
    if (current.ops.length > 0 && (clash || current.ops.length + fresh.length > TRANSACTION_LIMIT || bytes + size > TRANSACTION_BYTES)) {
      all.push(current);
      [current, parts, bytes] = [{ ops: [], rowsOf: [] }, new Map(), 0];
    }
    for (const p of own) {
      let at = parts.get(p.item)?.at;
      if (at === undefined) {
        at = current.ops.push(p.op) - 1;
        current.rowsOf.push([]);
        parts.set(p.item, { json: p.json, at });
        bytes += p.json.length;
      }
      (current.rowsOf[at] as number[]).push(index);
    }
  }
  if (current.ops.length > 0) all.push(current);
  return all;
}

/**
 * The rows in waves: a wave holds no two rows that touch one item where either writes it, so its transactions
 * may run side by side, and a row that writes what an earlier row writes (the same external id twice) waits for
 * the next wave: the earlier row is committed first, as it would be one row after the other.
 */
function waves(rows: readonly (readonly WritePart[])[]): number[][] {
  const all: number[][] = [];
  let pending = rows.map((_, i) => i);
  while (pending.length > 0) {
    const [wave, later, written, touched] = [[] as number[], [] as number[], new Set<string>(), new Set<string>()];
    for (const index of pending) {
      const targets = (rows[index] as readonly WritePart[]).map((p) => target(p.op as TransactItem));
      if (targets.some((t) => written.has(t.item) || (t.writes && touched.has(t.item)))) later.push(index);
      else {
        wave.push(index);
        for (const t of targets) {
          touched.add(t.item);
          if (t.writes) written.add(t.item);
        }
      }
    }
    all.push(wave);
    pending = later;
  }
  return all;
}

/** A condition check's item and condition, the same for two parts that check the same thing; undefined for a write. */
function checkOf(part: WritePart): string | undefined {
  const op = part.op as TransactItem;
  return op.ConditionCheck ? `${target(op).item}\n${JSON.stringify(op)}` : undefined;
}

/**
 * The wave's rows with those that share a check side by side, so that pack sends it once for them all: each row
 * goes beside the others that check the item it shares with the most of them (issue 39's memberships, many of one
 * tenant in a part of the file, each checking the tenant is live). A check every transaction carries anyway
 * (shared by more rows than one holds, such as an import's env and role) groups nothing. A wave's rows touch no
 * item another of them writes, so their order changes no outcome; rows that share nothing keep theirs.
 */
function sharersTogether(rows: readonly (readonly WritePart[])[], wave: readonly number[]): number[] {
  const checksOf = (index: number) => (rows[index] as readonly WritePart[]).flatMap((p) => checkOf(p) ?? []);
  const sharers = new Map<string, number>();
  for (const index of wave) for (const item of new Set(checksOf(index))) sharers.set(item, (sharers.get(item) ?? 0) + 1);
  const groupOf = (index: number) => {
    let best: string | undefined;
    for (const item of checksOf(index)) {
      const n = sharers.get(item) as number;
      if (n > 1 && n <= TRANSACTION_LIMIT / 2 && n > (best === undefined ? 0 : (sharers.get(best) as number))) best = item;
    }
    return best;
  };
  const groups = new Map<string | undefined, number[]>();
  for (const index of wave) {
    const group = groupOf(index);
    const members = groups.get(group);
    if (members) members.push(index);
    else groups.set(group, [index]);
  }
  return [...groups.values()].flat();
}

/**
 * The parts with a check that several writes of one commit share (the same item, the same condition) sent once, as
 * pack does for commitEach: a new user's memberships of two tenants each check the same env and roles exist, and
 * DynamoDB refuses a transaction that names an item twice.
 */
function sharedChecksOnce(parts: readonly WritePart[]): WritePart[] {
  const seen = new Set<string>();
  return parts.filter((p) => {
    const key = checkOf(p);
    if (key === undefined) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export class DynamoCommitter implements Committer {
  constructor(private readonly db: DynamoClient) {}

  private refusal(rule: string): CommitOutcome {
    // A mail over its rate limit refuses whatever change causes it, the same way everywhere (429).
    if (rule.startsWith(`${MAIL_RATE_RULE}:`)) throw tooManyMails(Number(rule.slice(MAIL_RATE_RULE.length + 1)));
    return { committed: false, refusedBy: rule };
  }

  async commit(...writes: AtomicWrite[]): Promise<CommitOutcome> {
    const parts = sharedChecksOnce(writes.flatMap((w) => w.parts));
    if (parts.length > TRANSACTION_LIMIT) throw new Error(`a transaction of ${parts.length} items is over DynamoDB's ${TRANSACTION_LIMIT}`);
    const [only] = parts;
    // A condition check alone still needs a transaction: only a transaction evaluates one without writing.
    if (parts.length === 1 && only && !(only.op as TransactItem).ConditionCheck) return this.single(only);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: parts.map((p) => p.op as TransactItem) }));
        return { committed: true };
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const refused = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
        if (refused >= 0) return this.refusal((parts[refused] as WritePart).rule);
        // Another transaction held one of our items: nothing was decided, so try again after a short, random wait.
        if (!reasons.some((r) => r.Code === 'TransactionConflict') || attempt === CONFLICT_ATTEMPTS) throw error;
        await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
      }
    }
  }

  /**
   * Each row as commit(...row) would commit it, many rows to a transaction (issue 39's import: a transaction of
   * 100 parts costs DynamoDB a fraction of 33 of 3). A transaction commits every part or none, so each row is
   * still whole or not at all. When one is refused, the rows whose parts failed are committed alone, which names
   * the rule exactly as commit does, and the others go again together; a transaction cancelled for a conflict or
   * throttling is tried again after a wait, and past CONFLICT_ATTEMPTS, or refused for anything else, its rows go
   * alone.
   */
  async commitEach(rows: readonly (readonly AtomicWrite[])[]): Promise<CommitOutcome[]> {
    const parts = rows.map((writes) => writes.flatMap((w) => w.parts));
    const outcomes: CommitOutcome[] = new Array<CommitOutcome>(rows.length);
    for (const wave of waves(parts)) {
      const queue = pack(parts, sharersTogether(parts, wave));
      const worker = async () => {
        for (let together = queue.shift(); together; together = queue.shift()) await this.commitTogether(parts, together, outcomes);
      };
      await Promise.all(Array.from({ length: Math.min(TRANSACTIONS_AT_ONCE, queue.length) }, worker));
    }
    return outcomes;
  }

  private async commitTogether(rows: readonly (readonly WritePart[])[], first: Together, outcomes: CommitOutcome[]): Promise<void> {
    let together = first;
    const alone = async (indices: Iterable<number>) => {
      for (const index of indices) outcomes[index] = await this.commit({ parts: rows[index] as readonly WritePart[] });
    };
    for (let attempt = 1; ;) {
      const indices = [...new Set(together.rowsOf.flat())];
      if (indices.length <= 1) return alone(indices);
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: together.ops }));
        for (const index of indices) outcomes[index] = { committed: true };
        return;
      } catch (error) {
        if (!(error instanceof AwsServiceError)) throw error;
        const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : [];
        const refused = new Set(reasons.flatMap((r, at) => (r.Code === 'ConditionalCheckFailed' ? (together.rowsOf[at] ?? []) : [])));
        if (refused.size > 0) {
          await alone(refused);
          const rest = indices.filter((index) => !refused.has(index));
          if (rest.length === 0) return;
          together = pack(rows, rest)[0] as Together;
          continue;
        }
        if (!reasons.some((r) => NOTHING_DECIDED.has(r.Code ?? '')) || attempt === CONFLICT_ATTEMPTS) return alone(indices);
        await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt++));
      }
    }
  }

  /**
   * One item needs no transaction: the plain write with the same condition is atomic too, and costs half
   * the write units (a transactional write is billed twice).
   */
  private async single(write: WritePart): Promise<CommitOutcome> {
    const op = write.op as TransactItem;
    try {
      if (op.Update) await this.db.send(new UpdateCommand(op.Update));
      else if (op.Put) await this.db.send(new PutCommand(op.Put));
      else await this.db.send(new DeleteCommand(op.Delete as NonNullable<TransactItem['Delete']>));
      return { committed: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return this.refusal(write.rule);
    }
  }
}
