/**
 * Services over the store, for the handlers and the scheduled worker. Each is a thin object over the one
 * document client built here per cold start, so making them per request costs nothing. The wiring owns the
 * settings and the secrets (docs/decisions.md, "Settings and secrets"): the store, the domain and the adapters
 * get what they need passed in and read no setting themselves.
 */
import { DynamoClient } from './store/dynamo-client.js';
import { config } from './config.js';
import { ACTIVITY_KEPT, ActivityLog, type ActivityEvent } from './domain/users/activity.js';
import { KmsDataKeys } from './adapters/aws/kms.js';
import { KmsSecretBox, LocalSecretBox, type SecretBox } from './crypto/secret-box.js';
import { traceAwsCall } from './observability.js';
import { findActiveApiKey } from './domain/accounts/accounts.js';
import { createGroupHandler, type CallRecorder, type PipelineSettings, type UnmatchedPage } from './http/pipeline.js';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from './http/compression.js';
import { BASE_PATH, loginScreenUrl, type Group } from './routes.js';
import { siteDomains } from './adapters/site-domains.js';
import { isServiceDomain, screenHostPlan, screenOrigin } from './screen-hosts.js';
import type { BoundOperation } from './schemas/operation.js';
import { ConfigurationService, validitySeconds, type EmailIdentityPort, type SiteDomainPort } from './domain/configuration/configuration.js';
import type { SignInSettings } from './schemas/configuration.js';
import { DefinitionService } from './domain/configuration/definitions.js';
import { InfrastructureService } from './domain/configuration/infrastructure.js';
import { InvitationService } from './domain/tenants/invitations.js';
import { KeyStore } from './domain/tokens/key-store.js';
import { MarketplaceService } from './domain/tenants/marketplace.js';
import { SignInService } from './domain/sign-in/sign-in.js';
import { CredentialService } from './domain/sign-in/sign-in-credentials.js';
import { DeviceService } from './domain/sign-in/sign-in-devices.js';
import { FederationService } from './domain/sign-in/federation.js';
import { SignUpService } from './domain/sign-in/sign-up.js';
import { SrpSignIn } from './domain/sign-in/srp-sign-in.js';
import { RefreshTokens } from './domain/sign-in/refresh-tokens.js';
import { ScheduledWork } from './domain/scheduled-work.js';
import { Cursors } from './domain/paging.js';
import { apiLogRecord, ApiLogService } from './domain/apilog/api-log.js';
import { DynamoApiLogRepository } from './store/api-log-repository.js';
import { DynamoSignInCountsRepository } from './store/sign-in-counts-repository.js';
import { DailySignIns } from './domain/users/daily-sign-ins.js';
import { MailBacklogService } from './domain/mail/mail-backlog.js';
import { apiLogLine, readShippedLines, ShippedLineWriter, signInLine } from './domain/apilog/shipped-lines.js';
import { isCountedKind } from './domain/users/sign-in-counts.js';
import { subscribedMessages } from './adapters/aws/log-subscription.js';
import type { CloudWatchLogsEvent } from 'aws-lambda';
import { log } from './log.js';
import { metrics } from './metrics.js';
import { nowMillis } from './clock.js';
import { PaymentProviderService } from './domain/configuration/payment-provider.js';
import { LoginThemeService } from './domain/configuration/login-theme.js';
import { StripeClient } from './adapters/payment/stripe-client.js';
import { TenantUserService } from './domain/tenants/tenant-users.js';
import { TenantService } from './domain/tenants/tenants.js';
import { openIdConfiguration, TokenService, TokenVerifier } from './domain/tokens/tokens.js';
import { UserFlowService } from './domain/users/user-flows.js';
import { loginOf, UserService } from './domain/users/users.js';
import { sesClient, sesSendingClient } from './adapters/mail/clients.js';
import { Courier } from './adapters/mail/courier.js';
import { LocalEmailIdentities, SesEmailIdentities } from './adapters/mail/identities.js';
import { SesMailSender } from './adapters/mail/ses-sender.js';
import { SignedTokenResolver } from './adapters/marketplace/signed-token-resolver.js';
import { DynamoAccountRepository } from './store/account-repository.js';
import { DynamoCatalogueRepository } from './store/catalogue-repository.js';
import { DynamoSessionRevocations } from './store/session-revocation-repository.js';
import { DynamoMeteringRepository } from './store/metering-repository.js';
import { Recent } from './store/recent.js';
import { CatalogueService } from './domain/pricing/catalogue.js';
import { MeteringService } from './domain/pricing/metering.js';
import { DynamoDefinitionRepository } from './store/definition-repository.js';
import { DynamoAuthorizationCodeRepository, DynamoGrantRepository } from './store/grant-repository.js';
import { DynamoInvitationRepository } from './store/invitation-repository.js';
import { DynamoKeyRepository } from './store/key-repository.js';
import { DynamoMarketplaceRepository } from './store/marketplace-repository.js';
import { DynamoMembershipRepository } from './store/membership-repository.js';
import { DynamoSamlAssertionRepository } from './store/saml-assertion-repository.js';
import { DynamoOutboxRepository } from './store/outbox-repository.js';
import { DynamoSettingsRepository } from './store/settings-repository.js';
import { DynamoThrottleRepository } from './store/throttle-repository.js';
import { ConsoleSignInThrottle } from './domain/console/sign-in-throttle.js';
import { DynamoSignInRepository, DynamoTempCodeRepository } from './store/sign-in-repository.js';
import { DynamoSuppressionRepository } from './store/suppression-repository.js';
import { DynamoTenantRepository } from './store/tenant-repository.js';
import { DynamoImportRepository } from './store/import-repository.js';
import { ImportService } from './domain/migration/imports.js';
import { DynamoCommitter } from './store/transact.js';
import { DynamoUserFlowRepository } from './store/user-flow-repository.js';
import { hostResolver, PublicFetcher } from './http/public-fetch.js';
import { DynamoUserRepository } from './store/user-repository.js';
import { watchThrottling } from './store/directory-shards.js';
import { PasskeyService } from './domain/sign-in/passkeys.js';
import { DynamoPasskeyRepository } from './store/passkey-repository.js';
import { DynamoPendingSignUpRepository } from './store/sign-up-repository.js';
import { TenantOidcService } from './domain/tenants/tenant-oidc.js';
import { discoverOidcIssuer } from './adapters/oidc-discovery.js';
import { VerifiedDomainService } from './domain/tenants/verified-domains.js';
import { DynamoDomainRepository } from './store/domain-repository.js';
import { txtResolver } from './adapters/dns-txt.js';

