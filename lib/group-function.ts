import { Aws, RemovalPolicy, Stack, type Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../shared/log.js';
import { INDEX_NAME } from '../shared/store/keys.js';
import { besideBundle, BUNDLE, entryOf, externalModules, PROJECT_ROOT } from './bundling.js';
import { FunctionRole } from './function-role.js';
import { acceptNagFindings } from './nag.js';

export type FunctionGroup = string;

export interface GroupFunctionProps {
  group: FunctionGroup;
  table: ITable;
  secretsKey: IKey;
  /** Writes items (every group but the read-only public one). */
  writes: boolean;
  /**
   * Seals new secrets through the secret box (kms:GenerateDataKey): provider secrets, signing keys, and
   * the codes and temporary passwords it puts in the mail outbox. Every other function may only open them.
   */
  seals: boolean;
  /** Reads the table (every function but the API log writer, which only writes). */
  reads?: boolean;
  /**
   * A function that writes nothing else may update items of these partitions only (IAM patterns of partition
   * keys, dynamodb:LeadingKeys): the console's failed sign-in counts, the API log writer's sign-in counts.
   */
  updatesOnly?: readonly string[];
  /** A function that writes nothing else may batch-put items of these partitions only: the API log writer's records. */
  batchPutsOnly?: readonly string[];
  /**
   * A function that writes nothing else may update these attributes only (dynamodb:Attributes, the item's key among
   * them) of items in these partitions: the API log writer's copy of a sign-in's time to the user's directory entry.
   */
  attributeUpdatesOnly?: { partitions: readonly string[]; attributes: readonly string[] };
  /** Opens sealed secrets (kms:Decrypt): API-key secrets on every signed request, mail values in the courier. */
  opens?: boolean;
  /** May send mail through SES (only the courier), always through this configuration set. */
  sendsMailWith?: string;
  /** Manages SES identities and reads the account's sending status (the configuration group). */
  managesMailIdentities?: boolean;
  timeout: Duration;
  logRetention: RetentionDays;
  defaultDomainName: string;
  /** X-Ray: active tracing, and the handlers capture their AWS SDK calls. */
  tracing: boolean;
  /** A folder copied beside the bundle as `public/` (the login screen's built script and style). */
  publicDir?: string;
  /**
   * Maps a SaaS's own domain for its login screen to this API (its id): ACM certificates and API Gateway custom
   * domains (shared/adapters/site-domains.ts). The configuration function, and an entry function that asks.
   */
  servesSaasDomainsOf?: string;
}

/** The props that say nothing of a function's grants; every other one is part of its grant set (FunctionRole). */
const NOT_GRANTS = ['group', 'timeout', 'logRetention', 'defaultDomainName', 'publicDir'] as const satisfies readonly (keyof GroupFunctionProps)[];

/** What a function may do, as one string: functions with the same one share a role. Tokens are stable within a stack. */
function grantSet(props: GroupFunctionProps): string {
  // A flag that is off says what an absent one says: `reads` and `opens` are on unless false, the others off unless true.
  const { table, secretsKey, reads = true, opens = true, ...rest } = props;
  const said = Object.entries({ ...rest, reads, opens })
    .filter(([name, value]) => !(NOT_GRANTS as readonly string[]).includes(name) && value !== undefined && value !== false)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([...said, ['table', table.tableArn], ['secretsKey', secretsKey.keyArn]]);
}

/** NodejsFunction's share of lib/bundling.ts: every function of the service, and the example app's, is built so. */
export const NODEJS_BUNDLING = {
  minify: BUNDLE.minify,
  sourceMap: BUNDLE.sourceMap,
  format: OutputFormat.ESM,
  target: BUNDLE.target,
  mainFields: [...BUNDLE.mainFields],
  banner: BUNDLE.banner,
  forceDockerBundling: false,
} satisfies BundlingOptions;

const TABLE_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
/** What DynamoDB itself needs of a table's customer-managed key when it reads or writes for the caller. */
const TABLE_KEY_READ = ['kms:Decrypt', 'kms:DescribeKey'];
const TABLE_KEY_WRITE = ['kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'];

/**
 * One Lambda per operation group (docs/decisions.md, decision 7): the environment it reads and the grants it needs
 * are set here together, so a function can never get a setting without its permission or the reverse.
 */
export class GroupFunction extends Construct {
  readonly fn: NodejsFunction;
  /** Its log group: the API log writer's subscription filters read the lines told for it there (lib/service-stack.ts). */
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: GroupFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.logGroup = logGroup;
    const role = FunctionRole.join(this, props.group, grantSet(props));
    this.fn = new NodejsFunction(this, 'Function', {
      role,
      entry: entryOf(props.group),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 1024,
      timeout: props.timeout,
      logGroup,
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      environment: {
        TABLE_NAME: props.table.tableName,
        KMS_KEY_ID: props.secretsKey.keyArn,
        SERVICE_GROUP: props.group,
        DEFAULT_DOMAIN_NAME: props.defaultDomainName,
        SERVICE_ACCOUNT_ID: Stack.of(this).account,
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        METRICS_ENABLED: 'true',
        TRACING_ENABLED: String(props.tracing),
        ...(props.sendsMailWith ? { MAIL_CONFIGURATION_SET: props.sendsMailWith } : {}),
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        ...NODEJS_BUNDLING,
        // The AWS SDK is bundled too: a pinned, tree-shaken copy starts faster than the runtime's.
        externalModules: externalModules(props.tracing),
        esbuildArgs: Object.fromEntries(Object.entries(BUNDLE.alias).map(([from, to]) => [`--alias:${from}`, to])),
        ...(props.publicDir || besideBundle(props.group, '').length > 0
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_input: string, output: string) => [
                  ...(props.publicDir ? [`cp -R "${props.publicDir}" "${output}/public"`] : []),
                  // Beside the bundle, not in it: loaded only when a password is set or a person migrates.
                  ...besideBundle(props.group, output),
                ],
              },
            }
          : {}),
      },
    });
    this.grantTable(props);
    this.grantSecrets(props);
    const unscoped = [
      ...(props.sendsMailWith || props.managesMailIdentities
        ? [
            'SES identities are created per SaaS at run time (PUT /basic-info), so their ARNs are unknown at deploy time; ses:GetAccount has no resource',
          ]
        : []),
      ...(props.tracing ? ['X-Ray PutTraceSegments and PutTelemetryRecords have no resource to scope to'] : []),
    ];
    if (props.sendsMailWith) {
      this.fn.addToRolePolicy(new PolicyStatement({ actions: ['ses:SendEmail', 'ses:SendRawEmail'], resources: ['*'] }));
    }
    if (props.managesMailIdentities) {
      this.fn.addToRolePolicy(
        new PolicyStatement({ actions: ['ses:CreateEmailIdentity', 'ses:GetEmailIdentity', 'ses:GetAccount'], resources: ['*'] }),
      );
    }
    if (props.servesSaasDomainsOf) this.servesSaasDomains(props.servesSaasDomainsOf);
    role.built(props.group);
    acceptNagFindings(this, {
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
        'AWSLambdaBasicExecutionRole allows writing to CloudWatch Logs and nothing else',
      'AwsSolutions-L1':
        'docs/decisions.md pins Node.js 22 (the runtime the service is built, bundled and measured for); upgrades go through an issue',
      // A function that writes only some partitions (the console, the API log writer) writes them through DynamoDB.
      ...(props.writes || props.updatesOnly || props.batchPutsOnly
        ? {
            'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]':
              'what DynamoDB needs of the table key to write for the function, and only via DynamoDB (kms:ViaService)',
            'AwsSolutions-IAM5[Action::kms:ReEncrypt*]':
              'what DynamoDB needs of the table key to write for the function, and only via DynamoDB (kms:ViaService)',
          }
        : {}),
      ...(unscoped.length ? { 'AwsSolutions-IAM5[Resource::*]': unscoped.join('; ') } : {}),
    });
  }

  /**
   * A SaaS's own domain for its login screen (shared/adapters/site-domains.ts): ask ACM for its certificate and read it,
   * then an API Gateway custom domain with it, mapped to `apiId`.
   */
  private servesSaasDomains(apiId: string): void {
    const { partition, region, account } = Stack.of(this);
    this.fn.addEnvironment('API_ID', apiId);
    const domainNames = `arn:${partition}:apigateway:${region}::/domainnames`;
    this.fn.addToRolePolicy(new PolicyStatement({ actions: ['acm:RequestCertificate'], resources: ['*'] }));
    this.fn.addToRolePolicy(
      new PolicyStatement({ actions: ['acm:DescribeCertificate'], resources: [`arn:${partition}:acm:${region}:${account}:certificate/*`] }),
    );
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['apigateway:GET', 'apigateway:POST'],
        resources: [domainNames, `${domainNames}/*`, `${domainNames}/*/apimappings`],
      }),
    );
    // API Gateway's service-linked role, made by the first custom domain of the account.
    const linkedRoles = `arn:${partition}:iam::${account}:role/aws-service-role/ops.apigateway.amazonaws.com/*`;
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:CreateServiceLinkedRole'],
        resources: [linkedRoles],
        conditions: { StringEquals: { 'iam:AWSServiceName': 'ops.apigateway.amazonaws.com' } },
      }),
    );
    const perSaas = "the domains are the SaaS products' own, set at run time (PUT /basic-info): their names are unknown at deploy time";
    acceptNagFindings(this, {
      'AwsSolutions-IAM5[Resource::*]': 'acm:RequestCertificate has no resource to scope to (and SES identities are created per SaaS at run time)',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:acm:<AWS::Region>:<AWS::AccountId>:certificate/*]': `certificates of this account and region only; ${perSaas}`,
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/domainnames/*]': `custom domains of this region only; ${perSaas}`,
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/domainnames/*/apimappings]': `their API mappings; ${perSaas}`,
      [`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/aws-service-role/ops.apigateway.amazonaws.com/*]`]:
        "API Gateway's own service-linked role, and only with iam:AWSServiceName ops.apigateway.amazonaws.com",
    });
  }

  /**
   * The table is encrypted with the secrets key, so DynamoDB needs the key on the function's behalf. That
   * use is granted only through DynamoDB (kms:ViaService): it must not let a function seal secrets itself.
   */
  private grantTable({ table, secretsKey, writes, reads = true, updatesOnly, batchPutsOnly, attributeUpdatesOnly }: GroupFunctionProps): void {
    if (reads || writes) {
      Grant.addToPrincipal({
        grantee: this.fn,
        actions: [...(reads ? TABLE_READ : []), ...(writes ? TABLE_WRITE : [])],
        resourceArns: [table.tableArn, `${table.tableArn}/index/${INDEX_NAME}`],
      });
    }
    const only = (action: string, partitions: readonly string[] | undefined, attributes?: readonly string[]) => {
      if (writes || !partitions || partitions.length === 0) return false;
      this.fn.addToRolePolicy(
        new PolicyStatement({
          actions: [action],
          resources: [table.tableArn],
          conditions: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] },
            ...(attributes ? { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...attributes] } } : {}),
          },
        }),
      );
      return true;
    };
    const writesSome = [
      only('dynamodb:UpdateItem', updatesOnly),
      only('dynamodb:BatchWriteItem', batchPutsOnly),
      only('dynamodb:UpdateItem', attributeUpdatesOnly?.partitions, attributeUpdatesOnly?.attributes),
    ].includes(true);
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: [...TABLE_KEY_READ, ...(writes || writesSome ? TABLE_KEY_WRITE : [])],
        resources: [secretsKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Aws.REGION}.amazonaws.com` } },
      }),
    );
  }

  /** The secret box calls KMS directly: GenerateDataKey to seal, Decrypt to open (shared/crypto/secret-box.ts). */
  private grantSecrets({ secretsKey, seals, opens = true }: GroupFunctionProps): void {
    if (opens) secretsKey.grantDecrypt(this.fn);
    if (seals) secretsKey.grant(this.fn, 'kms:GenerateDataKey');
  }
}
