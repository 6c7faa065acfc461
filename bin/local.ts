/**
 * `npm start`: DynamoDB Local, the SES v2 stand-in, the table, a first SaaS and API key, the API and the
 * companions named with `--with` (npm start names the example application, with its demo; local/companion.ts)
 * on 127.0.0.1, all in one command. Ctrl-C stops every child.
 */
import '../local/cli-errors.js';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { localRunnerConfig } from '../shared/config.js';
import { BASE_PATH, loginScreenUrl } from '../shared/routes.js';
import { screenOrigin } from '../shared/screen-hosts.js';
import { screenHosts, dynamo, secretBox, tableName } from '../shared/wiring.js';
import { issueApiKey } from '../shared/domain/accounts/accounts.js';
import { DynamoAccountRepository } from '../shared/store/account-repository.js';
import { startDynamoLocal, startSesLocal, type Engine } from '../local/engines.js';
import { startLocalApi, type LocalApi } from '../local/server.js';
import { CONSOLE_ENTRY, offerDemoOperator } from '../local/console.js';
import { runScheduledWork } from '../functions/scheduled/handler.js';
import { SignedClient } from '../client/signed-fetch.js';
import { log } from '../shared/log.js';
import type { GoogleStandIn } from '../local/google-stand-in.js';
import { loadCompanions, type LocalCompanion } from '../local/companion.js';
import {
  createLocalTable,
  masterKey,
  localCredentials,
  runningInstance,
  runtimeFile,
  type RunningInstance,
  useLocalEngines,
} from '../local/runtime.js';
import { credentialsFile, readCredentials, writeCredentials } from '../local/credentials-file.js';

const started = Date.now();
const settings = localRunnerConfig();
const dataDir = resolve(settings.dataDir);
mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });

const engines: Engine[] = [];
let api: LocalApi | undefined;
/** The companions named with `--with` (the example application, under npm start), and those started. */
let companions: LocalCompanion[] = [];
const startedCompanions: { close(): Promise<void> }[] = [];
let stopping = false;
/** What EventBridge and the table's stream do on AWS: here a tick every few seconds delivers mail too. */
const SCHEDULED_WORK_INTERVAL_MS = 3_000;
let scheduler: NodeJS.Timeout | undefined;
/** `npm start -- --google-stand-in`: a local OpenID Connect provider behind the login screen's Google button. */
const withGoogleStandIn = process.argv.includes('--google-stand-in');
let google: GoogleStandIn | undefined;

async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    clearInterval(scheduler);
    await Promise.all(startedCompanions.map((companion) => companion.close()));
    await api?.close();
    await google?.close();
    await Promise.all(engines.map((e) => e.stop()));
    rmSync(runtimeFile(dataDir), { force: true });
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