let client: DynamoClient | undefined;
let box: SecretBox | undefined;

/** The document client every repository is built over, made once per cold start. */
export function dynamo(): DynamoClient {
  if (!client) {
    const { region, dynamoEndpoint } = config();
    client = new DynamoClient({
      region,
      ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}),
      // Fail fast enough for an API answer; the standard retry still covers throttling.
      maxAttempts: 3,
      trace: (operation, table, call) => traceAwsCall('DynamoDB', region, operation, table, call),
    });
    watchThrottling(client);
  }
  return client;
}

/** The one table; required by the store only, so table-less code paths run without TABLE_NAME. */
export function tableName(): string {
  const name = config().tableName;
  if (!name) throw new Error('environment variable TABLE_NAME is required');
  return name;
}

/** The envelope encryption of stored secrets (KMS on AWS, the local master key under npm start), made once per cold start. */
export function secretBox(): SecretBox {
  if (!box) {
    const { kmsKeyId, localMasterKey, region } = config();
    if (kmsKeyId) {
      box = new KmsSecretBox(
        new KmsDataKeys(kmsKeyId, { region, trace: (operation, call) => traceAwsCall('KMS', region, operation, undefined, call) }),
      );
    } else if (localMasterKey) box = new LocalSecretBox(localMasterKey);
    else throw new Error('set KMS_KEY_ID (AWS) or LOCAL_MASTER_KEY (local mode) to store secrets');
  }
  return box;
}

/** The local runner and tests point the same process at another table or engine. */
export function resetClientsForTests(): void {
  client?.destroy();
  client = undefined;
  box = undefined;
}

/**
 * A function group's handler: the request pipeline, with the API keys of this store; `unmatchedPage` for the
 * group that answers unknown addresses (the public one).
 */
