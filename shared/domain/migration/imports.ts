/**
 * The import job (issue 39, docs/migration.md): a JSON Lines file of users with their password hashes,
 * tenants, memberships and definitions, brought in as a job that outlives any one request. The file is kept in
 * parts (a store item holds 400 KB at most); the scheduled worker, or the admin command in its own process,
 * works through them in order.
 *
 * - Every row is imported whole or not at all. Tenants, users and memberships go many rows to a transaction
 *   (committer.commitEach, docs/decisions.md 16), after one read for the rows there already.
 * - A bad row is reported with its line number and reason, and the rest go on.
 * - Ids are derived from the row's `external_id` (externalId below), so a second run of the same file meets
 *   what the first made and leaves it as it is: counted `unchanged`.
 * - A part is marked done in the same commit that adds its counts to the job, so a part worked twice (two
 *   workers, or one stopped halfway) is counted once.
 */
import { randomUUID } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { nowMillis, nowSeconds } from '../../clock.js';
import { importedHashProblem, type ImportedPasswordHash } from '../../crypto/imported-hash.js';
import { DomainError, invalid, notFound } from '../../errors.js';
import {
  ROW_SCHEMAS,
  type CatalogueRowType,
  type InvitationRow,
  type ImportJob,
  type ImportRow,
  type MembershipRow,
  type RowType,
  type SealedPasswordHash,
  type TenantRow,
  type UserRow,
} from '../../schemas/migration.js';
import type { Attribute } from '../../schemas/definitions.js';
import { RULE, type AtomicWrite, type CommitOutcome, type Committer } from '../atomic.js';
import { checkAttributeValues } from '../attributes.js';
import type { AttributeKind, DefinitionRepository } from '../configuration/definitions.js';
import type { TenantRepository, TenantRecord } from '../tenants/tenants.js';
import { membershipRefusal, type MembershipRepository, type NewMembership } from '../tenants/tenant-users.js';
import { openFromExport, sealKeyOf } from '../../crypto/export-seal.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { PASSKEY_RULE, passkeyId, type PasskeyRepository } from '../sign-in/passkeys.js';
import type { CatalogueService } from '../pricing/catalogue.js';
import type { CatalogueKind } from '../pricing/catalogue-records.js';
import type { InvitationService } from '../tenants/invitations.js';
import { applySettingRow, type SettingPorts } from './setting-rows.js';
import { applyIntegrationRow, type IntegrationPorts } from './integration-rows.js';
import { applyEnterpriseRow, type EnterprisePorts } from './enterprise-rows.js';
import { openPasswordHash } from './password-seal.js';
import { externalId } from './external-id.js';
import { ENTERPRISE_ROW_TYPES } from '../../schemas/migration-enterprise.js';
import {
  emailAddress,
  loginFromRequest,
  loginTaken,
  totpSecretContext,
  type MfaSettings,
  type UserRecord,
  type UserRepository,
} from '../users/users.js';

export type ImportState = ImportJob['state'];

export interface RowError {
  line: number;
  reason: string;
}

export interface ImportCounts {
  imported: number;
  unchanged: number;
  failed: number;
}

/** The counts of each type of row (a line that is no row of any type counts only in the job's `failed`). */
export type CountsByType = Partial<Record<RowType, ImportCounts>>;

/** The part's rows counted by type: each by its outcome, or failed when its line was refused. */
function countsByType(rows: ReadonlyMap<RowType, readonly { line: number }[]>, outcomes: ReadonlyMap<number, Outcome>, errors: readonly RowError[]) {
  const refused = new Set(errors.map((error) => error.line));
  const byType: CountsByType = {};
  for (const [type, lines] of rows) {
    for (const { line } of lines) {
      const outcome = outcomes.get(line) ?? (refused.has(line) ? 'failed' : undefined);
      if (outcome) (byType[type] ??= { imported: 0, unchanged: 0, failed: 0 })[outcome]++;
    }
  }
  return byType;
}

export interface ImportJobRecord extends ImportCounts {
  id: string;
  state: ImportState;
  created_at: number;
  /** When it was made, in milliseconds: the order of jobs made within one second (absent on none so far). */
  created_ms?: number;
  finished_at?: number;
  lines: number;
  parts: number;
  /** Each user it makes with an e-mail address and no password is mailed a link to set one. */
  mail_set_password?: boolean;
  /** The operator's seal key (export-seal.ts), sealed by the service's box until the job is done, then dropped. */
  sealed_key?: string;
  /** The counts by type of row, over the parts done. */
  by_type?: CountsByType;
  /** Started by the operator (npm run admin -- import), not through the API: only such a job takes API keys. */
  operator?: boolean;
}

