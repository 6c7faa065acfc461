/**
 * Which writes reached the store while a piece of code ran: every successful write command of the document
 * client is noted, with the sort keys of the items it wrote, in the log of the async context it ran in, so
 * requests sent at the same time each get their own. A refused request must have written nothing but the
 * count of its own attempt (see `ATTEMPT_COUNTERS`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoClient } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';

const WRITE_COMMANDS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
/** What a write of the profile's sign-in state alone is logged as. */
const SIGN_IN_STATE = 'PROFILE (sign-in state)';
/** The profile's attributes that hold sign-in's state (shared/store/sign-in-repository.ts). */
const SIGN_IN_STATE_ATTRIBUTES = new Set(['signin_lockout', 'srp_answered']);

export interface WriteRecord {
  command: string;
  /** The sort keys of the items the command wrote. */
  sortKeys: string[];
}

/**
 * Items a refused answer still writes, by the start of their sort key: the counters that make guessing
 * expensive. A wrong proof counts towards the lockout and spends its SRP session (the profile's sign-in state),
 * a wrong code uses one of the answers the code allows. Counting the attempt is the point of the refusal;
 * nothing a user stored changes. An attempt for a name nobody has writes the same to a decoy item instead.
 */
export const ATTEMPT_COUNTERS: readonly string[] = [
  SIGN_IN_STATE,
  keys.signInChallenge('', '', '').sk,
  keys.verificationCode('', '', '').sk,
  // What a refused attempt for a name nobody has writes where a user's would be counted: a decoy, holding nothing.
  keys.decoy('', '', '').sk,
];

export const isAttemptCounter = (sortKey: string) => ATTEMPT_COUNTERS.some((prefix) => sortKey.startsWith(prefix));

type Input = Record<string, unknown>;

/** An update of a user's profile that changes only sign-in's state (the lockout count, the answered SRP sessions). */
function signInStateOnly(write: Input): boolean {
  if ((write.Key as Input | undefined)?.sk !== 'PROFILE' || typeof write.UpdateExpression !== 'string') return false;
  const names = (write.ExpressionAttributeNames as Record<string, string> | undefined) ?? {};
  // Every path the update sets or removes starts with a sign-in state attribute.
  const paths = write.UpdateExpression.replace(/\b(SET|REMOVE|ADD|DELETE)\b/g, ',')
    .split(',')
    .map((clause) => clause.trim())
    .filter(Boolean);
  return paths.every((path) => SIGN_IN_STATE_ATTRIBUTES.has(names[(/^#\w+/.exec(path) ?? [''])[0]] ?? ''));
}

/** The sort keys a write command's input names, whatever its shape. */
function sortKeysOf(input: Input): string[] {
  const skOf = (item: unknown) => String((item as Input | undefined)?.sk ?? '?');
  if (signInStateOnly(input)) return [SIGN_IN_STATE];
  if (input.Key) return [skOf(input.Key)];
  if (input.Item) return [skOf(input.Item)];
  if (Array.isArray(input.TransactItems)) {
    return (input.TransactItems as Input[])
      .filter((entry) => !entry.ConditionCheck)
      .map((entry) => {
        const write = (entry.Put ?? entry.Update ?? entry.Delete) as Input;
        return signInStateOnly(write) ? SIGN_IN_STATE : skOf(write.Item ?? write.Key);
      });
  }
  if (input.RequestItems) {
    return Object.values(input.RequestItems as Record<string, Input[]>)
      .flat()
      .map((request) => skOf((request.PutRequest as Input | undefined)?.Item ?? (request.DeleteRequest as Input | undefined)?.Key));
  }
  return ['?'];
}

const logs = new AsyncLocalStorage<WriteRecord[]>();
const watched = new WeakSet<DynamoClient>();

/** Starts noting writes of this client (once per client). */
export function watchWrites(db: DynamoClient): void {
  if (watched.has(db)) return;
  watched.add(db);
  db.intercept(async (request, next) => {
    const output = await next();
    // Only a write that succeeded changed something: a refused condition throws before this line.
    const command = request.operation;
    if (WRITE_COMMANDS.has(command)) logs.getStore()?.push({ command, sortKeys: sortKeysOf(request.input as Input) });
    return output;
  });
}

/** Runs `work`, answering its result and the writes it made. */
export async function withWriteLog<T>(work: () => Promise<T>): Promise<{ result: T; writes: WriteRecord[] }> {
  const writes: WriteRecord[] = [];
  const result = await logs.run(writes, work);
  return { result, writes };
}

/** The writes that changed more than the count of an attempt, described for a failure message. */
export function writesBeyondAttempts(writes: readonly WriteRecord[]): string[] {
  return writes.filter((write) => !write.sortKeys.every(isAttemptCounter)).map((write) => `${write.command} ${write.sortKeys.join(' ')}`);
}
