/**
 * Import jobs, the export and its jobs. What belongs here: moving a SaaS in and out, whether a request starts it or
 * the scheduled worker (shared/wiring/scheduled.ts) and `npm run admin -- import` run it, and what it composes.
 */
import { ImportService } from '../domain/migration/imports.js';
import { ExportService } from '../domain/migration/exports.js';
import { ExportJobService } from '../domain/migration/export-jobs.js';
import { poolName } from './accounts.js';
import { checkPasswordSignIn, configurationReader, loginThemeService } from './configuration.js';
import { invitationService } from './invitations.js';
import type { SettingPorts } from '../domain/migration/setting-rows.js';
import type { IntegrationPorts } from '../domain/migration/integration-rows.js';
import { parsePermissions } from '../domain/accounts/accounts.js';
import type { EnterprisePorts } from '../domain/migration/enterprise-rows.js';
import { roleExists, tenantOidcService } from './enterprise.js';
import { secretBox } from './clients.js';
import { checkWebhookUrl, webhookSecrets } from './integration.js';
import { catalogueService, paymentProviderService } from './pricing.js';
import {
  accountRepository,
  committer,
  definitionRepository,
  eventRepository,
  domainRepository,
  exportJobRepository,
  importRepository,
  invitationRepository,
  membershipRepository,
  passkeyRepository,
  scimRepository,
  settingsRepository,
  tenantRepository,
  userRepository,
} from './repositories.js';
import { tenantUserService } from './tenants.js';
import { userFlowService } from './users.js';

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
    roleExists,
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

/** Export jobs (issue 39): the API starts them and reads their files, the scheduled worker writes them. */
export const exportJobService = () => {
  const exports = exportService();
  return new ExportJobService({ jobs: exportJobRepository(), box: secretBox(), rows: (saasId, options) => exports.rows(saasId, options) });
};
