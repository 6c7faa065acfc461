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