/** What the one starting a job chooses. */
export interface ImportOptions {
  mail_set_password?: boolean;
  /** The export's seal key, base64: opens the file's sealed TOTP seeds. */
  seal_key?: string | undefined;
  /** The admin command's own: never set from a request (integration-rows.ts, API keys). */
  operator?: boolean;
}

export interface ImportPart {
  index: number;
  /** The number of the part's first line in the file, from 1. */
  first_line: number;
  text: string;
  /** Lines over MAX_LINE_BYTES, kept empty in `text`: failed rows of their own. */
  too_long?: number[];
}

export interface ImportRepository {
  create(saasId: string, job: ImportJobRecord, parts: readonly ImportPart[]): Promise<void>;
  get(saasId: string, jobId: string): Promise<ImportJobRecord | undefined>;
  /** Newest first. */
  list(saasId: string): Promise<ImportJobRecord[]>;
  /** The ids of the jobs not done yet, oldest first. */
  unfinished(saasId: string): Promise<string[]>;
  /** The parts not done yet, in file order. */
  pendingParts(saasId: string, jobId: string): Promise<ImportPart[]>;
  /** Up to `limit` failed rows, in file order. */
  errors(saasId: string, jobId: string, limit: number): Promise<RowError[]>;
  /** Holds the job for this worker until `until` (Unix seconds) unless another holds it; marks it running. */
  claim(saasId: string, jobId: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Marks the part done with its errors and adds its counts (and by type) to the job, in one commit; a part done already changes nothing. */
  finishPart(saasId: string, jobId: string, index: number, counts: ImportCounts, errors: readonly RowError[], byType?: CountsByType): Promise<void>;
  finish(saasId: string, jobId: string, at: number): Promise<void>;
}

export interface ImportDeps {
  imports: ImportRepository;
  users: UserRepository;
  tenants: TenantRepository;
  memberships: Pick<MembershipRepository, 'present'>;
  definitions: DefinitionRepository;
  committer: Committer;
  /** A membership's writes as tenant users make them (tenant-users.ts prepareMembership): throws its DomainErrors. */
  prepareMember(saasId: string, membership: NewMembership): Promise<AtomicWrite[]>;
  /** Whether the SaaS's pricing catalogue has the plan. */
  planExists(saasId: string, planId: string): Promise<boolean>;
  /** Turns password sign-in on (unless the SaaS set it), so imported users can sign in the first time. */
  allowPasswordSignIn(saasId: string): Promise<void>;
  /** Mails the user a link to set a password (user-flows.ts mailSetPasswordLink): throws its DomainErrors. */
  mailSetPassword(saasId: string, user: Pick<UserRecord, 'id' | 'email'>): Promise<void>;
  /** Seals the job's seal key and the users' TOTP seeds as the service keeps them. */
  box: SecretBox;
  passkeys: Pick<PasskeyRepository, 'importWrite'>;
  /** The SaaS's settings, set as their calls set them (setting-rows.ts). */
  settings: SettingPorts;
  catalogue: Pick<CatalogueService, 'importItem'>;
  invitations: Pick<InvitationService, 'importOpen'>;
  /** Webhooks, API keys and the payment provider (integration-rows.ts). */
  integration: IntegrationPorts;
  /** Tenants' own identity providers, domains and SCIM set-up (enterprise-rows.ts). */
  enterprise: EnterprisePorts;
}

export interface RunOptions {
  /** Rows of the kinds not batched (attributes, roles, envs) committed side by side, and rows prepared side by side. */
  concurrency?: number;
  /** Stop after the part that ends past this time (ms since the epoch): the next run goes on from there. */
  deadline?: number;
  /** After each part: lines worked through so far, of all. */
  onProgress?(done: number, total: number): void;
}

/** A part's text stays under this, so a done part's errors fit beside it in one item. */
export const PART_BYTES = 200_000;
/** A longer line is refused as it stands, never stored. */
export const MAX_LINE_BYTES = 16_384;
/** The job's answer lists this many failed rows; the counts cover them all. */
export const REPORTED_ERRORS = 1000;
const REASON_CHARS = 300;
const LEASE_SECONDS = 120;
const DEFAULT_CONCURRENCY = 16;

const CATALOGUE_ROWS: readonly CatalogueRowType[] = ['tax_rate', 'metering_unit', 'pricing_unit', 'pricing_menu', 'pricing_plan'];
const INTEGRATION_ROWS: readonly RowType[] = ['payment_provider', 'webhook', 'api_key'];
/** The order rows of one part are written in: what a row names is written before it. */
const ROW_ORDER: readonly RowType[] = [
  'attribute',
  'role',
  'env',
  'setting',
  ...INTEGRATION_ROWS,
  ...CATALOGUE_ROWS,
  'tenant',
  'user',
  'membership',
  'invitation',
  ...ENTERPRISE_ROW_TYPES,
];
/**
 * Rows written one at a time: attributes change what later rows are checked against, a setting row reads and
 * writes the import's marks, the catalogue is one document that a change reads whole (side by side, its
 * writes would only retry each other), and webhooks are counted against their limit before each is written.
 * A SCIM member row reads the user's other memberships to tell whether to disable them.
 */
const ONE_AT_A_TIME: ReadonlySet<RowType> = new Set(['attribute', 'setting', ...INTEGRATION_ROWS, ...CATALOGUE_ROWS, 'scim_member']);
const CATALOGUE_KIND: Record<CatalogueRowType, CatalogueKind> = {
  tax_rate: 'taxRate',
  metering_unit: 'meter',
  pricing_unit: 'unit',
  pricing_menu: 'menu',
  pricing_plan: 'plan',
};
/** The kinds of row written many to a commit (committer.commitEach), after one read for those there already. */
const BATCHED: ReadonlySet<RowType> = new Set(['tenant', 'user', 'membership']);

const checkers = Object.fromEntries(Object.entries(ROW_SCHEMAS).map(([type, schema]) => [type, TypeCompiler.Compile(schema as TSchema)]));

/** The file cut into parts at line ends; each line over MAX_LINE_BYTES is kept as an empty line and reported. */
export function splitIntoParts(jsonl: string): { parts: ImportPart[]; lines: number } {
  const lines = jsonl.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const parts: ImportPart[] = [];
  let current: string[] = [];
  let tooLong: number[] = [];
  let bytes = 0;
  let first = 1;
  const close = () =>
    parts.push({ index: parts.length, first_line: first, text: current.join('\n'), ...(tooLong.length ? { too_long: tooLong } : {}) });
  lines.forEach((raw, i) => {
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    let size = Buffer.byteLength(line);
    if (bytes + Math.min(size, MAX_LINE_BYTES) > PART_BYTES && current.length > 0) {
      close();
      [current, tooLong, bytes, first] = [[], [], 0, i + 1];
    }
    if (size > MAX_LINE_BYTES) {
      tooLong.push(i + 1);
      [line, size] = ['', 0];
    }
    current.push(line);
    bytes += size + 1;
  });
  if (current.length > 0) close();
  return { parts, lines: lines.length };
}

/** A row of the file, or why it is not one. */
export function parseRow(line: string): ImportRow | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const type = (value as { type?: unknown }).type;
  const checker = typeof type === 'string' ? checkers[type] : undefined;
  if (!checker) return `type must be one of ${Object.keys(ROW_SCHEMAS).join(', ')}`;
  const error = checker.Errors(value).First();
  if (!error) return value as ImportRow;
  // A union's error says only that no variant fits: the hash's own check says what is wrong with it.
  const hash = (value as { password_hash?: ImportedPasswordHash | SealedPasswordHash }).password_hash;
  if (error.path.startsWith('/password_hash') && hash && typeof hash === 'object')
    return hash.algorithm === 'sealed'
      ? 'password_hash: a sealed hash is {"algorithm": "sealed", "value": "v1.…"} and nothing else'
      : `password_hash: ${importedHashProblem(hash) ?? error.message}`;
  if (error.path === '/created_at') return 'created_at: must be Unix seconds or an ISO 8601 time';
  return `${error.path.slice(1).replaceAll('/', '.') || 'row'}: ${error.message}`;
}

