/**
 * The only reader of process.env (docs/decisions.md, layout). Read once per cold start and checked, so a missing
 * setting fails at start-up with a clear message rather than deep inside a request.
 */

/** A setting that is missing or malformed: its message names the variable and what it must be. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface ServiceConfig {
  /** Required by the store only (tableName() in shared/wiring/clients.ts), so table-less code paths run without it. */
  tableName: string | undefined;
  region: string;
  /** Set in local mode: DynamoDB Local's URL. */
  dynamoEndpoint: string | undefined;
  /** Set in local mode: the SES v2 stand-in's URL. */
  sesEndpoint: string | undefined;
  /** On AWS, the stack's alarmed dead-letter queue: event deliveries given up are sent there (docs/events.md). */
  deadLetterQueueUrl: string | undefined;
  /** Tests and laptops only: cognito-local's URL, in place of the old pool's region endpoint (lazy migration). */
  cognitoEndpoint: string | undefined;
  /** On AWS: the KMS key that wraps the data keys of stored secrets. */
  kmsKeyId: string | undefined;
  /** In local mode: a 32-byte key (base64) that stands in for KMS. */
  localMasterKey: string | undefined;
  defaultDomainName: string;
  /** The AWS account the service runs in (the cross-account role trusts it). */
  serviceAccountId: string;
  /** Minutes either side of now that a SAASUSSIGV1 time may differ by (clock skew). */
  signatureWindowMinutes: number;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** On AWS: the SES configuration set every mail is sent with (bounce and complaint events, reputation). */
  mailConfigurationSet: string | undefined;
  /**
   * The `iss` of every token. Fixed by configuration (TOKEN_ISSUER), not taken from the request, so a token
   * verifies however the API was reached; by default `https://<DEFAULT_DOMAIN_NAME>/v1/auth`, where OpenID
   * discovery finds `/.well-known/openid-configuration`.
   */
  tokenIssuer: string;
  /** The OpenID Connect provider behind the Google button: Google, or a stand-in on this machine (GOOGLE_ISSUER). */
  googleIssuer: string;
  /**
   * Mails the API may cause (the MailLimits of shared/domain/mail/mail.ts, the same shape written out here:
   * config.ts imports nothing of the domain): at most MAIL_LIMIT_PER_ADDRESS (5) to one address
   * in MAIL_LIMIT_ADDRESS_WINDOW_SECONDS (15 minutes), and MAIL_LIMIT_PER_USER (10) for one user in
   * MAIL_LIMIT_USER_WINDOW_SECONDS (1 hour).
   */
  mailLimits: { perAddress: number; addressWindowSeconds: number; perUser: number; userWindowSeconds: number };
  /** Stripe's API (STRIPE_API_BASE_URL, https://api.stripe.com): a local stand-in in tests. */
  stripeApiBaseUrl: string;
  /**
   * How long one call to Stripe may take, answer included (STRIPE_TIMEOUT_MS, 8000): past it the call is
   * `503 payment_provider_unavailable`, well inside API Gateway's 30 seconds.
   */
  stripeTimeoutMs: number;
  /**
   * The breached-password range service a SaaS may turn on (sign-in setting `password_breach_range`), with the
   * Pwned Passwords API's shape (BREACHED_RANGE_BASE_URL, https://api.pwnedpasswords.com): a local stand-in in tests.
   */
  breachedRangeBaseUrl: string;
  /** The service's HTTP API id: a SaaS's own domain is mapped to it (the configuration function only). */
  apiId: string | undefined;
  /**
   * The base URL of the API as the world reaches it (PUBLIC_BASE_URL, by default TOKEN_ISSUER): every URL the
   * service hands out (discovery, JWKS, role template) is built from it, never from the request's Host or
   * X-Forwarded-* headers, which a caller chooses.
   */
  publicBaseUrl: string;
  /**
   * The domain under which each SaaS's login screen has a host of its own, `<saas id>.<login domain>`
   * (LOGIN_DOMAIN, a host name with an optional port, such as `login.example.com` or `localhost:8080`): the
   * wildcard custom domain of the stack (docs/deployment.md). Unset, every screen shares the API's origin and
   * runs no SaaS-supplied script (shared/screen-hosts.ts).
   */
  loginDomain: string | undefined;
  /** Lifetime of ID and access tokens, in seconds (TOKEN_LIFETIME_SECONDS, 1 hour). */
  tokenLifetimeSeconds: number;
  /** SCIM calls one tenant's directory may make per minute (SCIM_REQUESTS_PER_MINUTE, 6000); past it, 429. */
  scimRequestsPerMinute: number;
  /**
   * How long a warm instance keeps an API key it read (API_KEY_CACHE_SECONDS, 10; 0 reads it on every request):
   * a key revoked elsewhere is refused everywhere within that time, by the instance that revoked it at once.
   */
  apiKeyCacheSeconds: number;
  /**
   * How long the functions that only read settings keep them (SETTINGS_CACHE_SECONDS, 10; 0: never): a
   * settings change reaches every function group within that time.
   */
  settingsCacheSeconds: number;
  /**
   * Write shards per metering timestamp (METERING_WRITE_SHARDS, 4, at most 25): how many items a busy second's
   * updates of one tenant's unit spread over (1: never spread) (docs/decisions.md, decision 13). Raise it, never lower it: reads
   * of one timestamp look at shards below this number only.
   */
  meteringWriteShards: number;
  /**
   * Updates per second one instance makes to one metering timestamp before it spreads them over the write
   * shards (METERING_HOT_UPDATES_PER_SECOND, 25). Below it an update is one store request.
   */
  meteringHotUpdatesPerSecond: number;
  /**
   * How long the API log keeps a call (APILOG_RETENTION_DAYS, 90): the store's TTL deletes it some time after,
   * and every read refuses it from then on.
   */
  apiLogRetentionDays: number;
  /**
   * Write shards of each SaaS's API log (APILOG_WRITE_SHARDS, 8, at most 25): each takes 1,000 calls a second.
   * Raise it, never lower it: reads look at shards below this number only.
   */
  apiLogWriteShards: number;
  /** Lifetime of refresh tokens, in seconds (REFRESH_TOKEN_LIFETIME_SECONDS, 30 days). */
  refreshTokenLifetimeSeconds: number;
  /** How long an SRP challenge may be answered, in seconds (SIGN_IN_SESSION_SECONDS, 3 minutes). */
  signInSessionSeconds: number;
  /** How long a tenant invitation can be accepted, in seconds (INVITATION_LIFETIME_SECONDS, 7 days). */
  invitationLifetimeSeconds: number;
  /**
   * The key that registration tokens of the default marketplace resolver are signed with
   * (MARKETPLACE_TOKEN_SECRET, at least 32 characters); unset, marketplace sign-up answers 400.
   */
  marketplaceTokenSecret: string | undefined;
}

