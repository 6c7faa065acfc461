/**
 * A world for tests of the example application: the service (startHarness), a SaaS, the app's own API key
 * with only tenant:read and sign-in, the tenant attribute login_domain, and the app on a free port.
 */
import { ServiceSetup } from '../../examples/app/demo.js';
import { EXAMPLE_APP_PERMISSIONS } from '../../examples/app/local.js';
import { startExampleApp, type ExampleApp } from '../../examples/app/server/node-server.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from './harness.js';

export interface AppWorld {
  harness: Harness;
  saasId: string;
  /** A key with every permission, for setting the world up. */
  admin: SignedClient;
  setup: ServiceSetup;
  app: ExampleApp;
  close(): Promise<void>;
}

export async function startAppWorld(): Promise<AppWorld> {
  const harness = await startHarness();
  const { saasId, client: admin } = await harness.newSaas();
  const setup = new ServiceSetup(admin);
  await setup.ensureDefinitions();
  const appKey = await harness.newKey(saasId, EXAMPLE_APP_PERMISSIONS);
  const app = await startExampleApp({ serviceBaseUrl: harness.api.baseUrl, credentials: appKey.credentials });
  return {
    harness,
    saasId,
    admin,
    setup,
    app,
    async close() {
      await app.close();
      await harness.close();
    },
  };
}
