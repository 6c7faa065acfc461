/**
 * Services over the store, for the handlers and the scheduled worker. Each is a thin object over the one
 * document client that store/client.ts builds per cold start, so making them per request costs nothing.
 */
import { config } from './config.js';
import { ConfigurationService } from './domain/configuration.js';
import { sesClient, sesSendingClient } from './mail/clients.js';
import { Courier } from './mail/courier.js';
import { LocalEmailIdentities, SesEmailIdentities } from './mail/identities.js';
import { SesMailSender } from './mail/ses-sender.js';
import { DynamoOutboxRepository } from './store/outbox-repository.js';
import { DefinitionService } from './domain/definitions.js';
import { InfrastructureService } from './domain/infrastructure.js';
import { TenantService } from './domain/tenants.js';
import { DynamoAccountRepository } from './store/account-repository.js';
import { dynamo, secrets, tableName } from './store/client.js';
import { DynamoDefinitionRepository } from './store/definition-repository.js';
import { DynamoSettingsRepository } from './store/settings-repository.js';
import { DynamoSuppressionRepository } from './store/suppression-repository.js';
import { DynamoTenantRepository } from './store/tenant-repository.js';
import { TenantUserService } from './domain/tenant-users.js';
import { UserService } from './domain/users.js';
import { DynamoMembershipRepository } from './store/membership-repository.js';
import { DynamoCommitter } from './store/transact.js';
import { DynamoUserRepository } from './store/user-repository.js';

export const accountRepository = () => new DynamoAccountRepository(dynamo(), tableName());

export const definitionService = () => new DefinitionService(new DynamoDefinitionRepository(dynamo(), tableName()));

export const tenantService = () =>
  new TenantService(
    new DynamoTenantRepository(dynamo(), tableName()),
    new DynamoDefinitionRepository(dynamo(), tableName()),
    config().defaultDomainName,
  );

export const infrastructureService = () =>
  new InfrastructureService(new DynamoSettingsRepository(dynamo(), tableName()), config().serviceAccountId);

/** Locally there is no SES identity to create or verify: the stand-in answers instead. */
const emailIdentities = () => (config().sesEndpoint ? new LocalEmailIdentities() : new SesEmailIdentities(sesClient()));

export const configurationService = () =>
  new ConfigurationService(new DynamoSettingsRepository(dynamo(), tableName()), secrets(), emailIdentities(), config().defaultDomainName);

export const outboxRepository = () => new DynamoOutboxRepository(dynamo(), tableName());

export const suppressionRepository = () => new DynamoSuppressionRepository(dynamo(), tableName());

export const courier = () =>
  new Courier(
    outboxRepository(),
    configurationService(),
    secrets(),
    new SesMailSender(sesSendingClient(), config().mailConfigurationSet),
    suppressionRepository(),
  );

export const tenantUserService = () => {
  const users = new DynamoUserRepository(dynamo(), tableName());
  return new TenantUserService(
    new DynamoMembershipRepository(dynamo(), tableName(), users),
    users,
    new DynamoTenantRepository(dynamo(), tableName()),
    new DynamoDefinitionRepository(dynamo(), tableName()),
    new DynamoCommitter(dynamo()),
  );
};

export const userService = () => {
  const tenantUsers = tenantUserService();
  return new UserService({
    users: new DynamoUserRepository(dynamo(), tableName()),
    committer: new DynamoCommitter(dynamo()),
    definitions: new DynamoDefinitionRepository(dynamo(), tableName()),
    settings: new DynamoSettingsRepository(dynamo(), tableName()),
    box: secrets(),
    passwordPolicy: (saasId) => configurationService().passwordPolicy(saasId),
    poolName: async (saasId) => {
      const saas = await accountRepository().getSaas(saasId);
      if (!saas) throw new Error(`no SaaS account ${saasId}`);
      return saas.poolName;
    },
    userInfo: (saasId, userId) => tenantUsers.userInfo(saasId, userId),
  });
};
