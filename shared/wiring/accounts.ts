/**
 * SaaS accounts and the operator console: the SaaS's pool name, the console's failed sign-ins (its signed-out
 * sessions are a repository, repositories.ts). What belongs here: a service that reads or guards a SaaS account.
 */
import { ConsoleSignInThrottle } from '../domain/console/sign-in-throttle.js';
import { accountRepository, throttleRepository } from './repositories.js';

/** The operator console's count of failed sign-ins (web/console). */
export const consoleSignInThrottle = () => new ConsoleSignInThrottle(throttleRepository());

/**
 * The SaaS's SRP POOL_NAME. It never changes for the life of a SaaS (verifiers are bound to it), so it is
 * read once per cold start: that saves every sign-in and every password write one store request.
 */
const poolNames = new Map<string, string>();
export const poolName = async (saasId: string) => {
  const known = poolNames.get(saasId);
  if (known) return known;
  const saas = await accountRepository().getSaas(saasId);
  if (!saas) throw new Error(`no SaaS account ${saasId}`);
  poolNames.set(saasId, saas.poolName);
  return saas.poolName;
};
