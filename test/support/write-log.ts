/**
 * Which writes reached the store while a piece of code ran: every successful write command of the document
 * client is noted in the log of the async context it ran in, so requests sent at the same time each get
 * their own. A refused request must have written nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const WRITE_COMMANDS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);
const MIDDLEWARE = 'testWriteLog';

const logs = new AsyncLocalStorage<string[]>();
const watched = new WeakSet<DynamoDBDocumentClient>();

/** Starts noting writes of this client (once per client). */
export function watchWrites(db: DynamoDBDocumentClient): void {
  if (watched.has(db)) return;
  watched.add(db);
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      // Only a write that succeeded changed something: a refused condition throws before this line.
      if (WRITE_COMMANDS.has(context.commandName as string)) logs.getStore()?.push(context.commandName as string);
      return output;
    },
    { step: 'initialize', name: MIDDLEWARE },
  );
}

/** Runs `work`, answering its result and the writes it made. */
export async function withWriteLog<T>(work: () => Promise<T>): Promise<{ result: T; writes: string[] }> {
  const writes: string[] = [];
  const result = await logs.run(writes, work);
  return { result, writes };
}