export const groupHandler = (group: Group, operations: Record<string, BoundOperation>, unmatchedPage?: UnmatchedPage) =>
  createGroupHandler(
    group,
    operations,
    (saasId, apiKey) => findActiveApiKey(accountRepository(), secretBox(), saasId, apiKey),
    pipelineSettings(),
    recordApiCall,
    unmatchedPage,
  );

/** The request pipeline's limits, read when a function's handler is made (once per cold start). */
export const pipelineSettings = (): PipelineSettings => ({
  signatureWindowMinutes: config().signatureWindowMinutes,
  maxBodyBytes: config().maxBodyBytes,
});

/** Where each line for the API log writer goes (shared/domain/apilog/shipped-lines.ts). */
export type LineSink = (line: string) => void | Promise<void>;
/**
 * On Lambda, stdout: the runtime hands it to the function's log group with no request of the function's, and the
 * log group's subscription filter delivers the lines to the writer function (lib/service-stack.ts). A write to
 * stdout (a pipe) is synchronous, so a line is out before the function answers and is frozen.
 */
const toStdout: LineSink = (line) => {
  process.stdout.write(`${line}\n`);
};
let lineSink: LineSink = toStdout;

/** Sends the lines to `sink` from now on (local/server.ts: its in-process sink; undefined: stdout); answers the one replaced. */
export function sendShippedLinesTo(sink: LineSink | undefined): LineSink {
  const replaced = lineSink;
  lineSink = sink ?? toStdout;
  return replaced;
}

/** The API log's record of a signed call (shared/domain/apilog), told as a line: no store request on the call's path. */
export const recordApiCall: CallRecorder = (call) => lineSink(apiLogLine(apiLogRecord(call, config().apiLogRetentionDays * 86400)));

const apiLogRepository = () => new DynamoApiLogRepository(dynamo(), tableName(), config().apiLogWriteShards);

/** A SaaS's daily sign-in counts, kept as long as the API log keeps calls. */
export const signInCountsRepository = () => new DynamoSignInCountsRepository(dynamo(), tableName(), config().apiLogRetentionDays * 86400);

/** A sign-in outcome whose write committed, told as a line when it counts SaaS-wide (sign-in-counts.ts). */
const countSignIn = (saasId: string, event: ActivityEvent) => {
  if (isCountedKind(event.kind)) void lineSink(signInLine(saasId, event.kind, event.at));
};

/** Each user's security activity (shared/domain/users/activity.ts): kept as long as the API log keeps a call. */
const activityLog = () => new ActivityLog({ retentionSeconds: config().apiLogRetentionDays * 86400, keep: ACTIVITY_KEPT, settled: countSignIn });

/**
 * The API log writer (shared/domain/apilog/shipped-lines.ts): log lines in, records and sign-in counts written, the
 * other lines left alone. The local sink (local/line-sink.ts) calls it as the writer function does.
 */
export async function writeShippedLines(messages: readonly string[]): Promise<{ records: number; countWrites: number }> {
  const writer = new ShippedLineWriter({ logs: apiLogRepository(), counts: signInCountsRepository() });
  try {
    return await writer.write(readShippedLines(messages));
  } catch (error) {
    metrics.count('ApiLogWriteFailed');
    log.error('API log writer: a batch was not written (it is delivered again)', error, { lines: messages.length });
    throw error;
  }
}

/** The writer function's work (functions/apilog-writer): one delivery of the log groups' subscription. */
export const writeSubscribedLogs = (event: CloudWatchLogsEvent) => writeShippedLines(subscribedMessages(event));
/** GET /sign-in-counts: the daily sign-in counts, every day answered. */
export const dailySignIns = () => new DailySignIns(signInCountsRepository());

/** The ApiLog API's reads (/v1/apilog). */
export const apiLogService = () =>
  new ApiLogService({
    logs: apiLogRepository(),
    cursors: keyServicesOfThisStore().cursors,
    retentionSeconds: config().apiLogRetentionDays * 86400,
    now: nowMillis,
  });