function stringFromEnv(name: string, fallback?: string): string {
  const value = process.env[name];
  if (value !== undefined && value !== '') return value;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`environment variable ${name} is required`);
}

function optionalFromEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

function booleanFromEnv(name: string): boolean {
  const raw = optionalFromEnv(name);
  if (raw === undefined) return false;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`environment variable ${name} must be true or false`);
}

function integerFromEnv(name: string, fallback: number): number {
  const raw = optionalFromEnv(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`environment variable ${name} must be a whole number`);
  return value;
}

/**
 * The ports the Fetch standard blocks (https://fetch.spec.whatwg.org/#port-blocking): Node's fetch and every browser
 * refuse to connect to them ("bad port") before trying, so an engine or page listening there can never be reached.
 */
export const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123,
  135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995,
  1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** A TCP port for `what` to listen on (0: any free one), refused at once if nothing could reach it there. */
function portFromEnv(name: string, fallback: number, what: string): number {
  const port = integerFromEnv(name, fallback);
  if (port > 65535) throw new ConfigError(`environment variable ${name} must be a port number, 0 to 65535`);
  if (FETCH_BAD_PORTS.has(port)) {
    throw new ConfigError(
      `environment variable ${name} is ${port}, a port that fetch refuses to connect to (Node's and browsers', the Fetch standard's bad ports), so nothing could reach ${what} there: set ${name} to another port, such as ${fallback}`,
    );
  }
  return port;
}

