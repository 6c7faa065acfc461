/**
 * The store's own DynamoDB client (shared/store/dynamo-client.ts): values come back as they went in,
 * DynamoDB's refusals arrive as the errors the repositories catch, what AWS would check of the signature
 * holds for what arrives at a server, and the SDK's retry rule (network failures, 5xx and throttling
 * tried three times; anything else once).
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { AwsServiceError } from '../../shared/adapters/aws/json-service.js';
import { config, resetConfigForTests } from '../../shared/config.js';
import { dynamo, resetClientsForTests, tableName } from '../../shared/wiring.js';
import {
  ConditionalCheckFailedException,
  DynamoClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactionCanceledException,
  TransactWriteCommand,
  UpdateCommand,
} from '../../shared/store/dynamo-client.js';
import { assertSignedFor, credentials, CREDENTIALS, json, standIn, type Answer, type Arrived } from '../support/aws-stand-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let db: DynamoClient;

beforeAll(async () => {
  h = await startHarness();
  // DynamoDB Local keeps one database per access key: the harness's, with a session token as Lambda's have.
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID as string;
  db = new DynamoClient({
    region: config().region,
    endpoint: config().dynamoEndpoint as string,
    credentials: async () => ({ ...CREDENTIALS, accessKeyId }),
  });
});
afterAll(async () => {
  db.destroy();
  await h.close();
});

const key = () => ({ pk: `TEST#${randomUUID()}`, sk: 'ITEM' });

describe('values against DynamoDB Local', () => {
  it('gives back every kind of value the repositories store, as it was', async () => {
    const item = {
      ...key(),
      text: 'ä ü 🎉 "quoted"',
      count: 42,
      fraction: 0.25,
      flag: false,
      nothing: null,
      list: ['a', 1, true, { inner: 'x' }],
      map: { nested: { deeper: [1, 2] } },
      set: new Set(['role-a', 'role-b']),
    };
    await db.send(new PutCommand({ TableName: tableName(), Item: { ...item, dropped: undefined } }));
    const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }));
    assert.deepEqual(Item, item);
  });

  it('answers the attributes an update asks for, and query pages with their keys', async () => {
    const { pk } = key();
    for (const sk of ['A', 'B', 'C']) await db.send(new PutCommand({ TableName: tableName(), Item: { pk, sk, n: 1 } }));
    const updated = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk, sk: 'B' },
        UpdateExpression: 'SET n = n + :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    assert.deepEqual(updated.Attributes, { pk, sk: 'B', n: 2 });
    const first = await db.send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, Limit: 2 }),
    );
    assert.deepEqual(
      first.Items?.map((i) => i.sk),
      ['A', 'B'],
    );
    assert.deepEqual(first.LastEvaluatedKey, { pk, sk: 'B' });
    const rest = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ExclusiveStartKey: first.LastEvaluatedKey,
      }),
    );
    assert.deepEqual(
      rest.Items?.map((i) => i.sk),
      ['C'],
    );
  });

  it('refuses a failed condition as ConditionalCheckFailedException, with the item when asked for', async () => {
    const item = { ...key(), owner: 'first' };
    await db.send(new PutCommand({ TableName: tableName(), Item: item }));
    const refused = await db
      .send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...item, owner: 'second' },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      )
      .catch((error: unknown) => error);
    assert.ok(refused instanceof ConditionalCheckFailedException, String(refused));
    assert.deepEqual(refused.Item, item);
  });

  it('refuses a transaction as TransactionCanceledException, one reason per item in order', async () => {
    const existing = { ...key(), v: 1 };
    await db.send(new PutCommand({ TableName: tableName(), Item: existing }));
    const fresh = key();
    const refused = await db
      .send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName(), Item: fresh } },
            { Put: { TableName: tableName(), Item: existing, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      )
      .catch((error: unknown) => error);
    assert.ok(refused instanceof TransactionCanceledException, String(refused));
    assert.deepEqual(
      refused.CancellationReasons.map((r) => r.Code),
      ['None', 'ConditionalCheckFailed'],
    );
    const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: fresh, ConsistentRead: true }));
    assert.equal(Item, undefined, 'nothing of a refused transaction is written');
  });

  it('names any other refusal by its type and does not try it again', async () => {
    const refused = await db.send(new GetCommand({ TableName: 'no-such-table', Key: key() })).catch((error: unknown) => error);
    assert.ok(refused instanceof AwsServiceError, String(refused));
    assert.equal(refused.name, 'ResourceNotFoundException');
    assert.equal(refused.retryable, false);
  });
});

/** A client of a stand-in server (test/support/aws-stand-in.ts) answering in turn from `answers`. */
async function stubServer(answers: Answer[], options: { retryQuota?: number } = {}) {
  const server = await standIn(answers);
  const client = new DynamoClient({ region: 'eu-west-1', endpoint: server.url, credentials, attemptTimeoutMs: 200, ...options });
  return {
    seen: server.seen,
    client,
    close: () => {
      client.destroy();
      return server.close();
    },
  };
}

const THROTTLED = json(400, { __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'slow down' });
const get = () => new GetCommand({ TableName: 'table', Key: { pk: 'a', sk: 'b' } });