/** The user rows that are the first in the part to give their sign-in name, and the rest, in file order. */
function firstOfEachName<T extends { row: ImportRow }>(rows: readonly T[]): [T[], T[]] {
  const seen = new Set<string>();
  const firsts: T[] = [];
  const repeats: T[] = [];
  for (const entry of rows) {
    const row = entry.row as UserRow;
    const name = `${row.email?.trim().toLowerCase() ?? ''}\n${row.sign_in_id?.toLowerCase() ?? ''}`;
    (seen.has(name) ? repeats : firsts).push(entry);
    seen.add(name);
  }
  return [firsts, repeats];
}

/** The secret box context of a job's seal key: it opens for that job of that SaaS only. */
const sealKeyContext = (saasId: string, jobId: string) => ({ saasId, importJob: jobId, purpose: 'import seal key' });

export const importNotFound = (jobId: string) => notFound('import_not_found', `no import job with id ${jobId}`);

type Outcome = 'imported' | 'unchanged';

/** A row checked and ready to commit: what tells whether it is there already, its writes, and what its commit's outcome makes of it. */
interface PreparedRow {
  /** Built only for a row that is not there already: a user's counts toward the directory's write rate. */
  writes(): Promise<AtomicWrite[]>;
  there: { tenant: string } | { user: string } | { membership: { tenantId: string; userId: string } };
  settle(outcome: CommitOutcome): Promise<Outcome>;
}

