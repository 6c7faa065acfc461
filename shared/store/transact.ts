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
import { MAIL_RATE_RULE, tooManyMails } from '../domain/mail/mail.js';
import type { ItemKey } from './keys.js';
import type { Update } from './update.js';

/** DynamoDB's limit of items in one transaction. */
const TRANSACTION_LIMIT = 100;
const CONFLICT_ATTEMPTS = 6;

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

export class DynamoCommitter implements Committer {
  constructor(private readonly db: DynamoClient) {}

  private refusal(rule: string): CommitOutcome {
    // A mail over its rate limit refuses whatever change causes it, the same way everywhere (429).
    if (rule.startsWith(`${MAIL_RATE_RULE}:`)) throw tooManyMails(Number(rule.slice(MAIL_RATE_RULE.length + 1)));
    return { committed: false, refusedBy: rule };
  }

  async commit(...writes: AtomicWrite[]): Promise<CommitOutcome> {
    const parts = writes.flatMap((w) => w.parts);
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
