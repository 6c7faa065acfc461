/**
 * Services over the store, for the handlers and the scheduled worker. Each is a thin object over the one
 * document client that store/client.ts builds per cold start, so making them per request costs nothing.
 */
import { config } from './config.js';
import { DefinitionService } from './domain/definitions.js';
import { InfrastructureService } from './domain/infrastructure.js';
import { TenantService } from './domain/tenants.js';
import { DynamoAccountRepository } from './store/account-repository.js';
import { dynamo, tableName } from './store/client.js';
import { DynamoDefinitionRepository } from './store/definition-repository.js';
import { DynamoSettingsRepository } from './store/settings-repository.js';
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
