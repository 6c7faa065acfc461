/**
 * The store's DynamoDB client (docs/decisions.md, decision 12): DynamoDB's JSON protocol through
 * aws/json-service.ts, items in and out as plain objects (@aws-sdk/util-dynamodb, as the SDK's document
 * client converts them). The commands carry the document client's inputs and answer its outputs (types from
 * @aws-sdk/lib-dynamodb), so a repository reads as it would with the SDK.
 */
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { AwsJsonService, AwsServiceError, type AwsJsonServiceOptions } from '../adapters/aws/json-service.js';

type Item = Record<string, unknown>;
type Answer<O> = Omit<O, '$metadata'>;

/** A request: the operation's name and the document client's input for it; `Output` is what it answers. */
export abstract class StoreCommand<Input extends object = object, Output = unknown> {
  abstract readonly operation: string;
  declare readonly output?: Output;
  constructor(readonly input: Input) {}
}

export class GetCommand extends StoreCommand<GetCommandInput, Answer<GetCommandOutput>> {
  readonly operation = 'GetItem';
}
export class PutCommand extends StoreCommand<PutCommandInput, Answer<PutCommandOutput>> {
  readonly operation = 'PutItem';
}
export class UpdateCommand extends StoreCommand<UpdateCommandInput, Answer<UpdateCommandOutput>> {
  readonly operation = 'UpdateItem';
}
export class DeleteCommand extends StoreCommand<DeleteCommandInput, Answer<DeleteCommandOutput>> {
  readonly operation = 'DeleteItem';
}
export class QueryCommand extends StoreCommand<QueryCommandInput, Answer<QueryCommandOutput>> {
  readonly operation = 'Query';
}
export class ScanCommand extends StoreCommand<ScanCommandInput, Answer<ScanCommandOutput>> {
  readonly operation = 'Scan';
}
export class BatchGetCommand extends StoreCommand<BatchGetCommandInput, Answer<BatchGetCommandOutput>> {
  readonly operation = 'BatchGetItem';
}
export class BatchWriteCommand extends StoreCommand<BatchWriteCommandInput, Answer<BatchWriteCommandOutput>> {
  readonly operation = 'BatchWriteItem';
}
export class TransactWriteCommand extends StoreCommand<TransactWriteCommandInput, Answer<TransactWriteCommandOutput>> {
  readonly operation = 'TransactWriteItems';
}

export type QueryInput = QueryCommandInput;
export type QueryOutput = Answer<QueryCommandOutput>;
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A write's condition did not hold; `Item` is the item as it was when the request asked for it. */
export class ConditionalCheckFailedException extends AwsServiceError {
  constructor(
    message: string,
    readonly Item?: Item,
  ) {
    super('ConditionalCheckFailedException', message, 400, false);
  }
}

/** A transaction was refused as a whole; one reason per item, in the request's order. */
export class TransactionCanceledException extends AwsServiceError {
  constructor(
    message: string,
    readonly CancellationReasons: { Code?: string; Message?: string; Item?: Item }[],
  ) {
    super('TransactionCanceledException', message, 400, false);
  }
}

/** Sees every request and may change its input or answer: how tests and benchmarks count and time requests. */
export type StoreInterceptor = (command: StoreCommand, next: () => Promise<unknown>) => Promise<unknown>;

/** Runs one request inside the caller's tracing, when there is any (observability.ts). */
export type StoreTracer = <T>(operation: string, table: string | undefined, call: () => Promise<T>) => Promise<T>;

/** Where DynamoDB is and how to call it (aws/json-service.ts); DynamoDB Local's URL as `endpoint` locally. */
export type DynamoClientOptions = Pick<
  AwsJsonServiceOptions,
  'region' | 'endpoint' | 'credentials' | 'maxAttempts' | 'attemptTimeoutMs' | 'retryQuota'
> & {
  trace?: StoreTracer;
};

const MARSHALL = { removeUndefinedValues: true };

const toAttributes = (value: Item | undefined) => (value === undefined ? undefined : marshall(value, MARSHALL));
const toItem = (value: unknown) => (value === undefined ? undefined : unmarshall(value as Parameters<typeof unmarshall>[0]));

/** The parts of one item-shaped request (a Get, Put, Update, Delete or ConditionCheck, alone or in a transaction) in DynamoDB's form. */
function requestParts(input: Item): Item {
  const out: Item = { ...input };
  for (const name of ['Item', 'Key', 'ExpressionAttributeValues', 'ExclusiveStartKey']) {
    if (input[name] !== undefined) out[name] = toAttributes(input[name] as Item);
  }
  return out;
}

