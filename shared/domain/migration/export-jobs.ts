/**
 * The export as a job (issue 39, docs/migration.md "The export as a job"): started through the API
 * (`POST /migration/exports`, migration:read), written by the scheduled worker into the table in parts of at most
 * PART_BYTES (a store item holds 400 KB), and read back a page at a time (`GET /migration/exports/{job_id}?part=N`)
 * until the file expires. The rows are exports.ts's, so the file is the one `npm run admin -- export` streams.
 *
 * - The seal key comes in the request's body, is kept sealed by the service's box (KMS on AWS) under a context
 *   naming the job, and is deleted when the job is done, as an import job's is: the file's secrets are sealed
 *   under it, and only its holder opens them. A job without one leaves them behind (passwords included).
 * - The worker writes a part and the job's progress in one commit, under the job's lease. A run that stops (its
 *   budget spent, or the function stopped) leaves the parts written; the next one reads the rows again, skips
 *   those written, and goes on after the last one, checked by its identity (rowIdentity). When the SaaS changed so
 *   that the last row written is no longer where it was, the job starts again from its first row: a row is never
 *   lost or written twice.
 * - The file is kept for EXPORT_FILE_SECONDS after the job is done (the items' TTL, and every read checks it).
 */
import { randomUUID } from 'node:crypto';
import { nowMillis, nowSeconds } from '../../clock.js';
import { sealKeyOf } from '../../crypto/export-seal.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { invalid, notFound } from '../../errors.js';
import type { ExportJob, ImportRow } from '../../schemas/migration.js';
import type { ExportOptions } from './exports.js';
import { runInTurn } from './imports.js';

export interface ExportJobRecord {
  id: string;
  state: ExportJob['state'];
  created_at: number;
  created_ms: number;
  finished_at?: number;
  /** Unix seconds: the job and its file are gone from then on (set when it is made, again when it is done). */
  expires_at: number;
  /** The operator's seal key, sealed by the service's box until the job is done, then dropped. */
  sealed_key?: string;
  /** Whether the job was given a seal key: secrets sealed under it, else left behind. */
  seal_key_given: boolean;
  progress: ExportProgress;
}

/** What the parts written so far hold. */
export interface ExportProgress {
  rows: number;
  parts: number;
  by_type: Record<string, number>;
  passwords_withheld: number;
  /** rowIdentity of the last row written: where the next run goes on. */
  last_row: string;
}

export interface ExportPart {
  index: number;
  jsonl: string;
}

export interface ExportJobRepository {
  create(saasId: string, job: ExportJobRecord): Promise<void>;
  get(saasId: string, jobId: string): Promise<ExportJobRecord | undefined>;
  /** The ids of the jobs not done yet, oldest first. */
  unfinished(saasId: string): Promise<string[]>;
  /** Holds the job for this worker until `until` (Unix seconds) unless another holds it; marks it running. */
  claim(saasId: string, jobId: string, holder: string, now: number, until: number): Promise<boolean>;
  /** The part and the job's progress in one commit, while `holder` holds the job (the lease renewed); false when it does not. */
  savePart(
    saasId: string,
    jobId: string,
    holder: string,
    part: ExportPart,
    progress: ExportProgress,
    lease: { until: number; expiresAt: number },
  ): Promise<boolean>;
  /** Parts `from` on, in order, below `below`, until `maxBytes` of text is reached (one at least). */
  parts(saasId: string, jobId: string, from: number, below: number, maxBytes: number): Promise<ExportPart[]>;
  /** Done: the lease and the sealed key dropped, the file kept until `expiresAt`. */
  finish(saasId: string, jobId: string, holder: string, at: number, expiresAt: number): Promise<void>;
}

export interface ExportJobDeps {
  jobs: ExportJobRepository;
  /** Seals the job's seal key while the job needs it. */
  box: SecretBox;
  /** The export's rows (ExportService.rows). */
  rows(saasId: string, options: ExportOptions): AsyncIterable<ImportRow>;
}

