/**
 * Scheduled work, every minute on AWS (an EventBridge rule) and every 15 s under `npm start`: applies the
 * plan reservations that have come due. Each is applied only while still pending, so this racing a read
 * that applies it too gives one application.
 */
import { log } from '../../shared/log.js';
import { accountRepository, tenantService } from '../../shared/wiring.js';

export interface ScheduledWorkResult {
  saasCount: number;
  reservationsApplied: number;
}

export const handler = async (): Promise<ScheduledWorkResult> => {
  const accounts = await accountRepository().listSaas();
  const tenants = tenantService();
  let reservationsApplied = 0;
  for (const saas of accounts) reservationsApplied += await tenants.applyDueReservations(saas.id);
  if (reservationsApplied > 0) log.info('plan reservations applied', { reservationsApplied, saasCount: accounts.length });
  return { saasCount: accounts.length, reservationsApplied };
};
