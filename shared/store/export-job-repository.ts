/**
 * Export jobs (domain/migration/export-jobs.ts) in the table: the job item with its progress and lease, and the
 * file's parts in a partition of their own, each written in one commit with the progress it makes. Both carry the
 * TTL of the file, so DynamoDB removes what a job left (and every read checks the job's own expiry first).
 */
import { atomicWrite } from '../domain/atomic.js';
import type { ExportJobRecord, ExportJobRepository, ExportPart, ExportProgress } from '../domain/migration/export-jobs.js';
import { byCreation, createdMs } from '../domain/creation-order.js';
import { GetCommand, PutCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { claimJob } from './import-repository.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys } from './keys.js';
import { partitionQuery, queryAll, queryPages } from './query.js';
import { DynamoCommitter, part, update, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';

const toJob = (item: Record<string, unknown>): ExportJobRecord => {
  const { lease_holder: _holder, lease_until: _until, [TTL_ATTRIBUTE]: _ttl, ...job } = withoutKeys<Record<string, unknown>>(item);
  return job as unknown as ExportJobRecord;
};

const oldestFirst = byCreation<ExportJobRecord>((job) => createdMs(job.created_ms, job.created_at));
const heldBy = (holder: string): Condition => ({
  expression: '#holder = :holder',
  names: { '#holder': 'lease_holder' },
  values: { ':holder': holder },
});

export class DynamoExportJobRepository implements ExportJobRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async create(saasId: string, job: ExportJobRecord): Promise<void> {
    const item = { ...keys.exportJob(saasId, job.id), entity: ENTITY.exportJob, v: 1, ...job, [TTL_ATTRIBUTE]: job.expires_at };
    await this.db.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  async get(saasId: string, jobId: string): Promise<ExportJobRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.exportJob(saasId, jobId), ConsistentRead: true }));
    return out.Item ? toJob(out.Item) : undefined;
  }

  async unfinished(saasId: string): Promise<string[]> {
    const jobs = (await queryAll(this.db, this.table, keys.exportJobs(saasId))).map(toJob).filter((job) => job.state !== 'done');
    return jobs.sort(oldestFirst).map((job) => job.id);
  }

  claim(saasId: string, jobId: string, holder: string, now: number, until: number): Promise<boolean> {
    return claimJob(this.db, this.table, keys.exportJob(saasId, jobId), holder, now, until);
  }

  async savePart(
    saasId: string,
    jobId: string,
    holder: string,
    filePart: ExportPart,
    progress: ExportProgress,
    lease: { until: number; expiresAt: number },
  ): Promise<boolean> {
    const item = {
      ...keys.exportPart(saasId, jobId, filePart.index),
      entity: ENTITY.exportPart,
      v: 1,
      ...filePart,
      [TTL_ATTRIBUTE]: lease.expiresAt,
    };
    const job = new Update().set('progress', progress).set('lease_until', lease.until);
    // A part written again (a job started over) replaces the one there; only the job's holder writes.
    const outcome = await new DynamoCommitter(this.db).commit(
      atomicWrite(
        part('part', { Put: { TableName: this.table, Item: item } }),
        update(this.table, keys.exportJob(saasId, jobId), job, heldBy(holder), 'held'),
      ),
    );
    return outcome.committed;
  }

  async parts(saasId: string, jobId: string, from: number, below: number, maxBytes: number): Promise<ExportPart[]> {
    const found: ExportPart[] = [];
    let bytes = 0;
    const where = keys.exportParts(saasId, jobId);
    const input = {
      ...partitionQuery(this.table, where),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :last',
      ExpressionAttributeValues: {
        ':pk': where.pk,
        ':from': keys.exportPart(saasId, jobId, from).sk,
        ':last': keys.exportPart(saasId, jobId, below - 1).sk,
      },
      ConsistentRead: true,
    };
    for await (const page of queryPages(this.db, input)) {
      for (const item of page) {
        const filePart = withoutKeys<ExportPart & { [TTL_ATTRIBUTE]?: number }>(item);
        const size = Buffer.byteLength(filePart.jsonl);
        if (found.length > 0 && bytes + size > maxBytes) return found;
        found.push({ index: filePart.index, jsonl: filePart.jsonl });
        bytes += size;
      }
    }
    return found;
  }

  async finish(saasId: string, jobId: string, holder: string, at: number, expiresAt: number): Promise<void> {
    // The operator's seal key is kept no longer than the job needs it.
    const change = new Update()
      .set('state', 'done')
      .set('finished_at', at)
      .set('expires_at', expiresAt)
      .set(TTL_ATTRIBUTE, expiresAt)
      .remove('lease_holder')
      .remove('lease_until')
      .remove('sealed_key');
    await this.db.send(new UpdateCommand(updateRequest(this.table, keys.exportJob(saasId, jobId), change, heldBy(holder))));
  }
}
