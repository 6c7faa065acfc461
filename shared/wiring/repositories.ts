/**
 * Every DynamoDB repository, built here and nowhere else: a noun's file asks for `userRepository()`, never
 * `new DynamoUserRepository(...)`. What belongs here: one factory per repository (and the committer), with the
 * cache or retention setting it is built with. They are thin objects over the one client (clients.ts), so making
 * them per request costs nothing.
 */
import { config } from '../config.js';
import { DynamoAccountRepository } from '../store/account-repository.js';
import { DynamoApiLogRepository } from '../store/api-log-repository.js';
import { DynamoCatalogueRepository } from '../store/catalogue-repository.js';
import { DynamoDefinitionRepository } from '../store/definition-repository.js';
import { DynamoEventRepository } from '../store/event-repository.js';
import { DynamoAnalysisRepository } from '../store/analysis-repository.js';
import { DynamoAuthorizationCodeRepository, DynamoGrantRepository } from '../store/grant-repository.js';
import { DynamoImportRepository } from '../store/import-repository.js';
import { DynamoExportJobRepository } from '../store/export-job-repository.js';
import { DynamoInvitationRepository } from '../store/invitation-repository.js';
import { DynamoKeyRepository } from '../store/key-repository.js';
import { DynamoMarketplaceRepository } from '../store/marketplace-repository.js';
import { DynamoMembershipRepository } from '../store/membership-repository.js';
import { DynamoMeteringRepository } from '../store/metering-repository.js';
import { DynamoScimRepository } from '../store/scim-repository.js';
import { DynamoOutboxRepository } from '../store/outbox-repository.js';
import { DynamoPasskeyRepository } from '../store/passkey-repository.js';
import { DynamoSamlAssertionRepository } from '../store/saml-assertion-repository.js';
import { DynamoSessionRevocations } from '../store/session-revocation-repository.js';
import { DynamoSettingsRepository } from '../store/settings-repository.js';
import { DynamoSignInCountsRepository } from '../store/sign-in-counts-repository.js';
import { DynamoSignInRepository, DynamoTempCodeRepository } from '../store/sign-in-repository.js';
import { DynamoScreenSessionRepository } from '../store/screen-session-repository.js';
import { DynamoPendingSignUpRepository } from '../store/sign-up-repository.js';
import { DynamoSuppressionRepository } from '../store/suppression-repository.js';
import { DynamoTenantRepository } from '../store/tenant-repository.js';
import { DynamoThrottleRepository } from '../store/throttle-repository.js';
import { DynamoCommitter } from '../store/transact.js';
import { DynamoUserFlowRepository } from '../store/user-flow-repository.js';
import { DynamoUserRepository } from '../store/user-repository.js';
import { DynamoDomainRepository } from '../store/domain-repository.js';
import { DynamoSetupLinkRepository } from '../store/setup-link-repository.js';
import { dynamo, tableName } from './clients.js';

/** The seconds the API log keeps a call: the log, the sign-in counts and users' activity are kept as long. */
export const apiLogRetentionSeconds = () => config().apiLogRetentionDays * 86400;

export const committer = () => new DynamoCommitter(dynamo());

/** The functions' account reads keep an API key API_KEY_CACHE_SECONDS per warm instance (store/recent.ts). */
export const accountRepository = () => new DynamoAccountRepository(dynamo(), tableName(), { keyCacheSeconds: config().apiKeyCacheSeconds });
export const apiLogRepository = () => new DynamoApiLogRepository(dynamo(), tableName(), config().apiLogWriteShards);
/** A SaaS's daily sign-in counts, kept as long as the API log keeps calls. */
export const signInCountsRepository = () => new DynamoSignInCountsRepository(dynamo(), tableName(), apiLogRetentionSeconds());
export const throttleRepository = () => new DynamoThrottleRepository(dynamo(), tableName());
/** The operator console's signed-out sessions (web/console/session.ts). */
export const consoleSessionRevocations = () => new DynamoSessionRevocations(dynamo(), tableName());

export const outboxRepository = () => new DynamoOutboxRepository(dynamo(), tableName());
export const suppressionRepository = () => new DynamoSuppressionRepository(dynamo(), tableName());

export const definitionRepository = () => new DynamoDefinitionRepository(dynamo(), tableName());
export const settingsRepository = () => new DynamoSettingsRepository(dynamo(), tableName());
/** The settings as the functions outside the configuration group read them: kept SETTINGS_CACHE_SECONDS per warm instance. */
export const cachedSettingsRepository = () => new DynamoSettingsRepository(dynamo(), tableName(), { cacheSeconds: config().settingsCacheSeconds });

export const tenantRepository = () => new DynamoTenantRepository(dynamo(), tableName());
export const membershipRepository = (users = userRepository()) => new DynamoMembershipRepository(dynamo(), tableName(), users);
export const domainRepository = () => new DynamoDomainRepository(dynamo(), tableName());
export const setupLinkRepository = () => new DynamoSetupLinkRepository(dynamo(), tableName());
export const invitationRepository = () => new DynamoInvitationRepository(dynamo(), tableName());
export const marketplaceRepository = () => new DynamoMarketplaceRepository(tableName());

export const catalogueRepository = () => new DynamoCatalogueRepository(dynamo(), tableName(), { meterCacheSeconds: config().settingsCacheSeconds });
export const meteringRepository = () => new DynamoMeteringRepository(dynamo(), tableName());

export const userRepository = () => new DynamoUserRepository(dynamo(), tableName());
export const userFlowRepository = () => new DynamoUserFlowRepository(dynamo(), tableName());
export const importRepository = () => new DynamoImportRepository(dynamo(), tableName());
export const exportJobRepository = () => new DynamoExportJobRepository(dynamo(), tableName());
export const scimRepository = () => new DynamoScimRepository(dynamo(), tableName(), config().apiKeyCacheSeconds);

export const keyRepository = () => new DynamoKeyRepository(dynamo(), tableName());
export const signInRepository = () => new DynamoSignInRepository(dynamo(), tableName());
export const pendingSignUpRepository = () => new DynamoPendingSignUpRepository(dynamo(), tableName());
export const passkeyRepository = () => new DynamoPasskeyRepository(dynamo(), tableName());
export const grantRepository = () => new DynamoGrantRepository(dynamo(), tableName());
export const authorizationCodeRepository = <T>() => new DynamoAuthorizationCodeRepository<T>(dynamo(), tableName());
export const tempCodeRepository = () => new DynamoTempCodeRepository(dynamo(), tableName());
export const screenSessionRepository = () => new DynamoScreenSessionRepository(dynamo(), tableName());
/** SAML assertions already used (web/login/saml/service-provider.ts). */
export const samlAssertions = () => new DynamoSamlAssertionRepository(dynamo(), tableName());

/** A SaaS's events, EventBridge settings and webhooks (shared/domain/integration). */
export const eventRepository = () => new DynamoEventRepository(dynamo(), tableName());
/** The Analysis API's saved figures and page histories (shared/domain/analysis). */
export const analysisRepository = () => new DynamoAnalysisRepository(dynamo(), tableName());