/** `work` for each item, `width` at a time, each taking the next as soon as its last is done; results in order. */
async function eachAtMost<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/** What a part's rows read once: the definitions their values are checked against. */
interface PartContext {
  attributes(kind: AttributeKind): Promise<Attribute[]>;
  /** The job's choice: mail each new user without a password a link to set one. */
  mailSetPassword: boolean;
  /** The operator's seal key, when the job was given one. */
  sealKey: Buffer | undefined;
  /** Started by the admin command (ImportJobRecord.operator). */
  operator: boolean;
}

/** `run` for each job in turn until the deadline (ms since the epoch) is past: the parts they did, summed (an export job's too). */
export async function runInTurn(jobIds: readonly string[], deadline: number | undefined, run: (jobId: string) => Promise<number>): Promise<number> {
  let done = 0;
  for (const jobId of jobIds) {
    if (deadline !== undefined && Date.now() > deadline) break;
    done += await run(jobId);
  }
  return done;
}

export class ImportService {
  constructor(private readonly deps: ImportDeps) {}

  /** A new job over the file, queued for the worker. */
  async start(saasId: string, jsonl: string, options: ImportOptions = {}): Promise<ImportJob> {
    const { parts, lines } = splitIntoParts(jsonl);
    if (lines === 0) throw invalid('invalid_parameter', 'jsonl: the file has no lines', { field: 'jsonl' });
    const now = nowMillis();
    const id = randomUUID();
    const key = options.seal_key === undefined ? undefined : sealKeyOf(options.seal_key);
    if (options.seal_key !== undefined && !key) throw invalid('invalid_parameter', 'seal_key: must be base64 of 32 bytes', { field: 'seal_key' });
    const job: ImportJobRecord = {
      id,
      state: 'queued',
      created_at: Math.floor(now / 1000),
      created_ms: now,
      lines,
      parts: parts.length,
      imported: 0,
      unchanged: 0,
      failed: 0,
      ...(options.mail_set_password ? { mail_set_password: true } : {}),
      ...(options.operator ? { operator: true } : {}),
      ...(key ? { sealed_key: await this.deps.box.seal(key.toString('base64'), sealKeyContext(saasId, id)) } : {}),
    };
    await this.deps.imports.create(saasId, job, parts);
    await this.deps.allowPasswordSignIn(saasId);
    return this.answer(saasId, job);
  }

  async get(saasId: string, jobId: string): Promise<ImportJob> {
    const job = await this.deps.imports.get(saasId, jobId);
    if (!job) throw importNotFound(jobId);
    return this.answer(saasId, job);
  }

  async list(saasId: string): Promise<ImportJob[]> {
    return (await this.deps.imports.list(saasId)).map((job) => toImportJob(job));
  }

  private async answer(saasId: string, job: ImportJobRecord): Promise<ImportJob> {
    return toImportJob(job, job.failed > 0 ? await this.deps.imports.errors(saasId, job.id, REPORTED_ERRORS) : []);
  }

  /** Works on the SaaS's unfinished jobs, oldest first, until done or past the deadline; the number of parts done. */
  async runUnfinished(saasId: string, options: RunOptions = {}): Promise<number> {
    return runInTurn(await this.deps.imports.unfinished(saasId), options.deadline, (jobId) => this.run(saasId, jobId, options));
  }