/** The functions' account reads keep an API key API_KEY_CACHE_SECONDS per warm instance (store/recent.ts). */
export const accountRepository = () => new DynamoAccountRepository(dynamo(), tableName(), { keyCacheSeconds: config().apiKeyCacheSeconds });
/** The operator console's count of failed sign-ins (web/console). */
export const consoleSignInThrottle = () => new ConsoleSignInThrottle(new DynamoThrottleRepository(dynamo(), tableName()));
/** The operator console's signed-out sessions (web/console/session.ts). */
export const consoleSessionRevocations = () => new DynamoSessionRevocations(dynamo(), tableName());
export const outboxRepository = () => new DynamoOutboxRepository(dynamo(), tableName());
/** GET /mail-backlog: the outbox's waiting mails, counted. */
export const mailBacklogService = () => new MailBacklogService(outboxRepository());
export const suppressionRepository = () => new DynamoSuppressionRepository(dynamo(), tableName());
const definitionRepository = () => new DynamoDefinitionRepository(dynamo(), tableName());
const settingsRepository = () => new DynamoSettingsRepository(dynamo(), tableName());
export const tenantRepository = () => new DynamoTenantRepository(dynamo(), tableName());
/** SAML assertions already used (web/login/saml/service-provider.ts). */
export const samlAssertions = () => new DynamoSamlAssertionRepository(dynamo(), tableName());
/** A tenant's SAML metadata_url, read only from public addresses (shared/http/public-fetch.ts). */
export const metadataFetcher = () => new PublicFetcher({ resolve: hostResolver(), timeoutMs: 5000, maxBytes: 256 * 1024 });
const userRepository = () => new DynamoUserRepository(dynamo(), tableName());
const signInRepository = () => new DynamoSignInRepository(dynamo(), tableName());
const committer = () => new DynamoCommitter(dynamo());

export const definitionService = () => new DefinitionService(definitionRepository());

export const tenantService = () =>
  new TenantService(
    tenantRepository(),
    definitionRepository(),
    (saasId, tenantId) => `${hostedLoginScreen(saasId)}saml?tenant_id=${encodeURIComponent(tenantId)}`,
    catalogueService(),
  );

const catalogueRepository = () => new DynamoCatalogueRepository(dynamo(), tableName(), { meterCacheSeconds: config().settingsCacheSeconds });

/** The Pricing API's catalogue: units, metering units, menus, plans, tax rates (shared/domain/pricing). */
export const catalogueService = () => new CatalogueService(catalogueRepository(), LAMBDA_RESPONSE_LIMIT_BYTES);

/** Tenants the metering function found, kept SETTINGS_CACHE_SECONDS per warm instance (store/recent.ts). */
const knownTenants = new Recent<true | undefined>();

/** Metering counts: the Pricing API's hot path. */
export const meteringService = () => {
  const catalogue = catalogueRepository();
  return new MeteringService({
    counts: new DynamoMeteringRepository(dynamo(), tableName()),
    meter: (saasId, unitName) => catalogue.meterByName(saasId, unitName),
    meters: async (saasId) => (await catalogue.read(saasId)).meters.sort((a, b) => a.unit_name.localeCompare(b.unit_name)),
    tenantExists: async (saasId, tenantId) =>
      (await knownTenants.get(`${saasId}\n${tenantId}`, config().settingsCacheSeconds, async () =>
        (await tenantRepository().get(saasId, tenantId)) ? true : undefined,
      )) === true,
    shards: config().meteringWriteShards,
    hotPerSecond: config().meteringHotUpdatesPerSecond,
  });
};

/** The SaaS's payment provider: its key, Connect and Disconnect (PATCH /stripe/init, DELETE /stripe). */
export const paymentProviderService = () =>
  new PaymentProviderService({
    settings: settingsRepository(),
    box: secretBox(),
    tenants: tenantRepository(),
    client: new StripeClient(config().stripeApiBaseUrl, config().stripeTimeoutMs),
  });

/** The login screen's theme (GET/PATCH /login-theme); the screen reads it through the settings cache. */
export const loginThemeService = (cached = false) =>
  new LoginThemeService(
    cached ? new DynamoSettingsRepository(dynamo(), tableName(), { cacheSeconds: config().settingsCacheSeconds }) : settingsRepository(),
  );

