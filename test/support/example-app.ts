/**
 * A world for tests of the example application: the service (startHarness), a SaaS, the app's own API key
 * with only tenant:read and sign-in, the tenant attribute login_domain, and the app on a free port.
 */
import assert from 'node:assert/strict';
import { ServiceSetup } from '../../examples/app/demo.js';
import { EXAMPLE_APP_PERMISSIONS } from '../../examples/app/local.js';
import { startExampleApp, type ExampleApp } from '../../examples/app/server/node-server.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { base32Decode, totpCodeAt, totpStep } from '../../shared/crypto/totp.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { srpSignIn } from '../../dev-support/sign-in.js';

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
  // The hosted login screen returns here (the app's "Sign in with the hosted screen").
  const callback = await admin.put('/auth-info', { callback_url: `${app.url}/callback` });
  assert.equal(callback.status, 200, callback.text);
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
 * An authenticator app registered for the user and TOTP MFA turned on, all through the API as the user's
 * own app would do it: sign in, ask for a secret, answer with a code of it, then the preference. Answers the
 * secret.
 */
export async function enableTotp(admin: SignedClient, userId: string, email: string, password: string): Promise<string> {
  const signedIn = await srpSignIn(admin, email, password);
  const accessToken = signedIn.body.credentials?.access_token;
  assert.ok(accessToken, signedIn.text);
  const created = await admin.post<{ secret_code: string }>(`/users/${userId}/mfa/software-token/secret-code`, { access_token: accessToken });
  assert.equal(created.status, 201, created.text);
  const secret = created.body.secret_code;
  const verification_code = totpCodeAt(base32Decode(secret) as Buffer, totpStep(Date.now() / 1000));
  const registered = await admin.put(`/users/${userId}/mfa/software-token`, { access_token: accessToken, verification_code });
  assert.equal(registered.status, 200, registered.text);
  const answer = await admin.patch(`/users/${userId}/mfa/preference`, { enabled: true, method: 'softwareToken' });
  assert.equal(answer.status, 200, answer.text);
  return secret;
}