  /** Works through the job's parts left; the number of parts done. 0 when another worker holds it. */
  async run(saasId: string, jobId: string, options: RunOptions = {}): Promise<number> {
    const job = await this.deps.imports.get(saasId, jobId);
    if (!job) throw importNotFound(jobId);
    if (job.state === 'done') return 0;
    const holder = randomUUID();
    const hold = () => this.deps.imports.claim(saasId, jobId, holder, nowSeconds(), nowSeconds() + LEASE_SECONDS);
    if (!(await hold())) return 0;
    const sealKey = job.sealed_key ? sealKeyOf(await this.deps.box.open(job.sealed_key, sealKeyContext(saasId, jobId))) : undefined;
    const pending = await this.deps.imports.pendingParts(saasId, jobId);
    let linesDone = pending.length > 0 ? (pending[0] as ImportPart).first_line - 1 : job.lines;
    let done = 0;
    for (const part of pending) {
      const { counts, errors, byType } = await this.runPart(saasId, { ...job, sealKey }, part, options.concurrency ?? DEFAULT_CONCURRENCY);
      await this.deps.imports.finishPart(saasId, jobId, part.index, counts, errors, byType);
      done++;
      linesDone += part.text.split('\n').length;
      options.onProgress?.(linesDone, job.lines);
      if (options.deadline !== undefined && Date.now() > options.deadline) {
        // Let go at once, so the next run (a minute on) need not wait for the lease to lapse.
        await this.deps.imports.claim(saasId, jobId, holder, nowSeconds(), nowSeconds() - 1);
        return done;
      }
      if (!(await hold())) return done;
    }
    await this.deps.imports.finish(saasId, jobId, nowSeconds());
    return done;
  }