export const infrastructureService = () =>
  new InfrastructureService(settingsRepository(), {
    serviceAccountId: config().serviceAccountId,
    publicBaseUrl: config().publicBaseUrl,
    region: config().region,
  });

/** GET /.well-known/openid-configuration: the configured issuer and public base URL, never the request's Host. */
export const openIdDiscovery = () => openIdConfiguration(config().tokenIssuer, config().publicBaseUrl);

/** Where SES is (locally, the stand-in). */
const sesSettings = () => ({ region: config().region, endpoint: config().sesEndpoint });

/** Locally there is no SES identity to create or verify: the stand-in answers instead. */
const emailIdentities = () => (config().sesEndpoint ? new LocalEmailIdentities() : new SesEmailIdentities(sesClient(sesSettings())));

/** Which host serves which SaaS's screen (shared/screen-hosts.ts), from this deployment's configuration. */
export const screenHosts = () => screenHostPlan(config());

/** A SaaS's screen on `origin` (its own domain), else on its host under the login domain, else on the API's. */
const hostedLoginScreen = (saasId: string, origin?: string) => loginScreenUrl(`${origin ?? screenOrigin(screenHosts(), saasId)}${BASE_PATH}`, saasId);

const configuration = (identities: EmailIdentityPort, domains: SiteDomainPort, settings = settingsRepository()) =>
  new ConfigurationService(
    settings,
    secretBox(),
    identities,
    config().defaultDomainName,
    hostedLoginScreen,
    domains,
    config().publicBaseUrl,
    config().refreshTokenLifetimeSeconds,
    (domain) => isServiceDomain(screenHosts(), domain),
  );

/** A SaaS's own domain: ACM and API Gateway on AWS, the stand-in where SES is (local mode and the tests). */
const ownDomains = () => siteDomains({ region: config().region, local: config().sesEndpoint !== undefined, apiId: config().apiId });

export const configurationService = () => configuration(emailIdentities(), ownDomains());

/** Only the configuration function manages SES identities; the others read configuration without them. */
const notHere = () => Promise.reject(new Error('e-mail identities are managed by the configuration function'));
const noEmailIdentities: EmailIdentityPort = { ensure: notHere, status: notHere, productionAccess: notHere };
const noSiteDomains: SiteDomainPort = { requestCertificate: notHere, certificate: notHere, serve: notHere, pointsAt: notHere };

/**
 * Configuration reads (password policy, the SaaS's domain, sign-in settings) for the functions outside the
 * configuration group: with no reference to the SES client, their bundles leave it out (about 75 KB). They
 * keep what they read SETTINGS_CACHE_SECONDS per warm instance (store/recent.ts).
 */
export const configurationReader = () =>
  configuration(
    noEmailIdentities,
    noSiteDomains,
    new DynamoSettingsRepository(dynamo(), tableName(), { cacheSeconds: config().settingsCacheSeconds }),
  );

const IMPORT_BUDGET_MS = 35_000;

/** Import jobs (our extension, issue 39): the API starts them, the scheduled worker and `npm run admin -- import` run them. */
export const importService = () => {
  const tenantUsers = tenantUserService();
  return new ImportService({
    imports: new DynamoImportRepository(dynamo(), tableName()),
    users: userRepository(),
    tenants: tenantRepository(),
    definitions: definitionRepository(),
    committer: committer(),
    addMember: (saasId, membership) => tenantUsers.addMember(saasId, membership),
    planExists: async (saasId, planId) => (await catalogueService().planStatus(saasId, planId)) === 'exists',
  });
};

/** Each run of the scheduled worker, over every SaaS. */
export const scheduledWork = () => {
  const [tenants, mail, imports] = [tenantService(), courier(), importService()];
  // The scheduled function stops at 60 s (lib/service-stack.ts): imports get what the rest leaves of it.
  const importDeadline = Date.now() + IMPORT_BUDGET_MS;
  return new ScheduledWork({
    saasIds: async () => (await accountRepository().listSaas()).map((saas) => saas.id),
    applyDueReservations: (saasId) => tenants.applyDueReservations(saasId),
    deliverDueMail: async (saasId) => (await mail.deliverDue(saasId)).sent,
    mailBacklog: (saasId) => mail.backlog(saasId),
    runImports: (saasId) => imports.runUnfinished(saasId, { deadline: importDeadline }),
  });
};

