/**
 * What the scheduled worker does each run, for every SaaS: apply the plan reservations that have come due,
 * deliver the mails that are due again (deferred retries, lapsed claims, anything the stream missed), and count
 * the mail backlog, deliver the events due (integration/event-delivery.ts), and work on the import jobs not done
 * yet (migration/imports.ts) and the export jobs (migration/export-jobs.ts), a part at a time until the run's budget is spent, and move a SaaS made before directory entries
 * onto them (shared/store/directory-migration.ts) a step at a time. Every step goes through conditional writes, so runs side by side apply and send once.
 */
import { log } from '../log.js';
import { metrics } from '../metrics.js';

export interface ScheduledWorkDeps {
  saasIds(): Promise<string[]>;
  applyDueReservations(saasId: string): Promise<number>;
  /** Mails sent of those due. */
  deliverDueMail(saasId: string): Promise<number>;
  /** Mails not final yet. */
  mailBacklog(saasId: string): Promise<number>;
  /** Parts of import files worked through; stops when the run's budget is spent, the next run goes on. */
  runImports(saasId: string): Promise<number>;
  /** Parts of export files written (migration/export-jobs.ts); stops when the run's budget is spent, the next run goes on. */
  runExports(saasId: string): Promise<number>;
  /** Events delivered of those due (integration/event-delivery.ts). */
  deliverDueEvents(saasId: string): Promise<number>;
  /** Items written on the SaaS's way onto directory entries (none once it is on them); stops at the run's budget. */
  moveDirectory(saasId: string): Promise<number>;
}

export interface ScheduledWorkResult {
  saasCount: number;
  reservationsApplied: number;
  mailsSent: number;
  /** Mails still not final after this run, over every SaaS. */
  mailBacklog: number;
  importParts: number;
  exportParts: number;
  eventsDelivered: number;
  directoryItemsMoved: number;
}

export class ScheduledWork {
  constructor(private readonly deps: ScheduledWorkDeps) {}

  async run(): Promise<ScheduledWorkResult> {
    const saasIds = await this.deps.saasIds();
    const result: ScheduledWorkResult = {
      saasCount: saasIds.length,
      reservationsApplied: 0,
      mailsSent: 0,
      mailBacklog: 0,
      importParts: 0,
      exportParts: 0,
      eventsDelivered: 0,
      directoryItemsMoved: 0,
    };
    for (const saasId of saasIds) {
      result.reservationsApplied += await this.deps.applyDueReservations(saasId);
      result.mailsSent += await this.deps.deliverDueMail(saasId);
      result.mailBacklog += await this.deps.mailBacklog(saasId);
      result.eventsDelivered += await this.deps.deliverDueEvents(saasId);
    }
    // After every SaaS's mail and reservations: a long import must not hold back another SaaS's retries.
    for (const saasId of saasIds) result.importParts += await this.deps.runImports(saasId);
    for (const saasId of saasIds) result.exportParts += await this.deps.runExports(saasId);
    for (const saasId of saasIds) result.directoryItemsMoved += await this.deps.moveDirectory(saasId);
    if (result.reservationsApplied > 0)
      log.info('plan reservations applied', { reservationsApplied: result.reservationsApplied, saasCount: saasIds.length });
    metrics.count('PlanReservationsApplied', result.reservationsApplied);
    // A level, sent every run (zero too), so the dashboard shows a line rather than gaps.
    metrics.count('MailBacklog', result.mailBacklog);
    return result;
  }
}
