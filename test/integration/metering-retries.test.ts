/**
 * A metering change tried again by the store client is applied once (shared/store/metering-repository.ts, the
 * marks). Between the client and DynamoDB Local runs a proxy that lets the first UpdateItem (or transaction) through
 * and keeps its answer past the client's attempt timeout: the change is applied, the client never hears it and
 * sends it again, as it did when 100 parallel adds under load gave 101.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { config } from '../../shared/config.js';
import { shardCaps } from '../../shared/domain/pricing/metering.js';
import { DynamoClient } from '../../shared/store/dynamo-client.js';
import { DynamoMeteringRepository } from '../../shared/store/metering-repository.js';
import { tableName } from '../../shared/wiring.js';
import { CREDENTIALS } from '../support/aws-stand-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

/** Long enough for DynamoDB Local on a busy machine; the kept answer waits three times as long. */
const ATTEMPT_TIMEOUT_MS = 1500;

let h: Harness;
let proxy: Server;
let db: DynamoClient;
let counts: DynamoMeteringRepository;
/** The operation whose next answer the proxy keeps (`UpdateItem`, `TransactWriteItems`). */
let holdNext: string | undefined;
/** How many requests of each operation arrived at the proxy. */
const arrived = new Map<string, number>();

beforeAll(async () => {
  h = await startHarness();
  const target = new URL(config().dynamoEndpoint as string);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      arrived.set(operation, (arrived.get(operation) ?? 0) + 1);
      const hold = holdNext === operation;
      if (hold) holdNext = undefined;
      const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.on('end', () => {
          // Applied by DynamoDB Local, never heard by the client: the connection dies after its timeout.
          if (hold) return void setTimeout(() => res.destroy(), ATTEMPT_TIMEOUT_MS * 3);
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          res.end(Buffer.concat(body));
        });
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID as string;
  db = new DynamoClient({
    region: config().region,
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    credentials: async () => ({ ...CREDENTIALS, accessKeyId }),
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
  });
  counts = new DynamoMeteringRepository(db, tableName());
  // The connection and DynamoDB Local's first request warm before any attempt is timed.
  await counts.shards('saas-r', 'tenant-r', 'calls', 1, 1);
});
afterAll(async () => {
  db?.destroy();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await h?.close();
});

const CAPS = shardCaps(32);
let timestamp = 1_770_000_000;
const total = async (ts: number) => (await counts.shards('saas-r', 'tenant-r', 'calls', ts, 32)).reduce((sum, { count }) => sum + count, 0);

/** Runs `change` with the next answer of `operation` kept from the client; checks that it was sent twice. */
async function triedTwice<T>(operation: string, change: () => Promise<T>): Promise<T> {
  const before = arrived.get(operation) ?? 0;
  holdNext = operation;
  const result = await change();
  assert.equal(holdNext, undefined, `no ${operation} was held`);
  assert.ok((arrived.get(operation) ?? 0) - before >= 2, `${operation} was not tried again`);
  return result;
}

describe('a metering change whose answer was lost', () => {
  it('is added once to the home shard, and answers the count with it', async () => {
    const ts = timestamp++;
    const home = await triedTwice('UpdateItem', () => counts.addHome('saas-r', 'tenant-r', 'calls', ts, 5, CAPS));
    assert.deepEqual(home, { count: 5, spread: false });
    assert.equal(await total(ts), 5);
    // The next change is applied as usual.
    assert.deepEqual(await counts.addHome('saas-r', 'tenant-r', 'calls', ts, 2, CAPS), { count: 7, spread: false });
  });

  it("is added once to another shard, in its first write's transaction and in the plain update after it", async () => {
    const ts = timestamp++;
    // The shard's first write is a transaction (the grant); its plain update is refused first.
    assert.equal(await triedTwice('TransactWriteItems', () => counts.add('saas-r', 'tenant-r', 'calls', ts, 3, 4, CAPS)), true);
    assert.equal(await total(ts), 4);
    assert.equal(await triedTwice('UpdateItem', () => counts.add('saas-r', 'tenant-r', 'calls', ts, 3, 6, CAPS)), true);
    assert.equal(await total(ts), 10);
  });

  it('is taken once, from one shard or from several', async () => {
    const ts = timestamp++;
    await counts.addHome('saas-r', 'tenant-r', 'calls', ts, 10, CAPS);
    await counts.add('saas-r', 'tenant-r', 'calls', ts, 2, 10, CAPS);
    assert.equal(await triedTwice('UpdateItem', () => counts.take('saas-r', 'tenant-r', 'calls', ts, [{ shard: 0, count: 3 }])), true);
    assert.equal(await total(ts), 17);
    const both = [
      { shard: 0, count: 2 },
      { shard: 2, count: 5 },
    ];
    assert.equal(await triedTwice('TransactWriteItems', () => counts.take('saas-r', 'tenant-r', 'calls', ts, both)), true);
    assert.equal(await total(ts), 10);
  });

  it('still refuses a change its condition refuses', async () => {
    const ts = timestamp++;
    await counts.addHome('saas-r', 'tenant-r', 'calls', ts, 1, CAPS);
    assert.equal(await counts.take('saas-r', 'tenant-r', 'calls', ts, [{ shard: 0, count: 2 }]), false);
    assert.equal(await counts.addHome('saas-r', 'tenant-r', 'calls', ts, CAPS.whole, CAPS), undefined);
    assert.equal(await total(ts), 1);
  });
});