/** The courier reads templates and sender addresses only: it needs no SES identity client. */
export const courier = () =>
  new Courier(
    outboxRepository(),
    configurationReader(),
    secretBox(),
    new SesMailSender(sesSendingClient(sesSettings()), config().mailConfigurationSet),
    suppressionRepository(),
  );

/**
 * The SaaS's SRP POOL_NAME. It never changes for the life of a SaaS (verifiers are bound to it), so it is
 * read once per cold start: that saves every sign-in and every password write one store request.
 */
const poolNames = new Map<string, string>();
const poolName = async (saasId: string) => {
  const known = poolNames.get(saasId);
  if (known) return known;
  const saas = await accountRepository().getSaas(saasId);
  if (!saas) throw new Error(`no SaaS account ${saasId}`);
  poolNames.set(saasId, saas.poolName);
  return saas.poolName;
};

export const tenantUserService = () => {
  const users = userRepository();
  return new TenantUserService(
    new DynamoMembershipRepository(dynamo(), tableName(), users),
    users,
    tenantRepository(),
    definitionRepository(),
    committer(),
    keyServicesOfThisStore().cursors,
  );
};

export const userService = () => {
  const tenantUsers = tenantUserService();
  return new UserService({
    users: userRepository(),
    committer: committer(),
    definitions: definitionRepository(),
    settings: settingsRepository(),
    box: secretBox(),
    mailLimits: config().mailLimits,
    passwordPolicy: (saasId) => configurationReader().passwordPolicy(saasId),
    poolName,
    userInfo: (saasId, userId) => tenantUsers.userInfo(saasId, userId),
    cursors: keyServicesOfThisStore().cursors,
    activity: activityLog(),
  });
};

/**
 * The deployment's keys and what is built on them hold caches (keys, the opened signing key, the SRP secret,
 * the verifier's JWKS) that must live for the whole cold start, not one request. They are rebuilt only when
 * the store itself is (tests and the local runner point the process at another table).
 */
interface KeyServices {
  db: DynamoClient;
  keyStore: KeyStore;
  tokenVerifier: TokenVerifier;
  srpSignIn: SrpSignIn;
  refreshTokens: RefreshTokens;
  cursors: Cursors;
}
let keyServices: KeyServices | undefined;

function keyServicesOfThisStore(): KeyServices {
  const db = dynamo();
  if (keyServices?.db !== db) {
    const { tokenIssuer, tokenLifetimeSeconds, signInSessionSeconds } = config();
    const keyStore = new KeyStore(new DynamoKeyRepository(db, tableName()), secretBox(), { tokenLifetimeSeconds });
    keyServices = {
      db,
      keyStore,
      tokenVerifier: new TokenVerifier(
        keyStore,
        tokenIssuer,
        (saasId) => configurationReader().signInPageUrl(saasId),
        new DynamoUserRepository(db, tableName()),
      ),
      srpSignIn: new SrpSignIn(keyStore, { sessionSeconds: signInSessionSeconds }),
      // The SaaS's refresh_token_validity, read with the sign-in settings (kept SETTINGS_CACHE_SECONDS).
      refreshTokens: new RefreshTokens(keyStore, (saasId) => configurationReader().refreshTokenSeconds(saasId)),
      // The deployment's SRP secret, from which the cursor key is derived for that use alone (paging.ts).
      cursors: new Cursors(() => keyStore.srpSecret()),
    };
  }
  return keyServices;
}

/** Signing keys, the JWKS and the SRP secret. The public function only calls its read-only publishedKeys(). */
export const keyStore = () => keyServicesOfThisStore().keyStore;

export const tokenService = () => new TokenService(keyStore(), { issuer: config().tokenIssuer, lifetimeSeconds: config().tokenLifetimeSeconds });

/** verifyAccessToken / verifyIdToken for every operation that takes a user's token. */
export const tokenVerifier = () => keyServicesOfThisStore().tokenVerifier;

export const srpSignIn = () => keyServicesOfThisStore().srpSignIn;