async function main(): Promise<void> {
  // One npm start per data folder: a second would share its DynamoDB files and, stopping, remove its runtime.json.
  const running = runningInstance(dataDir);
  if (running) {
    process.stderr.write(
      `npm start already runs on ${dataDir}: pid ${running.pid}, API port ${running.apiPort}, example app ${running.appPort}, ` +
        `DynamoDB Local ${running.dynamoUrl}, mail viewer port ${running.sesPort}. Stop it first, or use another DATA_DIR.\n`,
    );
    process.exit(1);
  }
  companions = await loadCompanions(process.argv.slice(2));
  // Both start at once; whichever ran is stopped with the rest if the other failed (no Java, say), so none is
  // left behind: wait for both before judging.
  const starts = await Promise.allSettled([
    startDynamoLocal({ port: settings.dynamoPort, dbPath: join(dataDir, 'dynamodb'), sharedDb: true }),
    startSesLocal(settings.sesPort),
  ]);
  for (const start of starts) if (start.status === 'fulfilled') engines.push(start.value);
  const failed = starts.find((start) => start.status === 'rejected');
  if (failed) throw failed.reason;
  const [dynamoLocal, sesLocal] = engines as [Engine, Engine];
  // Tokens name the API they came from, so OpenID discovery from a token's `iss` works against this server.
  process.env.TOKEN_ISSUER ??= `http://127.0.0.1:${settings.apiPort}${BASE_PATH}`;
  // Each SaaS's screen on an origin of its own, http://<saas id>.localhost:PORT (browsers resolve *.localhost to
  // the loopback address); LOGIN_DOMAIN= (empty) serves every screen on the API's origin, without SaaS script.
  if (settings.apiPort) process.env.LOGIN_DOMAIN ??= `localhost:${settings.apiPort}`;
  if (withGoogleStandIn) {
    // Loaded only when asked for: oidc-provider talks on stderr as it loads.
    const { startGoogleStandIn } = await import('../local/google-stand-in.js');
    google = await startGoogleStandIn({
      returnUrl: `${process.env.PUBLIC_BASE_URL ?? process.env.TOKEN_ISSUER}/oauth2/idpresponse`,
      accounts: [
        // The companions' own (the example's demo user), and a newcomer.
        ...companions.flatMap((companion) => companion.googleAccounts ?? []),
        { sub: 'stand-in-ada', email: 'ada@gmail.test', email_verified: true, name: 'Ada' },
      ],
    });
    process.env.GOOGLE_ISSUER = google.issuer;
  }
  useLocalEngines({ dynamoUrl: dynamoLocal.url, sesUrl: sesLocal.url, masterKey: masterKey(dataDir) });
  await createLocalTable(dynamoLocal.url);

  api = await startLocalApi(settings.apiPort);
  const origin = `http://127.0.0.1:${api.port}`;
  const instance: RunningInstance = {
    pid: process.pid,
    dynamoUrl: dynamoLocal.url,
    apiPort: api.port,
    appPort: settings.appPort,
    sesPort: settings.sesPort,
  };
  writeFileSync(runtimeFile(dataDir), JSON.stringify(instance));

  const accounts = new DynamoAccountRepository(dynamo(), tableName());
  const { credentials } = await localCredentials(accounts, secretBox(), readCredentials(dataDir), origin);
  let working = false;
  scheduler = setInterval(() => {
    if (working) return;
    working = true;
    runScheduledWork()
      .catch((error: unknown) => log.error('scheduled work failed', error))
      .finally(() => {
        working = false;
      });
  }, SCHEDULED_WORK_INTERVAL_MS);
  const loginScreen = loginScreenUrl(`${screenOrigin(screenHosts(), credentials.SAASUS_SAAS_ID)}${BASE_PATH}`, credentials.SAASUS_SAAS_ID);
  if (google) {
    const admin = new SignedClient(api.baseUrl, {
      saasId: credentials.SAASUS_SAAS_ID,
      apiKey: credentials.SAASUS_API_KEY,
      secret: credentials.SAASUS_SECRET_KEY,
    });
    const props = {
      application_id: google.clientId,
      application_secret: google.clientSecret,
      approval_scope: 'openid email profile',
      is_button_hidden: false,
    };
    const set = await admin.put('/identity-providers', { provider: 'Google', identity_provider_props: props });
    if (set.status !== 200) throw new Error(`setting the demo SaaS's Google client answered ${set.status}: ${set.text}`);
  }
  writeCredentials(dataDir, { ...credentials, SAASUS_LOGIN_URL: loginScreen });
  // The console's sign-in page offers this key in one click, to this computer only (web/console/console.ts).
  offerDemoOperator({ saasId: credentials.SAASUS_SAAS_ID, apiKey: credentials.SAASUS_API_KEY, secret: credentials.SAASUS_SECRET_KEY });
  const banner: string[] = [];
  for (const companion of companions) {
    const started = await companion.start({
      dataDir,
      port: settings.appPort,
      admin: new SignedClient(api.baseUrl, {
        saasId: credentials.SAASUS_SAAS_ID,
        apiKey: credentials.SAASUS_API_KEY,
        secret: credentials.SAASUS_SECRET_KEY,
      }),
      issueKey: (permissions, description) => issueApiKey(accounts, secretBox(), credentials.SAASUS_SAAS_ID, permissions, description),
    });
    startedCompanions.push(started);
    banner.push(...started.banner);
  }

  const lines = [
    '',
    `  API base URL     ${api.baseUrl}`,
    `  SaaS id          ${credentials.SAASUS_SAAS_ID}`,
    `  API key          ${credentials.SAASUS_API_KEY}`,
    `  Secret key       ${credentials.SAASUS_SECRET_KEY}`,
    `  Console          ${origin}${CONSOLE_ENTRY}  (operators; "Sign in as the demo operator" on this computer)`,
    `  Login screen     ${loginScreen}  (hosted; returns to the SaaS's callback URL)`,
    `  Mail viewer      ${sesLocal.url}`,
    ...(google ? [`  Stand-in Google  ${google.issuer}  (accounts ${google.accounts.map((a) => a.email).join(', ')}; docs/federation.md)`] : []),
    `  Pricing, Billing ${api.baseUrl.replace(/\/v1\/auth$/, '')}/v1/pricing, /v1/billing  (demo plan, env 3 本番環境; docs/pricing.md)`,
    `  OpenAPI          ${api.baseUrl}/openapi.json`,
    `  OpenID Connect   ${api.baseUrl}/.well-known/openid-configuration  (client_id = the SaaS id)`,
    `  Credentials      ${credentialsFile(dataDir)} (SAASUS_* variables for the SDKs)`,
    `  Data             ${dataDir} (kept across restarts)`,
    ...banner,
    '',
    `Ready in ${((Date.now() - started) / 1000).toFixed(1)} s. Ctrl-C stops everything.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch(async (error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await stop(1);
});
