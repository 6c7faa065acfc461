/**
 * A SaaS's configuration: settings, definitions, the login screen's address and theme, e-mail identities, own
 * domains, infrastructure. What belongs here: a service over the settings or definitions, and the reader the
 * functions outside the configuration group use.
 */
import { config } from '../config.js';
import { BASE_PATH, loginScreenUrl } from '../routes.js';
import { isServiceDomain, screenHostPlan, screenOrigin } from '../screen-hosts.js';
import { sesClient } from '../adapters/mail/clients.js';
import { LocalEmailIdentities, SesEmailIdentities } from '../adapters/mail/identities.js';
import { siteDomains } from '../adapters/site-domains.js';
import { ConfigurationService, type EmailIdentityPort, type SiteDomainPort } from '../domain/configuration/configuration.js';
import type { PasswordSignIn } from '../schemas/configuration.js';
import type { SettingsRepository } from '../domain/configuration/settings.js';
import { DefinitionService } from '../domain/configuration/definitions.js';
import { InfrastructureService } from '../domain/configuration/infrastructure.js';
import { LoginThemeService } from '../domain/configuration/login-theme.js';
import { secretBox, sesSettings } from './clients.js';
import { cachedSettingsRepository, definitionRepository, settingsRepository, tenantRepository } from './repositories.js';
import { checkGroupMapping } from '../domain/migration/group-mapping.js';

export const definitionService = () => new DefinitionService(definitionRepository());

/** The login screen's theme (GET/PATCH /login-theme); the screen reads it through the settings cache. */
export const loginThemeService = (cached = false) => new LoginThemeService(cached ? cachedSettingsRepository() : settingsRepository());

export const infrastructureService = () =>
  new InfrastructureService(settingsRepository(), {
    serviceAccountId: config().serviceAccountId,
    publicBaseUrl: config().publicBaseUrl,
    region: config().region,
  });

/** Locally there is no SES identity to create or verify: the stand-in answers instead. */
const emailIdentities = () => (config().sesEndpoint ? new LocalEmailIdentities() : new SesEmailIdentities(sesClient(sesSettings())));

/** Which host serves which SaaS's screen (shared/screen-hosts.ts), from this deployment's configuration. */
export const screenHosts = () => screenHostPlan(config());

/** A SaaS's screen on `origin` (its own domain), else on its host under the login domain, else on the API's. */
export const hostedLoginScreen = (saasId: string, origin?: string) =>
  loginScreenUrl(`${origin ?? screenOrigin(screenHosts(), saasId)}${BASE_PATH}`, saasId);

/**
 * What password_sign_in names checked against the SaaS (the lazy migration's group mapping: its tenants, envs and
 * roles), for the services that save settings: the configuration function's and the import's. The readers of the
 * other functions save none, and leave the check out of their bundles (the sign-in bundle's bound).
 */
export const checkPasswordSignIn = (saasId: string, value: PasswordSignIn) =>
  checkGroupMapping({ tenants: tenantRepository(), definitions: definitionRepository() }, saasId, value.cognito_pool?.groups ?? []);

const configuration = (
  identities: EmailIdentityPort,
  domains: SiteDomainPort,
  settings: SettingsRepository = settingsRepository(),
  check?: typeof checkPasswordSignIn,
) =>
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
    check,
  );

/** A SaaS's own domain: ACM and API Gateway on AWS, the stand-in where SES is (local mode and the tests). */
const ownDomains = () => siteDomains({ region: config().region, local: config().sesEndpoint !== undefined, apiId: config().apiId });

export const configurationService = () => configuration(emailIdentities(), ownDomains(), settingsRepository(), checkPasswordSignIn);

/** Only the configuration function manages SES identities; the others read configuration without them. */
const notHere = () => Promise.reject(new Error('e-mail identities are managed by the configuration function'));
const noEmailIdentities: EmailIdentityPort = { ensure: notHere, status: notHere, productionAccess: notHere };
const noSiteDomains: SiteDomainPort = { requestCertificate: notHere, certificate: notHere, serve: notHere, pointsAt: notHere };

/**
 * Configuration reads (password policy, the SaaS's domain, sign-in settings) for the functions outside the
 * configuration group: with no reference to the SES client, their bundles leave it out (about 75 KB). They
 * keep what they read SETTINGS_CACHE_SECONDS per warm instance (store/recent.ts).
 */
export const configurationReader = (settings: SettingsRepository = cachedSettingsRepository(), check?: typeof checkPasswordSignIn) =>
  configuration(noEmailIdentities, noSiteDomains, settings, check);

/** A SaaS's sign-in settings, read through the settings cache. */
export const signInSettings = (saasId: string) => configurationReader().signInSettings(saasId);

/** A SaaS's password policy, read through the settings cache, with this deployment's breached-password range service. */
export const passwordPolicy = (saasId: string) => configurationReader().passwordPolicy(saasId, { baseUrl: config().breachedRangeBaseUrl });