/** E-mail update, authenticator-app registration and account links: the flows a user proves with a token. */
export const userFlowService = () =>
  new UserFlowService({
    users: userRepository(),
    passwordChange: (saasId, userId, password, recorded) => userService().passwordChangeWrite(saasId, userId, password, false, recorded),
    flows: new DynamoUserFlowRepository(dynamo(), tableName()),
    committer: committer(),
    tokens: tokenVerifier(),
    box: secretBox(),
    mailLimits: config().mailLimits,
    activity: activityLog(),
  });

/** Tenant invitations: create, read, delete, and accept (as an existing user or a new one). */
export const invitationService = () =>
  new InvitationService({
    invitations: new DynamoInvitationRepository(dynamo(), tableName()),
    tenants: tenantRepository(),
    definitions: definitionRepository(),
    users: userRepository(),
    userService: userService(),
    tenantUsers: tenantUserService(),
    tokens: tokenVerifier(),
    committer: committer(),
    box: secretBox(),
    mailLimits: config().mailLimits,
    loginScreenUrl: (saasId) => configurationReader().loginScreenUrl(saasId),
    lifetimeSeconds: config().invitationLifetimeSeconds,
  });

const deviceRemembering = async (saasId: string) => (await configurationReader().signInSettings(saasId)).device_configuration.device_remembering;

/**
 * The sign-in settings of a SaaS read once per service object (one request): a sign-in's device offer and its
 * refresh token's lifetime come from one read, even where the settings cache has nothing (a SaaS that never
 * saved them: absent documents are not kept).
 */
function signInSettingsOnce() {
  const reads = new Map<string, Promise<SignInSettings>>();
  return (saasId: string) => {
    let read = reads.get(saasId);
    if (!read) reads.set(saasId, (read = configurationReader().signInSettings(saasId)));
    return read;
  };
}

/** Sign In and Respond to Sign In Challenge. */
export const signInService = () => {
  const { signInSessionSeconds, tokenLifetimeSeconds, region } = config();
  const settings = signInSettingsOnce();
  return new SignInService({
    users: userRepository(),
    passwordChange: (saasId, userId, password) => userService().passwordChangeWrite(saasId, userId, password),
    store: signInRepository(),
    committer: committer(),
    srp: srpSignIn(),
    tokens: tokenService(),
    refreshTokens: new RefreshTokens(keyStore(), async (saasId) => validitySeconds((await settings(saasId)).refresh_token_validity)),
    box: secretBox(),
    mailLimits: config().mailLimits,
    poolName,
    deviceRemembering: async (saasId) => (await settings(saasId)).device_configuration.device_remembering,
    settings: {
      challengeSeconds: signInSessionSeconds,
      offeredDeviceSeconds: tokenLifetimeSeconds,
      region,
    },
    activity: activityLog(),
  });
};

/** Confirm Device and Update Device Status. */
export const deviceService = () => new DeviceService({ store: signInRepository(), verifier: tokenVerifier(), deviceRemembering });

/** Refresh, temporary codes, /userinfo. */
export const credentialService = () =>
  new CredentialService({
    users: userRepository(),
    refreshTokens: keyServicesOfThisStore().refreshTokens,
    grants: new DynamoGrantRepository(dynamo(), tableName()),
    authorizationCodes: new DynamoAuthorizationCodeRepository(dynamo(), tableName()),
    tempCodes: new DynamoTempCodeRepository(dynamo(), tableName()),
    tokens: tokenService(),
    tokenLifetimeSeconds: config().tokenLifetimeSeconds,
    verifier: tokenVerifier(),
    userInfo: (saasId, userId) => tenantUserService().userInfoAndSession(saasId, userId),
    signInPageUrl: (saasId) => configurationReader().signInPageUrl(saasId),
  });

const selfSignUpEnabled = async (saasId: string) => (await configurationReader().signInSettings(saasId)).self_regist.enable;

export const signUpService = () =>
  new SignUpService({
    users: userService(),
    selfSignUpEnabled,
    pending: new DynamoPendingSignUpRepository(dynamo(), tableName()),
    box: secretBox(),
    mailLimits: config().mailLimits,
    committer: committer(),
    passwordPolicy: (saasId) => configurationReader().passwordPolicy(saasId),
  });

