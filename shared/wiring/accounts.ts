/**
 * SaaS accounts and the operator console: the SaaS's pool name, the console's failed sign-ins (its signed-out
 * sessions are a repository, repositories.ts). What belongs here: a service that reads or guards a SaaS account.
 */
import { config } from '../config.js';
import { ConsoleSignInThrottle } from '../domain/console/sign-in-throttle.js';
import { Recent } from '../store/recent.js';
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

/** SaaS accounts this instance found, kept SETTINGS_CACHE_SECONDS (store/recent.ts): only found ones are kept. */
const knownSaas = new Recent<true | undefined>();

/**
 * Whether a SaaS account exists, as the OpenID Connect endpoints check their client: kept per warm instance as
 * long as the client's redirect URI (its auth-info setting, read through the settings cache), so an authorization
 * answered from a screen session reads nothing before the screen's own read (docs/decisions.md, "The OpenID
 * Connect client kept per instance"). No API deletes or changes an account item; one removed from the table by
 * hand stops being a client within that time, and the screen, which checks the account in its own read, issues
 * no code for it meanwhile.
 */
export const saasKnown = async (saasId: string) =>
  (await knownSaas.get(saasId, config().settingsCacheSeconds, async () => ((await accountRepository().getSaas(saasId)) ? true : undefined))) === true;
