/**
 * The scheduled worker's round over every SaaS (functions/scheduled/handler.ts): what each run does, and how the
 * function's 60 s (lib/service-stack.ts) is shared among the jobs that go on from run to run.
 */
import { ScheduledWork } from '../domain/scheduled-work.js';
import { DirectoryMigration } from '../store/directory-migration.js';
import { dynamo, tableName } from './clients.js';
import { eventDeliverer } from './integration.js';
import { courier } from './mail.js';
import { exportJobService, importService } from './migration.js';
import { accountRepository } from './repositories.js';
import { tenantService } from './tenants.js';

const IMPORT_BUDGET_MS = 35_000;
/** Export jobs write parts until 45 s of the run, after the imports' share (a job not done goes on next run). */
const EXPORT_BUDGET_MS = 45_000;
/** Moving directories onto entries gets what imports leave of the run, up to 50 s of its 60. */
const DIRECTORY_BUDGET_MS = 50_000;

/** Each run of the scheduled worker, over every SaaS. */
export const scheduledWork = () => {
  const [tenants, mail, imports, events, exportJobs] = [tenantService(), courier(), importService(), eventDeliverer(), exportJobService()];
  // The scheduled function stops at 60 s (lib/service-stack.ts): imports get what the rest leaves of it.
  const importDeadline = Date.now() + IMPORT_BUDGET_MS;
  const exportDeadline = Date.now() + EXPORT_BUDGET_MS;
  const directoryDeadline = Date.now() + DIRECTORY_BUDGET_MS;
  const directories = new DirectoryMigration(dynamo(), tableName());
  return new ScheduledWork({
    saasIds: async () => (await accountRepository().listSaas()).map((saas) => saas.id),
    applyDueReservations: (saasId) => tenants.applyDueReservations(saasId),
    deliverDueMail: async (saasId) => (await mail.deliverDue(saasId)).sent,
    mailBacklog: (saasId) => mail.backlog(saasId),
    runImports: (saasId) => imports.runUnfinished(saasId, { deadline: importDeadline }),
    runExports: (saasId) => exportJobs.runUnfinished(saasId, { deadline: exportDeadline }),
    deliverDueEvents: (saasId) => events.deliverDue(saasId),
    moveDirectory: (saasId) => directories.step(saasId, directoryDeadline),
  });
};
