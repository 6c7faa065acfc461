/**
 * A world for tests of the example application: the service (startHarness), a SaaS, the app's own API key
 * with only tenant:read and sign-in, the tenant attribute login_domain, and the app on a free port.
 */
import assert from 'node:assert/strict';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ServiceSetup } from '../../examples/app/demo.js';
import { EXAMPLE_APP_PERMISSIONS } from '../../examples/app/local.js';
import { startExampleApp, type ExampleApp } from '../../examples/app/server/node-server.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { newTotpSecret } from '../../shared/crypto/totp.js';
import { totpSecretContext } from '../../shared/domain/users.js';
import { dynamo, secrets, tableName } from '../../shared/store/client.js';
import { keys } from '../../shared/store/keys.js';
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

/** The user's password becomes `password`, temporary: the next sign-in asks for a new one. */
export async function setTemporaryPassword(admin: SignedClient, userId: string, password: string): Promise<void> {
  const answer = await admin.patch(`/users/${userId}/password`, { password, temporary: true });
  assert.equal(answer.status, 200, answer.text);
}

/**
 * An authenticator app registered for the user and TOTP MFA turned on; answers the secret. Registration is
 * written to the user's profile as Register Authentication Application leaves it (sealed secret,
 * registered), the preference set through the API.
 */
export async function enableTotp(world: AppWorld, userId: string): Promise<string> {
  const secret = newTotpSecret();
  const sealed = await secrets().seal(secret, totpSecretContext(world.saasId, userId));
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.userProfile(world.saasId, userId),
      UpdateExpression: 'SET #mfa.#sealed = :sealed, #mfa.#registered = :registered',
      ExpressionAttributeNames: { '#mfa': 'mfa', '#sealed': 'sealed_totp_secret', '#registered': 'software_token_registered' },
      ExpressionAttributeValues: { ':sealed': sealed, ':registered': true },
    }),
  );
  const answer = await world.admin.patch(`/users/${userId}/mfa/preference`, { enabled: true, method: 'softwareToken' });
  assert.equal(answer.status, 200, answer.text);
  return secret;
}
