import { RemovalPolicy, Stack, type Duration } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';

export type FunctionGroup = string;

export interface GroupFunctionProps {
  group: FunctionGroup;
  table: Table;
  secretsKey: IKey;
  /** Writes items (every group but the read-only public one). */
  writes: boolean;
  /** May send mail through SES (only the courier). */
  sendsMail: boolean;
  /** Manages SES identities and reads the account's sending status (the configuration group). */
  managesMailIdentities?: boolean;
  timeout: Duration;
  logRetention: RetentionDays;
  defaultDomainName: string;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * One Lambda per operation group (DESIGN.md decision 7): the environment it reads and the grants it needs
 * are set here together, so a function can never get a setting without its permission or the reverse.
 */
export class GroupFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: GroupFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.fn = new NodejsFunction(this, 'Function', {
      entry: `${root}functions/${props.group}/handler.ts`,
      handler: 'handler',
      projectRoot: root,
      depsLockFilePath: `${root}package-lock.json`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 1024,
      timeout: props.timeout,
      logGroup,
      environment: {
        TABLE_NAME: props.table.tableName,
        KMS_KEY_ID: props.secretsKey.keyArn,
        SERVICE_GROUP: props.group,
        DEFAULT_DOMAIN_NAME: props.defaultDomainName,
        SERVICE_ACCOUNT_ID: Stack.of(this).account,
        POWERTOOLS_SERVICE_NAME: 'tenant-identity',
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        minify: true,
        sourceMap: true,
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        // The AWS SDK is bundled too: a pinned, tree-shaken copy starts faster than the runtime's.
        externalModules: [],
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        forceDockerBundling: false,
      },
    });
    if (props.writes) props.table.grantReadWriteData(this.fn);
    else props.table.grantReadData(this.fn);
    // API-key secrets are opened on each cold start; nobody else may use the key.
    props.secretsKey.grantDecrypt(this.fn);
    if (props.sendsMail) {
      this.fn.addToRolePolicy(new PolicyStatement({ actions: ['ses:SendEmail', 'ses:SendRawEmail'], resources: ['*'] }));
    }
    if (props.managesMailIdentities) {
      this.fn.addToRolePolicy(
        new PolicyStatement({ actions: ['ses:CreateEmailIdentity', 'ses:GetEmailIdentity', 'ses:GetAccount'], resources: ['*'] }),
      );
    }
  }
}