export interface ExportRunOptions {
  /** Stop after the part that ends past this time (ms since the epoch): the next run goes on from there. */
  deadline?: number;
  /** Text a part holds before it is written (the tests make it small, to see a job written over several runs). */
  partBytes?: number;
}

/** A part stays under a store item's 400 KB, with room for the row that takes it past this. */
export const PART_BYTES = 256_000;
/** A page of the file in one answer: under a Lambda answer's 6 MB, as the direct export's MAX_EXPORT_BYTES. */
const PAGE_BYTES = 4_000_000;
/** How long the file is kept once the job is done, and a job not done is kept at most. */
export const EXPORT_FILE_SECONDS = 7 * 24 * 3600;
const LEASE_SECONDS = 120;

const sealKeyContext = (saasId: string, jobId: string) => ({ saasId, exportJob: jobId, purpose: 'export seal key' });
const exportNotFound = (jobId: string) => notFound('export_not_found', `no export job with id ${jobId} (or its file has expired)`);

/** The fields that name a row of each type (never its content, which a seal's nonce makes differ on every run). */
const IDENTITY = ['type', 'kind', 'attribute_name', 'role_name', 'external_id', 'id', 'name', 'provider', 'api_key', 'user', 'tenant', 'domain'];

/** Which row this is, the same on every run while the row is there: where a job goes on. */
export function rowIdentity(row: ImportRow): string {
  const fields = row as unknown as Record<string, unknown>;
  return JSON.stringify(IDENTITY.map((field) => (typeof fields[field] === 'object' ? null : (fields[field] ?? null))));
}

const NOTHING_YET: ExportProgress = { rows: 0, parts: 0, by_type: {}, passwords_withheld: 0, last_row: '' };

export function toExportJob(job: ExportJobRecord): ExportJob {
  const { rows, parts, by_type, passwords_withheld } = job.progress;
  return {
    job_id: job.id,
    state: job.state,
    created_at: job.created_at,
    ...(job.finished_at !== undefined ? { finished_at: job.finished_at } : {}),
    expires_at: job.expires_at,
    seal_key: job.seal_key_given,
    rows,
    parts,
    by_type,
    passwords_withheld,
  };
}

export class ExportJobService {
  constructor(private readonly deps: ExportJobDeps) {}

  /** A new job, queued for the worker. */
  async start(saasId: string, options: { seal_key?: string | undefined } = {}): Promise<ExportJob> {
    const key = options.seal_key === undefined ? undefined : sealKeyOf(options.seal_key);
    if (options.seal_key !== undefined && !key) throw invalid('invalid_parameter', 'seal_key: must be base64 of 32 bytes', { field: 'seal_key' });
    const now = nowMillis();
    const id = randomUUID();
    const job: ExportJobRecord = {
      id,
      state: 'queued',
      created_at: Math.floor(now / 1000),
      created_ms: now,
      expires_at: Math.floor(now / 1000) + EXPORT_FILE_SECONDS,
      seal_key_given: key !== undefined,
      ...(key ? { sealed_key: await this.deps.box.seal(key.toString('base64'), sealKeyContext(saasId, id)) } : {}),
      progress: NOTHING_YET,
    };
    await this.deps.jobs.create(saasId, job);
    return toExportJob(job);
  }

  /** The job's state and counts; with `part`, the page of its file from that part on (once done). */
  async get(saasId: string, jobId: string, part?: number): Promise<ExportJob> {
    const job = await this.deps.jobs.get(saasId, jobId);
    if (!job || job.expires_at <= nowSeconds()) throw exportNotFound(jobId);
    const answer = toExportJob(job);
    if (part === undefined) return answer;
    if (job.state !== 'done')
      throw invalid('export_not_done', `part: the job is ${job.state}; its file can be read once it is done`, { field: 'part' });
    if (part >= job.progress.parts) throw notFound('export_part_not_found', `part: the file has parts 0 to ${job.progress.parts - 1}`);
    const parts = await this.deps.jobs.parts(saasId, jobId, part, job.progress.parts, PAGE_BYTES);
    const next = part + parts.length;
    return { ...answer, part, jsonl: parts.map((p) => p.jsonl).join(''), ...(next < job.progress.parts ? { next_part: next } : {}) };
  }

