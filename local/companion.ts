/**
 * What `npm start` runs beside the service: the example application, or any other. bin/local.ts knows only this
 * shape; a companion's module is named on the command line (`--with examples/app/local.ts`, package.json
 * "start") and exports `companion`, so bin/ imports no example and an example imports nothing of bin/ or local/
 * (docs/decisions.md, layers).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SignedClient } from '../client/signed-fetch.js';
import type { StandInAccount } from './google-stand-in.js';

export interface CompanionContext {
  dataDir: string;
  port: number;
  /** A client with every permission (npm start's own key). */
  admin: SignedClient;
  /** A new API key of the admin's SaaS with these permissions. */
  issueKey(permissions: string[], description: string): Promise<{ apiKey: string; secret: string }>;
}

export interface LocalCompanion {
  /** Accounts the Google stand-in offers (`--google-stand-in`), beside its own. */
  googleAccounts?: StandInAccount[];
  start(context: CompanionContext): Promise<{ banner: string[]; close(): Promise<void> }>;
}

/** Every `--with PATH` of the command line, loaded; a module without a `companion` export is refused by name. */
export async function loadCompanions(argv: readonly string[]): Promise<LocalCompanion[]> {
  const paths = argv.flatMap((arg, i) => (arg === '--with' && argv[i + 1] ? [argv[i + 1] as string] : []));
  return Promise.all(
    paths.map(async (path) => {
      const loaded = (await import(pathToFileURL(resolve(path)).href)) as { companion?: Partial<LocalCompanion> };
      if (typeof loaded.companion?.start !== 'function') throw new Error(`--with ${path}: the module exports no companion with a start()`);
      return loaded.companion as LocalCompanion;
    }),
  );
}