function positiveIntegerFromEnv(name: string, fallback: number): number {
  const value = integerFromEnv(name, fallback);
  if (value === 0) throw new ConfigError(`environment variable ${name} must be at least 1`);
  return value;
}

/** An absolute http(s) URL without a trailing slash, as a token's `iss` is compared byte for byte. */
function issuerFromEnv(name: string, fallback: string): string {
  const value = stringFromEnv(name, fallback);
  if (!/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(value) || value.endsWith('/')) {
    throw new ConfigError(`environment variable ${name} must be an absolute URL without a trailing slash, such as https://auth.example.com/v1/auth`);
  }
  return value;
}

/** A signing key must be long enough that guessing it is hopeless. */
function secretFromEnv(name: string, minimumLength: number): string | undefined {
  const value = optionalFromEnv(name);
  if (value !== undefined && value.length < minimumLength) {
    throw new ConfigError(`environment variable ${name} must be at least ${minimumLength} characters long`);
  }
  return value;
}

/** A host name (lower case, dot-separated labels) with an optional port: what follows `<saas id>.` in a screen's host. */
function loginDomainFromEnv(name: string): string | undefined {
  const value = optionalFromEnv(name);
  if (value === undefined) return undefined;
  const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
  if (!new RegExp(`^${label}(?:\\.${label})*(?::[0-9]{1,5})?$`).test(value)) {
    throw new ConfigError(`environment variable ${name} must be a lower-case host name with an optional port, such as login.example.com`);
  }
  return value;
}

let cached: ServiceConfig | undefined;