  /** Works on the SaaS's unfinished jobs, oldest first, until done or past the deadline; the number of parts written. */
  async runUnfinished(saasId: string, options: ExportRunOptions = {}): Promise<number> {
    return runInTurn(await this.deps.jobs.unfinished(saasId), options.deadline, (jobId) => this.run(saasId, jobId, options));
  }

  /** Writes the job's rows from where it stopped; the number of parts written. 0 when another worker holds it. */
  async run(saasId: string, jobId: string, options: ExportRunOptions = {}): Promise<number> {
    const job = await this.deps.jobs.get(saasId, jobId);
    if (!job || job.state === 'done') return 0;
    const holder = randomUUID();
    if (!(await this.deps.jobs.claim(saasId, jobId, holder, nowSeconds(), nowSeconds() + LEASE_SECONDS))) return 0;
    const sealKey = job.sealed_key ? sealKeyOf(await this.deps.box.open(job.sealed_key, sealKeyContext(saasId, jobId))) : undefined;
    let written = 0;
    let progress = job.progress;
    for (;;) {
      const outcome = await this.write(saasId, jobId, holder, progress, { ...options, sealKey });
      written += outcome.written;
      if (outcome.end !== 'restart') return written;
      // The last row written is gone from where it was: start again from the first row, over the parts written.
      progress = NOTHING_YET;
    }
  }

  /** The rows after those `from` holds, in parts; how the run ended. */
  private async write(
    saasId: string,
    jobId: string,
    holder: string,
    from: ExportProgress,
    options: ExportRunOptions & { sealKey: Buffer | undefined },
  ): Promise<{ written: number; end: 'done' | 'stopped' | 'restart' }> {
    const { jobs } = this.deps;
    const partBytes = options.partBytes ?? PART_BYTES;
    const progress = { ...from, by_type: { ...from.by_type } };
    let [lines, bytes, written, seen, withheld] = [[] as string[], 0, 0, 0, 0];
    const save = async () => {
      const now = nowSeconds();
      const part = { index: progress.parts, jsonl: lines.join('') };
      const lease = { until: now + LEASE_SECONDS, expiresAt: now + EXPORT_FILE_SECONDS };
      if (!(await jobs.savePart(saasId, jobId, holder, part, { ...progress, parts: progress.parts + 1 }, lease))) return false;
      [lines, bytes, progress.parts, written] = [[], 0, progress.parts + 1, written + 1];
      return true;
    };
    for await (const row of this.deps.rows(saasId, { sealKey: options.sealKey, onPasswordWithheld: () => withheld++ })) {
      seen++;
      if (seen <= from.rows) {
        // Written by an earlier run: counted there.
        withheld = 0;
        if (seen === from.rows && rowIdentity(row) !== from.last_row) return { written, end: 'restart' };
        continue;
      }
      const line = `${JSON.stringify(row)}\n`;
      lines.push(line);
      bytes += Buffer.byteLength(line);
      progress.rows++;
      progress.by_type[row.type] = (progress.by_type[row.type] ?? 0) + 1;
      progress.passwords_withheld += withheld;
      progress.last_row = rowIdentity(row);
      withheld = 0;
      if (bytes < partBytes) continue;
      if (!(await save())) return { written, end: 'stopped' };
      if (options.deadline !== undefined && Date.now() > options.deadline) {
        // Let go at once, so the next run need not wait for the lease to lapse.
        await jobs.claim(saasId, jobId, holder, nowSeconds(), nowSeconds() - 1);
        return { written, end: 'stopped' };
      }
    }
    if (seen < from.rows) return { written, end: 'restart' };
    // The last part, or the one empty part of a file with no rows.
    if ((lines.length > 0 || progress.parts === 0) && !(await save())) return { written, end: 'stopped' };
    await jobs.finish(saasId, jobId, holder, nowSeconds(), nowSeconds() + EXPORT_FILE_SECONDS);
    return { written, end: 'done' };
  }
}