function toRequest(input: Item): Item {
  const out = requestParts(input);
  if (Array.isArray(input.TransactItems)) {
    out.TransactItems = (input.TransactItems as Record<string, Item>[]).map((entry) =>
      Object.fromEntries(Object.entries(entry).map(([kind, part]) => [kind, requestParts(part)])),
    );
  }
  if (input.RequestItems) {
    out.RequestItems = Object.fromEntries(
      Object.entries(input.RequestItems as Record<string, unknown>).map(([table, requests]) => [
        table,
        Array.isArray(requests) ? (requests as Item[]).map(writeRequest(toAttributes)) : keysOf(requests as Item, toAttributes),
      ]),
    );
  }
  return out;
}

const keysOf = (request: Item, convert: (value: Item) => unknown) => ({ ...request, Keys: (request.Keys as Item[]).map(convert) });

const writeRequest = (convert: (value: Item) => unknown) => (request: Item) => {
  const put = request.PutRequest as Item | undefined;
  const del = request.DeleteRequest as Item | undefined;
  return put ? { PutRequest: { Item: convert(put.Item as Item) } } : { DeleteRequest: { Key: convert(del?.Key as Item) } };
};

function fromResponse(output: Item): Item {
  const out: Item = { ...output };
  for (const name of ['Item', 'Attributes', 'LastEvaluatedKey']) {
    if (output[name] !== undefined) out[name] = toItem(output[name]);
  }
  if (Array.isArray(output.Items)) out.Items = output.Items.map(toItem);
  if (output.Responses) {
    out.Responses = Object.fromEntries(
      Object.entries(output.Responses as Record<string, Item[]>).map(([table, items]) => [table, items.map(toItem)]),
    );
  }
  if (output.UnprocessedKeys) {
    out.UnprocessedKeys = Object.fromEntries(
      Object.entries(output.UnprocessedKeys as Record<string, Item>).map(([table, request]) => [table, keysOf(request, toItem)]),
    );
  }
  if (output.UnprocessedItems) {
    out.UnprocessedItems = Object.fromEntries(
      Object.entries(output.UnprocessedItems as Record<string, Item[]>).map(([table, requests]) => [table, requests.map(writeRequest(toItem))]),
    );
  }
  return out;
}

/** DynamoDB's refusals the repositories catch, carrying their items. */
function toError(_statusCode: number, name: string, message: string, body: Item): AwsServiceError | undefined {
  if (name === 'ConditionalCheckFailedException') return new ConditionalCheckFailedException(message, toItem(body.Item));
  if (name !== 'TransactionCanceledException') return undefined;
  const reasons = (body.CancellationReasons ?? []) as Item[];
  return new TransactionCanceledException(
    message,
    reasons.map((reason) => ({ ...reason, Item: toItem(reason.Item) }) as { Code?: string; Message?: string; Item?: Item }),
  );
}

export class DynamoClient {
  private readonly service: AwsJsonService;
  private readonly interceptors: StoreInterceptor[] = [];

  constructor(private readonly options: DynamoClientOptions) {
    // Traced here rather than by the transport: a store request's trace names its table too.
    const { trace: _tracedHere, ...transport } = options;
    this.service = new AwsJsonService({ ...transport, service: 'dynamodb', targetPrefix: 'DynamoDB_20120810', jsonVersion: '1.0', toError });
  }

  /** Adds an interceptor around every later request (the last added is the outermost). */
  intercept(interceptor: StoreInterceptor): void {
    this.interceptors.push(interceptor);
  }

  send<Input extends object, Output>(command: StoreCommand<Input, Output>): Promise<Output> {
    const run = this.interceptors.reduce<() => Promise<unknown>>(
      (next, interceptor) => () => interceptor(command, next),
      () => this.request(command),
    );
    return run() as Promise<Output>;
  }

  /** Closes the kept-alive connections (the local runner and tests, when they are done). */
  destroy(): void {
    this.service.destroy();
  }

  private request(command: StoreCommand): Promise<Item> {
    const input = command.input as Item;
    const request = toRequest(input);
    const call = async () => fromResponse(await this.service.call(command.operation, request));
    const table = typeof input.TableName === 'string' ? input.TableName : undefined;
    return this.options.trace ? this.options.trace(command.operation, table, call) : call();
  }
}
