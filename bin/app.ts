/** The CDK app: `npx cdk deploy` puts the whole service into your account. */
import { App } from 'aws-cdk-lib';
import { ServiceStack } from '../lib/service-stack.js';

const app = new App();
new ServiceStack(app, 'TenantIdentityService', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: 'Identity and tenant management for multi-tenant SaaS (SaaSus Auth API compatible)',
});
