/**
 * The example application under `npm start`: on its own port beside the service, with its own API key
 * (tenant:read and sign-in only) and, on first start, the demo (demo.ts). What it made is kept in
 * `.data/example-app.json` (the demo password included: it is a local demo) and reused on later starts; the
 * password is shown only while it still signs in.
 * Like any application, it speaks to the service through its public API only; the key comes from whoever
 * starts it (npm start issues it as the admin command would).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignedClient, type Credentials } from '../../client/signed-fetch.js';
import { DEMO_EMAIL, seedDemo, seedPricing, ServiceSetup, type Demo } from './demo.js';
import { brandDemoScreen } from './demo-theme.js';
import { passwordChallenge, SrpClient, verifierResponses } from '../../client/srp.js';
import { ServiceClient, ServiceError } from './server/service-client.js';
import { startExampleApp, type ExampleApp } from './server/node-server.js';

/** Exactly what the backend needs (docs/decisions.md: decision 9, and the spec's ID login). */
export const EXAMPLE_APP_PERMISSIONS = ['tenant:read', 'sign-in', 'pricing:read', 'metering:read'];

interface SavedState {
  apiKey: string;
  secret: string;
  demo?: Demo;
  /** The demo catalogue (a plan, a tax rate) and the demo tenant's plan were made. */
  pricingSeeded?: boolean;
}

export interface LocalExampleApp {
  app: ExampleApp;
  /** Lines for the start-up banner. */
  banner: string[];
}

export interface LocalExampleAppOptions {
  dataDir: string;
  port: number;
  /** A client with every permission (npm start's own key), to seed the demo. */
  admin: SignedClient;
  /** A new API key of the admin's SaaS with these permissions. */
  issueKey(permissions: string[], description: string): Promise<{ apiKey: string; secret: string }>;
}

/**
 * Whether a stored key still signs requests (a revoked or unknown one answers 401) and reads plans (a key made
 * before the app showed them answers 403 there): otherwise a new one is issued.
 */
async function keyWorks(baseUrl: string, credentials: Credentials): Promise<boolean> {
  if ((await new SignedClient(baseUrl, credentials).get('/tenants')).status === 401) return false;
  return (await new SignedClient(baseUrl.replace(/\/v1\/auth$/, '/v1/pricing'), credentials).get('/plans')).status === 200;
}

const stateFile = (dataDir: string) => join(dataDir, 'example-app.json');

function readState(dataDir: string): SavedState | undefined {
  const file = stateFile(dataDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SavedState) : undefined;
}

/**
 * Whether the demo password as seeded still signs the demo user in, tried once per start with the app's own
 * key, as the page would (the SRP here, the password never sent). A further challenge (MFA turned on) counts as
 * signing in. A refusal costs one failed attempt, once: the password is then forgotten, not tried again.
 */
async function demoPasswordWorks(service: ServiceClient, demo: Demo & { password: string }): Promise<boolean> {
  const srp = new SrpClient();
  try {
    const challenge = passwordChallenge(await service.signIn(demo.email, await srp.srpA()));
    if (!challenge) return false;
    const claim = await srp.passwordClaim(challenge, demo.password);
    await service.respond('PASSWORD_VERIFIER', verifierResponses(claim), claim.session);
    return true;
  } catch (error) {
    if (error instanceof ServiceError && error.status < 500) return false;
    throw error;
  }
}

export async function startLocalExampleApp(options: LocalExampleAppOptions): Promise<LocalExampleApp> {
  const { saasId } = options.admin.credentials;
  const file = stateFile(options.dataDir);
  let state = readState(options.dataDir);
  const banner: string[] = [];
  // A revoked key is replaced like a missing one; the demo already seeded stays.
  if (!state || !(await keyWorks(options.admin.baseUrl, { saasId, apiKey: state.apiKey, secret: state.secret }))) {
    const key = await options.issueKey(EXAMPLE_APP_PERMISSIONS, 'example app (npm start)');
    state = { ...state, apiKey: key.apiKey, secret: key.secret };
  }
  if (!state.demo) {
    try {
      state.demo = await seedDemo(new ServiceSetup(options.admin));
    } catch (error) {
      // fetch's own message is only 'fetch failed'; the reason is its cause.
      const { message, cause } = error as Error & { cause?: Error };
      banner.push(`  Demo             not seeded (${message}${cause ? `: ${cause.message}` : ''}); delete ${options.dataDir} to start afresh`);
    }
  }
  // Seeded once, also into a data directory seeded before the Pricing API existed.
  if (state.demo && !state.pricingSeeded) {
    try {
      const setup = new ServiceSetup(options.admin);
      await setup.ensureDefinitions();
      await seedPricing(setup, state.demo.tenantId);
      state.pricingSeeded = true;
    } catch (error) {
      banner.push(`  Pricing          not seeded (${(error as Error).message})`);
    }
  }
  const credentials: Credentials = { saasId, apiKey: state.apiKey, secret: state.secret };
  const { demo } = state;
  if (
    demo?.password !== undefined &&
    !(await demoPasswordWorks(new ServiceClient(options.admin.baseUrl, credentials), { ...demo, password: demo.password }))
  ) {
    delete demo.password;
  }
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  const app = await startExampleApp({ serviceBaseUrl: options.admin.baseUrl, credentials, port: options.port });
  banner.unshift(`  Example app      ${app.url}  (e-mail login; API key ${state.apiKey}: ${EXAMPLE_APP_PERMISSIONS.join(', ')})`);
  // The hosted login screen returns to the app, unless the SaaS's callback URL was set to something else.
  const authInfo = await options.admin.get<{ callback_url: string }>('/auth-info');
  if (authInfo.status === 200 && !authInfo.body.callback_url) await options.admin.put('/auth-info', { callback_url: `${app.url}/callback` });
  await brandDemoScreen(options.admin);
  if (demo) {
    banner.push(
      `  ID login         ${app.url}/?tenant_id=${demo.tenantId}  (username ${demo.username})`,
      `  Demo user        ${demo.email}  id ${demo.userId ?? '(seeded before ids were kept)'}`,
      `  Demo password    ${demo.password ?? '(changed since the demo was seeded: no longer shown)'}`,
    );
  }
  return { app, banner };
}

/**
 * What `npm start` runs beside the service (`--with examples/app/local.ts`): the shape of local/companion.ts,
 * met without importing it, as an application meets the service through its public API only.
 */
export const companion = {
  // The demo user's address: its first Google sign-in (npm start -- --google-stand-in) asks for the code in the mail viewer.
  googleAccounts: [{ sub: 'stand-in-demo', email: DEMO_EMAIL, email_verified: true, name: 'Demo' }],
  async start(options: LocalExampleAppOptions): Promise<{ banner: string[]; close(): Promise<void> }> {
    const started = await startLocalExampleApp(options);
    return { banner: started.banner, close: () => started.app.close() };
  },
};