/** Who an external provider's account signs in as (Google, SAML): shared/domain/sign-in/federation.ts. */
export const federationService = () =>
  new FederationService({
    users: userRepository(),
    userService: userService(),
    flows: new DynamoUserFlowRepository(dynamo(), tableName()),
    links: userFlowService(),
    committer: committer(),
    signIn: signInService(),
    selfSignUpEnabled,
    passwordPolicy: (saasId) => configurationReader().passwordPolicy(saasId),
    isMember: async (saasId, tenantId, userId) =>
      (await new DynamoMembershipRepository(dynamo(), tableName(), userRepository()).get(saasId, tenantId, userId)) !== undefined,
    // issue 41: verified domains route and guard a tenant's provider (shared/domain/tenants/verified-domains.ts).
    domainOwner: (saasId, email) => verifiedDomainService().ownerOf(saasId, email),
    joinTenant: joinTenantJustInTime,
  });

/** The resolver is the seam for AWS Marketplace's own ResolveCustomer (docs/marketplace.md). */
export const marketplaceService = () =>
  new MarketplaceService({
    resolver: new SignedTokenResolver(config().marketplaceTokenSecret),
    signUp: signUpService(),
    users: userService(),
    tenants: tenantRepository(),
    tenantUsers: tenantUserService(),
    accessTokens: tokenVerifier(),
    marketplace: new DynamoMarketplaceRepository(tableName()),
    committer: committer(),
  });

/** Passkeys (our extension): the hosted screen's ceremonies and the API's list and remove. */
export const passkeyService = () =>
  new PasskeyService({
    passkeys: new DynamoPasskeyRepository(dynamo(), tableName()),
    committer: committer(),
    enabled: async (saasId) => (await configurationReader().signInSettings(saasId)).passkeys.enable,
    users: {
      name: async (saasId, userId) => {
        const user = await userRepository().get(saasId, userId);
        return user ? loginOf(user).value : undefined;
      },
    },
    tokenHolder: async (saasId, accessToken) => (await tokenVerifier().verifyAccessToken(saasId, accessToken)).sub,
    signIn: (saasId, userId, ...writes) => signInService().federated(saasId, userId, { method: 'passkey' }, ...writes),
    activity: activityLog(),
  });

// issue 41: enterprise sign-in, a tenant's own OpenID Connect provider (shared/domain/tenants/tenant-oidc.ts)
/** The screen's `oidc/callback`: the redirect URI a tenant's provider is told; on the SaaS's screen host, as its sign-in URL. */
export const tenantOidcCallbackUrl = (saasId: string) => `${hostedLoginScreen(saasId)}oidc/callback`;

export const tenantOidcService = () =>
  new TenantOidcService({
    tenants: tenantRepository(),
    box: secretBox(),
    discover: (url, field) => discoverOidcIssuer(metadataFetcher().fetcher(field), url, field),
    callbackUrl: tenantOidcCallbackUrl,
    signInUrl: (saasId, tenantId) => `${hostedLoginScreen(saasId)}oidc?tenant_id=${encodeURIComponent(tenantId)}`,
  });

/** A newcomer of a tenant's verified domain joins it with the role, in the SaaS's first environment. */
async function joinTenantJustInTime(saasId: string, tenantId: string, userId: string, role: string): Promise<void> {
  const [env] = (await definitionRepository().listEnvs(saasId)).sort((a, b) => a.id - b.id);
  await tenantUserService().addMember(saasId, { tenantId, userId, ...(env ? { envs: [{ id: env.id, role_names: [role] }] } : {}) });
}

/** Verified domains and home-realm discovery (shared/domain/tenants/verified-domains.ts). */
export const verifiedDomainService = () =>
  new VerifiedDomainService({
    domains: new DynamoDomainRepository(dynamo(), tableName()),
    resolveTxt: txtResolver(),
    tenantExists: async (saasId, tenantId) => (await tenantRepository().get(saasId, tenantId)) !== undefined,
    roleExists: async (saasId, roleName) => (await definitionRepository().listRoles(saasId)).some((role) => role.role_name === roleName),
  });
