/** Every operation's schema by operation id: validation in the handlers, and the OpenAPI document. */
import type { OperationSchema } from './operation.js';
import { configurationSchemas } from './configuration.js';
import { definitionSchemas } from './definitions.js';
import { infrastructureSchemas, roleTemplateSchema } from './infrastructure.js';
import { invitationSchemas } from './invitations.js';
import { loginThemeSchemas } from './login-theme.js';
import { migrationSchemas } from './migration.js';
import { overviewSchemas } from './overview.js';
import { billingSchemas, meteringSchemas, pricingSchemas } from './pricing.js';
import { apiLogSchemas } from './apilog.js';
import { communicationSchemas } from './communication.js';
import { integrationSchemas, webhookSchemas } from './integration.js';
import { analysisSchemas } from './analysis.js';
import { publicSchemas } from './public.js';
import { signInSchemas } from './sign-in.js';
import { signUpSchemas } from './sign-up.js';
import { tenantSchemas } from './tenants.js';
import { enterpriseSchemas } from './enterprise.js';
import { tenantUserSchemas } from './tenant-users.js';
import { userSchemas } from './users.js';

export const OPERATION_SCHEMAS: Record<string, OperationSchema> = {
  ...configurationSchemas,
  ...loginThemeSchemas,
  ...definitionSchemas,
  ...tenantSchemas,
  ...enterpriseSchemas,
  ...userSchemas,
  ...tenantUserSchemas,
  ...invitationSchemas,
  ...infrastructureSchemas,
  ...signInSchemas,
  getRoleTemplate: roleTemplateSchema,
  ...publicSchemas,
  ...signUpSchemas,
  ...pricingSchemas,
  ...meteringSchemas,
  ...billingSchemas,
  ...apiLogSchemas,
  ...communicationSchemas,
  ...integrationSchemas,
  ...webhookSchemas,
  ...analysisSchemas,
  ...overviewSchemas,
  ...migrationSchemas,
};