function readConfig(): ServiceConfig {
  const defaultDomainName = stringFromEnv('DEFAULT_DOMAIN_NAME', 'auth.localhost');
  const tokenIssuer = issuerFromEnv('TOKEN_ISSUER', `https://${defaultDomainName}/v1/auth`);
  return {
    tableName: optionalFromEnv('TABLE_NAME'),
    region: stringFromEnv('AWS_REGION', 'us-east-1'),
    dynamoEndpoint: optionalFromEnv('DYNAMODB_ENDPOINT'),
    deadLetterQueueUrl: optionalFromEnv('DEAD_LETTER_QUEUE_URL'),
    sesEndpoint: optionalFromEnv('SES_ENDPOINT'),
    cognitoEndpoint: optionalFromEnv('COGNITO_ENDPOINT'),
    kmsKeyId: optionalFromEnv('KMS_KEY_ID'),
    localMasterKey: optionalFromEnv('LOCAL_MASTER_KEY'),
    defaultDomainName,
    serviceAccountId: stringFromEnv('SERVICE_ACCOUNT_ID', '000000000000'),
    signatureWindowMinutes: integerFromEnv('SIGNATURE_WINDOW_MINUTES', 3),
    maxBodyBytes: integerFromEnv('MAX_BODY_BYTES', 256 * 1024),
    mailConfigurationSet: optionalFromEnv('MAIL_CONFIGURATION_SET'),
    tokenIssuer,
    googleIssuer: issuerFromEnv('GOOGLE_ISSUER', 'https://accounts.google.com'),
    publicBaseUrl: issuerFromEnv('PUBLIC_BASE_URL', tokenIssuer),
    stripeApiBaseUrl: issuerFromEnv('STRIPE_API_BASE_URL', 'https://api.stripe.com'),
    stripeTimeoutMs: positiveIntegerFromEnv('STRIPE_TIMEOUT_MS', 8000),
    breachedRangeBaseUrl: issuerFromEnv('BREACHED_RANGE_BASE_URL', 'https://api.pwnedpasswords.com'),
    apiId: optionalFromEnv('API_ID'),
    loginDomain: loginDomainFromEnv('LOGIN_DOMAIN'),
    mailLimits: {
      perAddress: positiveIntegerFromEnv('MAIL_LIMIT_PER_ADDRESS', 5),
      addressWindowSeconds: positiveIntegerFromEnv('MAIL_LIMIT_ADDRESS_WINDOW_SECONDS', 15 * 60),
      perUser: positiveIntegerFromEnv('MAIL_LIMIT_PER_USER', 10),
      userWindowSeconds: positiveIntegerFromEnv('MAIL_LIMIT_USER_WINDOW_SECONDS', 3600),
    },
    tokenLifetimeSeconds: positiveIntegerFromEnv('TOKEN_LIFETIME_SECONDS', 3600),
    apiKeyCacheSeconds: integerFromEnv('API_KEY_CACHE_SECONDS', 10),
    scimRequestsPerMinute: integerFromEnv('SCIM_REQUESTS_PER_MINUTE', 6000),
    settingsCacheSeconds: integerFromEnv('SETTINGS_CACHE_SECONDS', 10),
    meteringWriteShards: Math.min(25, positiveIntegerFromEnv('METERING_WRITE_SHARDS', 4)),
    meteringHotUpdatesPerSecond: positiveIntegerFromEnv('METERING_HOT_UPDATES_PER_SECOND', 25),
    apiLogRetentionDays: positiveIntegerFromEnv('APILOG_RETENTION_DAYS', 90),
    apiLogWriteShards: Math.min(25, positiveIntegerFromEnv('APILOG_WRITE_SHARDS', 8)),
    refreshTokenLifetimeSeconds: positiveIntegerFromEnv('REFRESH_TOKEN_LIFETIME_SECONDS', 30 * 86400),
    signInSessionSeconds: positiveIntegerFromEnv('SIGN_IN_SESSION_SECONDS', 180),
    invitationLifetimeSeconds: positiveIntegerFromEnv('INVITATION_LIFETIME_SECONDS', 7 * 86400),
    marketplaceTokenSecret: secretFromEnv('MARKETPLACE_TOKEN_SECRET', 32),
  };
}

export function config(): ServiceConfig {
  cached ??= readConfig();
  return cached;
}

/**
 * CloudWatch embedded metrics on stdout (METRICS_ENABLED): on in the deployed functions, off locally and in
 * tests. Read by shared/metrics.ts alone, which the domain counts through without a constructor to pass it
 * (docs/decisions.md, "Settings and secrets"); every other setting reaches service code from the wiring.
 */
export function metricsEnabled(): boolean {
  return booleanFromEnv('METRICS_ENABLED');
}

/**
 * X-Ray tracing of the handlers and AWS calls (TRACING_ENABLED): off unless the stack turns it on. Read by
 * shared/observability.ts alone, while it loads, to load the tracer or not (docs/decisions.md, "Settings and secrets").
 */
export function tracingEnabled(): boolean {
  return booleanFromEnv('TRACING_ENABLED');
}

export interface LocalRunnerConfig {
  apiPort: number;
  /** The example application (examples/app) beside the API. */
  appPort: number;
  dynamoPort: number;
  sesPort: number;
  dataDir: string;
}

/** Settings of `npm start` (bin/local.ts), not of the functions. */
export function localRunnerConfig(): LocalRunnerConfig {
  return {
    apiPort: portFromEnv('PORT', 8080, 'the API'),
    appPort: portFromEnv('APP_PORT', 8081, 'the example app'),
    dynamoPort: portFromEnv('DYNAMODB_PORT', 8000, 'DynamoDB Local'),
    sesPort: portFromEnv('SES_PORT', 8005, 'the SES stand-in'),
    dataDir: stringFromEnv('DATA_DIR', '.data'),
  };
}

export function logLevelFromEnv(): string {
  return stringFromEnv('LOG_LEVEL', 'info');
}

/** Tests and the local runner change the environment between runs of the same process. */
export function resetConfigForTests(): void {
  cached = undefined;
}
