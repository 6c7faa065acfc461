/**
 * Import jobs, the export and the scheduled worker's round over every SaaS. What belongs here: work that runs outside a
 * request (the scheduled function, `npm run admin -- import`) and what it composes.
 */
import { ImportService } from '../domain/migration/imports.js';
import { ExportService } from '../domain/migration/exports.js';
import { poolName } from './accounts.js';
import { checkPasswordSignIn, configurationReader, loginThemeService } from './configuration.js';
import { invitationService } from './invitations.js';
import type { SettingPorts } from '../domain/migration/setting-rows.js';
import type { IntegrationPorts } from '../domain/migration/integration-rows.js';
import { parsePermissions } from '../domain/accounts/accounts.js';
import type { EnterprisePorts } from '../domain/migration/enterprise-rows.js';
import { tenantOidcService } from './enterprise.js';
import { ScheduledWork } from '../domain/scheduled-work.js';
import { DirectoryMigration } from '../store/directory-migration.js';
import { dynamo, secretBox, tableName } from './clients.js';
import { checkWebhookUrl, eventDeliverer, webhookSecrets } from './integration.js';
import { courier } from './mail.js';
import { catalogueService, paymentProviderService } from './pricing.js';
import {
  accountRepository,
  committer,
  definitionRepository,
  eventRepository,
  domainRepository,
  importRepository,
  invitationRepository,
  membershipRepository,
  passkeyRepository,
  scimRepository,
  settingsRepository,
  tenantRepository,
  userRepository,
} from './repositories.js';
import { tenantService, tenantUserService } from './tenants.js';
import { userFlowService } from './users.js';

const IMPORT_BUDGET_MS = 35_000;
/** Moving directories onto entries gets what imports leave of the run, up to 50 s of its 60. */
const DIRECTORY_BUDGET_MS = 50_000;

/**
 * The settings an import sets and an export reads, uncached: a job's setting row is read back by the next run.
 * Without SES or the domains: the sender's address and the screen's own domain move as names, and the target
 * makes their identity and certificate when the SaaS sets them there (docs/migration.md).
 */
const settingPorts = (): SettingPorts => {
  const settings = settingsRepository();
  return { configuration: configurationReader(settings, checkPasswordSignIn), theme: loginThemeService(), settings };
};

/** Webhooks, API keys and the payment provider, as the export reads them and the import writes them (integration-rows.ts). */
const integrationPorts = (): IntegrationPorts => {
  const payment = paymentProviderService();
  return {
    webhooks: eventRepository(),
    webhookSecrets: webhookSecrets(),
    checkUrl: checkWebhookUrl,
    apiKeys: accountRepository(),
    checkPermissions: parsePermissions,
    box: secretBox(),
    payment: {
      configured: async (saasId) => (await payment.settings(saasId)).provider !== '',
      secretKey: (saasId) => payment.exportedKey(saasId),
      configure: (saasId, input) => payment.configure(saasId, input),
    },
  };
};

/** Tenants' own identity providers, domains and SCIM set-up; passkeys read uncached, as the job's setting rows set them. */
const enterprisePorts = (settings: SettingPorts): EnterprisePorts => {
  const users = userRepository();
  return {
    tenants: tenantRepository(),
    oidc: tenantOidcService(),
    domains: domainRepository(),
    scim: scimRepository(),
    memberships: membershipRepository(users),
    users,
    roleExists: async (saasId, roleName) => (await definitionRepository().listRoles(saasId)).some((role) => role.role_name === roleName),
    passkeysEnabled: async (saasId) => (await settings.configuration.signInSettings(saasId)).passkeys.enable,
    committer: committer(),
  };
};

/** Import jobs (our extension, issue 39): the API starts them, the scheduled worker and `npm run admin -- import` run them. */
export const importService = () => {
  const [tenantUsers, flows, settings] = [tenantUserService(), userFlowService(), settingPorts()];
  return new ImportService({
    imports: importRepository(),
    users: userRepository(),
    tenants: tenantRepository(),
    memberships: membershipRepository(),
    definitions: definitionRepository(),
    committer: committer(),
    prepareMember: async (saasId, membership) => (await tenantUsers.prepareMembership(saasId, membership)).writes,
    planExists: async (saasId, planId) => (await catalogueService().planStatus(saasId, planId)) === 'exists',
    allowPasswordSignIn: (saasId) => configurationReader().passwordSignInForImport(saasId),
    mailSetPassword: (saasId, user) => flows.mailSetPasswordLink(saasId, user),
    box: secretBox(),
    passkeys: passkeyRepository(),
    settings,
    catalogue: catalogueService(),
    invitations: invitationService(),
    integration: integrationPorts(),
    enterprise: enterprisePorts(settings),
  });
};

/** The export (issue 39): the import file that rebuilds the SaaS elsewhere. */
export const exportService = () => {
  const settings = settingPorts();
  return new ExportService({
    users: userRepository(),
    tenants: tenantRepository(),
    memberships: membershipRepository(),
    definitions: definitionRepository(),
    poolName,
    passkeys: passkeyRepository(),
    box: secretBox(),
    settings,
    catalogue: catalogueService(),
    invitations: invitationRepository(),
    integration: integrationPorts(),
    enterprise: enterprisePorts(settings),
  });
};

/** Each run of the scheduled worker, over every SaaS. */
export const scheduledWork = () => {
  const [tenants, mail, imports, events] = [tenantService(), courier(), importService(), eventDeliverer()];
  // The scheduled function stops at 60 s (lib/service-stack.ts): imports get what the rest leaves of it.
  const importDeadline = Date.now() + IMPORT_BUDGET_MS;
  const directoryDeadline = Date.now() + DIRECTORY_BUDGET_MS;
  const directories = new DirectoryMigration(dynamo(), tableName());
  return new ScheduledWork({
    saasIds: async () => (await accountRepository().listSaas()).map((saas) => saas.id),
    applyDueReservations: (saasId) => tenants.applyDueReservations(saasId),
    deliverDueMail: async (saasId) => (await mail.deliverDue(saasId)).sent,
    mailBacklog: (saasId) => mail.backlog(saasId),
    runImports: (saasId) => imports.runUnfinished(saasId, { deadline: importDeadline }),
    deliverDueEvents: (saasId) => events.deliverDue(saasId),
    moveDirectory: (saasId) => directories.step(saasId, directoryDeadline),
  });
};
