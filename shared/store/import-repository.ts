/**
 * Import jobs (domain/migration/imports.ts) in the table: the job item with its counts and lease, and the file's
 * parts in a partition of their own. A done part drops its text and keeps its failed rows, so the report is
 * read from the parts and the job item stays small.
 */
import { atomicWrite } from '../domain/atomic.js';
import type { CountsByType, ImportCounts, ImportJobRecord, ImportPart, ImportRepository, RowError } from '../domain/migration/imports.js';
import { batchPut } from './batch.js';
import { unlessConditionFails } from './conditional.js';
import { GetCommand, PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { ENTITY, keys, withoutKeys, type ItemKey } from './keys.js';
import { partitionQuery, queryAll, queryPages } from './query.js';
import { projection } from './user-repository.js';
import { DynamoCommitter, update, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';
import { byCreation, createdMs } from '../domain/creation-order.js';

const PART_OPEN: Condition = { expression: 'attribute_not_exists(#done)', names: { '#done': 'done' } };

/** A count of one type of row and one outcome: an attribute of its own, so each part's commit can ADD to it. */
const COUNT = /^count:([a-z_]+):(imported|unchanged|failed)$/;
const countName = (type: string, outcome: keyof ImportCounts) => `count:${type}:${outcome}`;

const toJob = (item: Record<string, unknown>): ImportJobRecord => {
  const { lease_holder: _holder, lease_until: _until, ...job } = withoutKeys<ImportJobRecord & { lease_holder?: string; lease_until?: number }>(item);
  const byType: Record<string, ImportCounts> = {};
  for (const [name, value] of Object.entries(job)) {
    const match = COUNT.exec(name);
    if (!match) continue;
    delete (job as Record<string, unknown>)[name];
    (byType[match[1] as string] ??= { imported: 0, unchanged: 0, failed: 0 })[match[2] as keyof ImportCounts] = Number(value);
  }
  return { ...job, by_type: byType as CountsByType };
};

/**
 * Holds a job item (an import's, or an export's: store/export-job-repository.ts) for `holder` until `until` unless
 * another holds it or it is done; marks it running.
 */
export function claimJob(db: DynamoClient, table: string, key: ItemKey, holder: string, now: number, until: number): Promise<boolean> {
  const change = new Update().set('state', 'running').set('lease_holder', holder).set('lease_until', until);
  const free: Condition = {
    expression: '#state <> :done AND (attribute_not_exists(#until) OR #until < :now OR #holder = :holder)',
    names: { '#state': 'state', '#until': 'lease_until', '#holder': 'lease_holder' },
    values: { ':done': 'done', ':now': now, ':holder': holder },
  };
  return unlessConditionFails(() => db.send(new UpdateCommand(updateRequest(table, key, change, free))));
}

/** Oldest first: jobs made within one second keep their order. */
const oldestFirst = byCreation<ImportJobRecord>((job) => createdMs(job.created_ms, job.created_at));

export class DynamoImportRepository implements ImportRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  /** The parts first: a worker that sees the job sees all of them. */
  async create(saasId: string, job: ImportJobRecord, parts: readonly ImportPart[]): Promise<void> {
    await batchPut(
      this.db,
      this.table,
      parts.map((part) => ({ ...keys.importPart(saasId, job.id, part.index), entity: ENTITY.importPart, v: 1, ...part })),
    );
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: { ...keys.importJob(saasId, job.id), entity: ENTITY.importJob, v: 1, ...job } }),
    );
  }

  async get(saasId: string, jobId: string): Promise<ImportJobRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.importJob(saasId, jobId), ConsistentRead: true }));
    return out.Item ? toJob(out.Item) : undefined;
  }

  async list(saasId: string): Promise<ImportJobRecord[]> {
    const jobs = (await queryAll(this.db, this.table, keys.importJobs(saasId))).map(toJob);
    return jobs.sort((a, b) => oldestFirst(b, a));
  }

  async unfinished(saasId: string): Promise<string[]> {
    const jobs = (await queryAll(this.db, this.table, keys.importJobs(saasId))).map(toJob).filter((job) => job.state !== 'done');
    return jobs.sort(oldestFirst).map((job) => job.id);
  }

  async pendingParts(saasId: string, jobId: string): Promise<ImportPart[]> {
    const parts: ImportPart[] = [];
    const input = {
      ...partitionQuery(this.table, keys.importParts(saasId, jobId)),
      ConsistentRead: true,
      FilterExpression: 'attribute_not_exists(#done)',
      ExpressionAttributeNames: { '#done': 'done' },
    };
    for await (const page of queryPages(this.db, input)) parts.push(...page.map((item) => withoutKeys<ImportPart>(item)));
    return parts;
  }

  async errors(saasId: string, jobId: string, limit: number): Promise<RowError[]> {
    const found: RowError[] = [];
    const input = { ...partitionQuery(this.table, keys.importParts(saasId, jobId)), ...projection(['errors']) };
    for await (const page of queryPages(this.db, input)) {
      for (const item of page) found.push(...((item.errors as RowError[] | undefined) ?? []));
      if (found.length >= limit) break;
    }
    return found.slice(0, limit);
  }

  claim(saasId: string, jobId: string, holder: string, now: number, until: number): Promise<boolean> {
    return claimJob(this.db, this.table, keys.importJob(saasId, jobId), holder, now, until);
  }

  async finishPart(
    saasId: string,
    jobId: string,
    index: number,
    counts: ImportCounts,
    errors: readonly RowError[],
    byType: CountsByType = {},
  ): Promise<void> {
    const part = new Update().set('done', true).set('errors', errors).remove('text');
    const job = new Update().add('imported', counts.imported).add('unchanged', counts.unchanged).add('failed', counts.failed);
    for (const [type, typeCounts] of Object.entries(byType)) {
      for (const outcome of ['imported', 'unchanged', 'failed'] as const)
        if (typeCounts[outcome] > 0) job.add(countName(type, outcome), typeCounts[outcome]);
    }
    // Refused only when the part is done already: its counts are in the job, and stay counted once.
    await new DynamoCommitter(this.db).commit(
      atomicWrite(
        update(this.table, keys.importPart(saasId, jobId, index), part, PART_OPEN, 'part_open'),
        update(this.table, keys.importJob(saasId, jobId), job, { expression: 'attribute_exists(pk)' }, 'job_exists'),
      ),
    );
  }

  async finish(saasId: string, jobId: string, at: number): Promise<void> {
    // The operator's seal key is kept no longer than the job needs it.
    const change = new Update().set('state', 'done').set('finished_at', at).remove('lease_holder').remove('lease_until').remove('sealed_key');
    await this.db.send(new UpdateCommand(updateRequest(this.table, keys.importJob(saasId, jobId), change, { expression: 'attribute_exists(pk)' })));
  }
}