  private async runPart(
    saasId: string,
    job: ImportJobRecord & { sealKey: Buffer | undefined },
    part: ImportPart,
    concurrency: number,
  ): Promise<{ counts: ImportCounts; errors: RowError[]; byType: CountsByType }> {
    const counts: ImportCounts = { imported: 0, unchanged: 0, failed: 0 };
    const outcomeOf = new Map<number, Outcome>();
    const errors: RowError[] = (part.too_long ?? []).map((line) => ({ line, reason: `longer than ${MAX_LINE_BYTES} bytes` }));
    const byType = new Map<RowType, { line: number; row: ImportRow }[]>();
    part.text.split('\n').forEach((text, i) => {
      const line = part.first_line + i;
      if (text.trim() === '') return;
      const row = parseRow(text);
      if (typeof row === 'string') errors.push({ line, reason: row });
      else if (byType.has(row.type)) byType.get(row.type)?.push({ line, row });
      else byType.set(row.type, [{ line, row }]);
    });
    const definitions = new Map<AttributeKind, Promise<Attribute[]>>();
    const context: PartContext = {
      attributes: (kind) => {
        if (!definitions.has(kind)) definitions.set(kind, this.deps.definitions.listAttributes(saasId, kind));
        return definitions.get(kind) as Promise<Attribute[]>;
      },
      mailSetPassword: job.mail_set_password === true,
      sealKey: job.sealKey,
      operator: job.operator === true,
    };
    /** What `work` makes of the row, or its DomainError reported against its line (undefined then). */
    const reported = async <T>(line: number, work: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await work();
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        errors.push({ line, reason: error.message.slice(0, REASON_CHARS) });
        return undefined;
      }
    };
    const count = (line: number, outcome: Outcome | undefined) => {
      if (!outcome) return;
      counts[outcome]++;
      outcomeOf.set(line, outcome);
    };
    // `width` writers, each taking the next row as soon as its last one is written (no batch waits for its slowest).
    const writeAll = (rows: readonly { line: number; row: ImportRow }[], width: number) =>
      eachAtMost(rows, width, async ({ line, row }) => count(line, await reported(line, () => this.write(saasId, row, context))));
    // Many rows to a commit: every row prepared (its errors reported), one read for the rows there already
    // (unchanged), the rest committed each whole, many to a transaction, and each settled by its own outcome.
    const writeBatched = async (rows: readonly { line: number; row: ImportRow }[]) => {
      const prepared = await eachAtMost(rows, concurrency, async ({ line, row }) => {
        const ready = await reported(line, () => this.prepare(saasId, row, context));
        return ready && { line, ready };
      });
      const ready = prepared.filter((entry) => entry !== undefined);
      const there = await this.thereAlready(
        saasId,
        ready.map((entry) => entry.ready),
      );
      const todo = ready.filter((_, i) => !there[i]);
      ready.forEach((entry, i) => there[i] && count(entry.line, 'unchanged'));
      const writes = await eachAtMost(todo, concurrency, (entry) => entry.ready.writes());
      const outcomes = await this.deps.committer.commitEach(writes);
      const settled = todo.map((entry, i) => ({ ...entry, outcome: outcomes[i] as CommitOutcome }));
      await eachAtMost(settled, concurrency, async ({ line, ready, outcome }) => count(line, await reported(line, () => ready.settle(outcome))));
    };
    for (const type of ROW_ORDER) {
      const rows = byType.get(type) ?? [];
      if (ONE_AT_A_TIME.has(type)) {
        await writeAll(rows, 1);
        if (type === 'attribute' && rows.length > 0) definitions.clear();
        continue;
      }
      // Rows side by side would race for a sign-in name two of them give: the earlier line must win, so a
      // name's later rows wait until every first one is written.
      const [firsts, repeats] = type === 'user' ? firstOfEachName(rows) : [rows, []];
      await (BATCHED.has(type) ? writeBatched(firsts) : writeAll(firsts, concurrency));
      await writeAll(repeats, 1);
    }
    errors.sort((a, b) => a.line - b.line);
    counts.failed = errors.length;
    return { counts, errors, byType: countsByType(byType, outcomeOf, errors) };
  }

  /** One row, in one commit; a DomainError names what is wrong with it. */
  private async write(saasId: string, row: ImportRow, context: PartContext): Promise<Outcome> {
    switch (row.type) {
      case 'attribute': {
        const { type: _type, kind, ...attribute } = row;
        return (await this.deps.definitions.createAttribute(saasId, kind, attribute)) === 'created' ? 'imported' : 'unchanged';
      }
      case 'role': {
        const { type: _type, ...role } = row;
        return (await this.deps.definitions.createRole(saasId, role)) === 'created' ? 'imported' : 'unchanged';
      }
      case 'env': {
        const { type: _type, ...env } = row;
        return (await this.deps.definitions.createEnv(saasId, env)) === 'created' ? 'imported' : 'unchanged';
      }
      case 'tenant':
      case 'user':
      case 'membership': {
        const ready = await this.prepare(saasId, row, context);
        return ready.settle(await this.deps.committer.commit(...(await ready.writes())));
      }
      case 'setting':
        return applySettingRow(this.deps.settings, saasId, row, context.sealKey);
      case 'tax_rate':
      case 'metering_unit':
      case 'pricing_unit':
      case 'pricing_menu':
      case 'pricing_plan': {
        const base = { id: row.id, created_at: row.created_at ?? nowSeconds(), used: row.used ?? false };
        const made = await this.deps.catalogue.importItem(saasId, CATALOGUE_KIND[row.type], base, row.item as never);
        return made === 'created' ? 'imported' : 'unchanged';
      }
      case 'invitation':
        return this.writeInvitation(saasId, row);
      case 'payment_provider':
      case 'webhook':
      case 'api_key':
        return applyIntegrationRow(this.deps.integration, saasId, row, context);
      case 'tenant_saml':
      case 'tenant_oidc':
      case 'tenant_domain':
      case 'scim_tokens':
      case 'scim_group':
      case 'scim_member':
        return applyEnterpriseRow(this.deps.enterprise, saasId, row, context.sealKey, {
          tenant: (external) => externalId(saasId, 'tenant', external),
          user: (external) => externalId(saasId, 'user', external),
        });
    }
  }

  private async writeInvitation(saasId: string, row: InvitationRow): Promise<Outcome> {
    try {
      const made = await this.deps.invitations.importOpen(saasId, {
        id: row.id,
        tenant_id: externalId(saasId, 'tenant', row.tenant),
        inviter_id: row.inviter === undefined ? '' : externalId(saasId, 'user', row.inviter),
        email: row.email,
        envs: row.envs,
        created_at: row.created_at,
        expired_at: row.expired_at,
      });
      return made === 'created' ? 'imported' : 'unchanged';
    } catch (error) {
      if (error instanceof DomainError && error.code === 'tenant_not_found')
        throw notFound('tenant_not_found', `tenant: no tenant row ${row.tenant}`);
      throw error;
    }
  }

  /** A row of a kind in BATCHED, ready to commit; a DomainError names what is wrong with it. */
  private prepare(saasId: string, row: ImportRow, context: PartContext): Promise<PreparedRow> {
    if (row.type === 'tenant') return this.prepareTenant(saasId, row, context);
    if (row.type === 'user') return this.prepareUser(saasId, row, context);
    if (row.type === 'membership') return this.prepareMembership(saasId, row);
    throw new Error(`${row.type} rows are not written many to a commit`);
  }

  /**
   * For each row, whether what it makes is there already, read many to a request: true only where its commit
   * would be refused and the row counted unchanged. A row read as missing is committed, and its outcome settles it.
   */
  private async thereAlready(saasId: string, rows: readonly PreparedRow[]): Promise<boolean[]> {
    const tenants = rows.flatMap((r) => ('tenant' in r.there ? [r.there.tenant] : []));
    const users = rows.flatMap((r) => ('user' in r.there ? [r.there.user] : []));
    const pairs = rows.flatMap((r) => ('membership' in r.there ? [r.there.membership] : []));
    const [liveTenants, liveUsers, members] = await Promise.all([
      tenants.length ? this.deps.tenants.liveIds(saasId, tenants) : new Set<string>(),
      users.length ? this.deps.users.getMany(saasId, users) : new Map<string, UserRecord>(),
      pairs.length ? this.deps.memberships.present(saasId, pairs) : [],
    ]);
    let pair = 0;
    return rows.map((r) =>
      'tenant' in r.there ? liveTenants.has(r.there.tenant) : 'user' in r.there ? liveUsers.has(r.there.user) : members[pair++] === true,
    );
  }

  private async prepareTenant(saasId: string, row: TenantRow, context: PartContext): Promise<PreparedRow> {
    const attributes = row.attributes ?? {};
    checkAttributeValues(attributes, await context.attributes('tenant'), 'tenant attribute');
    if (row.plan_id !== undefined && !(await this.deps.planExists(saasId, row.plan_id)))
      throw invalid('plan_not_found', `plan_id: no plan ${row.plan_id} in the pricing catalogue`);
    if (row.passkeys_required && !(await this.deps.enterprise.passkeysEnabled(saasId)))
      throw invalid('passkeys_not_enabled', 'passkeys_required: turn on passkeys in the sign-in settings (passkeys.enable) first');
    const now = nowSeconds();
    const tenant: TenantRecord = {
      id: externalId(saasId, 'tenant', row.external_id),
      name: row.name,
      attributes,
      back_office_staff_email: row.back_office_staff_email ?? '',
      ...(row.passkeys_required ? { passkeys_required: true } : {}),
      ...(row.billing_info ? { billing_info: row.billing_info } : {}),
      ...(row.payment_customer ? { payment_customer: row.payment_customer } : {}),
      plan_histories: row.plan_id ? [{ plan_id: row.plan_id, plan_applied_at: now }] : [],
      ...(row.plan_id ? { plan_id: row.plan_id } : {}),
      rev: 0,
      created_at: now,
    };
    return {
      writes: async () => [this.deps.tenants.createWrite(saasId, tenant)],
      there: { tenant: tenant.id },
      settle: async (outcome) => (outcome.committed ? 'imported' : 'unchanged'),
    };
  }

  private async prepareUser(saasId: string, row: UserRow, context: PartContext): Promise<PreparedRow> {
    const login = loginFromRequest(row);
    const attributes = row.attributes ?? {};
    checkAttributeValues(attributes, await context.attributes('saas_user'), 'SaaS user attribute');
    const password = row.password_hash && openPasswordHash(row.password_hash, row.external_id, context.sealKey);
    const problem = password && importedHashProblem(password);
    if (problem) throw invalid('invalid_password_hash', `password_hash: ${problem}`);
    const created = typeof row.created_at === 'string' ? Math.floor(Date.parse(row.created_at) / 1000) : row.created_at;
    if (Number.isNaN(created)) throw invalid('invalid_parameter', 'created_at: must be Unix seconds or an ISO 8601 time', { field: 'created_at' });
    const id = externalId(saasId, 'user', row.external_id);
    const user: UserRecord = {
      id,
      email: login.kind === 'email' ? emailAddress(row.email as string) : '',
      sign_in_id: login.kind === 'sign_in_id' ? (row.sign_in_id as string) : '',
      attributes,
      // No SRP verifier until the first sign-in makes one from the typed password (or a reset sets one):
      // to SRP the user is nobody until then (store/user-repository.ts signInCredential).
      password: { salt: '', verifier: '', temporary: false },
      ...(password ? { imported_password: password } : {}),
      ...(row.email_verified === false ? { email_verified: false } : {}),
      session_version: 0,
      mfa: await this.mfaOf(saasId, id, row, context),
      providers: {},
      last_login_at: 0,
      created_at: created ?? nowSeconds(),
    };
    // The passkeys in the user's own transaction: the row arrives whole or not at all.
    const passkeys = (row.passkeys ?? []).map((passkey) =>
      this.deps.passkeys.importWrite(saasId, id, { ...passkey, id: passkeyId(passkey.credential_id), last_used_at: 0 }),
    );
    return {
      writes: async () => [await this.deps.users.createWrite(saasId, user, login), ...passkeys],
      there: { user: id },
      settle: async (outcome) => {
        if (outcome.committed) {
          if (context.mailSetPassword && !row.password_hash && user.email) await this.mailSetPassword(saasId, user);
          return 'imported';
        }
        // The name's owner item is written first, so a re-run is refused by the name too: the user's own id tells.
        if (outcome.refusedBy === RULE.newItem || (await this.deps.users.get(saasId, id))) return 'unchanged';
        if (outcome.refusedBy === RULE.loginFree) throw loginTaken(login);
        if (outcome.refusedBy === PASSKEY_RULE.credentialFree) throw invalid('passkey_taken', "passkeys: a credential_id is another user's passkey");
        throw new Error(`importing a user was refused by ${outcome.refusedBy}`);
      },
    };
  }

  /**
   * The row's second factor as the service keeps it: an authenticator app's seed opened with the job's seal key
   * and sealed by the service's box for this user. An app turned on without its seed would lock the user out, so
   * that row is refused, as is a seed the key does not open.
   */
  private async mfaOf(saasId: string, userId: string, row: UserRow, context: PartContext): Promise<MfaSettings> {
    const mfa = row.mfa;
    if (!mfa) return { enabled: false, software_token_registered: false };
    let sealed: string | undefined;
    if (mfa.totp_secret !== undefined) {
      if (!context.sealKey) throw invalid('seal_key_missing', 'mfa.totp_secret: is sealed; start the job with the seal_key of the export');
      const seed = openFromExport(context.sealKey, mfa.totp_secret, row.external_id);
      if (seed === undefined) throw invalid('invalid_totp_secret', 'mfa.totp_secret: does not open with the seal_key for this external_id');
      sealed = await this.deps.box.seal(seed, totpSecretContext(saasId, userId));
    } else if (mfa.enabled && mfa.method === 'softwareToken') {
      throw invalid('invalid_parameter', 'mfa: softwareToken is on but totp_secret is missing (export with a seal key)');
    }
    return {
      enabled: mfa.enabled,
      ...(mfa.method ? { method: mfa.method } : {}),
      software_token_registered: sealed !== undefined,
      ...(sealed ? { sealed_totp_secret: sealed } : {}),
    };
  }

  /**
   * The link, in a commit of its own after the user's (its code item needs the user there). Only a user this
   * job made is mailed, so a re-run mails nobody twice. A mail refused (by the mail limits, or the user deleted
   * meanwhile) leaves the row imported, as it is: they set a password with "Forgot your password?", or are
   * mailed a code at their first sign-in.
   */
  private async mailSetPassword(saasId: string, user: UserRecord): Promise<void> {
    try {
      await this.deps.mailSetPassword(saasId, user);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }

  private async prepareMembership(saasId: string, row: MembershipRow): Promise<PreparedRow> {
    const ids = { tenantId: externalId(saasId, 'tenant', row.tenant), userId: externalId(saasId, 'user', row.user) };
    const membership: NewMembership = { ...ids, envs: row.envs ?? [], attributes: row.attributes ?? {} };
    const writes = await this.deps.prepareMember(saasId, membership);
    return {
      writes: async () => writes,
      there: { membership: ids },
      settle: async (outcome) => {
        if (outcome.committed) return 'imported';
        const error = membershipRefusal(outcome.refusedBy, ids);
        if (error.code === 'user_already_member') return 'unchanged';
        if (error.code === 'tenant_not_found') throw notFound('tenant_not_found', `tenant: no tenant row ${row.tenant}`);
        if (error.code === 'user_not_found') throw notFound('user_not_found', `user: no user row ${row.user}`);
        throw error;
      },
    };
  }
}

export function toImportJob(job: ImportJobRecord, errors?: RowError[]): ImportJob {
  return {
    job_id: job.id,
    state: job.state,
    created_at: job.created_at,
    ...(job.finished_at !== undefined ? { finished_at: job.finished_at } : {}),
    lines: job.lines,
    ...(job.mail_set_password ? { mail_set_password: true } : {}),
    imported: job.imported,
    unchanged: job.unchanged,
    failed: job.failed,
    by_type: job.by_type ?? {},
    ...(errors ? { errors } : {}),
  };
}
