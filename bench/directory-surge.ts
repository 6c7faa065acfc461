/**
 * The scale bench's sign-up surge (bench/scale.bench.ts): users created as fast as this process makes them, on a
 * SaaS whose directory is on 1 shard, until its count has grown and writes reach the new shards
 * (shared/store/directory-shards.ts). What it records: sign-ups a second, when the count grew, when writes
 * spread, and where the entries landed. This process is one instance: the rate it measures is the whole rate.
 */
import { GetCommand } from '../shared/store/dynamo-client.js';
import { keys, USER_DIRECTORY_SHARDS } from '../shared/store/keys.js';
import { countIndex, queryIndexAll } from '../shared/store/query.js';
import { layoutOf } from '../shared/store/directory-shards.js';
import { dynamo, tableName } from '../shared/wiring.js';
import { putAll } from './scale-seed.js';

export interface SurgeFigures {
  concurrency: number;
  seconds: number;
  created: number;
  /** Sign-ups completed in each second from the start. */
  perSecond: number[];
  /** Seconds from the start until the SaaS item recorded the grown count, and until writes reached the new shards. */
  grewAfter?: number;
  spreadAfter?: number;
  /** Entries per shard at the end (shard 0 holds the seeded users too). */
  entriesPerShard: number[];
}

const layoutNow = async (saasId: string) =>
  layoutOf((await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.saas(saasId), ConsistentRead: true }))).Item);

/** Each shard's entries, counted by DynamoDB. */
const entriesPerShard = (saasId: string) =>
  Promise.all(
    Array.from({ length: USER_DIRECTORY_SHARDS }, (_, k) => countIndex(dynamo(), tableName(), { gsi1pk: keys.userDirectoryShardKey(saasId, k) })),
  );

/** Runs `create` (one sign-up, `n` its number) on `concurrency` workers until the writes spread, or `maxSeconds`. */
export async function directorySurge(
  saasId: string,
  create: (n: number) => Promise<void>,
  concurrency: number,
  maxSeconds: number,
): Promise<SurgeFigures> {
  const start = Date.now();
  const elapsed = () => (Date.now() - start) / 1000;
  const perSecond: number[] = [];
  let next = 0;
  let done = false;
  let grewAfter: number | undefined;
  let spreadAfter: number | undefined;
  const worker = async () => {
    while (!done) {
      await create(next++);
      const second = Math.floor(elapsed());
      perSecond[second] = (perSecond[second] ?? 0) + 1;
    }
  };
  const watcher = async () => {
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const layout = await layoutNow(saasId);
      if (layout.shards > 1 && grewAfter === undefined) {
        grewAfter = elapsed();
        spreadAfter = layout.writesFrom - start / 1000;
      }
      // Three seconds of writes on the grown count, then stop.
      if ((spreadAfter !== undefined && elapsed() >= spreadAfter + 3) || elapsed() >= maxSeconds) done = true;
    }
  };
  await Promise.all([watcher(), ...Array.from({ length: concurrency }, worker)]);
  const seconds = elapsed();
  return {
    concurrency,
    seconds,
    created: next,
    perSecond: Array.from(perSecond, (n) => n ?? 0),
    ...(grewAfter === undefined ? {} : { grewAfter, spreadAfter }),
    entriesPerShard: await entriesPerShard(saasId),
  };
}

/** Moves every entry left on shard 0 to its shard among USER_DIRECTORY_SHARDS, as each one's next write would. */
export async function spreadShardZero(saasId: string): Promise<number> {
  const onShardZero = await queryIndexAll(dynamo(), tableName(), { gsi1pk: keys.userDirectoryShardKey(saasId, 0) });
  const moved = onShardZero
    .map((item) => ({ ...item, gsi1pk: keys.userDirectoryShard(saasId, item.id as string, USER_DIRECTORY_SHARDS) }))
    .filter((item, i) => item.gsi1pk !== onShardZero[i]!.gsi1pk);
  await putAll(moved);
  return moved.length;
}
