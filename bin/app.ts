/**
 * The CDK app: `npx cdk deploy` puts the whole service into your account. Deploy-time choices come as
 * context (`-c name=value`, or cdk.json), see docs/deployment.md:
 *   tracing=true                          X-Ray tracing of every function
 *   throttleRate=100 throttleBurst=200    API Gateway's default stage throttling
 *   domainName=... certificateArn=...     serve the API on your own domain
 *   loginDomain=... loginCertificateArn=...  each SaaS's login screen on <saas id>.<loginDomain> (a *.<loginDomain> certificate)
 *   defaultDomainName=auth.example.com    the default sign-in domain shown to every SaaS
 *   tableName=... tableStreamArn=...      use a table restored from a backup instead of the stack's own
 *   tokenIssuer=https://.../v1/auth       the `iss` of every token (default: the API's own URL, ApiUrl)
 * The alarm e-mail is a CloudFormation parameter: `--parameters AlarmEmail=ops@example.com`.
 */
import { App } from 'aws-cdk-lib';
import { ServiceStack } from '../lib/service-stack.js';

const app = new App();

function context(name: string): string | undefined {
  const value: unknown = app.node.tryGetContext(name);
  return value === undefined || value === '' ? undefined : String(value);
}

function positiveNumber(name: string): number | undefined {
  const raw = context(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`-c ${name}: a positive number, not ${raw}`);
  return value;
}

const rateLimit = positiveNumber('throttleRate');
const burstLimit = positiveNumber('throttleBurst');
const domainName = context('domainName');
const certificateArn = context('certificateArn');
if ((domainName === undefined) !== (certificateArn === undefined)) {
  throw new Error('-c domainName and -c certificateArn go together: a custom domain needs its certificate');
}
const loginDomain = context('loginDomain');
const loginCertificateArn = context('loginCertificateArn');
if ((loginDomain === undefined) !== (loginCertificateArn === undefined)) {
  throw new Error('-c loginDomain and -c loginCertificateArn go together: the screens need a certificate for *.<loginDomain>');
}
if (loginDomain !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/.test(loginDomain)) {
  throw new Error(`-c loginDomain: a lower-case domain name such as login.example.com, not ${loginDomain}`);
}
const defaultDomainName = context('defaultDomainName');
const tokenIssuer = context('tokenIssuer');
if (tokenIssuer !== undefined && !/^https:\/\/[^\s/?#]+(\/[^\s?#]*)?[^/]$/.test(tokenIssuer)) {
  throw new Error(`-c tokenIssuer: an https URL without a trailing slash, such as https://auth.example.com/v1/auth, not ${tokenIssuer}`);
}
const tableName = context('tableName');
const tableStreamArn = context('tableStreamArn');
if ((tableName === undefined) !== (tableStreamArn === undefined)) {
  throw new Error("-c tableName and -c tableStreamArn go together: the courier reads the restored table's stream");
}

new ServiceStack(app, 'TenantIdentityService', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: 'Identity and tenant management for multi-tenant SaaS (SaaSus Auth API compatible)',
  tracing: context('tracing') === 'true',
  ...(rateLimit || burstLimit ? { throttle: { rateLimit: rateLimit ?? 100, burstLimit: burstLimit ?? 200 } } : {}),
  ...(domainName && certificateArn ? { customDomain: { domainName, certificateArn } } : {}),
  ...(loginDomain && loginCertificateArn ? { loginDomain: { domainName: loginDomain, certificateArn: loginCertificateArn } } : {}),
  ...(defaultDomainName ? { defaultDomainName } : {}),
  ...(tableName && tableStreamArn ? { existingTable: { tableName, tableStreamArn } } : {}),
  ...(tokenIssuer ? { tokenIssuer } : {}),
});