describe('the wire, against a stand-in server', () => {
  it('signs what it sends: the signature recomputed from what arrived is the one sent', async () => {
    const stub = await stubServer([json(200, { Item: { pk: { S: 'a' }, sk: { S: 'b' }, n: { N: '7' } } })]);
    try {
      assert.deepEqual((await stub.client.send(get())).Item, { pk: 'a', sk: 'b', n: 7 });
      const [arrived] = stub.seen as [Arrived];
      assert.equal(arrived.headers['x-amz-target'], 'DynamoDB_20120810.GetItem');
      assert.equal(arrived.headers['content-type'], 'application/x-amz-json-1.0');
      assert.deepEqual(JSON.parse(arrived.body), { TableName: 'table', Key: { pk: { S: 'a' }, sk: { S: 'b' } } });
      const signed = await assertSignedFor('dynamodb', 'eu-west-1', arrived);
      assert.ok(
        ['host', 'x-amz-date', 'x-amz-target', 'content-type'].every((name) => signed.includes(name)),
        signed.join(';'),
      );
    } finally {
      await stub.close();
    }
  });

  it('tries throttling and 5xx again, up to three attempts, and then fails', async () => {
    const recovering = await stubServer([THROTTLED, json(500, { __type: 'InternalServerError' }), json(200, { Item: { pk: { S: 'a' } } })]);
    try {
      assert.deepEqual((await recovering.client.send(get())).Item, { pk: 'a' });
      assert.equal(recovering.seen.length, 3);
    } finally {
      await recovering.close();
    }
    const throttled = await stubServer([THROTTLED]);
    try {
      const error = await throttled.client.send(get()).catch((e: unknown) => e);
      assert.ok(error instanceof AwsServiceError && error.name === 'ProvisionedThroughputExceededException', String(error));
      assert.equal(throttled.seen.length, 3);
    } finally {
      await throttled.close();
    }
  });

  it("waits for a slow DynamoDB Local, so that a write it took is not sent again and refused by the write's own condition", async () => {
    // Past the 5 s an attempt on AWS gets: that one would be abandoned and sent again, three times, and fail.
    const slow = await standIn([(_arrived, res) => void setTimeout(() => json(200, { Item: { pk: { S: 'a' } } })(_arrived, res), 6_000)]);
    const harnessStore = process.env.DYNAMODB_ENDPOINT;
    try {
      process.env.DYNAMODB_ENDPOINT = slow.url;
      resetConfigForTests();
      resetClientsForTests();
      assert.deepEqual((await dynamo().send(get())).Item, { pk: 'a' });
      assert.equal(slow.seen.length, 1, 'sent once');
    } finally {
      process.env.DYNAMODB_ENDPOINT = harnessStore;
      resetConfigForTests();
      resetClientsForTests();
      await slow.close();
    }
  });

  it('abandons an attempt that hears nothing, tries again, and does not try a refused condition again', async () => {
    const silent = await stubServer([() => undefined]);
    try {
      const error = await silent.client.send(get()).catch((e: unknown) => e);
      assert.ok(error instanceof AwsServiceError && error.name === 'TimeoutError', String(error));
      assert.equal(silent.seen.length, 3);
    } finally {
      await silent.close();
    }
    const refusing = await stubServer([json(400, { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'no' })]);
    try {
      assert.ok((await refusing.client.send(get()).catch((e: unknown) => e)) instanceof ConditionalCheckFailedException);
      assert.equal(refusing.seen.length, 1);
    } finally {
      await refusing.close();
    }
  });

  it('stops trying again once an outage has emptied the retry quota, and refills it from successes', async () => {
    const down = json(500, { __type: 'InternalServerError', message: 'down' });
    // A quota of two retries: the first request spends it, the second is not tried again, the third succeeds.
    const stub = await stubServer([down, down, down, down, json(200, { Item: { pk: { S: 'a' } } })], { retryQuota: 10 });
    try {
      assert.ok((await stub.client.send(get()).catch((e: unknown) => e)) instanceof AwsServiceError);
      assert.equal(stub.seen.length, 3, 'three attempts while the quota lasts');
      assert.ok((await stub.client.send(get()).catch((e: unknown) => e)) instanceof AwsServiceError);
      assert.equal(stub.seen.length, 4, 'one attempt once it is empty');
      assert.deepEqual((await stub.client.send(get())).Item, { pk: 'a' });
    } finally {
      await stub.close();
    }
  });

  it('tries again when the connection breaks', async () => {
    const breaking: Answer = (_arrived, res) => res.socket?.destroy();
    const stub = await stubServer([breaking, json(200, { Item: { pk: { S: 'a' } } })]);
    let seenByInterceptor = 0;
    stub.client.intercept((_command, next) => {
      seenByInterceptor++;
      return next();
    });
    try {
      assert.deepEqual((await stub.client.send(get())).Item, { pk: 'a' });
      assert.equal(stub.seen.length, 2);
      assert.equal(seenByInterceptor, 1, 'interceptors see a request once, whatever its attempts');
    } finally {
      await stub.close();
    }
  });
});
