/**
 * CDK app of the example application (not part of the service's own stack):
 *   npx cdk deploy --app "npx tsx examples/app/infra/app.ts" \
 *     -c serviceUrl=https://<api>.execute-api.<region>.amazonaws.com -c saasId=<saas id> \
 *     -c apiKey=<api key with tenant:read,sign-in> -c apiKeySecret=<Secrets Manager secret name>
 */
import { App } from 'aws-cdk-lib';
import { ExampleAppStack } from './stack.js';

const app = new App();

function context(name: string): string {
  const value: unknown = app.node.tryGetContext(name);
  if (value === undefined || value === '') throw new Error(`-c ${name}=... is required (see examples/app/infra/app.ts)`);
  return String(value);
}

new ExampleAppStack(app, 'TenantIdentityExampleApp', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: 'Example SaaS application signing users in through the identity service',
  serviceUrl: context('serviceUrl'),
  saasId: context('saasId'),
  apiKey: context('apiKey'),
  apiKeySecret: context('apiKeySecret'),
});
